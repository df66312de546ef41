"""KubeVirt's OpenAPI schema, trimmed into the package (``kubevirt.json``, see ``tools/gen_schema.py``).

Two uses of the same compiled definitions:

* :func:`validate_vm` reproduces the OpenAPI validator virt-api runs on a VirtualMachine (go-openapi
  ``validate`` with ``additionalProperties: false`` forced onto every spec definition): the same
  messages (``<path> in body is a forbidden property``, ``<path> in body is required``, ...). A boolean
  check compiled per node runs first (the hot path of a render); only when it finds something does the
  walker produce the messages.
* :func:`encode_shared` / :func:`encode_object` reproduce a Go round trip (``json.Unmarshal`` into the typed
  struct, then ``json.Marshal``): unknown fields vanish, ``omitempty`` zero values are dropped, non-pointer
  structs appear as ``{}``, quantities come out canonical. Compiled per node into closures on first use;
  :func:`encode_shared` returns the very containers the round trip leaves unchanged, :func:`encode_object`
  new ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from itertools import islice
from importlib import resources
from typing import Any, Final, NamedTuple

from krm_fn.kube.paths import copy_json
from krm_fn.kubevirt.quantity import QuantityError, is_canonical_text, round_trip

OBJ: Final = 1
ARR: Final = 2
MAP: Final = 3
QTY: Final = 4
SCALAR: Final = 5
ANY: Final = 6

QUANTITY_DEF: Final = "k8s.io.apimachinery.pkg.api.resource.Quantity"
VM_SPEC_DEF: Final = "v1.VirtualMachineSpec"
VM_STATUS_DEF: Final = "v1.VirtualMachineStatus"
TOP_LEVEL_KEYS: Final = frozenset({"kind", "apiVersion", "spec", "status", "metadata"})
_ZERO: Final[dict[str, Any]] = {"string": "", "integer": 0, "number": 0, "boolean": False}


class Node:
    """One compiled schema node. ``props`` maps a property to ``(child, go_code)``."""

    __slots__ = ("kind", "types", "nullable", "enum", "props", "required", "closed", "must", "items",
                 "values", "fmt", "name", "fast", "accept", "check", "enc", "minimum", "maximum")

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.kind = ANY
        self.types: tuple[str, ...] = ()
        self.nullable = False
        self.enum: tuple[Any, ...] | None = None
        self.props: dict[str, tuple[Node, str]] = {}
        self.required: tuple[str, ...] = ()
        self.closed = False
        self.must: tuple[tuple[str, str, Node], ...] = ()
        self.items: Node | None = None
        self.values: Node | None = None
        self.fmt = ""
        # inclusive bounds of a number (the CRD's, ``tools/gen_schema.py`` CRD_BOUNDS; not in virt-api's document)
        self.minimum: int | None = None
        self.maximum: int | None = None
        # exact Python types a valid value of this scalar node can have without further checks
        self.fast: frozenset[type] = frozenset()
        # ``fast`` plus ``NoneType`` when null is valid here: values the validator accepts without a look
        self.accept: frozenset[type] = frozenset()
        # the compiled fast check (:func:`_checker`), built on first use
        self.check: Check | None = None
        # the compiled Go round trip (:func:`_encoder`), built on first use
        self.enc: Encode | None = None


Check = Callable[[Any], bool]
Encode = Callable[[Any], Any]

_FAST_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
}
# Integer fields: the API server decodes a JSON number beyond int64 as a float, and go-openapi's type check
# takes a float for an integer only up to 2^53 (swag.IsFloat64AJSONInteger). The int32 *format* is not a
# range check (virt-api decodes some of those fields into wider Go types), so it gets the same bounds.
_INT_FORMATS: Final = frozenset(("int32", "int64"))
_INT64_LOW, _INT64_HIGH = -(2**63), 2**63 - 1
_JSON_INTEGER = 2**53


class Schema:
    """Compiled definitions; ``closed`` forces ``additionalProperties: false`` on every definition."""

    def __init__(self, doc: dict[str, Any], closed: bool) -> None:
        self._defs: dict[str, Any] = doc["definitions"]
        self._closed = closed
        self._nodes: dict[str, Node] = {}

    def definition(self, name: str) -> Node:
        node = self._nodes.get(name)
        if node is None:
            node = Node(name)
            self._nodes[name] = node  # registered first: definitions may be recursive
            self._fill(node, self._defs[name], is_def=True)
        return node

    def _node(self, schema: dict[str, Any]) -> Node:
        if "ref" in schema:
            return self.definition(schema["ref"])
        node = Node()
        self._fill(node, schema, is_def=False)
        return node

    def _fill(self, node: Node, schema: dict[str, Any], is_def: bool) -> None:
        types = tuple(schema.get("type", ()))
        node.types = types
        node.nullable = bool(schema.get("nullable"))
        if "enum" in schema:
            node.enum = tuple(schema["enum"])
        node.fmt = schema.get("format", "")
        # virt-api sets additionalProperties: false on every definition, whatever its type
        node.closed = self._closed and is_def
        node.minimum = schema.get("minimum")
        node.maximum = schema.get("maximum")
        if node.name == QUANTITY_DEF:
            node.kind = QTY
        elif "properties" in schema:
            node.kind = OBJ
            props: dict[str, tuple[Node, str]] = {}
            must: list[tuple[str, str, Node]] = []
            for pname, pschema in schema["properties"].items():
                child = self._node(pschema)
                code = pschema.get("go", "p")
                props[pname] = (child, code)
                if code in "srnqt":
                    must.append((pname, code, child))
            node.props = props
            node.must = tuple(must)
            # go-openapi skips a required property that has a default (a ``$ref`` sibling default is
            # lost when the schema is expanded, so only inline defaults count)
            pschemas = schema["properties"]
            node.required = tuple(
                r for r in schema.get("required", ())
                if not (pschemas.get(r, {}).get("hasDefault") and "ref" not in pschemas.get(r, {}))
            )
        elif "items" in schema:
            node.kind = ARR
            node.items = self._node(schema["items"])
        elif isinstance(schema.get("values"), dict):
            node.kind = MAP
            node.values = self._node(schema["values"])
        elif types and set(types) <= {"string", "integer", "number", "boolean", "null"}:
            node.kind = SCALAR
            if node.enum is None:
                node.fast = frozenset(t for name in types for t in _FAST_TYPES.get(name, ()))
                if "integer" in types and node.fmt in _INT_FORMATS:
                    node.fast -= {int}  # checked for range
                if node.minimum is not None or node.maximum is not None:
                    node.fast -= {int, float}  # checked against the bounds
        else:
            node.kind = ANY
        if not types or "null" in types or node.nullable:
            node.accept = node.fast | {type(None)}
        else:
            node.accept = node.fast


@cache
def document() -> dict[str, Any]:
    """``kubevirt.json``, parsed once."""
    text = resources.files("krm_fn.kubevirt.schema").joinpath("kubevirt.json").read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


@cache
def spec_schema() -> Schema:
    """Definitions as validated for a VM spec (unknown fields forbidden)."""
    return Schema(document(), closed=True)


@cache
def open_schema() -> Schema:
    """Definitions with unknown fields allowed (status validation, Go round trip)."""
    return Schema(document(), closed=False)


# --- validation -------------------------------------------------------------------------------
def _go_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class SchemaError(NamedTuple):
    """One validator message (go-openapi's text, whose path has no list indexes) and the precise kpt field path
    of the value it is about (``spec.template.spec.volumes[0].containerDisk``)."""

    message: str
    field: str


def _validate(value: Any, node: Node, path: str, field: str, errs: list[SchemaError]) -> None:
    """go-openapi's messages for ``value`` at ``path`` (``field``: the same place with list indexes).

    As go-openapi's ``SchemaValidator``, every check that applies to the value runs, in its order (type,
    format, array items, enum, object), so a value of the wrong type can also fail the enum or, for a map
    given to a definition, name forbidden properties.

    go-openapi builds the validators of a schema node once, with the path the node was reached by, and only
    renames the top validator of each array item (``<array>.<i>``): every message from inside an item,
    whatever its type, carries the array's path without the index (``interfaces.modle``, not
    ``interfaces.0.modle``). So list items keep ``path`` and only ``field`` gets the index."""
    if value is None:
        types = node.types
        if types and "null" not in types and not node.nullable:
            errs.append(SchemaError(f'{path} in body must be of type {",".join(types)}: "null"', field))
        if node.enum is not None:
            errs.append(SchemaError(_enum_message(path, node.enum), field))
        return
    problem = _type_problem(value, node)
    if problem:
        errs.append(SchemaError(f"{path} in body must be of type {problem}", field))
    kind = node.kind
    vt = type(value)
    if kind == ARR and vt is list:
        items = node.items
        assert items is not None
        for i, sub in enumerate(value):
            if type(sub) not in items.fast:
                _validate(sub, items, path, f"{field}[{i}]", errs)
    if node.enum is not None and value not in node.enum:
        errs.append(SchemaError(_enum_message(path, node.enum), field))
    if vt is dict:
        if node.closed:
            props = node.props
            for key in value:
                if key not in props and key not in _NEVER_FORBIDDEN:
                    errs.append(SchemaError(f"{path}.{key} in body is a forbidden property", _child(field, key)))
        if kind == OBJ:
            props = node.props
            for key, sub in value.items():
                entry = props.get(key)
                if entry is not None and type(sub) not in entry[0].fast:
                    _validate(sub, entry[0], f"{path}.{key}", _child(field, key), errs)
            for key in node.required:
                if key not in value:
                    errs.append(SchemaError(f"{path}.{key} in body is required", _child(field, key)))
        elif kind == MAP:
            values = node.values
            assert values is not None
            for key, sub in value.items():
                if type(sub) not in values.fast:
                    _validate(sub, values, f"{path}.{key}", _child(field, key), errs)
    if kind == QTY and not problem and vt is not bool:
        try:
            round_trip(value)
        except QuantityError as err:
            errs.append(SchemaError(f"{path}: {err}", field))


# go-openapi never calls these keys forbidden (JSON schema's own), even with additionalProperties: false
_NEVER_FORBIDDEN: Final = frozenset({"$schema", "id"})


def _enum_message(path: str, enum: tuple[Any, ...]) -> str:
    return f"{path} in body should be one of [{' '.join(_go_value(v) for v in enum)}]"


def _type_problem(value: Any, node: Node) -> str | None:
    """go-openapi's ``typeValidator`` on a value decoded by ``encoding/json`` (every number a float64):
    ``<type>: "<data type>"`` after ``must be of type``, or None. A value that is neither a string nor an array
    is judged against the format first (``int32: "double"`` for a fraction, ``int32: ""`` for a boolean)."""
    types, fmt = node.types, node.fmt
    if not types and not fmt:
        return None
    vt = type(value)
    data_type = _JSON_TYPE.get(vt, "number")
    data_format = "double" if data_type == "number" else ""
    integral = data_type == "number" and "integer" in types and _is_json_integer(value, fmt)
    if vt is not str and vt is not list and fmt and not (data_type in types or data_format == fmt or integral):
        return f'{fmt}: "{data_format}"'
    if fmt and (vt is str or vt is list) and "number" not in types and "integer" not in types:
        return None
    if data_type in types or integral:
        return None
    return f'{",".join(types)}: "{data_type}"'


def _is_json_integer(value: Any, fmt: str) -> bool:
    """An integer for go-openapi: a float64 with an integral value up to 2^53 (``swag.IsFloat64AJSONInteger``).
    An integer literal within int64 counts too (the API server writes it back as an integer)."""
    if type(value) is int:
        return _INT64_LOW <= value <= _INT64_HIGH
    return isinstance(value, float) and value.is_integer() and abs(value) <= _JSON_INTEGER


def _child(field: str, key: str) -> str:
    return f"{field}.{key}" if field else key


# --- fast check: True only when _validate reports nothing (False: run _validate for the messages) -----
# a quantity string ``resource.ParseQuantity`` always accepts (at most 15 digits, a known suffix)
_PLAIN_QUANTITY: Final = re.compile(r"(?:0|[1-9][0-9]{0,14})(?:[numkMGTPE]|[KMGTPE]i)?")
_JSON_TYPE: Final[dict[type, str]] = {dict: "object", list: "array", str: "string", bool: "boolean"}


def _compiled(node: Node, attr: str, compile_node: Callable[[Node], Any]) -> Any:
    """``node.<attr>``, compiled once per node by ``compile_node``. A placeholder that defers to the compiled
    function is registered first, because definitions may be recursive."""
    fn = getattr(node, attr)
    if fn is None:
        setattr(node, attr, lambda value: getattr(node, attr)(value))
        fn = compile_node(node)
        setattr(node, attr, fn)
    return fn


def _checker(node: Node) -> Check:
    """A conservative boolean version of :func:`_validate` for ``node``, compiled once per node."""
    check: Check = _compiled(node, "check", _compile)
    return check


def _type_ok(node: Node, json_type: str) -> bool:
    return not node.types or json_type in node.types


def _never(value: Any) -> bool:
    return False


def _compile(node: Node) -> Check:
    kind = node.kind
    if node.enum is not None:
        if kind != SCALAR or not _type_ok(node, "string"):
            return _never
        names = frozenset(v for v in node.enum if type(v) is str)
        return lambda value: type(value) is str and value in names
    if kind == OBJ:
        if not _type_ok(node, "object"):
            return _never
        closed = node.closed
        known = frozenset(node.props).issuperset
        entries = {key: (child.accept, _checker(child)) for key, (child, _) in node.props.items()}
        required = node.required

        def check_closed(value: Any) -> bool:
            if type(value) is not dict or not known(value):
                return False
            for key, sub in value.items():
                accept, check = entries[key]
                if type(sub) not in accept and not check(sub):
                    return False
            for key in required:
                if key not in value:
                    return False
            return True

        def check_open(value: Any) -> bool:
            if type(value) is not dict:
                return False
            for key, sub in value.items():
                entry = entries.get(key)
                if entry is not None and type(sub) not in entry[0] and not entry[1](sub):
                    return False
            for key in required:
                if key not in value:
                    return False
            return True
        return check_closed if closed else check_open
    if kind == ARR or kind == MAP:
        child = node.items if kind == ARR else node.values
        assert child is not None
        if not _type_ok(node, "array" if kind == ARR else "object"):
            return _never
        accept, sub_check = child.accept, _checker(child)
        if kind == ARR:
            def check_arr(value: Any) -> bool:
                if type(value) is not list:
                    return False
                for sub in value:
                    if type(sub) not in accept and not sub_check(sub):
                        return False
                return True
            return check_arr

        def check_map(value: Any) -> bool:
            if type(value) is not dict:
                return False
            for sub in value.values():
                if type(sub) not in accept and not sub_check(sub):
                    return False
            return True
        return check_map
    if kind == SCALAR and node.fmt in _INT_FORMATS and "integer" in node.types:
        return lambda value: type(value) is int and _INT64_LOW <= value <= _INT64_HIGH
    if kind == QTY:
        if not _type_ok(node, "string"):
            return _never
        match = _PLAIN_QUANTITY.fullmatch
        return lambda value: type(value) is str and match(value) is not None
    if kind == ANY:
        if not node.types:
            return lambda value: True
        ok = frozenset(t for t, name in _JSON_TYPE.items() if name in node.types)
        return lambda value: type(value) in ok
    return _never  # a scalar of a type its fast set does not take (None, a float for an integer, ...)


def _vm_ok(vm: dict[str, Any]) -> bool:
    if not vm.keys() <= TOP_LEVEL_KEYS or "spec" not in vm:
        return False
    spec_node = spec_schema().definition(VM_SPEC_DEF)
    status_node = open_schema().definition(VM_STATUS_DEF)
    spec, status = vm["spec"], vm.get("status")
    return ((type(spec) in spec_node.accept or _checker(spec_node)(spec))
            and (type(status) in status_node.accept or _checker(status_node)(status)))


def schema_errors(vm: dict[str, Any]) -> list[SchemaError]:
    """KubeVirt's OpenAPI validator on a VirtualMachine document (empty when valid): its messages in its order,
    each once (go-openapi keeps a message once per result), with the precise field of the first occurrence."""
    if _vm_ok(vm):
        return []
    errs: list[SchemaError] = []
    for key in vm:
        if key not in TOP_LEVEL_KEYS:
            errs.append(SchemaError(f".{key} in body is a forbidden property", key))
    if "spec" not in vm:
        errs.append(SchemaError("spec in body is required", "spec"))
    found: list[SchemaError] = []
    _validate(vm.get("spec"), spec_schema().definition(VM_SPEC_DEF), "spec", "spec", found)
    errs += _once(found)
    found = []
    _validate(vm.get("status"), open_schema().definition(VM_STATUS_DEF), "status", "status", found)
    return errs + _once(found)


def _once(errs: list[SchemaError]) -> list[SchemaError]:
    """Each message once, first occurrence kept (go-openapi's ``Result.AddErrors``; the spec's and the
    status's results are appended to each other as they are)."""
    seen: set[str] = set()
    out: list[SchemaError] = []
    for err in errs:
        if err.message not in seen:
            seen.add(err.message)
            out.append(err)
    return out


def validate_vm(vm: dict[str, Any]) -> list[str]:
    """The messages of KubeVirt's OpenAPI validator for a VirtualMachine document (empty when valid)."""
    return [err.message for err in schema_errors(vm)]


# --- Go round trip: compiled into closures, one per node, sharing what it leaves unchanged -------------
def _zero_of(node: Node) -> Any:
    """The zero value Go writes for a must-emit scalar, array or map field (objects: :func:`_zero_factory`)."""
    if node.kind == QTY:
        return "0"
    for t in node.types:
        if t in _ZERO:
            return _ZERO[t]
    return None


def _encoder(node: Node) -> Encode:
    """The Go round trip of a value of type ``node`` (``json.Unmarshal`` into the typed struct, then
    ``json.Marshal``) as a closure, compiled once per node. It returns ``value`` itself (and keeps unchanged
    containers inside a new one) where the round trip changes nothing."""
    enc: Encode = _compiled(node, "enc", _compile_encoder)
    return enc


# a property the round trip drops; a scalar property it keeps as is
_DROP: Final = object()


def _keep(value: Any) -> Any:
    return value


def _omit_empty(value: Any) -> Any:
    return value if value else _DROP


def _omit_empty_int(value: Any) -> Any:
    if not value:
        return _DROP
    return int(value) if type(value) is float and value.is_integer() else value


def _keep_int(value: Any) -> Any:
    return int(value) if type(value) is float and value.is_integer() else value


def _omit_empty_nested(enc: Encode) -> Encode:
    def encode_or_drop(value: Any) -> Any:
        ev = enc(value)
        return ev if ev else _DROP
    return encode_or_drop


def _const(value: Any) -> Callable[[], Any]:
    return lambda: value


def _zero_factory(node: Node) -> Callable[[], Any]:
    """:func:`_zero_of` for ``node``: a new ``{}``-encoded object each call, else a constant."""
    if node.kind == OBJ:
        enc_obj = _encoder(node)
        return lambda: enc_obj({})
    return _const(_zero_of(node))


def _same(value: Any) -> Any:
    return value


def _encode_quantity(value: Any) -> Any:
    return value if type(value) is str and is_canonical_text(value) else round_trip(value)


def _to_int(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _compile_encoder(node: Node) -> Encode:
    kind = node.kind
    if kind == OBJ:
        return _compile_obj_encoder(node)
    if kind == ARR or kind == MAP:
        child = node.items if kind == ARR else node.values
        assert child is not None
        return (_compile_arr_encoder if kind == ARR else _compile_map_encoder)(child)
    if kind == QTY:
        return _encode_quantity
    if kind == SCALAR and "integer" in node.types:
        return _to_int
    return _same


def _compile_arr_encoder(child: Node) -> Encode:
    zero = _zero_factory(child)
    sub = _encoder(child)

    def enc_arr(value: Any) -> Any:
        if not isinstance(value, list):
            return value
        if sub is _same and None not in value:
            return value
        for i, v in enumerate(value):
            ev = sub(v) if v is not None else zero()
            if ev is not v:
                out = value[:i]
                out.append(ev)
                out.extend(sub(w) if w is not None else zero() for w in value[i + 1:])
                return out
        return value
    return enc_arr


def _compile_map_encoder(child: Node) -> Encode:
    zero = _zero_factory(child)
    sub = _encoder(child)

    def enc_map(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        if sub is _same and None not in value.values():
            return value
        out = {k: (sub(v) if v is not None else zero()) for k, v in value.items()}
        return value if all(a is b for a, b in zip(out.values(), value.values())) else out
    return enc_map


def _compile_obj_encoder(node: Node) -> Encode:
    # property -> how its (non-null) value is written: the value, or _DROP (an unknown field, an omitted
    # empty value)
    props: dict[str, Encode] = {}
    for key, (child, code) in node.props.items():
        if child.kind == SCALAR:
            integer = "integer" in child.types
            if code == "o":
                props[key] = _omit_empty_int if integer else _omit_empty
            else:
                props[key] = _keep_int if integer else _keep
        elif code == "p" and child.kind in (ARR, MAP):
            props[key] = _omit_empty_nested(_encoder(child))
        else:
            props[key] = _encoder(child)
    must: list[tuple[str, Callable[[], Any]]] = []
    for key, code, child in node.must:
        if code == "s" or code == "r":
            must.append((key, _zero_factory(child)))
        else:
            must.append((key, _const("0" if code == "q" else None)))
    get_prop = props.get
    must_keys = tuple(key for key, _ in must)

    def enc_obj(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        items = iter(value.items())
        kept = 0
        # the unchanged head, as fast as possible (most of a VM comes through unchanged)
        for key, sub in items:
            f = get_prop(key)
            if f is _keep:
                if sub is not None:
                    kept += 1
                    continue
                ev = _DROP
            elif f is None or sub is None:
                ev = _DROP  # unknown field (Go drops it) / null (must-emit fields are handled below)
            else:
                ev = f(sub)
                if ev is sub:
                    kept += 1
                    continue
            break
        else:
            for key in must_keys:
                if key not in value:
                    break
            else:
                return value
            out = dict(value)
            for key, zero_of in must:
                if key not in out:
                    out[key] = zero_of()
            return out
        # the first difference: a new dict from the head, then the rest
        out = dict(islice(value.items(), kept))
        if ev is not _DROP:
            out[key] = ev
        for key, sub in items:
            f = get_prop(key)
            if f is None or sub is None:
                continue
            ev = f(sub)
            if ev is not _DROP:
                out[key] = ev
        for key, zero_of in must:
            if key not in out:
                out[key] = zero_of()
        return out
    return enc_obj


def encode_shared(obj: dict[str, Any], definition: str) -> dict[str, Any]:
    """:func:`encode_object` that keeps every container of ``obj`` the round trip leaves unchanged (``obj``
    itself when nothing changes): the result shares data with ``obj``, so neither may be mutated later."""
    out: dict[str, Any] = _encoder(open_schema().definition(definition))(obj)
    return out


def encode_object(obj: dict[str, Any], definition: str) -> dict[str, Any]:
    """Go round trip of a whole object of the given definition (``v1.VirtualMachine``, ...); new containers."""
    out: dict[str, Any] = copy_json(encode_shared(obj, definition))
    return out
