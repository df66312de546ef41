"""``spec.schedulerName`` from the instancetype (``apply/scheduler.go``)."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.conflict import Conflict, child


def apply_scheduler_name(base: Sequence[str], it: Obj, vmi: Obj) -> list[Conflict]:
    name = it.get("schedulerName")
    if not name:
        return []
    if vmi.get("schedulerName"):
        return [child(base, "schedulerName")]
    vmi["schedulerName"] = name
    return []
