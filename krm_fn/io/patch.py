"""Write a changed object so that what did not change keeps the user's text.

kpt writes our output back with the scalar styles we emit (it restores comments and key order, not
quotes or flow maps), so a VM the renderer only touches in ``spec.instancetype`` must not come back with
every ``"db"`` unquoted and every ``{app: x}`` turned into a block. For a changed item whose original
source text we have, the original is parsed once more with its layout (where each key/value pair and each
list entry sits in the text); the new value is then written top-down: a pair or entry whose value is
unchanged is copied from the source (re-indented), a changed mapping or list of the same block shape is
descended into, anything else is emitted fresh. Only changed items pay for this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from yaml import events as ev

from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import _EventParser, _scalar


@dataclass(slots=True)
class Pair:
    """One mapping entry (or, with ``key`` None, one sequence entry) and where it sits in the text."""

    key: str | None
    start: int          # the key's start (pairs) or the value's start (entries)
    column: int         # column of ``start``
    value_end: int
    layout: Layout | None  # the value's own layout when it is a container


@dataclass(slots=True)
class Layout:
    flow: bool
    entries: list[Pair]


class _Unsupported(Exception):
    """Anchors, aliases, merge keys or tags: not worth patching, emit the item fresh."""


def layout_of(text: str) -> tuple[Any, Layout | None]:
    """Parse a one-document ``text`` (a single item) recording the layout of every container."""
    parser = _EventParser(text)
    # stack entries: [container, layout, pending key, key start index, key column, child start, child column]
    stack: list[list[Any]] = []
    root: Any = None
    root_layout: Layout | None = None

    def attach(value: Any, layout: Layout | None, start: int, column: int, end: int) -> None:
        nonlocal root, root_layout
        if not stack:
            root, root_layout = value, layout
            return
        top = stack[-1]
        container = top[0]
        if type(container) is list:
            container.append(value)
            top[1].entries.append(Pair(None, start, column, end, layout))
        elif top[2] is None:
            if not isinstance(value, str) or value == "<<":
                raise _Unsupported
            top[2], top[3], top[4] = value, start, column
        else:
            container[top[2]] = value
            top[1].entries.append(Pair(top[2], top[3], top[4], end, layout))
            top[2] = None

    while True:
        event: Any = parser.get_event()
        cls = type(event)
        if cls is ev.ScalarEvent:
            if event.anchor is not None or (event.tag not in (None, "!")):
                raise _Unsupported
            m = event.start_mark
            attach(_scalar(event), None, m.index, m.column, event.end_mark.index)
        elif cls is ev.MappingStartEvent or cls is ev.SequenceStartEvent:
            if event.anchor is not None or event.tag not in (None, "!"):
                raise _Unsupported
            container: dict[str, Any] | list[Any] = {} if cls is ev.MappingStartEvent else []
            m = event.start_mark
            stack.append([container, Layout(bool(event.flow_style), []), None, 0, 0, m.index, m.column])
        elif cls is ev.MappingEndEvent or cls is ev.SequenceEndEvent:
            container, layout, _, _, _, start, column = stack.pop()
            attach(container, layout, start, column, event.end_mark.index)
        elif cls is ev.AliasEvent:
            raise _Unsupported
        elif cls is ev.StreamEndEvent:
            return root, root_layout


def _shift(chunk: str, by: int) -> str | None:
    """Re-indent every line but the first by ``by`` columns (None if a line has too little indentation)."""
    if by == 0 or "\n" not in chunk.rstrip("\n"):
        return chunk
    first, rest = chunk.split("\n", 1)
    out = [first]
    pad = " " * by if by > 0 else ""
    for line in rest.split("\n"):
        if not line.strip():
            out.append("")
        elif by > 0:
            out.append(pad + line)
        elif line[:-by].strip():
            if line.lstrip().startswith("#"):
                continue
            return None
        else:
            out.append(line[-by:])
    return "\n".join(out)


class PatchEmitter(Emitter):
    """An :class:`Emitter` that can reuse an original document's text for unchanged parts."""

    __slots__ = ("src",)

    def __init__(self, src: str) -> None:
        super().__init__()
        self.src = src

    def _copy(self, start: int, end: int, column: int, prefix: str) -> bool:
        """Append the source text ``src[start:end]`` (starting at ``column``) after ``prefix``."""
        chunk = self.src[start:end].rstrip(" \t")
        shifted = _shift(chunk, len(prefix) - column)
        if shifted is None:
            return False
        self.out.append(prefix + shifted + ("" if shifted.endswith("\n") else "\n"))
        return True

    def patched_mapping(self, new: dict[str, Any], old: dict[str, Any], layout: Layout, indent: str,
                        first_prefix: str | None = None) -> None:
        pairs = {p.key: p for p in layout.entries}
        prefix = indent if first_prefix is None else first_prefix
        for key, value in new.items():
            pair = pairs.get(key)
            if pair is not None and not self._patched_pair(key, value, old[key], pair, prefix, indent):
                pair = None
            if pair is None:
                self.mapping({key: value}, indent, first_prefix=prefix)
            prefix = indent

    def _patched_pair(self, key: str, value: Any, before: Any, pair: Pair, prefix: str, indent: str) -> bool:
        if value is before or (type(value) is type(before) and value == before):
            return self._copy(pair.start, pair.value_end, pair.column, prefix)
        sub = pair.layout
        if sub is None or sub.flow or not value or type(value) is not type(before):
            return False
        self.out.append(f"{prefix}{self.scalar(key)}:\n")
        if type(value) is dict:
            self.patched_mapping(value, before, sub, indent + "  ")
        else:
            self.patched_sequence(value, before, sub, indent)
        return True

    def patched_sequence(self, new: list[Any], old: list[Any], layout: Layout, indent: str) -> None:
        if len(new) != len(old):
            self.sequence(new, indent)
            return
        for value, before, entry in zip(new, old, layout.entries):
            item_indent = indent + "  "
            if value is before or (type(value) is type(before) and value == before):
                if self._copy(entry.start, entry.value_end, entry.column, f"{indent}- "):
                    continue
            elif (type(value) is dict and type(before) is dict and value and entry.layout is not None
                  and not entry.layout.flow):
                self.patched_mapping(value, before, entry.layout, item_indent, first_prefix=f"{indent}- ")
                continue
            self.sequence([value], indent)


def emit_patched(e: Emitter, new: dict[str, Any], original_text: str, indent: str, first_prefix: str | None) -> bool:
    """Append ``new`` to ``e`` reusing ``original_text`` (a column-0 document); False if it cannot."""
    try:
        old, layout = layout_of(original_text)
    except Exception:  # anything unusual in the original: just emit fresh
        return False
    if type(old) is not dict or layout is None or layout.flow:
        return False
    p = PatchEmitter(original_text)
    p._scalars = e._scalars
    p.patched_mapping(new, old, layout, indent, first_prefix)
    e.out.extend(p.out)
    return True
