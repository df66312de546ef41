"""``Namespaces``: what the inputs say of each namespace a launcher pod is created in.

The renderer knows a namespace from the objects among its inputs: its ``Namespace`` (labels), its
``ResourceQuota`` and ``LimitRange`` objects, and the NetworkAttachmentDefinitions, PersistentVolumeClaims and
StorageClasses virt-controller reads.
A local-config copy of a cluster object counts as the object.
A namespace the inputs do not list exists with only the ``kubernetes.io/metadata.name`` label, as the API server
labels every namespace.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from krm_fn.kube.identity import name_of, namespace_of
from krm_fn.kube.paths import Obj, as_map, iter_objects

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

    def _read(self) -> None:
        items, self._items = self._items, None
        for obj in iter_objects(items or ()):
            kind, api = obj.get("kind"), str(obj.get("apiVersion", ""))
            if api == "v1" and kind == "Namespace":
                self._labels.setdefault(name_of(obj), as_map(as_map(obj.get("metadata")).get("labels")))
            elif api == "v1" and kind == "ResourceQuota":
                self._quotas.setdefault(namespace_of(obj), []).append(obj)
            elif api == "v1" and kind == "LimitRange":
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
