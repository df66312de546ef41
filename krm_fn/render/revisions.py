"""Revisions made offline (the ``revisions`` mode): a ControllerRevision as KubeVirt's store makes it
(:mod:`krm_fn.kubevirt.revision`: the embedded object, the labels), named after its content, and the Argo CD
sync wave it is written with (``revisions.syncWave``).

Compared with the store: KubeVirt names a revision after the VM, the object's uid and generation and sets the
VM as its owner; an offline render knows neither uid, so the name is a digest of the embedded object (identical
content, identical name, however often it is rendered) and there is no ownerReference.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final

from krm_fn.capacity.pods import runs
from krm_fn.index import is_vm
from krm_fn.kube.api import ANN_SYNC_WAVE, CONTROLLER_REVISION_API_VERSION, INSTANCETYPE_VERSION, \
    KIND_CONTROLLER_REVISION
from krm_fn.kube.meta import annotations_of
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.revision import revision_data, revision_labels
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.results import Result

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
    def of(obj: Obj, kind: str, tag: str = DEFAULT_TAG) -> PinnedContent:
        data = revision_data(obj, kind, tag)
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
                          object_version: str = INSTANCETYPE_VERSION, tag: str = DEFAULT_TAG) -> Obj:
    """A ControllerRevision for a VM rendered offline: content-addressed name, no ownerReferences (the VM's
    uid is unknown), ``object-uid`` only when the object has one, the VM's namespace (if any).
    ``object_version``, ``tag``: the target release's (``krm_fn.kubevirt_versions``)."""
    vm_meta = vm.get("metadata") or {}
    obj_meta = obj.get("metadata") or {}
    if content is None:
        content = PinnedContent.of(obj, kind, tag)
    data = content.data  # shared by every revision of this object: nothing mutates it, the emitter writes it out
    obj_name = str(obj_meta.get("name") or "")
    prefix = obj_name if shared else f"{vm_meta.get('name') or ''}-{obj_name}"
    metadata: Obj = {"name": pinned_name(prefix, content, object_version)}
    if vm_meta.get("namespace"):
        metadata["namespace"] = vm_meta["namespace"]
    uid = str(obj_meta["uid"]) if obj_meta.get("uid") else None
    metadata["labels"] = revision_labels(obj_name, kind, content.generation, uid, object_version)
    return {
        "apiVersion": CONTROLLER_REVISION_API_VERSION,
        "kind": KIND_CONTROLLER_REVISION,
        "metadata": metadata,
        "data": data,
        "revision": 0,
    }


def with_sync_wave(cr: Obj, wave: int) -> Obj:
    """``cr`` with ``argocd.argoproj.io/sync-wave: "<wave>"`` (Argo CD applies lower waves first); the same
    object when it already has it."""
    md = cr.get("metadata")
    metadata: Obj = md if isinstance(md, dict) else {}
    annotations = annotations_of(cr)
    if annotations.get(ANN_SYNC_WAVE) == str(wave):
        return cr
    return {**cr, "metadata": {**metadata, "annotations": {**annotations, ANN_SYNC_WAVE: str(wave)}}}


def stopped_vm_warnings(items: list[Any], sync_wave: int | None) -> list[Result]:
    """A warning on the first VM that does not run when revisions carry an Argo CD sync wave: Argo CD's bundled
    health check calls a stopped VM Suspended before argo-cd#29664, and a sync of more than one wave then never
    finishes (argo-cd#29663)."""
    if sync_wave is None:
        return []
    stopped = [item for item in items if is_vm(item) and not runs(item)]
    if not stopped:
        return []
    others = f" and {len(stopped) - 1} more" if len(stopped) > 1 else ""
    return [Result.for_object(
        f"revisions.syncWave makes Argo CD sync in waves, and this VM{others} does not run: Argo CD's bundled "
        "health check calls a stopped VM Suspended before argo-cd#29664, and the sync never finishes "
        "(argo-cd#29663); on such a release, merge the health check of examples/argocd/argocd-cm-health.yaml "
        "into argocd-cm", stopped[0], "warning", field_path="spec.runStrategy", tags=(("stage", "argocd"),))]
