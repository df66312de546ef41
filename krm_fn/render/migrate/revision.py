"""ControllerRevisions that KubeVirt >= v1.7 can no longer decode (``pkg/instancetype/compatibility``,
``pkg/instancetype/upgrade``).

Three stored forms, as KubeVirt <= v1.6 decoded them:

* v1alpha1 spec revision: ``data`` is exactly ``{apiVersion, spec}`` with ``spec`` the base64 of the
  JSON spec (``VirtualMachineInstancetypeSpecRevision`` / ``VirtualMachinePreferenceSpecRevision``);
* v1alpha1/v1alpha2 (or flavor-era) object: ``data`` is the whole object;
* v1beta1 object whose revision lacks the label ``instancetype.kubevirt.io/object-version: v1beta1``:
  decodable, only the label is missing (KubeVirt's upgrade step still replaces and deletes it, §12.5/§12.8).

Labels are mutable on the server, ``data`` is not: the last form is fixed in place (same name), the first two
get new data and therefore a new name (``docs/migrate.md``, "revision names").
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Final

from krm_fn.kube.api import (
    CLUSTER_SCOPED_KINDS,
    FAMILY_KINDS,
    INSTANCETYPE_API_VERSION,
    INSTANCETYPE_GROUP,
    INSTANCETYPE_VERSION,
    KIND_CONTROLLER_REVISION,
    KIND_INSTANCETYPE,
    KIND_PREFERENCE,
    LABEL_OBJECT_GENERATION,
    LABEL_OBJECT_KIND,
    LABEL_OBJECT_NAME,
    LABEL_OBJECT_UID,
    LABEL_OBJECT_VERSION,
    Family,
)
from krm_fn.kube.identity import group_of
from krm_fn.kube.paths import Obj, get
from krm_fn.kubevirt.compatibility import is_spec_revision
from krm_fn.kubevirt.find.found import FindError
from krm_fn.kubevirt.find.object import object_kind
from krm_fn.render.migrate.common import FLAVOR_GROUP, current_kind, family_of, legacy_spec, target_kind

OBJECT_LABEL_PREFIX: Final = "instancetype.kubevirt.io/object-"
SPEC_REVISION_TYPE: Final[dict[Family, str]] = {
    "instancetype": "VirtualMachineInstancetypeSpecRevision",
    "preference": "VirtualMachinePreferenceSpecRevision",
}
# the kind KubeVirt gave a decoded spec revision (compatibility.go); used when the matcher kind is invalid
SPEC_REVISION_KIND: Final[dict[Family, str]] = {"instancetype": KIND_INSTANCETYPE, "preference": KIND_PREFERENCE}


class DecodeError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Decoded:
    kind: str       # the v1beta1 kind
    obj: Obj        # the embedded object as v1beta1 (apiVersion, kind, metadata, spec)
    source: str     # the legacy form, for messages
    legacy: bool    # the data must change (False: v1beta1 data, only labels are missing)
    notes: tuple[str, ...] = ()


def is_controller_revision(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == KIND_CONTROLLER_REVISION and \
        group_of(obj.get("apiVersion")) == "apps"


def labelled_current(cr: Obj) -> bool:
    return bool(get(cr, ("metadata", "labels", LABEL_OBJECT_VERSION)) == INSTANCETYPE_VERSION)


def _data(cr: Obj) -> Any:
    data = cr.get("data")
    if isinstance(data, (str, bytes)):
        try:
            return json.loads(data)
        except ValueError as err:
            raise DecodeError(f"data is not JSON: {err}") from None
    return data


def looks_like_ours(cr: Obj) -> bool:
    """An instancetype-era revision (not a StatefulSet's, DaemonSet's or a VM start revision)."""
    labels = get(cr, ("metadata", "labels")) or {}
    if isinstance(labels, dict) and any(str(k).startswith(OBJECT_LABEL_PREFIX) for k in labels):
        return True
    try:
        data = _data(cr)
    except DecodeError:
        return False
    return isinstance(data, dict) and group_of(data.get("apiVersion")) in (INSTANCETYPE_GROUP, FLAVOR_GROUP)


def holds_spec_revision(cr: Obj) -> bool:
    """``data`` is a v1alpha1 spec revision (``{apiVersion, spec: <base64>}``)."""
    try:
        data = _data(cr)
    except DecodeError:
        return False
    return isinstance(data, dict) and is_spec_revision(data)


def decode(cr: Obj, family: Family | None, matcher: Obj | None = None, namespace: str = "") -> Decoded:
    """The object a revision embeds, as v1beta1. ``family``/``matcher``/``namespace`` come from the VM that
    references the revision (a spec revision does not say which object it was taken from); raises
    :class:`DecodeError`."""
    data = _data(cr)
    if not isinstance(data, dict):
        raise DecodeError("data is not an object")
    if is_spec_revision(data):
        if family is None:
            raise DecodeError("a v1alpha1 spec revision can only be decoded for the VM that references it")
        return _decode_spec_revision(data, family, matcher or {}, namespace)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not kind:
        raise DecodeError(f"Object 'Kind' is missing in its data (keys: {', '.join(sorted(map(str, data)))})")
    new_kind = current_kind(api_version, kind)
    if new_kind is None or (api_version == f"{FLAVOR_GROUP}/v1alpha1" and "profiles" in data):
        raise DecodeError(f'no kind "{kind}" is registered for version "{api_version}"')
    if family is not None and family_of(new_kind) != family:
        raise DecodeError(f"it holds a {kind}, not a{'n' if family == 'instancetype' else ''} {family}")
    spec = data.get("spec")
    if spec is not None and not isinstance(spec, dict):
        raise DecodeError("spec is not an object")
    legacy = target_kind(api_version, kind) is not None
    source = f"{api_version} {kind}"
    new_spec, notes = (legacy_spec(spec or {}, family_of(new_kind) or "instancetype", str(api_version))
                       if legacy else (spec or {}, []))
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    obj: Obj = {"apiVersion": INSTANCETYPE_API_VERSION, "kind": new_kind, "metadata": metadata, "spec": new_spec}
    return Decoded(new_kind, obj, source, legacy, tuple(n.message for n in notes))


def _decode_spec_revision(data: Obj, family: Family, matcher: Obj, namespace: str) -> Decoded:
    try:
        raw = base64.b64decode(str(data["spec"]), validate=True)
        spec = json.loads(raw)
    except (binascii.Error, ValueError) as err:
        raise DecodeError(f"the spec of the v1alpha1 spec revision does not decode: {err}") from None
    if not isinstance(spec, dict):
        raise DecodeError("the spec of the v1alpha1 spec revision is not an object")
    other: Family = "preference" if family == "instancetype" else "instancetype"
    # KubeVirt tried a strict preference decode first; an instancetype spec has cpu.guest and memory
    looks_instancetype = isinstance(spec.get("cpu"), dict) and "guest" in spec["cpu"] or "memory" in spec
    if looks_instancetype != (family == "instancetype"):
        raise DecodeError(f"its spec is not a{'n' if family == 'instancetype' else ''} {family} spec "
                          f"(it looks like a{'n' if other == 'instancetype' else ''} {other} spec)")
    try:
        kind = object_kind(family, str(matcher.get("kind") or ""))
    except FindError:
        kind = SPEC_REVISION_KIND[family]
    assert kind in FAMILY_KINDS[family]
    api_version = str(data.get("apiVersion"))
    source = f"{api_version} {SPEC_REVISION_TYPE[family]}"
    new_spec, notes = legacy_spec(spec, family, api_version)
    metadata: Obj = {"name": str(matcher.get("name") or "")}
    if namespace and kind not in CLUSTER_SCOPED_KINDS:
        metadata["namespace"] = namespace  # the matcher names an object in the VM's namespace
    obj: Obj = {"apiVersion": INSTANCETYPE_API_VERSION, "kind": kind, "metadata": metadata, "spec": new_spec}
    return Decoded(kind, obj, source, True, tuple(n.message for n in notes))


def fixed_labels(cr: Obj, decoded: Decoded) -> Obj:
    """The revision with the five object labels completed from its (v1beta1) data, key order kept; only
    missing labels are added and ``object-version`` is set to v1beta1."""
    md = cr.get("metadata") or {}
    labels = dict(md.get("labels") or {})
    obj_md = decoded.obj.get("metadata") or {}
    wanted = {
        LABEL_OBJECT_KIND: decoded.kind,
        LABEL_OBJECT_NAME: obj_md.get("name"),
        LABEL_OBJECT_GENERATION: str(obj_md["generation"]) if obj_md.get("generation") is not None else None,
        LABEL_OBJECT_UID: obj_md.get("uid"),
    }
    for key, value in wanted.items():
        if value not in (None, "") and key not in labels:
            labels[key] = str(value)
    labels[LABEL_OBJECT_VERSION] = INSTANCETYPE_VERSION
    new_md = dict(md)
    if "labels" in new_md:
        new_md["labels"] = labels
    else:  # kube order: name, namespace, labels, then the rest
        head = {k: new_md.pop(k) for k in ("name", "namespace") if k in new_md}
        new_md = {**head, "labels": labels, **new_md}
    return {**cr, "metadata": new_md}
