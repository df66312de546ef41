"""The live object a matcher names, found by kind and name (``pkg/instancetype/find/instancetype.go``,
``pkg/instancetype/preference/find/preference.go``), and its spec as a release decodes it."""

from __future__ import annotations

from typing import Final

from krm_fn.index import Index, namespace_of
from krm_fn.kube.api import (
    INSTANCETYPE_GROUP,
    KIND_CLUSTER_INSTANCETYPE,
    KIND_CLUSTER_PREFERENCE,
    KIND_INSTANCETYPE,
    KIND_PREFERENCE,
    MATCHER_TYPE,
    Family,
)
from krm_fn.kube.paths import Obj, get2
from krm_fn.kubevirt.find.found import FindError, Found
from krm_fn.kubevirt.schema.roundtrip import known_only

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
    out: Obj = known_only(spec, spec_definition(kind), tag)
    return out


def spec_definition(kind: str) -> str:
    return f"v1beta1.{kind.replace('Cluster', '')}Spec"  # the cluster kinds share the namespaced kinds' spec type


def live_object(vm: Obj, family: Family, match: Found | FindError | None, index: Index) -> tuple[str, Obj]:
    """The live object the matcher names: the one ``match`` found, or (when the spec came from a
    ControllerRevision, or the lookup failed there) looked up by kind and name; raises :class:`FindError`."""
    if isinstance(match, Found) and match.obj is not None:
        return match.kind, match.obj
    return find_object(vm, family, index)
