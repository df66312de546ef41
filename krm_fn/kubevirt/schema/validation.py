"""virt-api's OpenAPI validation of a VirtualMachine (go-openapi ``validate`` over KubeVirt's schema, every
spec definition closed): go-openapi's messages in its order, with the precise field of each; a boolean check
compiled per node runs first (the hot path of a render), the walker only when it finds something.

Upstream: ``pkg/util/webhooks`` ``ValidateSchema``, go-openapi ``validate``.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Final, NamedTuple

from krm_fn.kube.quantity import QuantityError
from krm_fn.kube.quantity_json import round_trip
from krm_fn.kubevirt.schema.tree import ANY, ARR, DEFAULT_TAG, INT64_HIGH, INT64_LOW, INT_FORMATS, MAP, OBJ, QTY, SCALAR, TOP_LEVEL_KEYS, VM_SPEC_DEF, VM_STATUS_DEF, Check, Node, compiled, is_json_integer, open_schema, spec_schema


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
    integral = data_type == "number" and "integer" in types and is_json_integer(value)
    if vt is not str and vt is not list and fmt and not (data_type in types or data_format == fmt or integral):
        return f'{fmt}: "{data_format}"'
    if fmt and (vt is str or vt is list) and "number" not in types and "integer" not in types:
        return None
    if data_type in types or integral:
        return None
    return f'{",".join(types)}: "{data_type}"'


def _child(field: str, key: str) -> str:
    return f"{field}.{key}" if field else key


# --- fast check: True only when _validate reports nothing (False: run _validate for the messages) -----
# a quantity string ``resource.ParseQuantity`` always accepts (at most 15 digits, a known suffix)
_PLAIN_QUANTITY: Final = re.compile(r"(?:0|[1-9][0-9]{0,14})(?:[numkMGTPE]|[KMGTPE]i)?")
_JSON_TYPE: Final[dict[type, str]] = {dict: "object", list: "array", str: "string", bool: "boolean"}


def _checker(node: Node) -> Check:
    """A conservative boolean version of :func:`_validate` for ``node``, compiled once per node."""
    check: Check = compiled(node, "check", _compile)
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
    if kind == SCALAR and node.fmt in INT_FORMATS and "integer" in node.types:
        return lambda value: type(value) is int and INT64_LOW <= value <= INT64_HIGH
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


@cache
def _roots(tag: str) -> tuple[Node, Node]:
    """The release's VM spec (closed) and status (open) definitions."""
    return spec_schema(tag).definition(VM_SPEC_DEF), open_schema(tag).definition(VM_STATUS_DEF)


def _vm_ok(vm: dict[str, Any], tag: str) -> bool:
    if not vm.keys() <= TOP_LEVEL_KEYS or "spec" not in vm:
        return False
    spec_node, status_node = _roots(tag)
    spec, status = vm["spec"], vm.get("status")
    return ((type(spec) in spec_node.accept or _checker(spec_node)(spec))
            and (type(status) in status_node.accept or _checker(status_node)(status)))


def schema_errors(vm: dict[str, Any], tag: str = DEFAULT_TAG) -> list[SchemaError]:
    """The OpenAPI validator of KubeVirt ``tag`` (its virt-api) on a VirtualMachine document (empty when valid):
    its messages in its order, each once (go-openapi keeps a message once per result), with the precise field of
    the first occurrence. A field the release does not know is a forbidden property."""
    if _vm_ok(vm, tag):
        return []
    spec_node, status_node = _roots(tag)
    errs: list[SchemaError] = []
    for key in vm:
        if key not in TOP_LEVEL_KEYS:
            errs.append(SchemaError(f".{key} in body is a forbidden property", key))
    if "spec" not in vm:
        errs.append(SchemaError("spec in body is required", "spec"))
    found: list[SchemaError] = []
    _validate(vm.get("spec"), spec_node, "spec", "spec", found)
    errs += _once(found)
    found = []
    _validate(vm.get("status"), status_node, "status", "status", found)
    return errs + _once(found)


VMI_SPEC_DEF: Final = "v1.VirtualMachineInstanceSpec"


def vmi_spec_errors(spec: Any, tag: str = DEFAULT_TAG) -> list[SchemaError]:
    """The same validator on a VirtualMachineInstance's ``spec`` (at ``spec``): empty when valid."""
    node = spec_schema(tag).definition(VMI_SPEC_DEF)
    if type(spec) in node.accept or _checker(node)(spec):
        return []
    found: list[SchemaError] = []
    _validate(spec, node, "spec", "spec", found)
    return _once(found)


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


def validate_vm(vm: dict[str, Any], tag: str = DEFAULT_TAG) -> list[str]:
    """The messages of KubeVirt ``tag``'s OpenAPI validator for a VirtualMachine document (empty when valid)."""
    return [err.message for err in schema_errors(vm, tag)]


