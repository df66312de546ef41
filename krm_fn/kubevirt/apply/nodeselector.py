"""``spec.nodeSelector`` from the instancetype (``apply/nodeselector.go``)."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.conflict import Conflict, child


def apply_node_selector(base: Sequence[str], it: Obj, vmi: Obj) -> list[Conflict]:
    selector = it.get("nodeSelector")
    if selector is None:
        return []
    if vmi.get("nodeSelector") is not None:
        return [child(base, "nodeSelector")]
    vmi["nodeSelector"] = dict(selector)
    return []
