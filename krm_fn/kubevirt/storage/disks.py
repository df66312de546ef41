"""The VM webhook's rules for each disk of a VMI spec (``pkg/storage/admitters/disks.go`` ``ValidateDisks``).

:func:`validate_disks` returns the causes of every disk, in upstream's order: disk by disk, rule by rule.
Each rule is a small function of one disk; the field paths are built as upstream builds them, quirks included.
The schema stage runs first, so every value here has its API type.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final

from krm_fn.kube.meta import dns_label_errors
from krm_fn.kube.status import INVALID, NOT_SUPPORTED, Cause
from krm_fn.kubevirt_versions import LATEST, Release

MAX_SERIAL: Final = 256
MIN_BLOCK: Final = 512
MAX_BLOCK: Final = 2097152
BUSES: Final = ("virtio", "scsi", "sata", "usb")
CACHE_MODES: Final = frozenset({"none", "writethrough", "writeback", "directsync"})
IO_MODES: Final = frozenset({"native", "threads"})
ERROR_POLICIES: Final = frozenset({"stop", "ignore", "report", "enospace"})
TARGETS: Final = ("disk", "lun", "cdrom")
_SERIAL: Final = re.compile(r"[A-Za-z0-9_.+-]+")
_PCI: Final = re.compile(r"([0-9a-fA-F]{4}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])")

Disk = dict[str, Any]


def validate_disks(field: str, disks: Sequence[Any], release: Release = LATEST) -> list[Cause]:
    """Every disk's causes as ``release`` finds them; ``field`` is the disks' path (``...domain.devices.disks``)."""
    causes: list[Cause] = []
    for idx, disk in enumerate(disks):
        if not isinstance(disk, dict):
            continue
        causes += _duplicate_names(field, idx, disks)
        for rule in _RULES:
            causes += rule(field, idx, disk)
        causes += _block_size(field, idx, disk, release)
    return causes


def target(disk: Disk) -> str:
    """The disk's device target (``disk``, ``lun`` or ``cdrom``, the first set), or ``""``."""
    return next((t for t in TARGETS if disk.get(t) is not None), "")


def bus(disk: Disk) -> str:
    """The bus of the disk's target, or ``""``."""
    kind = target(disk)
    body = disk.get(kind) if kind else None
    return str(body.get("bus") or "") if isinstance(body, dict) else ""


def _at(field: str, idx: int) -> str:
    return f"{field}[{idx}]"


def _duplicate_names(field: str, idx: int, disks: Sequence[Any]) -> list[Cause]:
    name = disks[idx].get("name", "")
    return [Cause(INVALID, f"{_at(field, idx)}.name", f"{_at(field, idx)} and {_at(field, other)} must not have the same Name.")
            for other in range(idx) if isinstance(disks[other], dict) and disks[other].get("name", "") == name]


def _device_target(field: str, idx: int, disk: Disk) -> list[Cause]:
    if sum(disk.get(t) is not None for t in TARGETS) > 1:
        return [Cause(INVALID, _at(field, idx), f"{_at(field, idx)} can only have a single target type defined")]
    return []


def pci_address_ok(address: str) -> bool:
    """Whether ``address`` is a PCI address as ``hwutil.ParsePciAddress`` reads one (``0000:04:10.0``)."""
    return _PCI.fullmatch(address) is not None


def _pci_address(field: str, idx: int, disk: Disk) -> list[Cause]:
    body = disk.get("disk")
    address = body.get("pciAddress", "") if isinstance(body, dict) else ""
    if not address or not isinstance(body, dict):
        return []
    at = f"{field}.domain.devices.disks.disk[{idx}]"  # upstream's path, under the disks' own
    causes = []
    if body.get("bus", "") != "virtio":
        causes.append(Cause(INVALID, f"{at}.pciAddress",
                            f"disk {at}.name - setting a PCI address is only possible with bus type virtio."))
    if not pci_address_ok(address):
        causes.append(Cause(INVALID, f"{at}.pciAddress", f"disk {at}.name has malformed PCI address ({address})."))
    return causes


def _boot_order(field: str, idx: int, disk: Disk) -> list[Cause]:
    order = disk.get("bootOrder")
    if order is not None and order < 1:
        return [Cause(INVALID, f"{_at(field, idx)}.bootOrder", f"{_at(field, idx)} must have a boot order > 0, if supplied")]
    return []


def _bus_support(field: str, idx: int, disk: Disk) -> list[Cause]:
    on, kind = bus(disk), target(disk)
    causes = []
    if on == "ide":
        causes.append(Cause(INVALID, f"{_at(field, idx)}.{kind}.bus", "IDE bus is not supported"))
    elif on == "virtio" and kind == "cdrom":
        causes.append(Cause(INVALID, f"{_at(field, idx)}.cdrom.bus", f"Bus type {on} is invalid for CD-ROM device"))
    elif on == "sata" and isinstance(disk.get("disk"), dict) and disk["disk"].get("readonly"):
        causes.append(Cause(INVALID, f"{_at(field, idx)}.disk.bus", f"{on} hard-disks do not support read-only."))
    elif on and on not in BUSES:
        causes.append(Cause(INVALID, f"{_at(field, idx)}.{kind}.bus",
                            f"{_at(field, idx)} is set with an unrecognized bus {on}, must be one of: [{' '.join(BUSES)}]"))
    if on and disk.get("dedicatedIOThread") and on != "virtio":
        causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.devices.disks[{idx}]",
                            f"IOThreads are not supported for disks on a {on} bus"))
    return causes


