"""Find the instancetype / preference a VM's matcher refers to (``pkg/instancetype/find``,
``pkg/instancetype/preference/find``): ``revisionName`` first, then a status ref whose revision belongs to
the matcher's object, then the live object by kind (items first, then the catalog).

One package serves both families: upstream's two find packages are the same code over two Go types, here the
family (:data:`krm_fn.kube.api.Family`) is a parameter, and what differs (the kinds a matcher may name, the status
ref) is a table keyed by it.

A spec is read as the target release's Go types decode it (``tag``, :func:`decoded_spec`): a field that release
does not know is not there (a v1.8 cluster drops a preference's ``preferredVideoType`` and never applies it)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from krm_fn.index import Index, namespace_of
from krm_fn.kube.api import (
    FAMILIES,
    FAMILY_KINDS,
    INSTANCETYPE_API_VERSION,
    INSTANCETYPE_GROUP,
    KIND_CLUSTER_INSTANCETYPE,
    KIND_CLUSTER_PREFERENCE,
    KIND_CONTROLLER_REVISION,
    KIND_INSTANCETYPE,
    KIND_PREFERENCE,
    LABEL_OBJECT_NAME,
    MATCHER_TYPE,
    TYPE_KINDS,
    Family,
)
from krm_fn.kube.paths import Obj, get, get2
from krm_fn.kubevirt.compatibility import alpha_spec
from krm_fn.kubevirt.schema import DEFAULT_TAG
from krm_fn.kubevirt.schema.roundtrip import known_only
from krm_fn.kubevirt_versions import release_of

if TYPE_CHECKING:
    from krm_fn.kubevirt.caches import Caches, FoundKey

# lower-cased matcher kind -> object kind (an empty kind means the cluster kind)
KIND_ALIASES: Final[dict[Family, dict[str, str]]] = {
    "instancetype": {
        "virtualmachineinstancetype": KIND_INSTANCETYPE,
        "virtualmachineinstancetypes": KIND_INSTANCETYPE,
        "virtualmachineclusterinstancetype": KIND_CLUSTER_INSTANCETYPE,
        "virtualmachineclusterinstancetypes": KIND_CLUSTER_INSTANCETYPE,
        "": KIND_CLUSTER_INSTANCETYPE,
    },
    "preference": {
        "virtualmachinepreference": KIND_PREFERENCE,
        "virtualmachinepreferences": KIND_PREFERENCE,
        "virtualmachineclusterpreference": KIND_CLUSTER_PREFERENCE,
        "virtualmachineclusterpreferences": KIND_CLUSTER_PREFERENCE,
        "": KIND_CLUSTER_PREFERENCE,
    },
}
# where client-go's scheme is created (the decoder names the scheme by that call site)
CLIENT_SCHEME: Final = "kubevirt.io/client-go/kubevirt/scheme/register.go:44"
UNEXPECTED_TYPE: Final = "unexpected type in ControllerRevision: "
STATUS_REF: Final[dict[Family, str]] = {"instancetype": "instancetypeRef", "preference": "preferenceRef"}


class FindError(Exception):
    """A lookup failure, with KubeVirt's (API server's) wording."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Found:
    spec: Obj                   # the object's spec (what gets applied)
    obj: Obj | None             # the live object; None when it came from a ControllerRevision
    kind: str                   # the object kind
    revision: Obj | None = None  # the ControllerRevision it came from (``revisionName`` or a status ref)


# what ``find.Spec`` gave for each matcher of a VM (a family without a matcher is absent; None for a matcher
# that infers its object from a volume, looked up once the mutating webhook named it): errors as values
Matches = dict[Family, Found | FindError | None]


def resource_of(kind: str) -> str:
    """``virtualmachineinstancetypes.instancetype.kubevirt.io`` etc. (the not-found error's resource)."""
    return f"{kind.lower()}s.{INSTANCETYPE_GROUP}"


def not_found(resource: str, name: str) -> FindError:
    return FindError(f'{resource} "{name}" not found')


def object_kind(family: Family, matcher_kind: str) -> str:
    """The object kind a matcher ``kind`` names (case-insensitive); raises for anything else."""
    kind = KIND_ALIASES[family].get(matcher_kind.lower())
    if kind is None:
        raise FindError(f"got unexpected kind in {MATCHER_TYPE[family]}: {matcher_kind}")
    return kind


def find_object(vm: Obj, family: Family, index: Index) -> tuple[str, Obj]:
    """The live object the matcher names (no revision lookup); raises :class:`FindError`."""
    matcher = get2(vm, "spec", family) or {}
    kind = object_kind(family, str(matcher.get("kind") or ""))
    name = str(matcher.get("name") or "")
    obj = index.get(kind, namespace_of(vm), name, fallback=True)
    if obj is None:
        raise not_found(resource_of(kind), name)
    return kind, obj


