"""``grace.go`` (v1.9): NVIDIA Grace GPU passthrough, behind the GraceIOVirtualization gate.

A GPU or host device whose resource the cluster permits with a Grace GPU's PCI selector (vendor 10DE, device 2342,
2348 or 2941) is a Grace request.
One permitted with an NVIDIA selector of any device (``10de:*``) is ambiguous.
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.defaults import machine_type_for

NVIDIA: Final = "10DE"
GRACE_DEVICES: Final = frozenset({"2342", "2348", "2941"})
_HEX: Final = frozenset("0123456789ABCDEF")
ROOT_COMPLEX: Final = "kubevirt.io/placePCIDevicesOnRootComplex"
NO_PCI_HOLE64: Final = "kubevirt.io/disablePCIHole64"


def _selector(text: Any) -> tuple[str, str] | None:
    """``ParsePCIVendorSelector``: vendor and device, upper-case, four hex digits each (the device may be ``*``)."""
    parts = str(text).split(":")
    if len(parts) != 2:
        return None
    vendor, device = (p.strip().upper() for p in parts)
    if not _hex_id(vendor) or device != "*" and not _hex_id(device):
        return None
    return vendor, device


def _hex_id(text: str) -> bool:
    return len(text) == 4 and set(text) <= _HEX


def grace_requests(field: str, spec: Obj, config: WebhookConfig) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The (field, resource) of the Grace requests and of the ambiguous NVIDIA ones, GPUs first."""
    permitted = as_map(config.cluster.configuration.get("permittedHostDevices"))
    selectors = {as_map(d).get("resourceName"): as_map(d).get("pciVendorSelector")
                 for d in as_list(permitted.get("pciHostDevices"))
                 if as_map(d).get("resourceName") and as_map(d).get("pciVendorSelector")}
    grace: list[tuple[str, str]] = []
    ambiguous: list[tuple[str, str]] = []
    if not selectors:
        return grace, ambiguous
    devices = as_map(as_map(spec.get("domain")).get("devices"))
    for key in ("gpus", "hostDevices"):
        for idx, device in enumerate(as_list(devices.get(key))):
            name = as_map(device).get("deviceName")
            parsed = _selector(selectors.get(name)) if name in selectors else None
            if parsed is None or parsed[0] != NVIDIA:
                continue
            request = (f"{field}.domain.devices.{key}[{idx}].deviceName", str(name))
            if parsed[1] in GRACE_DEVICES:
                grace.append(request)
            elif parsed[1] == "*":
                ambiguous.append(request)
    return grace, ambiguous


def validate_grace(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """``validateGraceIOVirtualization``: the gate, then an arm64 ``virt`` machine with dedicated CPUs and the
    gates Grace needs."""
    if not config.release.grace_checked:
        return []
    grace, ambiguous = grace_requests(field, spec, config)
    if not grace and not ambiguous:
        return []
    on = config.gate("GraceIOVirtualization")
    causes = [Cause(INVALID, at, f'GraceIOVirtualization requires an exact pciVendorSelector for NVIDIA PCI host '
                                 f'device resource "{name}"') for at, name in ambiguous if on]
    if not grace:
        return causes
    if not on:
        return causes + [Cause(INVALID, at, f'GraceIOVirtualization feature gate must be enabled for NVIDIA Grace GPU '
                                            f'passthrough resource "{name}"') for at, name in grace]
    arch = str(spec.get("architecture") or config.cluster.architecture)
    domain = as_map(spec.get("domain"))
    if arch != "arm64":
        causes.append(Cause(INVALID, f"{field}.architecture", "GraceIOVirtualization requires arm64 architecture"))
    machine = as_map(domain.get("machine")).get("type") or machine_type_for(config.cluster, arch, config.release)
    if not str(machine).startswith("virt"):
        causes.append(Cause(INVALID, f"{field}.domain.machine.type", 'GraceIOVirtualization requires "virt" machine '
                                                                     "type"))
    if as_map(domain.get("cpu")).get("dedicatedCpuPlacement") is not True:
        causes.append(Cause(REQUIRED, f"{field}.domain.cpu.dedicatedCpuPlacement",
                            "GraceIOVirtualization requires dedicated CPU placement"))
    for gate in ("PCINUMAAwareTopology", "IOMMUFD"):
        if not config.gate(gate):
            causes.append(Cause(INVALID, f"{field}.domain.devices", f"{gate} feature gate must be enabled when "
                                                                    "GraceIOVirtualization is used"))
    return causes


def validate_grace_annotations(at: str, spec: Obj, annotations: Obj, config: WebhookConfig) -> list[Cause]:
    """``validateGraceIOVirtualizationAnnotations``: a Grace request keeps PCI devices off the root complex and
    the 64-bit PCI hole on (``at``: the template's annotations)."""
    if not config.release.grace_checked or not grace_requests("spec", spec, config)[0]:
        return []
    causes = []
    if annotations.get(ROOT_COMPLEX) == "true":
        causes.append(Cause(INVALID, f"{at}[{ROOT_COMPLEX}]",
                            "GraceIOVirtualization is not compatible with placing PCI devices on the root complex"))
    if annotations.get(NO_PCI_HOLE64) == "true":
        causes.append(Cause(INVALID, f"{at}[{NO_PCI_HOLE64}]", "GraceIOVirtualization requires the 64-bit PCI hole"))
    return causes
