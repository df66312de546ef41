"""Write a changed object so that what did not change keeps the user's text.

kpt writes our output back with the scalar styles we emit (it restores comments and key order, not quotes
or flow maps), so a VM the renderer only touches in ``spec.instancetype`` must not come back with every
``"db"`` unquoted and every ``{app: x}`` turned into a block.

For a changed item whose original source text we have: diff the original value against the new one
(a small edit tree), find where the edited pairs sit in the source with one pass over libyaml's events
(no values are built, and the pass stops once the last edited mapping is closed), and splice freshly
emitted text for exactly those pairs into the original text. Everything else is the user's text.
Items that changed a lot (an expanded VM) are emitted fresh instead: splicing would not keep much.
"""

from __future__ import annotations

from typing import Any

from yaml import events as ev

from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import _EventParser, _key, _scalar

MAX_EDITS = 16

# What changed in one mapping: key -> REPLACE (write `key: new value`), REMOVE, ADD (a new key), or the
# Edits of a nested mapping (descend). `new` is the mapping's new value.
REPLACE, REMOVE, ADD = "replace", "remove", "add"


class Edits:
    __slots__ = ("new", "changes")

    def __init__(self, new: dict[str, Any]) -> None:
        self.new = new
        self.changes: dict[str, Any] = {}

    def pending(self) -> int:
        """How many places the walk has to find: replaced/removed pairs, the end of every mapping that
        gets new keys, and the same inside nested edits. The walk stops when all are found."""
        count = 0
        adds = False
        for sub in self.changes.values():
            if isinstance(sub, Edits):
                count += sub.pending()
            elif sub == ADD:
                adds = True
            else:
                count += 1
        return count + adds


class _TooMany(Exception):
    pass


def edit_tree(old: dict[str, Any], new: dict[str, Any], budget: list[int]) -> Edits:
    """What changed from ``old`` to ``new`` (mappings are descended, anything else is replaced)."""
    edits = Edits(new)
    for key, value in new.items():
        if key not in old:
            edits.changes[key] = ADD
        else:
            before = old[key]
            if value is before or (type(value) is type(before) and value == before):
                continue
            if type(value) is dict and type(before) is dict and value and before:
                edits.changes[key] = edit_tree(before, value, budget)
            else:
                edits.changes[key] = REPLACE
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooMany
    for key in old:
        if key not in new:
            edits.changes[key] = REMOVE
    return edits


def locate(text: str, edits: Edits, entry: bool = False) -> list[tuple[int, int, str, Any]] | None:
    """Positions in ``text`` for every edit: ``(start, end, kind, payload)``; None if not a block layout.

    For REPLACE/REMOVE the span is the pair's whole lines; for additions, an insertion point at the end
    of the mapping with the column its keys use (and, in place of an end, a key that puts deeper
    insertions at the same point first).
    """
    parser = _EventParser(text)
    out: list[tuple[int, int, str, Any]] = []
    # frames: [edits or None, pending key, key start, key column, child-is-value?, last pair end, key column seen]
    frames: list[list[Any]] = []
    remaining = edits.pending()
    root = True
    wrapper = entry  # ``text`` is "- <item>": a one-entry sequence around the item
    while remaining:
        event: Any = parser.get_event()
        cls = type(event)
        if cls is ev.StreamEndEvent:
            return None
        frame = frames[-1] if frames else None
        if cls is ev.ScalarEvent or cls is ev.AliasEvent:
            if frame is not None and frame[0] is not None and frame[4] is False:
                key = _key(_scalar(event), event) if cls is ev.ScalarEvent else None  # as the loader reads it
                frame[1], frame[2], frame[3] = key, event.start_mark.index, event.start_mark.column
                frame[4] = True
                continue
            remaining -= _value_done(frame, event, text, out)
        elif cls is ev.MappingStartEvent or cls is ev.SequenceStartEvent:
            if wrapper and frame is None and cls is ev.SequenceStartEvent:
                wrapper = False
                continue
            sub = None
            if frame is None and root:
                sub = edits
                root = False
            elif frame is not None and frame[0] is not None and frame[4] is True:
                candidate = frame[0].changes.get(frame[1])
                sub = candidate if isinstance(candidate, Edits) else None
            if sub is not None and (cls is not ev.MappingStartEvent or event.flow_style):
                if frame is None:
                    return None
                frame[0].changes[frame[1]] = REPLACE  # a flow mapping: rewrite the whole pair
                remaining += 1 - sub.pending()
                sub = None
            frames.append([sub, None, 0, 0, False if cls is ev.MappingStartEvent else None, None, None])
        elif cls is ev.MappingEndEvent or cls is ev.SequenceEndEvent:
            done = frames.pop()
            if done[0] is not None:
                node: Edits = done[0]
                additions = {k: node.new[k] for k, v in node.changes.items() if v == ADD}
                if additions:
                    if done[5] is None:
                        return None
                    # several mappings can end at the same place: deeper ones first in the text
                    out.append((done[5], done[5] - len(frames) - 1, ADD, (additions, done[6])))
                    remaining -= 1
            remaining -= _value_done(frames[-1] if frames else None, event, text, out)
    return out


