"""The VMI create webhook's rules per architecture (``pkg/virt-api/webhooks/validating-webhook/admitters``'s
``ValidateVirtualMachineInstance{Amd64,Arm64,S390X}Setting``): watchdogs, video models, and on arm64 the boot
loader, the CPU model, disk buses and the sound device.

Only the VMI webhook runs them: a VM the VM webhook stores can still have its VMI refused.
"""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, NOT_SUPPORTED, Cause
from krm_fn.kubevirt_versions import Release

VIDEO_TYPES: Final[dict[str, tuple[str, ...]]] = {
    "amd64": ("vga", "cirrus", "virtio", "ramfb", "bochs"),
    "arm64": ("virtio", "ramfb"),
    "s390x": ("virtio",),
    "ppc64le": ("virtio", "bochs", "vga", "cirrus"),
}
ARM64_BUSES: Final = ("", "virtio", "scsi")
# the watchdog model an architecture supports, and its name in the message
WATCHDOGS: Final = {"amd64": ("i6300esb", "amd64 only supports I6300ESB watchdog device"),
                    "s390x": ("diag288", "s390x only supports Diag288 watchdog device")}


def validate_architecture_settings(field: str, spec: Obj, release: Release) -> list[Cause]:
    """The rules of the VMI's architecture (``field``: the VMI spec, ``spec``)."""
    arch = str(spec.get("architecture", ""))
    domain = as_map(spec.get("domain"))
    devices = as_map(domain.get("devices"))
    if arch == "ppc64le" and not release.ppc64le_machine_type:
        return [Cause(INVALID, f"{field}.architecture", f"unsupported architecture: {arch}")]
    causes = _arm64(field, domain, devices) if arch == "arm64" else _watchdog(field, arch, devices)
    video = devices.get("video")
    if isinstance(video, dict) and arch in VIDEO_TYPES and video.get("type", "") not in VIDEO_TYPES[arch]:
        causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.devices.video.type",
                            f"video model '{video.get('type', '')}' is not supported on {arch} architecture"))
    return causes


def _watchdog(field: str, arch: str, devices: Obj) -> list[Cause]:
    watchdog = devices.get("watchdog")
    if not isinstance(watchdog, dict) or arch not in WATCHDOGS:
        return []
    model, message = WATCHDOGS[arch]
    others = [m for m in ("i6300esb", "diag288") if m != model]
    if watchdog.get(model) is not None and all(watchdog.get(m) is None for m in others):
        return []
    return [Cause(NOT_SUPPORTED, f"{field}.domain.devices.watchdog", message)]


def _arm64(field: str, domain: Obj, devices: Obj) -> list[Cause]:
    causes = []
    if as_map(as_map(domain.get("firmware")).get("bootloader")).get("bios") is not None:
        causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.firmware.bootloader.bios",
                            "Arm64 does not support bios boot, please change to uefi boot"))
    model = as_map(domain.get("cpu")).get("model", "")
    if model and model != "host-passthrough":
        causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.cpu.model",
                            "currently, host-passthrough is the only model supported on Arm64"))
    for idx, disk in enumerate(as_list(devices.get("disks"))):
        for kind in ("disk", "cdrom", "lun"):
            target = as_map(disk).get(kind)
            if isinstance(target, dict) and target.get("bus", "") not in ARM64_BUSES:
                causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.devices.disks[{idx}].{kind}.bus",
                                    "Arm64 not support this disk bus type, please use virtio or scsi"))
    if devices.get("watchdog") is not None:
        causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.devices.watchdog", "Arm64 not support Watchdog device"))
    if devices.get("sound") is not None:
        causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.devices.sound", "Arm64 not support sound device"))
    return causes
