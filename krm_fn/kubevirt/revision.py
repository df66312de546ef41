"""ControllerRevisions of instancetypes and preferences.

What a revision embeds is KubeVirt's (``pkg/instancetype/revision/store.go`` ``CreateControllerRevision``):
the whole object (``apiVersion``/``kind`` set; labels, annotations, finalizers, ownerReferences and
managedFields removed), as a Go round trip of the v1beta1 type writes it, under KubeVirt's labels. The
name is ours: KubeVirt names a revision after the VM, the object's uid and generation, which an offline
render does not know, so a pinned revision is named after its content (the renderer's ``revisions`` mode).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final

from krm_fn.kube.api import (
    ANN_SYNC_WAVE,
    CONTROLLER_REVISION_API_VERSION,
    INSTANCETYPE_API_VERSION,
    INSTANCETYPE_VERSION,
    KIND_CONTROLLER_REVISION,
    LABEL_OBJECT_GENERATION,
    LABEL_OBJECT_KIND,
    LABEL_OBJECT_NAME,
    LABEL_OBJECT_UID,
    LABEL_OBJECT_VERSION,
)
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.schema.roundtrip import encode_object

STRIPPED_METADATA: Final = ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")


def revision_data(obj: Obj, kind: str) -> Obj:
    """The embedded object: typed, ``apiVersion``/``kind`` set, labels etc. removed."""
    metadata = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in STRIPPED_METADATA}
    data: Obj = {"apiVersion": INSTANCETYPE_API_VERSION, "kind": kind, "metadata": metadata}
    data.update((k, v) for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata"))
    return encode_object(data, "v1beta1." + kind)  # the Go round trip returns new containers


# --- pinning (the renderer's ``revisions`` mode) ------------------------------------------------------
MAX_NAME_LENGTH: Final = 253  # a DNS subdomain
DIGEST_LENGTH: Final = 16


def _digest(value: Any, length: int = DIGEST_LENGTH) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def content_digest(data: Obj) -> str:
    """The hash in a pinned revision's name: sha256 of ``data`` as canonical JSON (sorted keys), 16 hex digits.
    Key order and YAML formatting do not matter; any change to the embedded object does."""
    return _digest(data)


@dataclass(frozen=True, slots=True)
class PinnedContent:
    """What a pinned revision embeds, computed once per object and render."""

    data: Obj
    digest: str
    generation: int

    @staticmethod
    def of(obj: Obj, kind: str) -> PinnedContent:
        data = revision_data(obj, kind)
        generation = int((obj.get("metadata") or {}).get("generation") or 1)
        return PinnedContent(data, content_digest(data), generation)


def pinned_name(prefix: str, content: PinnedContent, object_version: str = INSTANCETYPE_VERSION) -> str:
    """``<prefix>-v1beta1-<content digest>-<generation>``, cut to a valid length without collisions: a long
    prefix is truncated and a digest of the whole prefix appended."""
    suffix = f"-{object_version}-{content.digest}-{content.generation}"
    if len(prefix) + len(suffix) > MAX_NAME_LENGTH:
        keep = MAX_NAME_LENGTH - len(suffix) - 9
        prefix = prefix[:keep].rstrip("-.") + "-" + _digest(prefix, 8)
    return prefix + suffix


def build_pinned_revision(vm: Obj, obj: Obj, kind: str, shared: bool, content: PinnedContent | None = None,
                          object_version: str = INSTANCETYPE_VERSION) -> Obj:
    """A ControllerRevision for a VM rendered offline: content-addressed name, no ownerReferences (the VM's
    uid is unknown), ``object-uid`` only when the object has one, the VM's namespace (if any).
    ``object_version``: the target release's (``krm_fn.kubevirt_versions``)."""
    vm_meta = vm.get("metadata") or {}
    obj_meta = obj.get("metadata") or {}
    if content is None:
        content = PinnedContent.of(obj, kind)
    data = content.data  # shared by every revision of this object: nothing mutates it, the emitter writes it out
    generation = content.generation
    obj_name = str(obj_meta.get("name") or "")
    prefix = obj_name if shared else f"{vm_meta.get('name') or ''}-{obj_name}"
    metadata: Obj = {"name": pinned_name(prefix, content, object_version)}
    if vm_meta.get("namespace"):
        metadata["namespace"] = vm_meta["namespace"]
    labels = {
        LABEL_OBJECT_GENERATION: str(generation),
        LABEL_OBJECT_KIND: kind,
        LABEL_OBJECT_NAME: obj_name,
    }
    if obj_meta.get("uid"):
        labels[LABEL_OBJECT_UID] = str(obj_meta["uid"])
    labels[LABEL_OBJECT_VERSION] = object_version
    metadata["labels"] = labels
    return {
        "apiVersion": CONTROLLER_REVISION_API_VERSION,
        "kind": KIND_CONTROLLER_REVISION,
        "metadata": metadata,
        "data": data,
        "revision": 0,
    }


# --- Argo CD ordering (``revisions.syncWave``) --------------------------------------------------------
def is_instancetype_revision(obj: Any) -> bool:
    """A ControllerRevision that embeds an instancetype or preference (KubeVirt's ``object-kind`` label)."""
    if not isinstance(obj, dict) or obj.get("kind") != KIND_CONTROLLER_REVISION:
        return False
    labels = (obj.get("metadata") or {}).get("labels")
    return isinstance(labels, dict) and LABEL_OBJECT_KIND in labels


def with_sync_wave(cr: Obj, wave: int) -> Obj:
    """``cr`` with ``argocd.argoproj.io/sync-wave: "<wave>"``; the same object when it already has it."""
    md = cr.get("metadata")
    metadata: Obj = md if isinstance(md, dict) else {}
    ann = metadata.get("annotations")
    annotations: dict[str, Any] = ann if isinstance(ann, dict) else {}
    if annotations.get(ANN_SYNC_WAVE) == str(wave):
        return cr
    return {**cr, "metadata": {**metadata, "annotations": {**annotations, ANN_SYNC_WAVE: str(wave)}}}
