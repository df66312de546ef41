"""What a cluster running KubeVirt does with an instancetype or preference object it is asked to create
(``kubectl create``), stage by stage in the cluster's order; the first stage that refuses decides, in the words
kubectl prints (``shared/conformance-objects/README.md``):

1. ``version``: the CRDs serve only ``instancetype.kubevirt.io/v1beta1``; any other version of the four kinds is
   ``no matches for kind "K" in version "..."`` (``meta.NoKindMatchError``).
2. ``decode`` (:mod:`krm_fn.kubevirt.schema.crd`): ``metadata`` must decode into ``ObjectMeta`` (Go's json error);
   unknown fields are refused (``strict decoding error: unknown field "spec.foo"``, one cause each, sorted);
   nulls of non-nullable fields are dropped.
3. ``validate``: ``ValidateObjectMeta`` (:func:`krm_fn.kube.meta.object_meta_causes`) then the CRD's schema
   (types, required, bounds such as ``overcommitPercent`` 0..100, the quantity pattern), as
   ``apierrors.NewInvalid``: ``<Kind>.instancetype.kubevirt.io "<name>" is invalid: <field>: <ErrorBody>``.
   A cluster-scoped object loses its namespace first (``BeforeCreate``), a namespaced one without gets
   ``default`` (kubectl).
4. ``webhook``: virt-api's validating webhook for the kind (registered in virt-operator's ``webhooks.go`` as
   ``<kind>-validator.instancetype.kubevirt.io``): ``json.Unmarshal`` into the Go type (an integer out of its Go
   type's range: Go's error, no cause), then :mod:`.admitter` / :mod:`krm_fn.kubevirt.preference.webhooks.admitter`; causes joined by ``, ``
   (``webhookutils.ToAdmissionResponse``). An admitted object carries the webhook's warnings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from krm_fn.kube.api import (
    CLUSTER_SCOPED_KINDS,
    INSTANCETYPE_API_VERSION,
    INSTANCETYPE_GROUP,
    INSTANCETYPE_VERSION,
    KIND_CLUSTER_INSTANCETYPE,
    KIND_CLUSTER_PREFERENCE,
    KIND_INSTANCETYPE,
    KIND_PREFERENCE,
)
from krm_fn.kube.identity import group_of
from krm_fn.kube.meta import object_meta_causes
from krm_fn.kube.paths import Obj
from krm_fn.kube.status import INVALID, Cause, invalid_message, no_kind_match
from krm_fn.kubevirt.rejection import Stage
from krm_fn.kubevirt.schema import DEFAULT_TAG
from krm_fn.kubevirt.schema.crd import as_decoded, definition, schema_causes, unknown_fields, unmarshal_error
from krm_fn.kubevirt.schema.strict import META_DEF
from krm_fn.kubevirt.preference.webhooks import admitter as preference
from krm_fn.kubevirt.webhooks import Answer
from krm_fn.kubevirt.webhooks import admitter as instancetype

WEBHOOKS: Final[dict[str, Callable[[Any], Answer]]] = {
    KIND_INSTANCETYPE: instancetype.admit,
    KIND_CLUSTER_INSTANCETYPE: instancetype.admit,
    KIND_PREFERENCE: preference.admit,
    KIND_CLUSTER_PREFERENCE: preference.admit,
}
# the Go type each webhook decodes into: the cluster-wide admitters share the namespaced kinds' types
GO_STRUCTS: Final[dict[str, str]] = {
    KIND_INSTANCETYPE: KIND_INSTANCETYPE,
    KIND_CLUSTER_INSTANCETYPE: KIND_INSTANCETYPE,
    KIND_PREFERENCE: KIND_PREFERENCE,
    KIND_CLUSTER_PREFERENCE: KIND_PREFERENCE,
}
KUBEVIRT_DOMAIN: Final = "kubevirt.io"  # kubevirt.io, instancetype.kubevirt.io, flavor.kubevirt.io, ...
MAX_CAUSES: Final = 10  # webhookutils.ToAdmissionResponse keeps at most this many causes


@dataclass(frozen=True, slots=True)
class Decision:
    """The cluster's answer to one object: ``stage`` None (stored, with the webhook's ``warnings``) or the first
    stage that refused it, with the message kubectl prints and the causes (``metav1.StatusCause``)."""

    stage: Stage | None
    message: str | None = None
    causes: tuple[Cause, ...] = ()
    warnings: tuple[Cause, ...] = ()

    @property
    def allowed(self) -> bool:
        return self.stage is None


def covers(obj: Any) -> bool:
    """An object these checks apply to: one of the four kinds in any version of any of KubeVirt's groups (only
    ``instancetype.kubevirt.io/v1beta1`` is served; the others are refused at the ``version`` stage)."""
    if not isinstance(obj, dict) or obj.get("kind") not in WEBHOOKS:
        return False
    api_version = obj.get("apiVersion")
    return isinstance(api_version, str) and group_of(api_version).endswith(KUBEVIRT_DOMAIN)


def served(obj: Obj) -> bool:
    """The object's version is the one the CRDs serve."""
    return obj.get("apiVersion") == INSTANCETYPE_API_VERSION


