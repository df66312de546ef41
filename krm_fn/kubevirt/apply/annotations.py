"""Template annotations from the instancetype (``apply/annotations.go``): a key the VM already has with a
different value is a conflict at ``annotations.<key>`` (no base path); conflicts are sorted by key."""

from __future__ import annotations

from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.conflict import Conflict


def apply_annotations(it: Obj, meta: Obj) -> list[Conflict]:
    wanted = it.get("annotations")
    if not wanted:
        return []
    target = meta.get("annotations")
    if target is None:
        target = meta["annotations"] = {}
    conflicts: list[Conflict] = []
    for key in sorted(wanted):
        value = wanted[key]
        if key in target:
            if target[key] != value:
                conflicts.append(Conflict(("annotations", key)))
            continue
        target[key] = value
    return conflicts
