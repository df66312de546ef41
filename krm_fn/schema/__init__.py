"""KubeVirt's OpenAPI schema, trimmed into the package (``kubevirt.json``, see ``tools/gen_schema.py``).

Two walkers over the same compiled definitions:

* :func:`validate_vm` reproduces the OpenAPI validator virt-api runs on a VirtualMachine (go-openapi
  ``validate`` with ``additionalProperties: false`` forced onto every spec definition): the same
  messages (``<path> in body is a forbidden property``, ``<path> in body is required``, ...).
* :func:`encode` reproduces a Go round trip (``json.Unmarshal`` into the typed struct, then
  ``json.Marshal``): unknown fields vanish, ``omitempty`` zero values are dropped, non-pointer structs
  appear as ``{}``, quantities come out canonical. It always returns new containers.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Final

from krm_fn.quantity import QuantityError, canonical

OBJ: Final = 1
ARR: Final = 2
MAP: Final = 3
QTY: Final = 4
SCALAR: Final = 5
ANY: Final = 6

QUANTITY_DEF: Final = "k8s.io.apimachinery.pkg.api.resource.Quantity"
VM_DEF: Final = "v1.VirtualMachine"
VM_SPEC_DEF: Final = "v1.VirtualMachineSpec"
VM_STATUS_DEF: Final = "v1.VirtualMachineStatus"
TOP_LEVEL_KEYS: Final = frozenset({"kind", "apiVersion", "spec", "status", "metadata"})
_ZERO: Final[dict[str, Any]] = {"string": "", "integer": 0, "number": 0, "boolean": False}


class Node:
    """One compiled schema node. ``props`` maps a property to ``(child, go_code)``."""

    __slots__ = ("kind", "types", "nullable", "enum", "props", "required", "closed", "must", "items",
                 "values", "fmt", "name", "fast")

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
        # exact Python types a valid value of this scalar node can have without further checks
        self.fast: frozenset[type] = frozenset()


_FAST_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
}


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
        if node.name == QUANTITY_DEF:
            node.kind = QTY
        elif "properties" in schema:
            node.kind = OBJ
            node.closed = self._closed and is_def
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
        else:
            node.kind = ANY


@cache
def _document() -> dict[str, Any]:
    text = resources.files("krm_fn.schema").joinpath("kubevirt.json").read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


@cache
def spec_schema() -> Schema:
    """Definitions as validated for a VM spec (unknown fields forbidden)."""
    return Schema(_document(), closed=True)


@cache
def open_schema() -> Schema:
    """Definitions with unknown fields allowed (status validation, Go round trip)."""
    return Schema(_document(), closed=False)


# --- validation -------------------------------------------------------------------------------
def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "object"


def _go_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _validate(value: Any, node: Node, path: str, errs: list[str]) -> None:
    types = node.types
    if value is None:
        if types and "null" not in types and not node.nullable:
            errs.append(f'{path} in body must be of type {",".join(types)}: "null"')
        return
    if types:
        vt = type(value)
        jt = "object" if vt is dict else "array" if vt is list else "string" if vt is str else _json_type(value)
        if jt not in types:
            if jt == "number" and "integer" in types and not isinstance(value, bool):
                if isinstance(value, float) and not value.is_integer():
                    if node.fmt in ("int32", "int64"):
                        errs.append(f'{path} in body must be of type {node.fmt}: "double"')
                    else:
                        errs.append(f'{path} in body must be of type {",".join(types)}: "number"')
                    return
            else:
                errs.append(f'{path} in body must be of type {",".join(types)}: "{jt}"')
                return
        elif jt == "number" and types == ("integer",) and isinstance(value, float) and not value.is_integer():
            errs.append(f'{path} in body must be of type integer: "number"')
            return
    if node.enum is not None and value not in node.enum:
        vals = " ".join(_go_value(v) for v in node.enum)
        errs.append(f"{path} in body should be one of [{vals}]")
    kind = node.kind
    if kind == OBJ:
        if not isinstance(value, dict):
            return
        props = node.props
        if node.closed:
            for key in value:
                if key not in props:
                    errs.append(f"{path}.{key} in body is a forbidden property")
        for key, sub in value.items():
            entry = props.get(key)
            if entry is not None:
                child = entry[0]
                if type(sub) in child.fast:
                    continue
                _validate(sub, child, f"{path}.{key}", errs)
        for key in node.required:
            if key not in value:
                errs.append(f"{path}.{key} in body is required")
    elif kind == ARR:
        if isinstance(value, list):
            items = node.items
            assert items is not None
            for i, sub in enumerate(value):
                if type(sub) in items.fast:
                    continue
                _validate(sub, items, f"{path}.{i}", errs)
    elif kind == MAP:
        if isinstance(value, dict):
            values = node.values
            assert values is not None
            for key, sub in value.items():
                if type(sub) in values.fast:
                    continue
                _validate(sub, values, f"{path}.{key}", errs)
    elif kind == QTY:
        try:
            canonical(value)
        except QuantityError as err:
            errs.append(f"{path}: {err}")


def validate_vm(vm: dict[str, Any]) -> list[str]:
    """The messages of KubeVirt's OpenAPI validator for a VirtualMachine document (empty when valid)."""
    errs: list[str] = []
    for key in vm:
        if key not in TOP_LEVEL_KEYS:
            errs.append(f".{key} in body is a forbidden property")
    if "spec" not in vm:
        errs.append("spec in body is required")
    _validate(vm.get("spec"), spec_schema().definition(VM_SPEC_DEF), "spec", errs)
    status_node = open_schema().definition(VM_STATUS_DEF)
    _validate(vm.get("status"), status_node, "status", errs)
    return errs


