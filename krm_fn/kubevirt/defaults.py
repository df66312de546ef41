"""The defaults expand applies (``pkg/defaults/defaults.go`` ``SetDefaultVirtualMachineInstanceSpec``,
``pkg/util/util.go`` ``SetDefaultVolumeDisk``, ``pkg/network/vmispec/defaults.go``
``SetDefaultNetworkInterface``), driven by :class:`krm_fn.kubevirt.cluster.ClusterConfig`."""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_map, ensure_map, get2, get3
from krm_fn.kubevirt.cluster import ClusterConfig, architecture_configuration
from krm_fn.kube.quantity import Quantity, QuantityError
from krm_fn.kube.quantity_json import from_json, scalar_memo
from krm_fn.kubevirt_versions import LATEST, Release

DEFAULT_CPU_REQUEST: Final = "100m"
MACHINE_TYPES: Final[dict[str, str]] = {
    "amd64": "q35",
    "arm64": "virt",
    "s390x": "s390-ccw-virtio",
    "ppc64le": "pseries",
}
DEFAULT_NETWORK_NAME: Final = "default"
NETWORKS_FIELD: Final = "spec.template.spec.networks"  # where a DefaultsError points


class DefaultsError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def set_default_volume_disks(vmi: Obj) -> None:
    """A disk ``{name}`` for every volume that has no disk or filesystem of the same name."""
    volumes = vmi.get("volumes") or []
    if not volumes:
        return
    devices = ensure_map(vmi, ("domain", "devices"))
    taken = {d.get("name") for d in devices.get("disks") or []}
    taken |= {f.get("name") for f in devices.get("filesystems") or []}
    for volume in volumes:
        name = volume.get("name")
        if name not in taken:
            devices.setdefault("disks", [])
            if devices["disks"] is None:
                devices["disks"] = []
            devices["disks"].append({"name": name})
            taken.add(name)


def set_default_network_interface(cluster: ClusterConfig, vmi: Obj) -> None:
    """The pod network and its interface when the VM has neither networks nor interfaces."""
    devices = get2(vmi, "domain", "devices") or {}
    if devices.get("autoattachPodInterface") is False:
        return
    if vmi.get("networks") or devices.get("interfaces"):
        return
    binding = cluster.default_network_interface
    if binding == "bridge":
        if not cluster.permit_bridge_interface_on_pod_network:
            raise DefaultsError("bridge interface is not enabled in kubevirt-config")
        iface: Obj = {"name": DEFAULT_NETWORK_NAME, "bridge": {}}
    elif binding == "masquerade":
        iface = {"name": DEFAULT_NETWORK_NAME, "masquerade": {}}
    elif binding == "slirp":
        raise DefaultsError("slirp interface is deprecated as of v1.3")
    else:
        raise DefaultsError(f"invalid default network interface {binding}")
    ensure_map(vmi, ("domain", "devices"))["interfaces"] = [iface]
    vmi["networks"] = [{"name": DEFAULT_NETWORK_NAME, "pod": {}}]


@scalar_memo
def _quantity_is_zero(value: object) -> bool:
    if value is None:
        return True
    try:
        return from_json(value).is_zero()
    except QuantityError:
        return True


@scalar_memo
def _ceil_value(value: object) -> int:
    """The quantity's value rounded up (Go's ``Quantity.Value``), 0 when it does not parse."""
    try:
        return from_json(value).value()
    except QuantityError:
        return 0


def _set_resource_requests(cluster: ClusterConfig, vmi: Obj) -> None:
    resources = ensure_map(vmi, ("domain", "resources"))
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    if not _quantity_is_zero(limits.get("cpu")) and _quantity_is_zero(requests.get("cpu")):
        ensure_map(resources, ("requests",))["cpu"] = limits["cpu"]
    if cluster.cpu_request != DEFAULT_CPU_REQUEST:
        try:
            differs = from_json(cluster.cpu_request) != from_json(DEFAULT_CPU_REQUEST)
        except QuantityError:
            differs = False
        cpu = get2(vmi, "domain", "cpu") or {}
        if differs and "cpu" not in (resources.get("requests") or {}) and not cpu.get("dedicatedCpuPlacement"):
            ensure_map(resources, ("requests",))["cpu"] = cluster.cpu_request


