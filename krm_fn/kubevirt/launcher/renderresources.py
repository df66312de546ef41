"""``compute_resources``: the requests and limits of the launcher pod's ``compute`` container
(``pkg/virt-controller/services/renderresources.go`` and the rule list of ``VMIResourcePredicates`` in
``template.go``).

The renderer keeps two layers, as upstream: the VMI's own requests and limits (``vm``, every key) and what it
computes (``calc``); the container gets ``calc`` overlaid by ``vm``.
The base options run first (ephemeral storage, device plugins), then each rule whose predicate holds, in
upstream's order; shared/docs/pod-resources.md section 3 has each with its release.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from krm_fn.kube.amount import NANO, nanos, nanos_or_zero
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.quantity_json import go_float_string
from krm_fn.kube.selector import matches
from krm_fn.kubevirt.launcher.overhead import dedicated, is_sev, vcpus
from krm_fn.kubevirt.webhooks.config import WebhookConfig

EPHEMERAL_OVERHEAD: Final = 50 * 10**6 * NANO  # "50M"
DEVICE_PREFIX: Final = "devices.kubevirt.io/"
PARITY: Final = "alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity"
MEMORY_LIMIT_RATIO: Final = "alpha.kubevirt.io/auto-memory-limits-ratio"
DEFAULT_MEMORY_LIMIT_RATIO: Final = 2.0

Amounts = dict[str, int]  # resource name -> nano units


class PodContext(NamedTuple):
    """What the compute container's rules read besides the VMI spec: the VMI's annotations, its namespace's
    labels, and which of ``limits.cpu`` / ``limits.memory`` a ResourceQuota there tracks."""

    annotations: Obj
    labels: Obj
    quota_cpu_limit: bool
    quota_memory_limit: bool
    multus_resources: tuple[str, ...]  # the device-plugin resource of each multus network, where it names one


def compute_resources(spec: Obj, overhead: int, config: WebhookConfig, context: PodContext) -> tuple[Amounts, Amounts]:
    """(requests, limits) of the compute container of the VMI spec ``spec``, ``overhead`` its memory overhead."""
    domain = spec["domain"]
    resources = as_map(domain.get("resources"))
    vm_req: Amounts = {k: nanos(v) for k, v in as_map(resources.get("requests")).items()}
    vm_lim: Amounts = {k: nanos(v) for k, v in as_map(resources.get("limits")).items()}
    calc_req: Amounts = {}
    calc_lim: Amounts = {}
    vm_req["ephemeral-storage"] = vm_req.get("ephemeral-storage", 0) + EPHEMERAL_OVERHEAD
    if "ephemeral-storage" in vm_lim:
        vm_lim["ephemeral-storage"] += EPHEMERAL_OVERHEAD
    for device in device_plugins(spec, config):
        vm_lim[device] = NANO
    if not config.release.expand_memory_request and not vm_req.get("memory"):
        _memory_request(domain, vm_req, vm_lim, config)
    if dedicated(spec):
        _dedicated_cpu(domain, vm_req, vm_lim, context)
    else:
        _shared_cpu(spec, calc_req, calc_lim, config, context, "cpu" not in vm_lim)
    memory = as_map(domain.get("memory"))
    if memory.get("hugepages") is not None:
        _hugepages(memory, vm_req, vm_lim, calc_req, calc_lim, overhead)
    else:
        if resources.get("overcommitGuestOverhead") is not True:
            vm_req["memory"] = vm_req.get("memory", 0) + overhead
        if "memory" in vm_lim:
            vm_lim["memory"] += overhead
    if "memory" not in as_map(resources.get("limits")) and context.quota_memory_limit:
        calc_lim["memory"] = int(float(vm_req.get("memory", 0) // NANO) * _memory_limit_ratio(context.labels)) * NANO
    for name in context.multus_resources + _device_resources(spec, config):
        calc_req[name] = calc_req.get(name, 0) + NANO
        calc_lim[name] = calc_lim.get(name, 0) + NANO
    return {**calc_req, **vm_req}, {**calc_lim, **vm_lim}


def device_plugins(spec: Obj, config: WebhookConfig) -> list[str]:
    """The KubeVirt device plugins the pod asks for (``getRequiredResources``): tun for a pod with interfaces,
    vhost-net for a virtio one and kvm unless emulated, vhost-vsock for VSOCK."""
    devices = as_map(spec["domain"].get("devices"))
    emulated = as_map(config.cluster.configuration.get("developerConfiguration")).get("useEmulation") is True
    interfaces = as_list(devices.get("interfaces"))
    names = []
    if interfaces or devices.get("autoattachPodInterface") is not False:
        names.append("tun")
    if not emulated and any(as_map(i).get("model", "") in ("", "virtio") for i in interfaces):
        names.append("vhost-net")
    if not emulated:
        names.append(_hypervisor_device(config))
    if devices.get("autoattachVSOCK") is True:
        names.append("vhost-vsock")
    return [DEVICE_PREFIX + name for name in names]


def _hypervisor_device(config: WebhookConfig) -> str:
    """``kvm``, or ``mshv`` for the hyperv-direct hypervisor (ConfigurableHypervisor gate, v1.8+)."""
    hypervisors = as_list(config.cluster.configuration.get("hypervisors"))
    if config.release.reserved_overhead and config.gate("ConfigurableHypervisor") and hypervisors and \
            as_map(hypervisors[0]).get("name") == "hyperv-direct":
        return "mshv"
    return "kvm"


def _memory_request(domain: Obj, vm_req: Amounts, vm_lim: Amounts, config: WebhookConfig) -> None:
    """``WithMemoryRequests`` (v1.6.4+): the limit, else the guest memory (or the hugepage size) over the
    cluster's memory overcommit."""
    if vm_lim.get("memory"):
        vm_req["memory"] = vm_lim["memory"]
        return
    memory = as_map(domain.get("memory"))
    base = memory.get("guest")
    if base is None:
        base = as_map(memory.get("hugepages")).get("pageSize")
    if base is None:
        return
    overcommit = as_map(config.cluster.configuration.get("developerConfiguration")).get("memoryOvercommit", 100)
    amount = nanos_or_zero(base)
    if isinstance(overcommit, int) and overcommit not in (0, 100):
        amount = amount // NANO * 100 // overcommit * NANO
    vm_req["memory"] = amount


