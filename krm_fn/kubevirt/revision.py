"""ControllerRevisions of instancetypes and preferences, as KubeVirt's store makes them
(``pkg/instancetype/revision/store.go`` ``CreateControllerRevision``): what a revision embeds (the whole object,
``apiVersion``/``kind`` set; labels, annotations, finalizers, ownerReferences and managedFields removed, as a Go
round trip of the v1beta1 type writes it), the labels it carries, and how a revision of ours is recognised.

Naming and writing revisions offline (content-addressed names, Argo CD sync waves) is the renderer's:
:mod:`krm_fn.render.revisions`.
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.api import (
    INSTANCETYPE_API_VERSION,
    KIND_CONTROLLER_REVISION,
    LABEL_OBJECT_GENERATION,
    LABEL_OBJECT_KIND,
    LABEL_OBJECT_NAME,
    LABEL_OBJECT_UID,
    LABEL_OBJECT_VERSION,
)
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.schema.roundtrip import encode_object

STRIPPED_METADATA: Final = ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")


def revision_data(obj: Obj, kind: str, tag: str = DEFAULT_TAG) -> Obj:
    """The embedded object: typed (KubeVirt ``tag``'s Go type: fields it does not know vanish),
    ``apiVersion``/``kind`` set, labels etc. removed."""
    metadata = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in STRIPPED_METADATA}
    data: Obj = {"apiVersion": INSTANCETYPE_API_VERSION, "kind": kind, "metadata": metadata}
    data.update((k, v) for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata"))
    return encode_object(data, "v1beta1." + kind, tag)  # the Go round trip returns new containers


def revision_labels(obj_name: str, kind: str, generation: int, uid: str | None, object_version: str) -> dict[str, str]:
    """The labels the store puts on a revision (``object-uid`` only when the object has a uid)."""
    labels = {
        LABEL_OBJECT_GENERATION: str(generation),
        LABEL_OBJECT_KIND: kind,
        LABEL_OBJECT_NAME: obj_name,
    }
    if uid:
        labels[LABEL_OBJECT_UID] = uid
    labels[LABEL_OBJECT_VERSION] = object_version
    return labels


def is_instancetype_revision(obj: Any) -> bool:
    """A ControllerRevision that embeds an instancetype or preference (KubeVirt's ``object-kind`` label)."""
    if not isinstance(obj, dict) or obj.get("kind") != KIND_CONTROLLER_REVISION:
        return False
    labels = (obj.get("metadata") or {}).get("labels")
    return isinstance(labels, dict) and LABEL_OBJECT_KIND in labels
