"""``domain.devices.hostDevices`` from the instancetype (``apply/hostdevices.go``): replaced, never merged."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj, copy_json, ensure_map, get3
from krm_fn.kubevirt.conflict import Conflict, child


def apply_host_devices(base: Sequence[str], it: Obj, vmi: Obj) -> list[Conflict]:
    devices = it.get("hostDevices")
    if not devices:
        return []
    if get3(vmi, "domain", "devices", "hostDevices"):
        return [child(base, "domain", "devices", "hostDevices")]
    ensure_map(vmi, ("domain", "devices"))["hostDevices"] = copy_json(devices)
    return []
