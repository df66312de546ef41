"""``domain.devices.gpus`` from the instancetype (``apply/gpu.go``): replaced, never merged."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj, copy_json, ensure_map, get3
from krm_fn.kubevirt.conflict import Conflict, child


def apply_gpus(base: Sequence[str], it: Obj, vmi: Obj) -> list[Conflict]:
    gpus = it.get("gpus")
    if not gpus:
        return []
    if get3(vmi, "domain", "devices", "gpus"):
        return [child(base, "domain", "devices", "gpus")]
    ensure_map(vmi, ("domain", "devices"))["gpus"] = copy_json(gpus)
    return []
