"""YAML -> plain Python data, built iteratively from libyaml's event stream.

Why events and not ``yaml.load``: PyYAML's constructor and resolver run in Python per node (~15 s for a
10k-VM list here); the C event parser alone is ~10x faster, and building dicts from events in one loop
keeps that speed. Building iteratively also bounds nesting depth (libyaml's recursive composer crashes the
process on deeply nested input) and alias expansion ("billion laughs"), and gives us each top-level
item's source span, so items we do not change are written back exactly as they came.

Safety: only the standard YAML tags are accepted; anything else (``!!python/object``, custom ``!tags``) is
an error and is never constructed. Duplicate mapping keys are errors.

The values it returns (:class:`Document`) and its limits live in :mod:`krm_fn.io.document`, importable
without PyYAML.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import yaml
from yaml import events as ev

from krm_fn.errors import InputError
from krm_fn.io.document import MAX_ALIAS_NODES, MAX_DEPTH, Document, YAMLSyntaxError
from krm_fn.kube.float32 import f32
from krm_fn.kube.paths import copy_json
from krm_fn.io.scalars import NUMERIC_START, SPECIAL_PLAIN, resolve_plain

try:  # libyaml's C parser; the pure-Python parser is a slow but equivalent fallback
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _Parser  # type: ignore[assignment]

_STR = "tag:yaml.org,2002:str"
_TAGS_SCALAR = {
    "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null", "tag:yaml.org,2002:binary", "tag:yaml.org,2002:timestamp",
}
_TAG_MAP = "tag:yaml.org,2002:map"
_TAG_SEQ = "tag:yaml.org,2002:seq"


class EventParser(_Parser):  # type: ignore[misc,unused-ignore]
    """libyaml's parser, used only for its events. Resolution happens in :func:`scalar_value`."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:  # pragma: no cover - not used by events
        return _STR

    def descend_resolver(self, *args: Any) -> None:  # pragma: no cover
        return None

    def ascend_resolver(self, *args: Any) -> None:  # pragma: no cover
        return None


def _mark(event: Any, attr: str) -> tuple[int, int, int]:
    m = getattr(event, attr)
    return (m.index, m.line, m.column)


def _where(event: Any) -> str:
    m = event.start_mark
    return f"line {m.line + 1}, column {m.column + 1}"


def scalar_value(event: Any) -> Any:
    """A scalar event's value as kubectl reads it (YAML 1.1 resolution, safe tags only)."""
    value: str = event.value
    tag = event.tag
    if tag is None or tag == "!":
        if event.implicit[0] and not event.style:
            return resolve_plain(value) if value else None
        return value
    if tag not in _TAGS_SCALAR:
        raise InputError(f"unsupported YAML tag {tag!r} at {_where(event)} (only standard tags are accepted)")
    if tag == _STR or tag.endswith(":timestamp"):
        return value
    if tag.endswith(":binary"):
        try:
            base64.b64decode(value, validate=False)
        except ValueError as exc:
            raise InputError(f"invalid !!binary value at {_where(event)}: {exc}") from None
        return value.replace("\n", "").replace(" ", "")
    resolved = resolve_plain(value) if value else None
    expected = {"int": int, "float": float, "bool": bool, "null": type(None)}[tag.rsplit(":", 1)[1]]
    if expected is float and isinstance(resolved, int) and not isinstance(resolved, bool):
        resolved = float(resolved)
    if type(resolved) is not expected:
        raise InputError(f"value {value!r} at {_where(event)} is not a valid {tag.rsplit(':', 1)[1]}")
    return resolved


def _count_nodes(value: Any) -> int:
    """The size of an alias expansion: nodes, plus one per 64 characters of strings (a long scalar aliased
    thousands of times is as much a bomb as a deep tree)."""
    n = 1
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            n += len(v) + sum(len(k) for k in v) // 64
            stack.extend(v.values())
        elif isinstance(v, list):
            n += len(v)
            stack.extend(v)
        elif isinstance(v, str):
            n += len(v) // 64
    return n