def _set_memory_request(resources: Obj, memory: Obj, overcommit: object = 100) -> None:
    """v1.5's memory request (its ``setDefaultResourceRequests``): a non-zero limit replaces a zero or missing
    request; then, when there is still no request, the guest memory (else the hugepages page size, when it
    parses) becomes it if its value is positive, over the cluster's ``memoryOvercommit`` percentage (in the
    guest's format)."""
    limits = resources.get("limits")
    limit = limits.get("memory") if limits else None  # None: zero, as a missing limit is
    if limit is not None and not _quantity_is_zero(limit) \
            and _quantity_is_zero((resources.get("requests") or {}).get("memory")):
        ensure_map(resources, ("requests",))["memory"] = limit
    requests = resources.get("requests")
    if requests and "memory" in requests:
        return
    amount = memory.get("guest")
    if amount is None and memory.get("hugepages") is not None:
        amount = get2(memory, "hugepages", "pageSize")
    if amount is not None and _ceil_value(amount) > 0:
        if isinstance(overcommit, int) and not isinstance(overcommit, bool) and overcommit not in (0, 100):
            quantity = from_json(amount)
            amount = str(Quantity.from_int(quantity.value() * 100 // overcommit, quantity.format))
        ensure_map(resources, ("requests",))["memory"] = amount


def _set_guest_memory(vmi: Obj) -> None:
    memory = ensure_map(vmi, ("domain", "memory"))
    if memory.get("guest") is not None:
        return
    resources = get2(vmi, "domain", "resources") or {}
    for section in ("requests", "limits"):
        value = (resources.get(section) or {}).get("memory")
        if not _quantity_is_zero(value):
            memory["guest"] = value
            return
    page_size = get2(memory, "hugepages", "pageSize")
    if page_size:
        try:
            from_json(page_size)
        except QuantityError:
            return
        memory["guest"] = page_size


def _set_cpu_topology(vmi: Obj) -> None:
    cpu = get2(vmi, "domain", "cpu")
    if cpu is not None and (cpu.get("sockets") or cpu.get("cores") or cpu.get("threads")):
        return
    resources = get2(vmi, "domain", "resources") or {}
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    sockets = 1
    if "cpu" in limits:
        sockets = _ceil_value(limits["cpu"])
    elif "cpu" in requests:
        sockets = _ceil_value(requests["cpu"])
    cpu = ensure_map(vmi, ("domain", "cpu"))
    cpu["sockets"] = sockets
    cpu["cores"] = 1
    cpu["threads"] = 1


def _set_image_pull_policies(vmi: Obj) -> None:
    for volume in vmi.get("volumes") or []:
        disk = volume.get("containerDisk")
        if not isinstance(disk, dict) or disk.get("imagePullPolicy"):
            continue
        image = str(disk.get("image") or "")
        always = image.endswith(":latest") or (":" not in image and "@" not in image)
        disk["imagePullPolicy"] = "Always" if always else "IfNotPresent"


def machine_type_for(cluster: ClusterConfig, arch: str, release: Release = LATEST) -> str:
    """``GetMachineType``: the cluster override, else the architecture's (the CR's, else its default; amd64's
    for others, and for ppc64le from v1.7)."""
    configured = architecture_configuration(cluster, arch).get("machineType")
    known = arch if arch != "ppc64le" or release.ppc64le_machine_type else "amd64"
    return cluster.machine_type or (configured if isinstance(configured, str) and configured else None) or \
        MACHINE_TYPES.get(known, MACHINE_TYPES["amd64"])


def set_default_vmi_spec(cluster: ClusterConfig, vmi: Obj, release: Release = LATEST) -> None:
    """``SetDefaultVirtualMachineInstanceSpec`` on a VMI spec (VM: ``spec.template.spec``), as ``release`` sets
    them (v1.5 also a memory request)."""
    if not vmi.get("architecture"):
        vmi["architecture"] = cluster.architecture
    if not get3(vmi, "domain", "machine", "type"):
        ensure_map(vmi, ("domain", "machine"))["type"] = machine_type_for(cluster, str(vmi["architecture"]), release)
    _set_resource_requests(cluster, vmi)
    if release.expand_memory_request:
        overcommit = as_map(cluster.configuration.get("developerConfiguration")).get("memoryOvercommit", 100)
        _set_memory_request(ensure_map(vmi, ("domain", "resources")), get2(vmi, "domain", "memory") or {},
                            overcommit)
    _set_guest_memory(vmi)
    _set_cpu_topology(vmi)
    _set_image_pull_policies(vmi)
    if vmi.get("evictionStrategy") is None and cluster.eviction_strategy:
        vmi["evictionStrategy"] = cluster.eviction_strategy
    set_default_network_interface(cluster, vmi)
    set_default_volume_disks(vmi)
