"""What the API server does to an object of one of KubeVirt's CRDs before any webhook sees it, and the Go decode
the webhook itself starts with. Stage by stage, in the cluster's order (:mod:`krm_fn.kubevirt.webhooks.admission`
puts them together):

* **decode** (apiextensions-apiserver ``customresource_handler.go``): ``metadata`` decoded into ``ObjectMeta``
  (Go's json error when it does not fit, :func:`unmarshal_error`); fields the structural schema would prune are
  reported (:func:`unknown_fields`, kubectl's strict field validation); nulls of non-nullable fields dropped
  (:func:`as_decoded`, ``PruneNonNullableNullsWithoutDefaults``).
* **validate**: the CRD's ``openAPIV3Schema`` as go-openapi validates it, each error mapped to a ``field.Error``
  like ``kubeOpenAPIResultToFieldErrors`` (:func:`schema_causes`): types (``x-kubernetes-int-or-string`` as
  ``[integer,string]``), required fields, the CRD's bounds and quantity pattern; integer formats are not
  checked (the API server strips them). Paths have no list indexes (go-openapi's ``Name``).
* the webhook's ``json.Unmarshal`` into KubeVirt's Go types (:func:`unmarshal_error`): every integer field has
  its Go type (``Node.gotype``, ``tools/gotypes.py`` GO_INTS), out of range is Go's error.

The CRD schema is the packaged document's definition of the kind (``tools/gen_schema.py``: the swagger plus
the CRD's bounds and pattern).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Final

from krm_fn.kube.paths import FieldPath, Obj, dotted
from krm_fn.kube.status import INVALID, REQUIRED, TYPE_INVALID, Cause, field_error, go_number
from krm_fn.kubevirt.schema.tree import ANY, ARR, DEFAULT_TAG, MAP, OBJ, QTY, SCALAR, Node, go_int, is_json_integer, open_schema
from krm_fn.kubevirt.schema.strict import FIELDS_V1_DEF, Required, required_fields

_INT_OR_STRING: Final = ("integer", "string")


def definition(name: str, tag: str = DEFAULT_TAG) -> Node:
    """A definition of KubeVirt ``tag``'s document, unknown fields allowed (this module reports them itself)."""
    return open_schema(tag).definition(name)


# --- the JSON type names of the two libraries -----------------------------------------------------------------
def openapi_type(value: Any) -> str:
    """go-openapi's name of a JSON value's type. The API server decodes a number beyond int64 as a float, and a
    float is an ``integer`` only with an integer value within 2^53 (``swag.IsFloat64AJSONInteger``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "integer" if is_json_integer(value) else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _go_json_kind(value: Any) -> str:
    """``encoding/json``'s word for a JSON value in an ``UnmarshalTypeError``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _json_number(value: int | float) -> str:
    """The number as it stands in the JSON the API server hands on (YAML's ``2.0`` is ``2``, sigs.k8s.io/yaml)."""
    return str(value) if isinstance(value, int) else go_number(value)


def go_type(node: Node) -> str:
    """The Go type a node decodes into, as ``reflect.Type.String()`` prints it."""
    if node.kind == OBJ:
        return ".".join(node.name.split(".")[-2:]) if node.name else "struct"
    if node.kind == ARR and node.items is not None:
        return "[]" + go_type(node.items)
    if node.kind == MAP and node.values is not None:
        return "map[string]" + go_type(node.values)
    if node.kind == QTY:
        return "resource.Quantity"
    types = node.types
    if "integer" in types:
        return go_int(node)[0]
    if "number" in types:
        return "float64"
    if "boolean" in types:
        return "bool"
    return "string" if "string" in types else "interface {}"


# --- decode -------------------------------------------------------------------------------------------------
def unmarshal_error(value: Any, node: Node, struct: str) -> str | None:
    """The error ``json.Unmarshal`` of ``value`` into the Go type of ``node`` (a struct named ``struct``) returns, or
    None. Keys are visited sorted (the JSON the API server sends is marshalled from a map); the first error
    wins, as Go keeps the first it saves."""
    return _unmarshal(value, node, struct, ())


def _unmarshal(value: Any, node: Node, struct: str, path: tuple[str, ...]) -> str | None:  # noqa: C901
    if value is None or node.kind in (ANY, QTY):
        return None
    kind = node.kind
    ok: bool
    if kind == OBJ or kind == MAP:
        ok = isinstance(value, dict)
    elif kind == ARR:
        ok = isinstance(value, list)
    else:
        types = node.types
        if "integer" in types and "string" not in types:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            if ok and not _int_fits(value, node):
                return _type_error(f"number {_json_number(value)}", node, struct, path)
        elif "number" in types:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif "boolean" in types:
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, str) or not types
    if not ok:
        return _type_error(_go_json_kind(value), node, struct, path)
    if kind == OBJ:
        for key in sorted(value):
            entry = node.props.get(key)
            if entry is not None:
                found = _unmarshal(value[key], entry[0], struct, path + (key,))
                if found:
                    return found
    elif kind == ARR and node.items is not None:
        for item in value:
            found = _unmarshal(item, node.items, struct, path)
            if found:
                return found
    elif kind == MAP and node.values is not None:
        for key in sorted(value):
            found = _unmarshal(value[key], node.values, struct, path + (key,))
            if found:
                return found
    return None


def _int_fits(value: int | float, node: Node) -> bool:
    if isinstance(value, float):
        if not value.is_integer():
            return False
        value = int(value)
    _, low, high = go_int(node)
    return low <= value <= high


