"""Objects the renderer looks up, indexed once per render call (no scan per VM).

Keys are ``(kind, namespace, name)``; cluster-scoped kinds use namespace ``""``. An object without a
namespace is taken to be in ``default``, like the API server would place it. ``List`` / ``ResourceList``
wrappers are looked through. An index reads its objects on its first lookup, so the catalog's index (an
iterable the core hands down that loads the catalog when first iterated) costs nothing until a reference is
missing from the items.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, Final

from krm_fn.kube.api import (
    CDI_GROUP,
    CLUSTER_SCOPED_KINDS,
    INSTANCETYPE_GROUP,
    KIND_CONTROLLER_REVISION,
    KIND_DATA_SOURCE,
    KIND_DATA_VOLUME,
    KIND_PVC,
    KIND_VM,
    KIND_VOLUME_SNAPSHOT,
    SNAPSHOT_GROUP,
    TYPE_KINDS,
    VM_API_VERSIONS,
    WRAPPER_KINDS,
)
from krm_fn.kube.identity import DEFAULT_NAMESPACE, group_of, name_of, namespace_of, own_namespace
from krm_fn.kube.paths import Obj, iter_objects

__all__ = ["ANY_NAMESPACE", "DEFAULT_NAMESPACE", "WRAPPER_KINDS", "Index", "is_vm", "iter_objects", "name_of",
           "namespace_of"]

# kind -> API group the object must belong to ("" = core)
INDEXED_KINDS: Final[dict[str, str]] = {
    **{kind: INSTANCETYPE_GROUP for kind in sorted(TYPE_KINDS)},
    KIND_CONTROLLER_REVISION: "apps",
    KIND_PVC: "",
    KIND_DATA_VOLUME: CDI_GROUP,
    KIND_DATA_SOURCE: CDI_GROUP,
    KIND_VOLUME_SNAPSHOT: SNAPSHOT_GROUP,
    "VirtualMachineInstancePreset": "kubevirt.io",  # krm_fn.kubevirt.webhooks.vmi.presets
}

Key = tuple[str, str, str]


def is_vm(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == KIND_VM and obj.get("apiVersion") in VM_API_VERSIONS


ANY_NAMESPACE: Final = "*"  # not a namespace name: the catalog's namespaced objects without one are in every namespace


class Index:
    """Lookup tables over ``objects`` (the ResourceList items), with ``catalog`` (another index) as the
    fallback.

    The objects are read on the first lookup, once. An index of the catalog is made with
    ``unplaced=ANY_NAMESPACE``: a namespaced object of the catalog without a namespace is found in every
    namespace (the catalog stands for what the cluster has); ``kinds`` narrows it to the kinds the renderer
    serves from it (``spec.catalog.scope``)."""

    def __init__(self, objects: Iterable[Any], catalog: Index | None = None, *,
                 unplaced: str = DEFAULT_NAMESPACE, kinds: Collection[str] | None = None) -> None:
        self._objects: Iterable[Any] | None = objects
        self._table: dict[Key, Obj] = {}
        self._unplaced = unplaced  # the namespace of a namespaced object without one
        self._kinds = kinds
        self._names: dict[str, dict[str, set[str]]] = {}  # kind -> namespace -> names (names())
        self.catalog = catalog

    def _loaded(self) -> dict[Key, Obj]:
        """The table, made from the objects on first use."""
        objects = self._objects
        if objects is not None:
            self._add(objects)  # when reading them fails (a broken catalog), the next lookup fails the same way
            self._objects = None
        return self._table

    def _add(self, items: Iterable[Any]) -> None:
        table = self._table
        kinds = self._kinds
        for obj in iter_objects(items):
            kind = obj.get("kind")
            if not isinstance(kind, str) or kind == KIND_VM or kinds is not None and kind not in kinds:
                continue
            group = INDEXED_KINDS.get(kind)
            if group is None or group_of(obj.get("apiVersion")) != group:
                continue
            ns = "" if kind in CLUSTER_SCOPED_KINDS else own_namespace(obj) or self._unplaced
            table.setdefault((kind, ns, name_of(obj)), obj)

    def get(self, kind: str, namespace: str, name: str, *, fallback: bool = False) -> Obj | None:
        """The object, or ``None``; ``fallback`` also consults the catalog (read on first use)."""
        table = self._table if self._objects is None else self._loaded()
        ns = "" if kind in CLUSTER_SCOPED_KINDS else (namespace or DEFAULT_NAMESPACE)
        obj = table.get((kind, ns, name))
        if obj is None and ns:
            obj = table.get((kind, ANY_NAMESPACE, name))
        if obj is None and fallback and self.catalog is not None:
            obj = self.catalog.get(kind, namespace, name)
        return obj

    def names(self, kind: str) -> dict[str, set[str]]:
        """Every name of ``kind`` among the indexed objects (not the catalog's), by namespace (``""`` for a
        cluster-scoped kind, :data:`ANY_NAMESPACE` for an object found in every namespace)."""
        out = self._names.get(kind)
        if out is None:
            out = self._names[kind] = {}
            for k, ns, name in self._loaded():
                if k == kind:
                    out.setdefault(ns, set()).add(name)
        return out