def key_text(value: Any, event: Any) -> str:
    """Mapping keys become strings as sigs.k8s.io/yaml does (``convertToJSONableObject`` in its yaml.go):
    ints in decimal, floats as ``strconv.FormatFloat(f, 'g', -1, 32)``, booleans as true/false. It refuses
    the other keys go-yaml v2 can produce (null, an integer beyond int64, which go-yaml reads as uint64)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value <= _INT64_MAX:
        return str(value)
    if isinstance(value, float):
        return _go_float32_g(value)
    if value is None or isinstance(value, int):
        what = "null" if value is None else "an integer beyond int64"
        raise InputError(f"mapping key at {_where(event)} is {what}: kubectl cannot read it (quote the key)")
    raise InputError(f"mapping key at {_where(event)} must be a scalar")


_INT64_MAX = 2**63 - 1


def _go_float32_g(f: float) -> str:
    """Go's ``strconv.FormatFloat(f, 'g', -1, 32)``: the shortest decimal that reads back as the same
    float32, in %e form when the exponent is below -4 or at least 6 (Go's rule for shortest 'g'), with
    sigs.k8s.io/yaml's names for the infinities and NaN."""
    if math.isnan(f):
        return ".nan"
    try:
        single = f32(f)
    except OverflowError:  # float32(f) is an infinity in Go
        single = math.copysign(math.inf, f)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    for precision in range(9):  # float32 needs at most 9 significant digits
        text = f"{single:.{precision}e}"
        try:
            if f32(float(text)) == single:
                break
        except OverflowError:  # rounded up beyond the largest float32: not this precision
            continue
    mantissa, exponent = text.split("e")
    exp = int(exponent)
    if exp < -4 or exp >= 6:
        return f"{mantissa}e{exp:+03d}"
    digits = mantissa.replace(".", "").lstrip("-")
    sign = "-" if mantissa.startswith("-") else ""
    point = exp + 1  # digits before the decimal point
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def load_documents(text: str, *, track: str | None = None) -> list[Document]:
    """Parse every document of ``text``.

    ``track="items"`` records the source span of each entry of a root mapping's ``items`` sequence
    (a ResourceList); ``track="root"`` is implied for documents (their own span).
    """
    parser = EventParser(text if type(text) is str else str(text))  # libyaml takes no str subclass (io.inputs.Joined)
    docs: list[Document] = []
    anchors: dict[str, Any] = {}
    alias_budget = MAX_ALIAS_NODES
    # stack entries: [container, pending key or _NOKEY, anchor, start event, track children?,
    #                 start mark of the current child, pending key is a plain "<<"?, keys set by merges,
    #                 container is a mapping?]
    stack: list[list[Any]] = []
    root: Any = None
    root_span = (0, 0, 0)
    spans: dict[int, tuple[int, int, int]] = {}
    get_event = parser.get_event
    _no_key = _NOKEY
    scalar_event = ev.ScalarEvent
    special = SPECIAL_PLAIN
    numeric_start = NUMERIC_START

    def attach(value: Any, event: Any, end_event: Any) -> None:
        nonlocal root
        nonlocal root_span
        if not stack:
            root = value
            root_span = (event.start_mark.index, end_event.end_mark.index, event.start_mark.column)
            return
        top = stack[-1]
        container = top[0]
        if type(container) is list:
            container.append(value)
            if top[4]:
                start = top[5]
                spans[id(value)] = (start[0], end_event.end_mark.index, start[2])
        else:
            key = top[1]
            if key is _no_key:
                top[1] = key_text(value, event)
                return
            if key == "<<" and top[6]:  # YAML merge key
                merged = top[7] if top[7] is not None else set()
                top[7] = merged
                merged.update(_merge(container, value, event))
            elif key in container and (top[7] is None or key not in top[7]):
                raise InputError(f"duplicate mapping key {key!r} at {_where(event)}")
            else:
                container[key] = value
                if top[7] is not None:
                    top[7].discard(key)
            top[1] = _no_key
            top[6] = False

    try:
        while True:
            event: Any = get_event()
            cls = type(event)
            if cls is scalar_event:
                # the hot path (most events): inline resolution and the plain mapping key/value case
                if event.tag is None:
                    value = event.value
                    if not event.style:
                        if value in special or (value and value[0] in numeric_start):
                            value = resolve_plain(value)
                        elif not value:
                            value = None
                else:
                    value = scalar_value(event)
                if event.anchor is not None:
                    anchors[event.anchor] = value
                top = stack[-1] if stack else None
                if top is not None and top[8]:
                    key = top[1]
                    if key is _no_key:
                        top[1] = value if type(value) is str else key_text(value, event)
                        top[6] = value == "<<" and not event.style
                        continue
                    mapping = top[0]
                    if key not in mapping and top[7] is None and key != "<<":
                        mapping[key] = value
                        top[1] = _no_key
                        continue
                elif top is not None and top[4]:
                    top[5] = _mark(event, "start_mark")
                attach(value, event, event)
            elif cls is ev.MappingStartEvent or cls is ev.SequenceStartEvent:
                tag = event.tag
                is_map = cls is ev.MappingStartEvent
                if tag is not None and tag != "!" and tag != (_TAG_MAP if is_map else _TAG_SEQ):
                    raise InputError(f"unsupported YAML tag {tag!r} at {_where(event)}")
                if len(stack) >= MAX_DEPTH:
                    raise InputError(f"document nested deeper than {MAX_DEPTH} levels at {_where(event)}")
                if stack and type(stack[-1][0]) is list and stack[-1][4]:
                    stack[-1][5] = _mark(event, "start_mark")
                if stack and type(stack[-1][0]) is dict and stack[-1][1] is _no_key:
                    raise InputError(f"mapping key at {_where(event)} must be a scalar")
                track_children = (
                    not is_map and track == "items" and len(stack) == 1
                    and type(stack[0][0]) is dict and stack[0][1] == "items"
                )
                container: dict[str, Any] | list[Any] = {} if is_map else []
                if event.anchor is not None:
                    anchors[event.anchor] = container  # visible to (recursive) aliases inside it
                stack.append([container, _no_key, event.anchor, event, track_children, None, False, None, is_map])
            elif cls is ev.MappingEndEvent or cls is ev.SequenceEndEvent:
                container, _, anchor, start_event, *_ = stack.pop()
                if anchor is not None:
                    anchors[anchor] = container
                attach(container, start_event, event)
            elif cls is ev.AliasEvent:
                if event.anchor not in anchors:
                    raise InputError(f"unknown alias *{event.anchor} at {_where(event)}")
                target = anchors[event.anchor]
                if any(entry[0] is target for entry in stack):
                    raise InputError(f"recursive alias *{event.anchor} at {_where(event)}")
                alias_budget -= _count_nodes(target)
                if alias_budget < 0:
                    raise InputError("document contains excessive aliasing (refusing to expand it)")
                if stack and type(stack[-1][0]) is list and stack[-1][4]:
                    stack[-1][5] = _mark(event, "start_mark")
                if stack and type(stack[-1][0]) is dict and stack[-1][1] is _no_key:
                    stack[-1][6] = False
                attach(copy_json(target), event, event)
            elif cls is ev.DocumentStartEvent:
                root = None
                root_span = (event.end_mark.index, event.end_mark.index, 0)
                spans = {}
                anchors = {}
            elif cls is ev.DocumentEndEvent:
                docs.append(Document(root, *root_span, spans))
            elif cls is ev.StreamEndEvent:
                break
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        if "maximum nesting depth" in str(exc.problem):  # libyaml >= 0.2.6 (PyYAML 6.0.4) has our limit too
            raise InputError(f"document nested deeper than {MAX_DEPTH} levels{where}") from None
        tab = " (a tab in the indentation: YAML indents with spaces)" if mark is not None and _tab_indent(
            text, mark.index) and "tab" not in str(exc.problem) else ""
        raise YAMLSyntaxError(f"malformed YAML: {exc.problem or exc.context}{where}{tab}",
                              mark.index if mark is not None else len(text)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {' '.join(str(exc).split())}") from None
    return docs


def _tab_indent(text: str, index: int) -> bool:
    """Whether the character at ``index`` is a tab among its line's leading blanks (libyaml: "found character
    that cannot start any token")."""
    line_start = text.rfind("\n", 0, index) + 1
    return text[index:index + 1] == "\t" and not text[line_start:index].strip(" \t")


class _NoKey:
    __slots__ = ()

    def __repr__(self) -> str:  # pragma: no cover
        return "<no key>"


_NOKEY: Any = _NoKey()


def _merge(container: dict[str, Any], value: Any, event: Any) -> list[str]:
    """``<<: *base`` (or a list of maps): merged keys are set in order, as go-yaml v2 does; explicit keys
    that follow may override them. Returns the merged keys."""
    sources = value if isinstance(value, list) else [value]
    keys: list[str] = []
    for src in sources:
        if not isinstance(src, dict):
            raise InputError(f"merge key '<<' at {_where(event)} needs a mapping or a list of mappings")
        for k, v in src.items():
            container[k] = copy_json(v)
            keys.append(k)
    return keys
