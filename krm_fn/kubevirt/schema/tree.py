"""The compiled schema of a release: :class:`Node` trees read from the package's JSON once per run, on first use."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, Final

from krm_fn.kubevirt_versions import DEFAULT, RELEASES

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
TAGS: Final = tuple(row.tag for row in RELEASES.values())  # every release's, oldest first


class Node:
    """One compiled schema node. ``props`` maps a property to ``(child, go_code)``."""

    __slots__ = ("kind", "types", "nullable", "enum", "props", "required", "closed", "must", "items",
                 "values", "fmt", "name", "fast", "accept", "check", "enc", "minimum", "maximum", "gotype",
                 "pattern")

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
        # the Go integer type a webhook decodes the field into (``tools/gotypes.py`` GO_INTS; "" for the format's)
        self.gotype = ""
        # the pattern the CRDs give a string here (only ``resource.Quantity``; virt-api's document has none)
        self.pattern = ""
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
INT_FORMATS: Final = frozenset(("int32", "int64"))
INT64_LOW, INT64_HIGH = -(2**63), 2**63 - 1
# the range of each Go integer type (``Node.gotype``; a format's when the Go type is not recorded)
GO_INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "int32": (-(1 << 31), (1 << 31) - 1), "int64": (INT64_LOW, INT64_HIGH), "int": (INT64_LOW, INT64_HIGH),
    "uint32": (0, (1 << 32) - 1), "uint64": (0, (1 << 64) - 1), "uint": (0, (1 << 64) - 1),
}
_JSON_INTEGER: Final = 2**53


def go_int(node: Node) -> tuple[str, int, int]:
    """The Go integer type an integer node decodes into (``Node.gotype``, else its format's; ``int64`` without
    either) and that type's inclusive range: the one lookup of both the output checks and the CRD stages."""
    name = node.gotype or node.fmt or "int64"
    low, high = GO_INT_RANGES.get(name, GO_INT_RANGES["int64"])
    return name, low, high


def is_json_integer(value: Any) -> bool:
    """An integer for go-openapi: a float64 with an integral value up to 2^53 (``swag.IsFloat64AJSONInteger``).
    An integer literal within int64 counts too (the API server writes it back as an integer)."""
    if type(value) is int:
        return INT64_LOW <= value <= INT64_HIGH
    return isinstance(value, float) and value.is_integer() and abs(value) <= _JSON_INTEGER


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
        node.gotype = schema.get("goType", "")
        node.pattern = schema.get("crdPattern", "")
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
                if "integer" in types and node.fmt in INT_FORMATS:
                    node.fast -= {int}  # checked for range
                if node.minimum is not None or node.maximum is not None:
                    node.fast -= {int, float}  # checked against the bounds
        else:
            node.kind = ANY
        if not types or "null" in types or node.nullable:
            node.accept = node.fast | {type(None)}
        else:
            node.accept = node.fast


BASE_TAG: Final = "main"  # the tag ``kubevirt.json`` is (``tools/gen_schema.py``)
DEFAULT_TAG: Final = RELEASES[DEFAULT].tag  # the newest release's


def _read(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(resources.files(__package__ or "").joinpath(name).read_text(encoding="utf-8"))
    return doc


@cache
def release_diff(tag: str) -> dict[str, Any]:
    """The definitions in which ``tag``'s document differs from the base's (``None``: the tag lacks it)."""
    if tag == BASE_TAG:
        return {}
    if tag not in TAGS:
        raise ValueError(f"no packaged schema for KubeVirt {tag!r} (known: {', '.join(TAGS)})")
    diff: dict[str, Any] = _read(f"releases/{tag}.json")["definitions"]
    return diff


@cache
def document(tag: str = DEFAULT_TAG) -> dict[str, Any]:
    """``tag``'s document (``kubevirt.json`` with the tag's differences), parsed once per tag."""
    base = _read("kubevirt.json") if tag == BASE_TAG else document(BASE_TAG)
    diff = release_diff(tag)
    if not diff:
        return base
    defs = {name: d for name, d in base["definitions"].items() if diff.get(name, d) is not None}
    defs.update((name, d) for name, d in diff.items() if d is not None)
    return {**base, "definitions": defs}


def _same_as(tag: str) -> str:
    """The first tag (newest first) whose document equals ``tag``'s: they share one compiled schema."""
    return next(t for t in TAGS[::-1] if release_diff(t) == release_diff(tag))


@cache
def spec_schema(tag: str = DEFAULT_TAG) -> Schema:
    """``tag``'s definitions as validated for a VM spec (unknown fields forbidden)."""
    same = _same_as(tag)
    return Schema(document(tag), closed=True) if same == tag else spec_schema(same)


@cache
def open_schema(tag: str = DEFAULT_TAG) -> Schema:
    """``tag``'s definitions with unknown fields allowed (status validation, Go round trip)."""
    same = _same_as(tag)
    return Schema(document(tag), closed=False) if same == tag else open_schema(same)


def compiled(node: Node, attr: str, compile_node: Callable[[Node], Any]) -> Any:
    """``node.<attr>``, compiled once per node by ``compile_node``. A placeholder that defers to the compiled
    function is registered first, because definitions may be recursive."""
    fn = getattr(node, attr)
    if fn is None:
        setattr(node, attr, lambda value: getattr(node, attr)(value))
        fn = compile_node(node)
        setattr(node, attr, fn)
    return fn
