"""What a cluster running KubeVirt does with an instancetype or preference object it is asked to create
(``kubectl create``), stage by stage in the cluster's order; the first stage that refuses decides, in the words
kubectl prints (``shared/conformance-objects/README.md``):

1. ``version``: the CRDs serve only ``instancetype.kubevirt.io/v1beta1``; any other version of the four kinds is
   ``no matches for kind "K" in version "..."`` (``meta.NoKindMatchError``). v1.5 also serves ``v1alpha1`` and
   ``v1alpha2`` (``Release.alpha_versions_served``), with the v1beta1 schema and a deprecation warning: every stage
   below answers as for v1beta1 (v1.5.3's object webhooks are registered for all three versions and decode each
   into the v1beta1 Go type; conversion ``None``, stored as v1beta1), the decoder naming the version asked for.
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

from dataclasses import dataclass
from typing import Any, Final

from krm_fn.kube.api import (
    ALPHA_API_VERSIONS,
    CLUSTER_SCOPED_KINDS,
    INSTANCETYPE_API_VERSION,
    INSTANCETYPE_GROUP,
    INSTANCETYPE_VERSION,
    KIND_CLUSTER_INSTANCETYPE,
    KIND_CLUSTER_PREFERENCE,
    KIND_INSTANCETYPE,
    KIND_PREFERENCE,
    PREFERENCE_KINDS,
)
from krm_fn.kube.identity import group_of
from krm_fn.kube.meta import object_meta_causes
from krm_fn.kube.paths import Obj
from krm_fn.kube.status import DEPRECATED, INVALID, Cause, invalid_message, no_kind_match
from krm_fn.kubevirt.rejection import Stage
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.schema.crd import as_decoded, definition, schema_causes, unknown_fields, unmarshal_error
from krm_fn.kubevirt.schema.strict import META_DEF
from krm_fn.kubevirt.preference.webhooks import admitter as preference
from krm_fn.kubevirt.webhooks import admitter as instancetype
from krm_fn.kubevirt_versions import Release, release_of

# the four kinds, and the Go type each one's webhook decodes into (:mod:`.admitter` for the instancetypes,
# the preference admitter for the preferences): the cluster-wide admitters share the namespaced kinds' types
GO_STRUCTS: Final[dict[str, str]] = {
    KIND_INSTANCETYPE: KIND_INSTANCETYPE,
    KIND_CLUSTER_INSTANCETYPE: KIND_INSTANCETYPE,
    KIND_PREFERENCE: KIND_PREFERENCE,
    KIND_CLUSTER_PREFERENCE: KIND_PREFERENCE,
}
# the plural v1.5's CRDs name in their deprecation warnings (``ALPHA_API_VERSIONS``)
DEPRECATED_PLURALS: Final[dict[str, str]] = {
    KIND_INSTANCETYPE: "VirtualMachineInstancetypes",
    KIND_CLUSTER_INSTANCETYPE: "VirtualMachineClusterInstanceTypes",
    KIND_PREFERENCE: "VirtualMachinePreferences",
    KIND_CLUSTER_PREFERENCE: "VirtualMachineClusterPreferences",
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
    lead: str = ""  # decode: the decoder's words before each cause's message (a refusal of that cause alone)

    @property
    def allowed(self) -> bool:
        return self.stage is None


def covers(obj: Any) -> bool:
    """An object these checks apply to: one of the four kinds in any version of any of KubeVirt's groups (only
    ``instancetype.kubevirt.io/v1beta1`` is served; the others are refused at the ``version`` stage)."""
    if not isinstance(obj, dict) or obj.get("kind") not in GO_STRUCTS:
        return False
    api_version = obj.get("apiVersion")
    return isinstance(api_version, str) and group_of(api_version).endswith(KUBEVIRT_DOMAIN)


def served(obj: Obj, tag: str = DEFAULT_TAG) -> bool:
    """The object's version is one the CRDs of KubeVirt ``tag`` serve."""
    api_version = obj.get("apiVersion")
    return api_version == INSTANCETYPE_API_VERSION or (api_version in ALPHA_API_VERSIONS
                                                       and release_of(tag).alpha_versions_served)


def _deprecation(obj: Obj) -> tuple[Cause, ...]:
    """The API server's warning for a request in a deprecated version (v1.5's alphas), else none."""
    api_version = obj.get("apiVersion")
    if api_version not in ALPHA_API_VERSIONS:
        return ()
    return (Cause(DEPRECATED, "apiVersion", f"{api_version} {DEPRECATED_PLURALS[str(obj.get('kind'))]} is now "
                                            "deprecated and will be removed in v1."),)


def decide(obj: Obj, tag: str = DEFAULT_TAG) -> Decision:
    """What a cluster running KubeVirt ``tag`` does with ``obj`` (a :func:`covers` object): its CRDs' schema
    is that release's, so a field the release does not know is refused at decode; its webhooks' warnings are
    that release's (:class:`krm_fn.kubevirt_versions.Release`)."""
    kind = str(obj.get("kind"))
    if not served(obj, tag):
        return Decision("version", no_kind_match(kind, str(obj.get("apiVersion"))))
    row: Release = release_of(tag)
    root = definition(f"{INSTANCETYPE_VERSION}.{kind}", tag)
    version = str(obj.get("apiVersion")).rpartition("/")[2]  # v1beta1 (v1.5: or an alpha, same schema)
    cannot = f'{kind} in version "{version}" cannot be handled as a {kind}: '
    meta_error = unmarshal_error(obj.get("metadata"), definition(META_DEF, tag), "ObjectMeta")
    if meta_error:
        return Decision("decode", cannot + meta_error, (Cause(INVALID, "metadata", meta_error),), lead=cannot)
    unknown = unknown_fields(obj, root)
    if unknown:
        texts = [f'unknown field "{path}"' for path in unknown]
        strict = cannot + "strict decoding error: "
        return Decision("decode", strict + ", ".join(texts),
                        tuple(Cause(INVALID, path, text) for path, text in zip(unknown, texts)), lead=strict)
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
    spec = decoded.get("spec")
    answer = preference.admit(spec) if kind in PREFERENCE_KINDS else instancetype.admit(
        spec, row.launch_security_warning)
    if answer.causes:
        return Decision("webhook", ", ".join(c.message for c in answer.causes), tuple(answer.causes[:MAX_CAUSES]))
    return Decision(None, warnings=_deprecation(obj) + tuple(answer.warnings))


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
    if not covers(obj) or not served(obj, tag):
        return None
    decision = decided(obj, cache, tag)
    return None if decision.allowed else decision
