"""A Go round trip of a KubeVirt object (``json.Unmarshal`` into the typed struct, then ``json.Marshal``):
unknown fields vanish, ``omitempty`` zero values are dropped, non-pointer structs appear as ``{}``, quantities
come out canonical. Compiled per schema node into closures on first use.

Upstream: ``encoding/json`` over ``kubevirt.io/api`` types.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Any, Final

from krm_fn.kube.paths import copy_json
from krm_fn.kube.quantity_json import is_canonical_text, round_trip, scalar_memo
from krm_fn.kubevirt.schema.tree import ARR, DEFAULT_TAG, MAP, OBJ, QTY, SCALAR, Encode, Node, compiled, open_schema

_ZERO: Final[dict[str, Any]] = {"string": "", "integer": 0, "number": 0, "boolean": False}


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
    enc: Encode = compiled(node, "enc", _compile_encoder)
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


# whether a quantity string is canonical, remembered: a fleet holds a few distinct ones, each written thousands
# of times (v1.5's memory request on every expanded VM)
_canonical: Final = scalar_memo(is_canonical_text)


def _encode_quantity(value: Any) -> Any:
    return value if type(value) is str and _canonical(value) else round_trip(value)


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
        for i, (key, v) in enumerate(value.items()):
            ev = sub(v) if v is not None else zero()
            if ev is not v:  # the first difference: a new dict from the head, then the rest
                out = dict(islice(value.items(), i))
                out[key] = ev
                for key, w in islice(value.items(), i + 1, None):
                    out[key] = sub(w) if w is not None else zero()
                return out
        return value
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
        # the unchanged head, as fast as possible (most of a VM comes through unchanged): the two most common
        # kinds of property, a kept and an omitempty scalar, are decided here without a call
        for key, sub in items:
            f = get_prop(key)
            if f is _keep:
                if sub is not None:
                    continue
                ev = _DROP
            elif f is _omit_empty:
                if sub:
                    continue
                ev = _DROP
            elif f is None or sub is None:
                ev = _DROP  # unknown field (Go drops it) / null (must-emit fields are handled below)
            else:
                ev = f(sub)
                if ev is sub:
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
        out = {}
        for head, kept in value.items():
            if head is key:
                break
            out[head] = kept
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


def encode_shared(obj: dict[str, Any], definition: str, tag: str = DEFAULT_TAG) -> dict[str, Any]:
    """:func:`encode_object` that keeps every container of ``obj`` the round trip leaves unchanged (``obj``
    itself when nothing changes): the result shares data with ``obj``, so neither may be mutated later."""
    out: dict[str, Any] = _encoder(open_schema(tag).definition(definition))(obj)
    return out


def encode_object(obj: dict[str, Any], definition: str, tag: str = DEFAULT_TAG) -> dict[str, Any]:
    """Go round trip of a whole object of the given definition (``v1.VirtualMachine``, ...) through the Go types
    of KubeVirt ``tag``: the fields that release does not know vanish; new containers."""
    out: dict[str, Any] = copy_json(encode_shared(obj, definition, tag))
    return out


# --- the decode alone: what a release's Go types keep of a value ------------------------------------------------
def known_only(value: Any, definition: str, tag: str = DEFAULT_TAG) -> Any:
    """``value`` (of the given definition) without the fields KubeVirt ``tag``'s Go types do not have, as its
    ``json.Unmarshal`` leaves it: ``value`` itself when it has none, else a new container around the unchanged
    parts. Only the unknown fields go (the engine reads specs as given otherwise)."""
    return _known(value, open_schema(tag).definition(definition))


def _known(value: Any, node: Node) -> Any:
    kind = node.kind
    if kind == OBJ and type(value) is dict:
        props = node.props
        out: dict[str, Any] | None = None
        for i, (key, sub) in enumerate(value.items()):
            entry = props.get(key)
            new = _DROP if entry is None else _known(sub, entry[0])
            if new is not sub and out is None:
                out = dict(islice(value.items(), i))
            if out is not None and new is not _DROP:
                out[key] = new
        return value if out is None else out
    if kind == ARR and type(value) is list and node.items is not None:
        items = node.items
        new_list = [_known(sub, items) for sub in value]
        return value if all(a is b for a, b in zip(new_list, value)) else new_list
    if kind == MAP and type(value) is dict and node.values is not None:
        values = node.values
        new_map = {key: _known(sub, values) for key, sub in value.items()}
        return value if all(a is b for a, b in zip(new_map.values(), value.values())) else new_map
    return value
