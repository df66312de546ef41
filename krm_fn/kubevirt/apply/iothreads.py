"""``domain.ioThreads`` from the instancetype (``apply/iothreads.go``)."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj, ensure_map, get3
from krm_fn.kubevirt.conflict import Conflict, child


def apply_io_threads(base: Sequence[str], it: Obj, vmi: Obj) -> list[Conflict]:
    count = (it.get("ioThreads") or {}).get("supplementalPoolThreadCount")
    if it.get("ioThreads") is None or count is None:
        return []
    if get3(vmi, "domain", "ioThreads", "supplementalPoolThreadCount") is not None:
        return [child(base, "domain", "ioThreads", "supplementalPoolThreadCount")]
    ensure_map(vmi, ("domain", "ioThreads"))["supplementalPoolThreadCount"] = count
    return []