def decide(obj: Obj, tag: str = DEFAULT_TAG) -> Decision:
    """What a cluster running KubeVirt ``tag`` does with ``obj`` (a :func:`covers` object): its CRDs' schema
    is that release's, so a field the release does not know is refused at decode."""
    kind = str(obj.get("kind"))
    if not served(obj):
        return Decision("version", no_kind_match(kind, str(obj.get("apiVersion"))))
    root = definition(f"{INSTANCETYPE_VERSION}.{kind}", tag)
    cannot = f'{kind} in version "{INSTANCETYPE_VERSION}" cannot be handled as a {kind}: '
    meta_error = unmarshal_error(obj.get("metadata"), definition(META_DEF, tag), "ObjectMeta")
    if meta_error:
        return Decision("decode", cannot + meta_error, (Cause(INVALID, "metadata", meta_error),))
    unknown = unknown_fields(obj, root)
    if unknown:
        texts = [f'unknown field "{path}"' for path in unknown]
        return Decision("decode", cannot + "strict decoding error: " + ", ".join(texts),
                        tuple(Cause(INVALID, path, text) for path, text in zip(unknown, texts)))
    decoded: Obj = as_decoded(obj, root)
    meta = dict(decoded.get("metadata") or {})
    if kind in CLUSTER_SCOPED_KINDS:
        meta.pop("namespace", None)  # BeforeCreate
    elif not meta.get("namespace"):
        meta["namespace"] = "default"  # kubectl
    causes = object_meta_causes(meta, kind not in CLUSTER_SCOPED_KINDS)
    causes += schema_causes(decoded, root, tag)
    if causes:
        return Decision("validate", invalid_message(kind, INSTANCETYPE_GROUP, str(meta.get("name") or ""), causes),
                        tuple(causes))
    go_error = unmarshal_error(decoded, root, GO_STRUCTS[kind])
    if go_error:
        return Decision("webhook", go_error)
    answer = WEBHOOKS[kind](decoded.get("spec"))
    if answer.causes:
        return Decision("webhook", ", ".join(c.message for c in answer.causes), tuple(answer.causes[:MAX_CAUSES]))
    return Decision(None, warnings=tuple(answer.warnings))


def decided(obj: Obj, cache: dict[int, Decision] | None = None, tag: str = DEFAULT_TAG) -> Decision:
    """:func:`decide`, computed once per object (by identity) when a ``cache`` (``Caches.admission``: one
    render, one release) is given (every VM asks about its objects)."""
    found = cache.get(id(obj)) if cache is not None else None
    if found is None:
        found = decide(obj, tag)
        if cache is not None:
            cache[id(obj)] = found
    return found


def refused(obj: Any, cache: dict[int, Decision] | None = None, tag: str = DEFAULT_TAG) -> Decision | None:
    """The refusal of ``obj`` by a cluster (None when it is not a served :func:`covers` object, or is admitted).
    An unserved version is not a refusal here: it is the migrate mode's business (``krm_fn.render.migrate``)."""
    if not covers(obj) or not served(obj):
        return None
    decision = decided(obj, cache, tag)
    return None if decision.allowed else decision