def _reservation_bus(field: str, idx: int, disk: Disk) -> list[Cause]:
    lun = disk.get("lun")
    if isinstance(lun, dict) and lun.get("reservation") and lun.get("bus", "") != "scsi":
        return [Cause(INVALID, f"{_at(field, idx)}.lun.bus",
                      f"Persistent reservation requires a SCSI bus, but {lun.get('bus', '')} was specified")]
    return []


def _serial(field: str, idx: int, disk: Disk) -> list[Cause]:
    serial = disk.get("serial", "")
    causes = []
    if serial and not serial_ok(serial):
        causes.append(Cause(INVALID, f"{_at(field, idx)}.serial",
                            f"{_at(field, idx)} must be made up of the following characters [A-Za-z0-9_.+-], if specified"))
    if serial and len(serial) > MAX_SERIAL:
        causes.append(Cause(INVALID, f"{_at(field, idx)}.serial",
                            f"{_at(field, idx)} must be less than or equal to {MAX_SERIAL} in length, if specified"))
    return causes


def serial_ok(serial: str) -> bool:
    """Whether ``serial`` is made of the characters libvirt takes in a serial (``[A-Za-z0-9_.+-]``)."""
    return _SERIAL.fullmatch(serial) is not None


def _cache_io_error_policy(field: str, idx: int, disk: Disk) -> list[Cause]:
    causes = []
    cache = disk.get("cache", "")
    if cache and cache not in CACHE_MODES:
        causes.append(Cause(INVALID, f"{_at(field, idx)}.cache", f"{_at(field, idx)}.cache has invalid value {cache}"))
    io = disk.get("io", "")
    if io and io not in IO_MODES:
        causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.devices.disks[{idx}].io",
                            f"Disk IO mode for {field} is not supported. Supported modes are: native, threads."))
    policy = disk.get("errorPolicy")
    if policy is not None and policy not in ERROR_POLICIES:
        causes.append(Cause(INVALID, f"{_at(field, idx)}.errorPolicy",
                            f'{_at(field, idx)}.errorPolicy has invalid value "{policy}"'))
    return causes


def _name_as_container_name(field: str, idx: int, disk: Disk) -> list[Cause]:
    at = f"{field}.domain.devices.disks[{idx}].name"
    return [Cause(INVALID, at, message) for message in dns_label_errors(disk.get("name", ""))]


def _block_size(field: str, idx: int, disk: Disk, release: Release) -> list[Cause]:
    size = disk.get("blockSize")
    custom = size.get("custom") if isinstance(size, dict) else None
    if not isinstance(size, dict) or not isinstance(custom, dict):
        return []
    at = f"{_at(field, idx)}.blockSize"
    match = size.get("matchVolume")
    if isinstance(match, dict) and match.get("enabled", True) is not False:
        return [Cause(INVALID, at, "Block size matching can't be enabled together with a custom value")]
    logical, physical = custom.get("logical", 0), custom.get("physical", 0)
    granularity = custom.get("discardGranularity")
    if logical > physical:
        return [Cause(INVALID, f"{at}.custom.logical",
                      f"Logical size {logical} must be the same or less than the physical size of {physical}")]
    if release.block_size_bus_checked and bus(disk) == "sata" and logical != MIN_BLOCK:
        return [Cause(INVALID, f"{at}.custom.logical", f"Logical size {logical} must be {MIN_BLOCK} for SATA devices")]
    if release.block_size_bus_checked and granularity is not None and logical != 0 and granularity % logical:
        return [Cause(INVALID, f"{at}.custom.discardGranularity",
                      f"Discard granularity {granularity} must be multiples of logical size {logical}")]
    return _custom_size(at, "logical", logical) + _custom_size(at, "physical", physical)


def _custom_size(at: str, kind: str, size: int) -> list[Cause]:
    if size < MIN_BLOCK:
        message = f"Provided size of {size} is less than the supported minimum size of {MIN_BLOCK}"
    elif size > MAX_BLOCK:
        message = f"Provided size of {size} is greater than the supported maximum size of {MAX_BLOCK}"
    elif size & (size - 1):
        message = f"Provided size of {size} is not a power of 2"
    else:
        return []
    return [Cause(INVALID, f"{at}.custom.{kind}", message)]


# the rules of one disk between the name check and the block size's, in upstream's order
_RULES: Final[tuple[Callable[[str, int, Disk], list[Cause]], ...]] = (
    _device_target, _pci_address, _boot_order, _bus_support, _reservation_bus, _serial, _cache_io_error_policy,
    _name_as_container_name,
)


def validate_container_disks(field: str, volumes: Sequence[Any]) -> list[Cause]:
    """``ValidateContainerDisks``: each containerDisk's ``path``, when set (``field``: the volumes' path)."""
    causes: list[Cause] = []
    for idx, volume in enumerate(volumes):
        disk = volume.get("containerDisk") if isinstance(volume, dict) else None
        if isinstance(disk, dict) and disk.get("path"):
            causes += path_causes(f"{field}[{idx}].containerDisk", disk["path"])
    return causes


def go_clean(path: str) -> str:
    """Go's ``filepath.Clean`` of an absolute path: one slash between names, no ``.``, ``..`` resolved."""
    parts: list[str] = []
    for name in path.split("/"):
        if name == "..":
            if parts:
                parts.pop()
        elif name not in ("", "."):
            parts.append(name)
    return "/" + "/".join(parts)


def path_causes(field: str, path: str) -> list[Cause]:
    """``ValidatePath``: ``path`` is absolute, clean, and not the root."""
    if path == "/":
        return [Cause(INVALID, field, f"{field} must not point to root")]
    if go_clean("/" + path) != path.removesuffix("/"):
        return [Cause(INVALID, field, f"{field} must be an absolute path to a file without relative components")]
    return []