def decoded_spec(obj: Obj, kind: str, tag: str) -> Obj:
    """``obj``'s spec as KubeVirt ``tag`` decodes it into its ``v1beta1`` type (unknown fields dropped; ``{}``
    for a missing or malformed spec)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return {}
    out: Obj = known_only(spec, _spec_definition(kind), tag)
    return out


def _spec_definition(kind: str) -> str:
    return f"v1beta1.{kind.replace('Cluster', '')}Spec"  # the cluster kinds share the namespaced kinds' spec type


def spec_from_revision(cr: Obj, family: Family, tag: str = DEFAULT_TAG, matcher_kind: str = "") -> Found:
    """The spec embedded in a ControllerRevision, as KubeVirt ``tag`` decodes it: ``v1beta1`` only, or also the
    alphas where the release still decodes them (``Release.alpha_revisions_decoded``: v1.5, v1.6; a spec
    revision names no kind, the matcher's ``matcher_kind`` is taken)."""
    data: Any = cr.get("data")
    if data is None:
        # no ``data`` (or null): an empty RawExtension is not decoded at all, and the type switch on the nil
        # object says so (``compatibility.GetInstancetypeSpec``/``GetPreferenceSpec``)
        raise FindError(f"{UNEXPECTED_TYPE}<nil>")
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as err:
            raise FindError(f"failed to decode object in ControllerRevision: {err}") from None
    if not isinstance(data, dict):
        raise FindError("failed to decode object in ControllerRevision: Object 'Kind' is missing in 'null'")
    if release_of(tag).alpha_revisions_decoded:
        legacy = alpha_spec(data, family)
        if legacy is not None:
            kind = str(data.get("kind") or "") or object_kind(family, matcher_kind)
            if kind not in FAMILY_KINDS[family]:
                raise FindError(f"{UNEXPECTED_TYPE}*v1beta1.{kind}")
            return Found(known_only(legacy, _spec_definition(kind), tag), None, kind, cr)
    api_version = str(data.get("apiVersion") or "")
    kind = str(data.get("kind") or "")
    if not kind:
        raise FindError(f"failed to decode object in ControllerRevision: Object 'Kind' is missing in "
                        f"'{json.dumps(data, separators=(',', ':'))}'")
    if api_version != INSTANCETYPE_API_VERSION or kind not in TYPE_KINDS:
        raise FindError(f'failed to decode object in ControllerRevision: no kind "{kind}" is registered for '
                        f'version "{api_version}" in scheme "{CLIENT_SCHEME}"')
    if kind not in FAMILY_KINDS[family]:
        raise FindError(f"{UNEXPECTED_TYPE}*v1beta1.{kind}")
    return Found(decoded_spec(data, kind, tag), None, kind, cr)


def _revision(vm: Obj, name: str, index: Index) -> Obj:
    cr = index.get(KIND_CONTROLLER_REVISION, namespace_of(vm), name)
    if cr is None:
        raise not_found("controllerrevisions.apps", name)
    return cr


def find_spec(vm: Obj, family: Family, index: Index, caches: Caches | None = None,
              tag: str = DEFAULT_TAG) -> Found | None:
    """What ``find.Spec`` of KubeVirt ``tag`` returns for the matcher (``None`` without a matcher); raises
    :class:`FindError`. A live object found is remembered in ``caches`` (the same for every VM that names it;
    one release per render)."""
    matcher = get2(vm, "spec", family)
    if not isinstance(matcher, dict):
        return None
    revision_name = matcher.get("revisionName")
    if revision_name:
        return spec_from_revision(_revision(vm, str(revision_name), index), family, tag, str(matcher.get("kind") or ""))
    ref_name = get(vm, ("status", STATUS_REF[family], "controllerRevisionRef", "name"))
    if ref_name:
        cr = _revision(vm, str(ref_name), index)
        labels = get2(cr, "metadata", "labels")
        if isinstance(labels, dict) and labels.get(LABEL_OBJECT_NAME) == matcher.get("name"):
            return spec_from_revision(cr, family, tag, str(matcher.get("kind") or ""))
    matcher_kind, name = matcher.get("kind"), matcher.get("name")
    key: FoundKey | None = None
    if caches is not None and type(name) is str and (matcher_kind is None or type(matcher_kind) is str):
        # the live object by matcher and namespace: the same for every VM that names it (this render)
        key = (family, matcher_kind, name, namespace_of(vm))
        found = caches.found.get(key)
        if found is not None:
            return found
    kind, obj = find_object(vm, family, index)
    found = Found(decoded_spec(obj, kind, tag), obj, kind)
    if key is not None and caches is not None:
        caches.found[key] = found
    return found


def find_matches(vm: Obj, index: Index, caches: Caches | None = None, known: Matches | None = None,
                 like: Obj | None = None, tag: str = DEFAULT_TAG) -> Matches:
    """:func:`find_spec` (KubeVirt ``tag``'s) for every matcher of ``vm``, each looked up once (live objects
    through ``caches``, the render's). ``known``: the matches of ``like`` (another form of the same VM: same
    namespace and status), reused for every matcher the two share."""
    spec = vm.get("spec")
    if not isinstance(spec, dict):
        return {}
    other = like.get("spec") if like is not None else None
    out: Matches = {}
    for family in FAMILIES:
        matcher = spec.get(family)
        if not isinstance(matcher, dict):
            continue
        if known is not None and family in known and isinstance(other, dict) and other.get(family) == matcher:
            out[family] = known[family]
            continue
        if matcher.get("inferFromVolume"):
            out[family] = None
            continue
        try:
            found = find_spec(vm, family, index, caches, tag)
        except FindError as err:
            # kept as a value: without its traceback, whose frames would hold this dict (a reference cycle
            # keeps the whole list alive until the exit's collection: the command runs with the GC off)
            out[family] = err.with_traceback(None)
            continue
        assert found is not None
        out[family] = found
    return out


def live_object(vm: Obj, family: Family, match: Found | FindError | None, index: Index) -> tuple[str, Obj]:
    """The live object the matcher names: the one ``match`` found, or (when the spec came from a
    ControllerRevision, or the lookup failed there) looked up by kind and name; raises :class:`FindError`."""
    if isinstance(match, Found) and match.obj is not None:
        return match.kind, match.obj
    return find_object(vm, family, index)