# --- Go round trip ----------------------------------------------------------------------------
def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _zero_of(node: Node) -> Any:
    kind = node.kind
    if kind == OBJ:
        return _encode_obj({}, node)
    if kind == QTY:
        return "0"
    for t in node.types:
        if t in _ZERO:
            return _ZERO[t]
    return None


def _encode_obj(value: dict[str, Any], node: Node) -> dict[str, Any]:
    props = node.props
    out: dict[str, Any] = {}
    for key, sub in value.items():
        entry = props.get(key)
        if entry is None or sub is None:
            continue  # unknown field (Go drops it) / null (must-emit fields are handled below)
        child, code = entry
        if child.kind == SCALAR:
            if code == "o" and not sub:
                continue  # "", 0, false
            if type(sub) is float and sub.is_integer() and "integer" in child.types:
                sub = int(sub)
            out[key] = sub
            continue
        ev = encode(sub, child)
        if code == "p" and not ev and child.kind in (ARR, MAP):
            continue
        out[key] = ev
    for key, code, child in node.must:
        if key in out:
            continue
        if code == "s":
            out[key] = _encode_obj({}, child) if child.kind == OBJ else _zero_of(child)
        elif code == "r":
            out[key] = _zero_of(child)
        elif code == "q":
            out[key] = "0"
        else:  # "n", "t"
            out[key] = None
    return out


def encode(value: Any, node: Node) -> Any:
    """The JSON Go writes back after decoding ``value`` into the type ``node`` describes."""
    kind = node.kind
    if kind == OBJ:
        if isinstance(value, dict):
            return _encode_obj(value, node)
        return _copy(value)
    if kind == ARR:
        if isinstance(value, list):
            items = node.items
            assert items is not None
            return [encode(v, items) if v is not None else _zero_of(items) for v in value]
        return _copy(value)
    if kind == MAP:
        if isinstance(value, dict):
            values = node.values
            assert values is not None
            return {k: (encode(v, values) if v is not None else _zero_of(values)) for k, v in value.items()}
        return _copy(value)
    if kind == QTY:
        return canonical(value)
    if kind == SCALAR:
        if isinstance(value, float) and value.is_integer() and "integer" in node.types:
            return int(value)
        return value
    return _copy(value)


def encode_object(obj: dict[str, Any], definition: str) -> dict[str, Any]:
    """Go round trip of a whole object of the given definition (``v1.VirtualMachine``, ...)."""
    out: dict[str, Any] = _encode_obj(obj, open_schema().definition(definition))
    return out
