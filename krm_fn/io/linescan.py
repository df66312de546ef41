"""The events :func:`krm_fn.io.locate.locate` walks, for a plain block-layout text, from its lines alone.

PyYAML makes a Python object (and two marks) per libyaml event: ~0.6 µs each, most of what locating a splice
costs on a whole VM (issue 24). For a text in the subset below the structure is its indentation, so one regex
match per line gives the same events — their kinds and the positions the walk reads — as tuples
``(kind, start, end, column, key)``. Each event is given only once the lines libyaml reads to make it have
been read (a value's once the next line shows it ends on its line), so whatever the text holds further on,
the events given are libyaml's. At the first line outside the subset :func:`scan` raises :class:`Unsure` and
the walk starts over on libyaml's events. ``tests/unit/io/test_linescan.py`` runs both side by side on random
layouts in and out of the subset, and on damaged ones.

The subset (:mod:`krm_fn.io.subset` holds its line pattern): ASCII, LF line breaks, no tab; every line empty, or
``[- ]key:`` with nothing after it (a nested block collection follows, more indented or as ``- `` entries at the
key's column), or ``[- ]key: value`` / ``- value`` where a value is one plain scalar without ``:`` or ``#`` and
with no trailing space, a quoted scalar without escapes, ``[]``, a flow mapping on the line of plain keys and
plain or JSON-quoted values (the walk never looks inside one), or (after a key) a block scalar header ``|``/``>``
with an optional chomping indicator. Keys are plain, start with a letter and are not a YAML 1.1 boolean or null. A
block scalar's lines are empty or indented at least as its first line (deeper than its key), and the line that
ends it is no deeper than its key. No null values, comments, anchors, tags, directives or document markers.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from functools import lru_cache
from typing import Any

from krm_fn.io.subset import KEY, LINE, NOT_STR_KEYS

SCALAR, ALIAS, MAP, FLOW_MAP, SEQ, END, STREAM_END, OTHER = range(8)

Event = tuple[int, int, int, int, Any]

_KEY_TEXT = re.compile(KEY)


@lru_cache(maxsize=4096)
def plain_key(key: Any) -> bool:
    """Whether ``key`` is a string :func:`scan` reads as a key of its own.

    That is a :data:`~krm_fn.io.subset.LINE` key of at most 1000 characters that is not a YAML 1.1 boolean or null."""
    return type(key) is str and len(key) <= 1000 and _KEY_TEXT.fullmatch(key) is not None \
        and key.lower() not in NOT_STR_KEYS


class Unsure(Exception):
    """The text is not in the subset (found while scanning): walk libyaml's events instead."""


def scannable(text: str) -> bool:
    """The checks on the whole text (the rest are made line by line as :func:`scan` goes)."""
    return text.endswith("\n") and text.isascii() and "\t" not in text and "\r" not in text


def scan(text: str) -> Generator[Event, Any, None]:
    """The events of a :func:`scannable` ``text``; raises :class:`Unsure` at the first line outside the subset.
    The events before are libyaml's: each is given once the lines libyaml reads to make it are read (a value's
    once the next line is: it could continue the value). Sent a true value after a collection's start event, it
    gives that collection's end event next (skipping its lines)."""
    stack: list[tuple[bool, int, bool]] = []  # (a sequence, column, indentless)
    pending = -1  # the column of a key whose value is on the next lines
    started = False
    skipping = -1  # while skipping a collection: the depth its end leaves
    held: list[Event] = []  # a value's events, given once the next line shows it ends on its line
    held_column = 0  # the column its collection's keys or entries stand at: the next line may go no deeper
    pos, n = 0, len(text)
    match = LINE.match
    yield OTHER, 0, 0, 0, None
    while pos < n:
        if text[pos] == "\n":
            pos += 1
            continue
        m = match(text, pos)
        if m is None:
            raise Unsure
        ind_text, dash_text, key, val, flow, blk, sval = m.groups()
        ind, dash = len(ind_text), dash_text is not None
        at = pos + ind
        if key is None and not dash or key is not None and (len(key) > 1000 or key.lower() in NOT_STR_KEYS):
            raise Unsure  # before any event of this line (libyaml reads the line to make them)
        if held:  # libyaml reads this line before it gives a value's event: a deeper line continues the value
            if ind > held_column:
                raise Unsure
            for event in held:
                yield event  # a flow collection's end follows its start, skipped or not
            held = []
        if pending >= 0:
            if not (ind > pending or ind == pending and dash):
                raise Unsure  # a null value
            indentless = ind == pending
            stack.append((dash, ind, indentless))
            pending = -1
            if skipping < 0 and (yield SEQ if dash else MAP, at, at + indentless, ind, None):  # ends past its "-"
                skipping = len(stack) - 1
        else:
            while stack and (stack[-1][1] > ind or stack[-1][0] and stack[-1][1] == ind and not dash):
                if stack[-1][1] == ind and not stack[-1][2]:
                    raise Unsure
                stack.pop()
                if skipping == len(stack):
                    skipping = -1
                    yield END, at, at, 0, None
                elif skipping < 0:
                    yield END, at, at, 0, None
            if not stack:
                if started:
                    raise Unsure
                started = True
                stack.append((dash, ind, False))
                if skipping < 0 and (yield SEQ if dash else MAP, at, at, ind, None):
                    skipping = 0
            top = stack[-1]
            if top[0] != dash or top[1] != ind:
                raise Unsure
        pos = m.end()
        column = ind
        if dash:
            column += 2
            if key is None:
                if skipping < 0:
                    held, held_column = [(SCALAR, at + 2, pos - 1, column, None)], ind
                continue
            stack.append((False, column, False))
            if skipping < 0 and (yield MAP, at + 2, at + 2, column, None):
                skipping = len(stack) - 1
        start = at + column - ind
        value = start + len(key) + 2
        if blk is not None:
            end = block_end(text, pos, column)
            if end < 0:
                raise Unsure
            pos = end
        elif val is None and flow is None:
            pending = column
        if skipping >= 0:
            continue
        yield SCALAR, start, value - 2, column, key
        held_column = column
        if val is not None:
            held = [(SCALAR, value, m.end() - 1, 0, None)]
        elif flow is not None:
            close = value + len(flow) - 1
            held = [(FLOW_MAP if flow[0] == "{" else SEQ, value, value + 1, 0, None), (END, close, close + 1, 0, None)]
        elif blk is not None:
            held = [(SCALAR, value, pos, 0, None)]
    if pending >= 0 or not started:
        raise Unsure
    for event in held:
        yield event
    while stack:
        stack.pop()
        if skipping < 0 or skipping == len(stack):
            skipping = -1
            yield END, n, n, 0, None
    yield STREAM_END, n, n, 0, None


def block_end(text: str, pos: int, column: int) -> int:
    """Where the block scalar whose lines start at ``pos`` (its key at ``column``) ends: the start of the line
    that ends it (or the text's end); -1 when that is not sure."""
    n = len(text)
    indent = -1
    while pos < n:
        nl = text.find("\n", pos)
        if nl == pos:
            pos += 1
            continue
        line = text[pos:nl]
        body = len(line) - len(line.lstrip(" "))
        if indent < 0:
            if body <= column or body == len(line):
                return -1  # no content line, or a first line of spaces only
            indent = body
        elif body < indent:
            return pos if body <= column and body < len(line) else -1
        pos = nl + 1
    return -1 if indent < 0 else n
