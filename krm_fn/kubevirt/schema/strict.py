"""Strict validation of an object as an API server running KubeVirt stores it: the objects we emit
(``spec.validateOutput``, :mod:`krm_fn.render.output`; always on in the tests) and the instancetypes and
preferences a cluster is asked to store (:mod:`krm_fn.kubevirt.webhooks.admission`).

What an object must satisfy to be accepted by a Kubernetes API server running KubeVirt, checked offline:

* **Schema** (the packaged KubeVirt OpenAPI document, :mod:`krm_fn.kubevirt.schema`, compiled once): every field
  known, of the right JSON type, in its enum, required fields present, integers in their ``int32``/``int64``
  range (the Go type's, ``tools/gotypes.py`` GO_INTS, where it is narrower) and in the bounds the CRDs add
  (``tools/gen_schema.py`` ``CRD_BOUNDS``), quantities parseable,
  timestamps RFC 3339. Unknown fields are errors everywhere (``metadata`` and
  ``status`` included): stricter than the API server, which prunes them.
* **Object metadata** (apimachinery ``ValidateObjectMeta``, :func:`krm_fn.kube.meta.metadata_problems`).
* ``apps/v1`` **ControllerRevision** (not in KubeVirt's document): a hand-written strict check; its
  ``data`` must be an ``instancetype.kubevirt.io/v1beta1`` instancetype or preference, validated as such.

Covered kinds: ``kubevirt.io/v1`` (and ``v1alpha3``) ``VirtualMachine``, the four ``v1beta1``
instancetype/preference kinds and ``apps/v1 ControllerRevision``. Anything else is not ours and is not
checked (:func:`covers`).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Final

from krm_fn.errors import JSON_TYPES, type_name
from krm_fn.kube.api import (
    CLUSTER_SCOPED_KINDS,
    CONTROLLER_REVISION_API_VERSION,
    INSTANCETYPE_API_VERSION,
    KIND_CONTROLLER_REVISION,
    KIND_VM,
    TYPE_KINDS,
    VM_API_VERSIONS,
)
from krm_fn.kube.meta import metadata_problems
from krm_fn.kube.status import INVALID, NOT_SUPPORTED, REQUIRED, TYPE_INVALID, Cause
from krm_fn.kube.paths import FieldPath, Obj, dotted
from krm_fn.kube.quantity import QuantityError
from krm_fn.kube.quantity_json import round_trip
from krm_fn.kubevirt.schema.tree import ARR, DEFAULT_TAG, INT64_HIGH, INT64_LOW, MAP, OBJ, QTY, Node, document, go_int, spec_schema

META_DEF: Final = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"
FIELDS_V1_DEF: Final = "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1"  # arbitrary JSON in Kubernetes
_DEFINITIONS: Final[dict[tuple[str, str], str]] = {
    **{(v, KIND_VM): "v1.VirtualMachine" for v in VM_API_VERSIONS},
    **{(INSTANCETYPE_API_VERSION, k): f"v1beta1.{k}" for k in TYPE_KINDS},
}
_CR_KEYS: Final = frozenset({"apiVersion", "kind", "metadata", "data", "revision"})

_DATE_TIME_RE: Final = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})")


def covers(obj: Any) -> bool:
    """True for the kinds :func:`validate_object` checks (everything else passes unchecked)."""
    if not isinstance(obj, dict):
        return False
    key = (obj.get("apiVersion"), obj.get("kind"))
    return key in _DEFINITIONS or key == (CONTROLLER_REVISION_API_VERSION, KIND_CONTROLLER_REVISION)


def validate_object(obj: Any, tag: str = DEFAULT_TAG) -> list[str]:
    """One ``<field path>: <message>`` per problem of ``obj``; empty when it is valid (or not a kind we check)."""
    return [cause.error() for cause in problems(obj, tag)]


def problems(obj: Any, tag: str = DEFAULT_TAG) -> list[Cause]:
    """The problems of ``obj`` as causes (field: a kpt field path, ``a.b[0].c``; None for the whole object),
    against the API of KubeVirt ``tag`` (a field that release does not know is an unknown field)."""
    if not isinstance(obj, dict):
        return [Cause(TYPE_INVALID, None, f"must be an object, got {type_name(obj, JSON_TYPES)}")]
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    out: list[Cause] = []
    definition = _DEFINITIONS.get((api_version, kind))  # type: ignore[arg-type]
    if definition is not None:
        _walk(obj, spec_schema(tag).definition(definition), (), out, required_fields(tag))
    elif (api_version, kind) == (CONTROLLER_REVISION_API_VERSION, KIND_CONTROLLER_REVISION):
        _controller_revision(obj, out, tag)
    else:
        return out
    if "metadata" not in obj:
        out.append(Cause(REQUIRED, "metadata", "required field is missing"))
    metadata_problems(obj.get("metadata"), str(kind) in CLUSTER_SCOPED_KINDS, ("metadata",), out)
    return out


# --- schema walk ---------------------------------------------------------------------------------
Required = dict[str, tuple[str, ...]]


@cache
def required_fields(tag: str = DEFAULT_TAG) -> Required:
    """Every definition's ``required`` list as written in ``tag``'s document. The compiled schema drops required
    fields that have a default, as go-openapi (virt-api) does; the API server's CRD validation does not, so
    neither do we."""
    defs = document(tag)["definitions"]
    return {name: tuple(d["required"]) for name, d in defs.items() if d.get("required")}


def _walk(value: Any, node: Node, path: FieldPath, out: list[Cause],  # noqa: C901 - one flat dispatch
          required: Required) -> None:
    types = node.types
    if value is None:
        if types and "null" not in types and not node.nullable:
            out.append(Cause(TYPE_INVALID, dotted(path), f"must be of type {' or '.join(types)}, got null"))
        return
    vt = type(value)
    if types:
        jt = JSON_TYPES.get(vt)
        ok = jt in types
        if not ok and jt == "integer" and "number" in types:
            ok = True
        elif not ok and jt == "number" and "integer" in types and value.is_integer():
            ok = True  # 2.0 is an integer in JSON (go-openapi, the API server)
        if not ok:
            out.append(Cause(TYPE_INVALID, dotted(path),
                             f"must be of type {' or '.join(types)}, got {jt or vt.__name__}"))
            return
        # the Go type KubeVirt decodes an integer into (uint32 where the format says int64)
        bits, low, high = go_int(node) if "integer" in types else ("", 0, 0)
        if bits and jt in ("integer", "number") and not low <= value <= high:
            out.append(Cause(INVALID, dotted(path), f"{value} is out of the {bits} range"))
        elif node.minimum is not None and jt in ("integer", "number") and value < node.minimum:
            out.append(Cause(INVALID, dotted(path), f"must be at least {node.minimum}, got {value}"))
        elif node.maximum is not None and jt in ("integer", "number") and value > node.maximum:
            out.append(Cause(INVALID, dotted(path), f"must be at most {node.maximum}, got {value}"))
        elif node.fmt == "date-time" and jt == "string" and not _DATE_TIME_RE.fullmatch(value):
            out.append(Cause(INVALID, dotted(path), f"{value!r} is not an RFC 3339 date-time"))
    if node.enum is not None and value not in node.enum:
        out.append(Cause(NOT_SUPPORTED, dotted(path), f"{value!r} is not one of {list(node.enum)}"))
    kind = node.kind
    if kind == OBJ:
        if vt is not dict or node.name == FIELDS_V1_DEF:
            return
        props = node.props
        for key, sub in value.items():
            entry = props.get(key)
            if entry is None:
                if node.closed:
                    out.append(Cause(INVALID, dotted(path + (key,)), "unknown field"))
                continue
            child = entry[0]
            if type(sub) in child.fast and not child.fmt:
                continue
            _walk(sub, child, path + (key,), out, required)
        for key in required.get(node.name, node.required):
            if key not in value:
                out.append(Cause(REQUIRED, dotted(path + (key,)), "required field is missing"))
    elif kind == ARR:
        if vt is list:
            items = node.items
            assert items is not None
            fast = () if items.fmt else items.fast
            for i, sub in enumerate(value):
                if type(sub) not in fast:
                    _walk(sub, items, path + (i,), out, required)
    elif kind == MAP:
        if vt is dict:
            values = node.values
            assert values is not None
            fast = () if values.fmt else values.fast
            for key, sub in value.items():
                if type(sub) not in fast:
                    _walk(sub, values, path + (key,), out, required)
    elif kind == QTY:
        try:
            round_trip(value)
        except (QuantityError, ValueError, TypeError) as err:
            out.append(Cause(INVALID, dotted(path), f"invalid quantity {value!r}: {err}"))


# --- ControllerRevision (apps/v1; not in KubeVirt's document) -----------------------------------------
def _controller_revision(obj: Obj, out: list[Cause], tag: str) -> None:
    for key in obj:
        if key not in _CR_KEYS:
            out.append(Cause(INVALID, dotted((key,)), "unknown field"))
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        if "metadata" in obj:
            out.append(Cause(TYPE_INVALID, "metadata", f"must be of type object, got {type_name(meta, JSON_TYPES)}"))
    else:
        _walk(meta, spec_schema(tag).definition(META_DEF), ("metadata",), out, required_fields(tag))
    revision = obj.get("revision")
    if "revision" not in obj:
        out.append(Cause(REQUIRED, "revision", "required field is missing"))
    elif type(revision) is not int:
        out.append(Cause(TYPE_INVALID, "revision", f"must be of type integer, got {type_name(revision, JSON_TYPES)}"))
    elif not INT64_LOW <= revision <= INT64_HIGH:
        out.append(Cause(INVALID, "revision", f"{revision} is out of the int64 range"))
    data = obj.get("data")
    if data is None:
        return  # optional (runtime.RawExtension)
    if not isinstance(data, dict):
        out.append(Cause(TYPE_INVALID, "data", f"must be of type object, got {type_name(data, JSON_TYPES)}"))
        return
    # KubeVirt only stores instancetypes and preferences (pkg/instancetype/revision)
    data_kind = data.get("kind")
    if data.get("apiVersion") != INSTANCETYPE_API_VERSION:
        out.append(Cause(INVALID, "data.apiVersion",
                         f"must be {INSTANCETYPE_API_VERSION!r}, got {data.get('apiVersion')!r}"))
    if data_kind not in TYPE_KINDS:
        out.append(Cause(INVALID, "data.kind", f"must be one of {sorted(TYPE_KINDS)}, got {data_kind!r}"))
        return
    _walk(data, spec_schema(tag).definition(f"v1beta1.{data_kind}"), ("data",), out, required_fields(tag))
