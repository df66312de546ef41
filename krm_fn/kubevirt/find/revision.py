"""The spec a ControllerRevision holds (``pkg/instancetype/find/revision.go`` and the decoding of
``pkg/instancetype/compatibility``), as a release decodes it."""

from __future__ import annotations

import json
from typing import Any, Final

from krm_fn.index import Index, namespace_of
from krm_fn.kube.api import FAMILY_KINDS, INSTANCETYPE_API_VERSION, KIND_CONTROLLER_REVISION, TYPE_KINDS, Family
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.compatibility import alpha_spec
from krm_fn.kubevirt.find.found import FindError, Found
from krm_fn.kubevirt.find.object import decoded_spec, not_found, object_kind, spec_definition
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.schema.roundtrip import known_only
from krm_fn.kubevirt_versions import release_of

# where client-go's scheme is created (the decoder names the scheme by that call site)
CLIENT_SCHEME: Final = "kubevirt.io/client-go/kubevirt/scheme/register.go:44"
UNEXPECTED_TYPE: Final = "unexpected type in ControllerRevision: "


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
            return Found(known_only(legacy, spec_definition(kind), tag), None, kind, cr)
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


def revision(vm: Obj, name: str, index: Index) -> Obj:
    cr = index.get(KIND_CONTROLLER_REVISION, namespace_of(vm), name)
    if cr is None:
        raise not_found("controllerrevisions.apps", name)
    return cr
