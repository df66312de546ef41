"""Where each edit of a changed object goes in its source text (:func:`locate`), and what the edits are (:func:`plan`).

:func:`plan` diffs the original value against the new one into an edit tree (:class:`Edits`). :func:`locate`
walks the source's events once and finds each edited pair's lines and each edited mapping's end. No values are
built. The walk stops once the last edited mapping is closed, and skips collections that hold no edit. The
events come from the lines for a plain block layout (:mod:`krm_fn.io.linescan`), else from libyaml.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, NamedTuple

from yaml import events as ev

from krm_fn.io.linescan import (ALIAS, END, FLOW_MAP, MAP, OTHER, SCALAR, SEQ, STREAM_END, Event, Unsure, scan,
                                scannable)
from krm_fn.io.loader import EventParser, key_text, scalar_value

MAX_EDITS = 16

# What changed in one mapping: key -> REPLACE (write `key: new value`), REMOVE, ADD (a new key), or the
# Edits of a nested mapping (descend). `new` is the mapping's new value. FLOW is set by :func:`locate` on a
# nested mapping the source writes as a flow map: the pair is rewritten like REPLACE, and read back on its own
# (a site of its own) instead of making its mapping a site.
REPLACE, REMOVE, ADD, FLOW = "replace", "remove", "add", "flow"


class Edits:
    __slots__ = ("new", "changes")

    def __init__(self, new: dict[str, Any]) -> None:
        self.new = new
        self.changes: dict[str, Any] = {}

    def pending(self) -> int:
        """How many places the walk has to find: replaced/removed pairs, the end of every mapping with
        changes of its own (new keys go there, and it is read back from its start to there), and the same
        inside nested edits. The walk stops when all are found."""
        count = 0
        direct = False
        for sub in self.changes.values():
            if isinstance(sub, Edits):
                count += sub.pending()
            else:
                direct = True
                count += sub != ADD
        return count + direct

    def direct(self) -> bool:
        """Whether this mapping has changes of its own (not only inside nested mappings or flow maps)."""
        return any(not isinstance(sub, Edits) and sub != FLOW for sub in self.changes.values())


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


class Site(NamedTuple):
    """A mapping with changes of its own, or (``pair``) one FLOW pair of a mapping without."""

    line_start: int  # the start of its first line
    start: int
    end: int  # the end of its last pair
    order: int  # of that end among insertions at the same point
    node: Edits
    column: int
    pair: str | None = None  # the key of a FLOW pair: only that pair is the site


class Span(NamedTuple):
    """Where one edit goes in the source: ``text[start:end]`` replaced (``start == end`` for an insertion; ``order``
    orders insertions at the same point), with the pairs to write there, their column and their mapping's new
    value."""

    start: int
    end: int
    order: int
    kind: str
    pairs: dict[str, Any]
    column: int
    mapping: dict[str, Any]


Located = tuple[list[Span], list[Site]]


class _Frame:
    """An open mapping or sequence while :func:`locate` walks the events."""

    __slots__ = ("edits", "key", "key_start", "key_column", "in_value", "pairs_end", "start", "column")

    def __init__(self, edits: Edits | None, in_value: bool | None, start: int, column: int) -> None:
        self.edits = edits  # its edits (None: nothing in it is edited)
        self.key: str | None = None  # the pending key
        self.key_start = 0
        self.key_column = 0
        self.in_value = in_value  # a mapping: whether the next node is the pending key's value; None: a sequence
        self.pairs_end: int | None = None  # where its last pair so far ends (its last event's end: see _line_end)
        self.start = start
        self.column = column


def locate(text: str, edits: Edits, entry: bool = False) -> Located | None:
    """Where each edit goes in ``text`` and which mappings it edits; None if ``text`` is not a block layout.

    ``entry``: ``text`` is ``- <item>``, a one-entry sequence around the item. A REPLACE or REMOVE span covers
    the pair's whole lines. An addition is an insertion point at the end of its mapping. The events come from
    the line scan (:mod:`krm_fn.io.linescan`) when the text is in its subset, else from libyaml. The scan gives
    up at the first line outside its subset, and the walk then starts over on libyaml's events.
    """
    if scannable(text):
        rewritten: list[tuple[dict[str, Any], str, Edits]] = []
        try:
            return _walk(text, edits, entry, scan(text), rewritten)
        except Unsure:
            for changes, key, sub in rewritten:  # as they were before the walk
                changes[key] = sub
    return _walk(text, edits, entry, libyaml_events(text), [])


def _walk(text: str, edits: Edits, entry: bool, pulled: Generator[Event, Any, None],
          rewritten: list[tuple[dict[str, Any], str, Edits]]) -> Located | None:
    """:func:`locate`'s answer from the events ``pulled``; each nested edit it turns into a rewritten pair goes to
    ``rewritten`` first (the events are sent a true value after a collection's start: its end comes next)."""
    get = pulled.__next__
    out: list[Span] = []
    sites: list[Site] = []
    frames: list[_Frame] = []
    remaining = edits.pending()
    root = True
    wrapper = entry  # ``text`` is "- <item>": a one-entry sequence around the item
    while remaining:
        kind, start, end, column, key_of = get()  # a scalar's key: its text, or libyaml's event
        if kind == STREAM_END:
            return None
        frame = frames[-1] if frames else None
        if kind == SCALAR or kind == ALIAS:
            if frame is not None and frame.edits is not None and frame.in_value is False:
                key = key_of if key_of is None or type(key_of) is str else key_text(scalar_value(key_of), key_of)
                frame.key, frame.key_start, frame.key_column = key, start, column  # the key as the loader reads it
                frame.in_value = True
                continue
            if frame is not None and frame.in_value and frame.edits is not None and frame.key is not None \
                    and isinstance(frame.edits.changes.get(frame.key), Edits):
                return None  # edits inside a value written as an alias (or a scalar): nowhere to put them
            remaining -= _value_done(frame, end, text, out, sites, len(frames))
        elif kind == MAP or kind == SEQ or kind == FLOW_MAP:
            if wrapper and frame is None and kind == SEQ:
                wrapper = False
                continue
            sub = None
            if frame is None and root:
                sub = edits
                root = False
            elif frame is not None and frame.edits is not None and frame.in_value is True:
                candidate = frame.edits.changes.get(frame.key) if frame.key is not None else None
                sub = candidate if isinstance(candidate, Edits) else None
            if sub is not None and kind != MAP:
                if frame is None or frame.edits is None or frame.key is None:
                    return None
                rewritten.append((frame.edits.changes, frame.key, sub))
                # a flow mapping: rewrite the whole pair; read back that pair alone (its end is the walk's
                # last place there) unless its mapping is read back anyway
                if frame.edits.direct() or kind == SEQ:
                    frame.edits.changes[frame.key] = REPLACE
                    remaining += 1 + (not frame.edits.direct()) - sub.pending()
                else:
                    frame.edits.changes[frame.key] = FLOW
                    remaining += 2 - sub.pending()  # the pair's span and its site
                sub = None
            if sub is None:  # nothing in it is edited: only its end matters (the end of its pair's value)
                kind, _, end, _, _ = pulled.send(True)
                if kind == STREAM_END:
                    return None
                remaining -= _value_done(frame, end, text, out, sites, len(frames))
                continue
            frames.append(_Frame(sub, False if kind == MAP else None, start, column))
        elif kind == END:
            if not frames:  # the end of the entry's sequence with edits not found
                return None
            done = frames.pop()
            node = done.edits
            if node is not None and node.direct():
                if done.pairs_end is None:
                    return None
                pairs_end = _line_end(text, done.pairs_end)  # only here and for an edited pair (most pairs are not)
                # several mappings can end at the same place: deeper ones first in the text
                order = pairs_end - len(frames) - 1
                additions = {k: node.new[k] for k, v in node.changes.items() if v == ADD}
                if additions:
                    out.append(Span(pairs_end, pairs_end, order, ADD, additions, done.column, node.new))
                sites.append(Site(text.rfind("\n", 0, done.start) + 1, done.start, pairs_end, order, node,
                                  done.column))
                remaining -= 1
            remaining -= _value_done(frames[-1] if frames else None, end, text, out, sites, len(frames))
    return out, sites


_KINDS = {ev.ScalarEvent: SCALAR, ev.AliasEvent: ALIAS, ev.SequenceStartEvent: SEQ, ev.MappingEndEvent: END,
          ev.SequenceEndEvent: END, ev.StreamEndEvent: STREAM_END}


def libyaml_events(text: str) -> Generator[Event, Any, None]:
    """libyaml's events of ``text`` as :mod:`krm_fn.io.linescan` gives them (a scalar's key: the event itself);
    sent a true value after a collection's start, the end event of that collection (a depth count over the
    events inside: no tuple for them, and most of an expanded VM's collections hold no edit)."""
    get = EventParser(text).get_event
    kinds = _KINDS
    skip = False
    while True:
        event: Any = get() if not skip else _skip_node(get)
        cls = type(event)
        kind = kinds.get(cls, OTHER) if cls is not ev.MappingStartEvent else FLOW_MAP if event.flow_style else MAP
        mark = event.start_mark
        skip = yield kind, mark.index, event.end_mark.index, mark.column, event if kind == SCALAR else None
        if kind == STREAM_END:
            return


_OPEN = (ev.MappingStartEvent, ev.SequenceStartEvent)
_CLOSE = (ev.MappingEndEvent, ev.SequenceEndEvent)


def _skip_node(get: Callable[[], Any]) -> Any:
    """The end event of the collection whose start event was just read (or the stream's end event)."""
    depth = 1
    while True:
        cls = type(event := get())
        if cls in _CLOSE:
            depth -= 1
            if not depth:
                return event
        elif cls in _OPEN:
            depth += 1
        elif cls is ev.StreamEndEvent:
            return event


def _line_end(text: str, index: int) -> int:
    """The index just past the line break that ends the line holding the character before ``index``."""
    line_start = text.rfind("\n", 0, index) + 1
    if not text[line_start:index].strip():
        return line_start
    nl = text.find("\n", index)
    return len(text) if nl < 0 else nl + 1


def _value_done(frame: _Frame | None, end: int, text: str, out: list[Span],
                sites: list[Site], depth: int) -> int:
    """A mapping value ended: record the pair's span if it is edited (returns 1; 2 for a FLOW pair, also
    recorded as a site), and where the mapping's pairs end (``end``: the value's last event's end). ``depth``:
    how many frames are open."""
    if frame is None or frame.in_value is not True:
        return 0
    frame.in_value = False
    key, key_start, column = frame.key, frame.key_start, frame.key_column
    frame.pairs_end = end
    node = frame.edits
    edit = node.changes.get(key) if node is not None and isinstance(key, str) else None
    if edit == REPLACE or edit == REMOVE or edit == FLOW:
        assert node is not None and key is not None
        end = _line_end(text, frame.pairs_end)
        out.append(Span(key_start, end, end, edit, {key: node.new.get(key)}, column, node.new))
        if edit != FLOW:
            return 1
        # ordered before any insertion of an enclosing mapping at the same point (as its mapping's site would be)
        sites.append(Site(text.rfind("\n", 0, key_start) + 1, key_start, end, end - depth, node, column, key))
        return 2
    return 0


def plan(old: dict[str, Any], new: dict[str, Any]) -> Edits | None:
    """The edits from ``old`` to ``new``, or None when there are too many to be worth splicing."""
    try:
        return edit_tree(old, new, [MAX_EDITS])
    except _TooMany:
        return None
