"""What ``find.Spec`` returns for each matcher of a VM (``pkg/instancetype/find/spec.go``): ``revisionName``
first, then a status ref whose revision belongs to the matcher's object, then the live object by kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from krm_fn.index import Index, namespace_of
from krm_fn.kube.api import FAMILIES, LABEL_OBJECT_NAME, Family
from krm_fn.kube.paths import Obj, get, get2
from krm_fn.kubevirt.find.found import FindError, Found, Matches
from krm_fn.kubevirt.find.object import decoded_spec, find_object
from krm_fn.kubevirt.find.revision import revision, spec_from_revision
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG

if TYPE_CHECKING:
    from krm_fn.kubevirt.caches import Caches, FoundKey

STATUS_REF: Final[dict[Family, str]] = {"instancetype": "instancetypeRef", "preference": "preferenceRef"}


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
        return spec_from_revision(revision(vm, str(revision_name), index), family, tag, str(matcher.get("kind") or ""))
    ref_name = get(vm, ("status", STATUS_REF[family], "controllerRevisionRef", "name"))
    if ref_name:
        cr = revision(vm, str(ref_name), index)
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