def _line_end(text: str, index: int) -> int:
    """The index just past the line break that ends the line holding the character before ``index``."""
    line_start = text.rfind("\n", 0, index) + 1
    if not text[line_start:index].strip():
        return line_start
    nl = text.find("\n", index)
    return len(text) if nl < 0 else nl + 1


def _value_done(frame: list[Any] | None, event: Any, text: str, out: list[tuple[int, int, str, Any]]) -> int:
    """A mapping value ended: record the pair's span if it is edited (returns 1), and where the
    mapping's pairs end."""
    if frame is None or frame[4] is not True:
        return 0
    frame[4] = False
    key, key_start, column = frame[1], frame[2], frame[3]
    end = _line_end(text, event.end_mark.index)
    frame[5], frame[6] = end, column
    node: Edits | None = frame[0]
    edit = node.changes.get(key) if node is not None and isinstance(key, str) else None
    if edit == REPLACE or edit == REMOVE:
        assert node is not None
        out.append((key_start, end, edit, ({key: node.new.get(key)}, column)))
        return 1
    return 0


def plan(old: dict[str, Any], new: dict[str, Any]) -> Edits | None:
    """The edits from ``old`` to ``new``, or None when there are too many to be worth splicing."""
    try:
        return edit_tree(old, new, [MAX_EDITS])
    except _TooMany:
        return None


def splice(text: str, old: dict[str, Any], new: dict[str, Any], e: Emitter, edits: Edits | None = None,
           entry: bool = False) -> str | None:
    """``text`` (the column-0 source of ``old``, or with ``entry`` its ``- `` sequence entry) edited to
    represent ``new``; None when it cannot be."""
    if edits is None:
        edits = plan(old, new)
        if edits is None:
            return None
    if not edits.changes:
        return text
    if not new:
        return None
    if "&" in text:  # anchors: a replaced pair could hold an anchor an unchanged alias needs
        return None
    try:
        spans = locate(text, edits, entry)
    except Exception:  # malformed or unusual original: emit fresh
        return None
    if spans is None:
        return None
    parts: list[str] = []
    pos = len(text)
    for start, order, kind, payload in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        end = start if kind == ADD else order
        pairs, column = payload
        replacement = "" if kind == REMOVE else _emit_pairs(e, pairs, column)
        if kind != ADD:
            line_start = text.rfind("\n", 0, start) + 1
            if not text[line_start:start].strip():
                start = line_start
            elif kind == REPLACE:  # "- key: ..." (first key of a list entry): keep the "- "
                replacement = replacement[column:]
            else:
                return None
        parts.append(text[end:pos])
        parts.append(replacement)
        pos = start
    parts.append(text[:pos])
    return "".join(reversed(parts))


def _emit_pairs(e: Emitter, pairs: dict[str, Any], column: int) -> str:
    before = len(e.out)
    e.mapping(pairs, " " * column)
    text = "".join(e.out[before:])
    del e.out[before:]
    return text
