"""Cluster-scoped objects that carry a namespace: what the API server does with them.

kustomize's ``namespace:`` transformer (and other namespace setters) stamp a namespace on every kind they do
not know to be cluster-scoped, the generated ``VirtualMachineCluster{Instancetype,Preference}`` included. The
API server does not refuse such an object: a cluster-scoped resource is created without a namespace, whatever
the body says (apiserver ``rest.BeforeCreate``, ``EnsureObjectNamespaceMatchesRequestNamespace``: a request
without a namespace clears the object's). So the renderer does the same before anything looks at the items:
the object is indexed, admitted, embedded in revisions and written without ``metadata.namespace``, and a
``warning`` says so.
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.api import CLUSTER_SCOPED_KINDS, INSTANCETYPE_GROUP
from krm_fn.kube.identity import group_of
from krm_fn.kube.paths import Obj, wrapped_items
from krm_fn.results import Result

NAMESPACE_FIELD: Final = "metadata.namespace"


def is_cluster_scoped(obj: Any) -> bool:
    """A cluster-scoped instancetype/preference kind of ``instancetype.kubevirt.io`` (any served version)."""
    return (isinstance(obj, dict) and obj.get("kind") in CLUSTER_SCOPED_KINDS
            and group_of(obj.get("apiVersion")) == INSTANCETYPE_GROUP)


def clear_cluster_namespaces(items: list[Any], written: bool = True) -> tuple[list[Any], list[Result]]:
    """``items`` with every cluster-scoped object that has a namespace replaced by a copy without it (``List``
    wrappers looked into; the same list when there is none), and a ``warning`` per such object. ``written``:
    the output carries the copies (every mode but ``validate``), which the warning says."""
    results: list[Result] = []
    out = _cleared(items, written, results)
    return out, results


def _cleared(items: list[Any], written: bool, results: list[Result]) -> list[Any]:
    out: list[Any] | None = None
    for i, item in enumerate(items):
        new = _item(item, written, results)
        if new is not item:
            if out is None:
                out = list(items)
            out[i] = new
    return items if out is None else out


def _item(item: Any, written: bool, results: list[Result]) -> Any:
    wrapped = wrapped_items(item)
    if wrapped is not None:
        inner = _cleared(wrapped, written, results)
        return item if inner is wrapped else {**item, "items": inner}
    md = item.get("metadata") if is_cluster_scoped(item) else None
    if not isinstance(md, dict) or not isinstance(md.get("namespace"), str) or not md["namespace"]:
        return item  # a namespace of another type: the API server cannot decode the object (the schema says so)
    cleared: Obj = {**item, "metadata": {k: v for k, v in md.items() if k != "namespace"}}
    done = "; the output has none" if written else ""
    results.append(Result.for_object(
        f"{item['kind']} is cluster-scoped: the API server ignores metadata.namespace {md['namespace']!r} (set by a "
        f"namespace transformer that does not know the kind, e.g. kustomize's namespace:) and stores the object "
        f"without it{done}", cleared, "warning", field_path=NAMESPACE_FIELD, tags=(("stage", "input"),)))
    return cleared