def _type_error(what: str, node: Node, struct: str, path: tuple[str, ...]) -> str:
    if not path:
        return f"json: cannot unmarshal {what} into Go value of type {go_type(node)}"
    return f"json: cannot unmarshal {what} into Go struct field {struct}.{'.'.join(path)} of type {go_type(node)}"


def unknown_fields(obj: Obj, root: Node) -> list[str]:
    """The fields of ``obj`` its structural schema does not know (``metadata`` as ``ObjectMeta``), as the strict
    decoder names them (``spec.gpus[0].foo``), sorted."""
    found: list[str] = []
    _unknown(obj, root, (), found)
    return sorted(found)


def _unknown(value: Any, node: Node, path: FieldPath, found: list[str]) -> None:
    kind = node.kind
    if kind == OBJ and isinstance(value, dict):
        if node.name == FIELDS_V1_DEF:
            return  # arbitrary JSON (managedFields' fieldsV1), as in strict._walk
        for key, sub in value.items():
            entry = node.props.get(key)
            if entry is None:
                found.append(dotted(path + (key,)))
            else:
                _unknown(sub, entry[0], path + (key,), found)
    elif kind == ARR and isinstance(value, list) and node.items is not None:
        for i, sub in enumerate(value):
            _unknown(sub, node.items, path + (i,), found)
    elif kind == MAP and isinstance(value, dict) and node.values is not None:
        for key, sub in value.items():
            _unknown(sub, node.values, path + (key,), found)


def as_decoded(value: Any, node: Node) -> Any:
    """``value`` as the API server hands it on: without the nulls of non-nullable object fields
    (``PruneNonNullableNullsWithoutDefaults``), and with integral numbers as integers (YAML's ``2.0`` is JSON's
    ``2``, sigs.k8s.io/yaml). A copy."""
    if isinstance(value, float) and is_json_integer(value):
        return int(value)
    kind = node.kind
    if kind == OBJ and isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, sub in value.items():
            entry = node.props.get(key)
            child = entry[0] if entry is not None else None
            if sub is None and (child is None or not child.nullable):
                continue
            out[key] = as_decoded(sub, child) if child is not None else sub
        return out
    if kind == ARR and isinstance(value, list) and node.items is not None:
        items = node.items
        return [as_decoded(sub, items) for sub in value]
    if kind == MAP and isinstance(value, dict) and node.values is not None:
        values = node.values
        return {k: as_decoded(sub, values) for k, sub in value.items() if sub is not None or values.nullable}
    return value


# --- validate -----------------------------------------------------------------------------------------------
@cache
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def schema_causes(obj: Obj, root: Node, tag: str = DEFAULT_TAG) -> list[Cause]:
    """go-openapi's errors on ``obj`` (decoded: nulls pruned) against the CRD schema ``root`` (of KubeVirt
    ``tag``), mapped to ``field.Error``s as apiextensions does. ``metadata`` is left to ``ValidateObjectMeta``."""
    out: list[Cause] = []
    _validate({k: v for k, v in obj.items() if k != "metadata"}, root, (), out, required_fields(tag))
    return out


def _types(node: Node) -> tuple[str, ...]:
    if node.kind == QTY:
        return _INT_OR_STRING
    if node.kind == OBJ and not node.types:
        return ("object",)
    return node.types


def _validate(value: Any, node: Node, path: tuple[str, ...], out: list[Cause],  # noqa: C901
              required: Required) -> None:
    name = ".".join(path)
    types = _types(node)
    actual = openapi_type(value)
    if types and actual not in types and not (actual == "integer" and "number" in types):
        out.append(_type_cause(name, types, actual))
        if node.kind == QTY:  # the anyOf of int-or-string: none of its branches matches either
            out.append(field_error(INVALID, "<nil>", "", f'"{name}" must validate at least one schema (anyOf)'))
            out.append(_type_cause(name, ("integer",), actual))
        return
    if node.kind == QTY:
        if isinstance(value, str) and node.pattern and _pattern(node.pattern).search(value) is None:
            out.append(field_error(INVALID, name, value, f"{name} in body should match '{node.pattern}'"))
        return
    if node.kind == SCALAR and isinstance(value, (int, float)) and not isinstance(value, bool):
        if node.minimum is not None and value < node.minimum:
            out.append(field_error(INVALID, name, value,
                                   f"{name} in body should be greater than or equal to {node.minimum}"))
        if node.maximum is not None and value > node.maximum:
            out.append(field_error(INVALID, name, value,
                                   f"{name} in body should be less than or equal to {node.maximum}"))
        return
    if node.kind == OBJ and isinstance(value, dict):  # go-openapi: the properties, then the required ones
        for key in sorted(value):
            entry = node.props.get(key)
            if entry is not None:
                _validate(value[key], entry[0], path + (key,), out, required)
        for key in required.get(node.name, node.required):
            if key not in value:
                out.append(field_error(REQUIRED, ".".join(path + (key,))))
    elif node.kind == ARR and isinstance(value, list) and node.items is not None:
        for item in value:
            _validate(item, node.items, path, out, required)
    elif node.kind == MAP and isinstance(value, dict) and node.values is not None:
        for key in sorted(value):
            _validate(value[key], node.values, path + (key,), out, required)


def _type_cause(name: str, types: tuple[str, ...], actual: str) -> Cause:
    return field_error(TYPE_INVALID, name, actual, f"{name} in body must be of type {','.join(types)}: \"{actual}\"")

