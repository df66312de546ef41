"""Objects the renderer looks up, indexed once per render call (no scan per VM).

Keys are ``(kind, namespace, name)``; cluster-scoped kinds use namespace ``""``. An object without a
namespace is taken to be in ``default``, like the API server would place it. ``List`` / ``ResourceList``
wrappers are looked through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar, cast

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
}

Key = tuple[str, str, str]
_T = TypeVar("_T")


def is_vm(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == KIND_VM and obj.get("apiVersion") in VM_API_VERSIONS


ANY_NAMESPACE: Final = "*"  # not a namespace name: the catalog's namespaced objects without one are in every namespace


class Index:
    """Lookup tables over the ResourceList items, with the catalog as a lazily loaded fallback.

    A namespaced object of the catalog without a namespace is found in every namespace (the catalog stands for
    what the cluster has; the renderer passes only the kinds ``spec.catalog.scope`` serves)."""

    def __init__(self, items: Sequence[Any], fallback: Callable[[], Sequence[Obj]] | None = None, *,
                 unplaced: str = DEFAULT_NAMESPACE) -> None:
        self._table: dict[Key, Obj] = {}
        self._unplaced = unplaced  # the namespace of a namespaced object without one
        self._add(items)
        self._fallback = fallback
        self._fallback_index: Index | None = None
        # per-render caches of data derived from the (unchanging) objects, shared by every VM
        self.memo: dict[Any, Any] = {}  # keys: tuples whose first item names the user (module)
        self._shared: dict[Callable[[], object], object] = {}

    def _add(self, items: Sequence[Any]) -> None:
        table = self._table
        for obj in iter_objects(items):
            kind = obj.get("kind")
            if not isinstance(kind, str) or kind == KIND_VM:
                continue
            group = INDEXED_KINDS.get(kind)
            if group is None or group_of(obj.get("apiVersion")) != group:
                continue
            ns = "" if kind in CLUSTER_SCOPED_KINDS else own_namespace(obj) or self._unplaced
            table.setdefault((kind, ns, name_of(obj)), obj)

    def get(self, kind: str, namespace: str, name: str, *, fallback: bool = False) -> Obj | None:
        """The object, or ``None``; ``fallback`` also consults the catalog (loaded on first use)."""
        ns = "" if kind in CLUSTER_SCOPED_KINDS else (namespace or DEFAULT_NAMESPACE)
        obj = self._table.get((kind, ns, name))
        if obj is None and ns:
            obj = self._table.get((kind, ANY_NAMESPACE, name))
        if obj is None and fallback:
            catalog = self.catalog()
            obj = catalog.get(kind, namespace, name) if catalog is not None else None
        return obj

    def shared(self, factory: Callable[[], _T]) -> _T:
        """The one ``factory()`` of this render (made on first use): a cache a module of ``kubevirt/`` keeps
        for every VM, without this module importing it."""
        value = self._shared.get(factory)
        if value is None:
            value = self._shared[factory] = factory()
        return cast(_T, value)

    def catalog(self) -> Index | None:
        """The fallback's objects, indexed on first use (None without a fallback)."""
        if self._fallback_index is None and self._fallback is not None:
            self._fallback_index = Index(list(self._fallback()), unplaced=ANY_NAMESPACE)
        return self._fallback_index

    def names(self, kind: str) -> dict[str, set[str]]:
        """Every name of ``kind`` among the indexed objects (not the fallback's), by namespace (``""`` for a
        cluster-scoped kind, :data:`ANY_NAMESPACE` for an object found in every namespace)."""
        key = ("names", kind)
        out: dict[str, set[str]] | None = self.memo.get(key)
        if out is None:
            out = self.memo[key] = {}
            for k, ns, name in self._table:
                if k == kind:
                    out.setdefault(ns, set()).add(name)
        return out
