"""``Namespaces``: what the inputs say of each namespace a launcher pod is created in.

The renderer knows a namespace from the objects among its inputs: its ``Namespace`` (labels), its
``ResourceQuota`` and ``LimitRange`` objects, and the NetworkAttachmentDefinitions, PersistentVolumeClaims and
StorageClasses virt-controller reads.
A local-config copy of a cluster object counts as the object.
A namespace the inputs do not list exists with only the ``kubernetes.io/metadata.name`` label, as the API server
labels every namespace.
A ResourceQuota or LimitRange the API server would refuse (a quantity that does not parse, a field of the wrong
type) is left out, and :attr:`Namespaces.problems` says why, at its field.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from krm_fn.kube.amount import nanos
from krm_fn.kube.identity import name_of, namespace_of
from krm_fn.kube.paths import Obj, as_map, iter_objects
from krm_fn.kube.quantity import QuantityError

NAME_LABEL: Final = "kubernetes.io/metadata.name"
NAD_GROUP: Final = "k8s.cni.cncf.io/"
CDI_GROUP: Final = "cdi.kubevirt.io/"
DEFAULT_CLASS: Final = "storageclass.kubernetes.io/is-default-class"


class Namespaces:
    """The namespace facts of ``items``, read on first use."""

    def __init__(self, items: Iterable[Any]) -> None:
        self._items: Iterable[Any] | None = items
        self._labels: dict[str, Obj] = {}
        self._quotas: dict[str, list[Obj]] = {}
        self._ranges: dict[str, list[Obj]] = {}
        self._named: dict[tuple[str, str, str], Obj] = {}  # (kind, namespace, name) of NADs, PVCs, DataVolumes
        self._default_class = False
        self._problems: list[tuple[Obj, str, str]] = []

    @property
    def problems(self) -> list[tuple[Obj, str, str]]:
        """(object, field, message) of each ResourceQuota and LimitRange left out."""
        self._ready()
        return self._problems

    def _usable(self, obj: Obj, lists: tuple[tuple[str, object], ...]) -> bool:
        """Whether every resource list of ``obj`` (field path, value) is a mapping of quantities."""
        for field, value in lists:
            problem = resource_list_problem(value)
            if problem is not None:
                self._problems.append((obj, field + problem[0], problem[1]))
                return False
        return True

    def _read(self) -> None:
        items, self._items = self._items, None
        for obj in iter_objects(items or ()):
            kind, api = obj.get("kind"), str(obj.get("apiVersion", ""))
            if api == "v1" and kind == "Namespace":
                self._labels.setdefault(name_of(obj), as_map(as_map(obj.get("metadata")).get("labels")))
            elif api == "v1" and kind == "ResourceQuota":
                if self._usable(obj, (("spec.hard", as_map(obj.get("spec")).get("hard")),)):
                    self._quotas.setdefault(namespace_of(obj), []).append(obj)
            elif api == "v1" and kind == "LimitRange":
                if self._usable(obj, _range_lists(obj)):
                    self._ranges.setdefault(namespace_of(obj), []).append(obj)
            elif api == "v1" and kind == "PersistentVolumeClaim" or api.startswith(CDI_GROUP) and kind == "DataVolume" \
                    or api.startswith(NAD_GROUP) and kind == "NetworkAttachmentDefinition":
                self._named.setdefault((str(kind), namespace_of(obj), name_of(obj)), obj)
            elif api.startswith("storage.k8s.io/") and kind == "StorageClass":
                annotations = as_map(as_map(obj.get("metadata")).get("annotations"))
                self._default_class = self._default_class or annotations.get(DEFAULT_CLASS) == "true"

    def _ready(self) -> None:
        if self._items is not None:
            self._read()

    def labels(self, namespace: str) -> Obj:
        """The namespace's labels (the API server's name label when the inputs have no Namespace)."""
        self._ready()
        return {NAME_LABEL: namespace, **self._labels.get(namespace, {})}

    def quotas(self, namespace: str) -> list[Obj]:
        self._ready()
        return self._quotas.get(namespace, [])

    def limit_ranges(self, namespace: str) -> list[Obj]:
        self._ready()
        return self._ranges.get(namespace, [])

    def quota_tracks(self, namespace: str, key: str) -> bool:
        """Whether a ResourceQuota of the namespace has ``key`` in ``spec.hard`` (what KubeVirt looks for)."""
        return any(key in as_map(as_map(q.get("spec")).get("hard")) for q in self.quotas(namespace))

    def named(self, kind: str, namespace: str, name: str) -> Obj | None:
        """The NetworkAttachmentDefinition, PersistentVolumeClaim or DataVolume ``namespace/name`` among the inputs."""
        self._ready()
        return self._named.get((kind, namespace, name))

    def has_default_storage_class(self) -> bool:
        self._ready()
        return self._default_class


RANGE_LISTS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


def _range_lists(obj: Obj) -> tuple[tuple[str, object], ...]:
    """The resource lists of a LimitRange's items, by field path (an item that is not a mapping is one too)."""
    limits = as_map(obj.get("spec")).get("limits")
    if limits is not None and not isinstance(limits, list):
        return (("spec.limits", limits),)
    out: list[tuple[str, object]] = []
    for i, item in enumerate(limits or []):
        if not isinstance(item, dict):
            out.append((f"spec.limits[{i}]", item))
            continue
        out += [(f"spec.limits[{i}].{name}", item[name]) for name in RANGE_LISTS if name in item]
    return tuple(out)


def resource_list_problem(value: object) -> tuple[str, str] | None:
    """Why ``value`` is not a resource list the API server takes (the key's suffix of the field path, the
    message), None when it is one (or absent)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return "", f"must be a mapping of resource names to quantities, got {type(value).__name__}"
    for key, amount in value.items():
        if isinstance(amount, (dict, list, bool)) or amount is None:
            return f"[{key}]", "quantities must be strings or numbers"
        try:
            nanos(amount)
        except (QuantityError, ValueError, TypeError) as exc:
            return f"[{key}]", str(exc) or "not a quantity"
    return None
