"""``validateBootOrder`` (``vmi-create-admitter.go``): each disk's volume, what a LUN or a downwardMetrics volume may
be mapped to, and boot orders unique over the disks and the interfaces.

An empty CD-ROM (a CD-ROM disk without a volume) needs the DeclarativeHotplugVolumes gate (v1.6+; before, its volume
is not found).
"""

from __future__ import annotations

from typing import Any

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig


def validate_boot_order(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """The causes of the disks against the volumes, then of every boot order (``field``: the template spec)."""
    devices = as_map(as_map(spec.get("domain")).get("devices"))
    volumes = {v.get("name"): v for v in as_list(spec.get("volumes")) if isinstance(v, dict)}
    disks_at = f"{field}.domain.devices.disks"
    causes: list[Cause] = []
    taken: set[Any] = set()
    for idx, disk in enumerate(as_list(devices.get("disks"))):
        if not isinstance(disk, dict):
            continue
        at = f"{disks_at}[{idx}]"
        volume = volumes.get(disk.get("name", ""))
        if volume is None and (disk.get("cdrom") is None or not config.release.empty_cdrom):
            causes.append(Cause(INVALID, f"{at}.name", f"{at}.Name '{disk.get('name', '')}' not found."))
        elif volume is None and not config.gate("DeclarativeHotplugVolumes"):
            causes.append(Cause(INVALID, f"{at}.name", "DeclarativeHotplugVolumes feature gate not enabled, cannot "
                                                       "define an empty CD-ROM disk"))
        if disk.get("lun") is not None and volume is not None and volume.get("persistentVolumeClaim") is None \
                and volume.get("dataVolume") is None:
            causes.append(Cause(INVALID, f"{at}.lun",
                                f"{at}.lun can only be mapped to a DataVolume or PersistentVolumeClaim volume."))
        if volume is not None and volume.get("downwardMetrics") is not None:
            causes += _downward_metrics(at, disk)
        order = disk.get("bootOrder")
        if order is not None:
            if order in taken:
                causes.append(Cause(INVALID, f"{at}.bootOrder",
                                    f"Boot order for {at}.bootOrder already set for a different device."))
            taken.add(order)
    for idx, iface in enumerate(as_list(devices.get("interfaces"))):
        order = as_map(iface).get("bootOrder")
        if order is None:
            continue
        if order < 1:
            # upstream's paths: the interfaces' index under the template spec itself
            causes.append(Cause(INVALID, f"{field}[{idx}].bootOrder", f"{field}[{idx}] must have a boot order > 0, "
                                                                      "if supplied"))
            continue
        at = f"{field}.domain.devices.interfaces[{idx}].bootOrder"
        if order in taken:
            causes.append(Cause(INVALID, at, f"Boot order for {at} already set for a different device."))
        taken.add(order)
    return causes


def _downward_metrics(at: str, disk: dict[str, Any]) -> list[Cause]:
    target = disk.get("disk")
    if not isinstance(target, dict):
        return [Cause(REQUIRED, f"{at}.disk", f"DownwardMetrics volume must be mapped to a disk, but disk is not set "
                                              f"on {at}.disk.")]
    bus = target.get("bus", "")
    if bus not in ("virtio", ""):
        return [Cause(INVALID, f"{at}.disk.bus", f"DownwardMetrics volume must be mapped to virtio bus, but "
                                                 f"{at}.disk.bus is set to {bus}")]
    return []