def _dedicated_cpu(domain: Obj, vm_req: Amounts, vm_lim: Amounts, context: PodContext) -> None:
    """``WithCPUPinning``: whole CPUs for the vCPUs and the supplemental IOThreads, one or two more for an
    isolated emulator thread; the memory limit becomes the request."""
    cpu = as_map(domain.get("cpu"))
    count = vcpus({"domain": domain}) if isinstance(domain.get("cpu"), dict) else 0
    threads = as_map(domain.get("ioThreads"))
    pool = threads.get("supplementalPoolThreadCount") or 0
    pool = pool if isinstance(pool, int) else 0
    if count:
        vm_lim["cpu"] = vm_req["cpu"] = (count + pool) * NANO
    else:
        for layer in (vm_lim, vm_req):
            if "cpu" in layer:
                layer["cpu"] += pool * NANO
    if cpu.get("isolateEmulatorThread") is True:
        extra = pool if domain.get("ioThreadsPolicy") == "supplementalPool" else 0
        even = (vm_lim.get("cpu", 0) // NANO + extra) % 2 == 0
        emulator = 2 if context.annotations.get(PARITY) is not None and even else 1
        vm_lim["cpu"] = vm_lim.get("cpu", 0) + emulator * NANO
        if "cpu" in vm_req:
            vm_req["cpu"] += emulator * NANO
    if "memory" in vm_req:
        vm_lim["memory"] = vm_req["memory"]


def _shared_cpu(spec: Obj, calc_req: Amounts, calc_lim: Amounts, config: WebhookConfig, context: PodContext,
                unlimited: bool) -> None:
    """``WithoutDedicatedCPU``: the vCPUs (and supplemental IOThreads) over the CPU allocation ratio; as a limit
    too when the namespace asks for automatic CPU limits."""
    domain = spec["domain"]
    pool = as_map(domain.get("ioThreads")).get("supplementalPoolThreadCount") or 0
    count = vcpus(spec) + (pool if isinstance(pool, int) else 0)
    developer = as_map(config.cluster.configuration.get("developerConfiguration"))
    ratio = developer.get("cpuAllocationRatio", 10)
    if not isinstance(ratio, int) or ratio <= 0:
        return
    value = count / ratio
    calc_req["cpu"] = nanos(go_float_string(value) if value >= 1 else go_float_string(value * 1000) + "m")
    selector = config.cluster.configuration.get("autoCPULimitNamespaceLabelSelector")
    if unlimited and (context.quota_cpu_limit or isinstance(selector, dict) and matches(selector, context.labels)):
        calc_lim["cpu"] = count * NANO


def _hugepages(memory: Obj, vm_req: Amounts, vm_lim: Amounts, calc_req: Amounts, calc_lim: Amounts,
               overhead: int) -> None:
    """``WithHugePages``: the guest memory in hugepages of the page size; memory only for the overhead and what the
    request (limit) exceeds the guest by."""
    guest = nanos_or_zero(memory.get("guest"))
    request = vm_req.get("memory", 0)
    pages = guest if guest and request > guest else request
    name = f"hugepages-{as_map(memory.get('hugepages')).get('pageSize')}"
    calc_req[name] = calc_lim[name] = pages
    vm_req["memory"] = overhead + (request - guest if guest and request > guest else 0)
    if "memory" in vm_lim:
        limit = vm_lim["memory"]
        vm_lim["memory"] = overhead + (limit - guest if guest and limit > guest else 0)


def _memory_limit_ratio(labels: Obj) -> float:
    """The namespace's ``alpha.kubevirt.io/auto-memory-limits-ratio`` when it reads as a number of at least 1."""
    try:
        ratio = float(str(labels.get(MEMORY_LIMIT_RATIO)))
    except ValueError:
        return DEFAULT_MEMORY_LIMIT_RATIO
    return ratio if ratio >= 1.0 else DEFAULT_MEMORY_LIMIT_RATIO


def _device_resources(spec: Obj, config: WebhookConfig) -> tuple[str, ...]:
    """One of each device-plugin resource per GPU and host device (v1.6+: those without a resource claim), and
    KubeVirt's devices for SEV, TDX, persistent reservation and IOMMUFD."""
    domain = spec["domain"]
    devices = as_map(domain.get("devices"))
    release = config.release
    names = [str(d["deviceName"]) for group in ("gpus", "hostDevices") for d in as_list(devices.get(group))
             if isinstance(d, dict) and d.get("deviceName")
             and not (release.device_claims and d.get("claimRequest") is not None)]
    security = as_map(domain.get("launchSecurity"))
    if is_sev(spec, config):
        names.append(DEVICE_PREFIX + "sev")
    if release.tdx_iommufd_devices and security.get("tdx") is not None:
        names.append(DEVICE_PREFIX + "tdx")
    if any(as_map(as_map(d).get("lun")).get("reservation") is True for d in as_list(devices.get("disks"))):
        names.append(DEVICE_PREFIX + "pr-helper")
    if release.tdx_iommufd_devices and config.gate("IOMMUFD"):
        names.append(DEVICE_PREFIX + "iommufd")
    return tuple(names)
