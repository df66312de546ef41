"""Items of a KubeVirt API group whose kind the group does not serve (``kind: VirtualMachin``): a typo that
would otherwise pass through silently, and that the cluster refuses on apply (``no matches for kind``). One
``warning`` per item, with the kinds meant (the group's, or the group that serves the kind); the item is passed
through unchanged and the exit code stays (the renderer cannot know every kind a later KubeVirt serves)."""

from __future__ import annotations

from krm_fn.kube.api import KUBEVIRT_GROUP_KINDS, TYPE_KINDS
from krm_fn.kube.identity import group_of
from krm_fn.kube.paths import Obj
from krm_fn.render.hints import suggestions
from krm_fn.results import Result


# instancetypes, preferences and legacy flavors in another group or version: admission's error
# (krm_fn/render/admission.py, "no matches for kind"), or migrate's rewrite
JUDGED = TYPE_KINDS | KUBEVIRT_GROUP_KINDS["flavor.kubevirt.io"]


def unknown_kind_results(items: list[Obj]) -> list[Result]:
    """A warning for each item whose kind its KubeVirt group (:data:`KUBEVIRT_GROUP_KINDS`) does not serve."""
    out: list[Result] = []
    for item in items:
        kind = item.get("kind")
        group = group_of(item.get("apiVersion"))
        served = KUBEVIRT_GROUP_KINDS.get(group) if isinstance(group, str) else None
        if served is None or not isinstance(kind, str) or kind in served or kind.removesuffix("List") in served \
                or kind in JUDGED:
            continue
        out.append(Result.for_object(f"unknown kind {kind!r} in KubeVirt's API group {group}, passed through unchanged "
                                     f"(a cluster refuses it: no matches for kind): {_meant(kind, group)}",
                                     item, "warning", field_path="kind", tags=(("stage", "input"),)))
    return out


def _meant(kind: str, group: str) -> str:
    elsewhere = sorted(g for g, kinds in KUBEVIRT_GROUP_KINDS.items() if kind in kinds)
    if elsewhere:
        return f"{kind} is served by {' and '.join(elsewhere)}: set apiVersion to that group"
    close = suggestions(kind, set(KUBEVIRT_GROUP_KINDS[group])) or suggestions(
        kind, {k for kinds in KUBEVIRT_GROUP_KINDS.values() for k in kinds})
    if close:
        return f"did you mean {'one of ' if len(close) > 1 else ''}" + ", ".join(f'"{k}"' for k in close) + "?"
    return f"it serves {', '.join(sorted(KUBEVIRT_GROUP_KINDS[group]))}"
