"""The events :func:`krm_fn.io.patch.locate` walks, for a plain block-layout text, from its lines alone.

PyYAML makes a Python object (and two marks) per libyaml event: ~0.6 µs each, most of what locating a splice
costs on a whole VM (issue 24). For a text in the subset below the structure is its indentation, so one regex
match per line gives the same events — their kinds and the positions the walk reads — as tuples
``(kind, start, end, column, key)``. Each event is given only once the lines libyaml reads to make it have
been read (a value's once the next line shows it ends on its line), so whatever the text holds further on,
the events given are libyaml's. At the first line outside the subset :func:`scan` raises :class:`Unsure` and
the walk starts over on libyaml's events. ``tests/unit/io/test_linescan.py`` runs both side by side on random
layouts in and out of the subset, and on damaged ones. For an item read back whole the scan may leap over a
skipped collection (:func:`_leap`): there the lines skipped need not be in the subset, only the text one libyaml
reads (it was read: it is the item's source); the test runs that side by side too, on noisy layouts.

The subset: ASCII, LF line breaks, no tab; every line empty, or ``[- ]key:`` with nothing after it (a nested
block collection follows, more indented or as ``- `` entries at the key's column), or ``[- ]key: value`` /
``- value`` where a value is one plain scalar without ``:`` or ``#`` and with no trailing space, a quoted
scalar without escapes, ``[]``, a flow mapping on the line of plain keys and plain or JSON-quoted values (the
walk never looks inside one), or (after a key) a block scalar header ``|``/``>`` with an optional chomping
indicator. Keys are plain, start with a letter and are not a YAML 1.1 boolean or null. A block scalar's lines
are empty or indented at least as its first line (deeper than its key), and the line that ends it is no
deeper than its key. No null values, comments, anchors, tags, directives or document markers.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from functools import lru_cache
from typing import Any

SCALAR, ALIAS, MAP, FLOW_MAP, SEQ, END, STREAM_END, OTHER = range(8)

Event = tuple[int, int, int, int, Any]

_PLAIN = r"""[^-?:,\[\]{}#&*!|>'"%@`\s][^\n#:]*(?<! )"""
_SCALAR = rf"""{_PLAIN}|"[^"\\\n]*"|'[^'\n]*'"""
# a flow mapping on one line of plain keys and plain (no space, no indicator) or double-quoted values
_FLOW_VALUE = r'[\w./][\w./+=~-]*|"(?:[^"\\\n]|\\[\\"/bfnrt]|\\u[0-9a-fA-F]{4})*"'
_KEY = r"[A-Za-z][\w./-]*"  # a plain key the scan reads
_FLOW_PAIR = rf"""{_KEY}: (?:{_FLOW_VALUE})"""
_FLOW = rf"""\{{(?:{_FLOW_PAIR}(?:, {_FLOW_PAIR})*)?\}}|\[\]"""
LINE = re.compile(
    rf"""(?P<ind> *)(?P<dash>- )?(?:(?P<key>{_KEY}):(?: (?:(?P<val>{_SCALAR})|(?P<flow>{_FLOW})"""
    rf"""|(?P<blk>[|>][-+]?)))?|(?P<sval>{_SCALAR}))\n""")
# keys YAML 1.1 resolves to a boolean or null (a key the loader would not read as this string); libyaml allows
# a simple key at most 1024 characters (the scan, 1000)
_NOT_STR = frozenset("y yes n no true false on off null".split())
_KEY_TEXT = re.compile(_KEY)


@lru_cache(maxsize=4096)
def plain_key(key: Any) -> bool:
    """Whether ``key`` is a string :func:`scan` reads as a key of its own (a :data:`LINE` key of at most 1000
    characters that the loader reads as this string, not a YAML 1.1 boolean or null)."""
    return type(key) is str and len(key) <= 1000 and _KEY_TEXT.fullmatch(key) is not None \
        and key.lower() not in _NOT_STR


class Unsure(Exception):
    """The text is not in the subset (found while scanning): walk libyaml's events instead."""


def scannable(text: str) -> bool:
    """The checks on the whole text (the rest are made line by line as :func:`scan` goes)."""
    return text.endswith("\n") and text.isascii() and "\t" not in text and "\r" not in text


def scan(text: str, leap: bool = False) -> Generator[Event, Any, None]:
    """The events of a :func:`scannable` ``text``; raises :class:`Unsure` at the first line outside the subset.
    The events before are libyaml's: each is given once the lines libyaml reads to make it are read (a value's
    once the next line is: it could continue the value). Sent a true value after a collection's start event, it
    gives that collection's end event next (skipping its lines). With ``leap``, the lines after a skipped
    collection's first line are not read one by one: :func:`_leap` finds its end with one regex search, which is
    libyaml's on a text libyaml reads, whatever the skipped lines hold (it is not proven on the text: use it
    only where what is written from the result is read back whole)."""
    stack: list[tuple[bool, int, bool]] = []  # (a sequence, column, indentless)
    pending = -1  # the column of a key whose value is on the next lines
    started = False
    skipping = -1  # while skipping a collection: the depth its end leaves
    leaping = False  # a collection to skip has just started: leap over its lines after this one
    held: list[Event] = []  # a value's events, given once the next line shows it ends on its line
    held_column = 0  # the column its collection's keys or entries stand at: the next line may go no deeper
    pos, n = 0, len(text)
    match = LINE.match
    yield OTHER, 0, 0, 0, None
    while pos < n:
        if leaping:
            leaping = False
            skipped = stack[skipping]
            end = _leap(text, pos, skipped[1], skipped[0] and skipped[2])
            if end >= 0:
                del stack[skipping + 1:]
                pos, pending = end, -1
                continue
        if text[pos] == "\n":
            pos += 1
            continue
        m = match(text, pos)
        if m is None:
            raise Unsure
        ind_text, dash_text, key, val, flow, blk, sval = m.groups()
        ind, dash = len(ind_text), dash_text is not None
        at = pos + ind
        if key is None and not dash or key is not None and (len(key) > 1000 or key.lower() in _NOT_STR):
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
                skipping, leaping = len(stack) - 1, leap
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
                    skipping, leaping = 0, leap
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
                skipping, leaping = len(stack) - 1, leap
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


# a character that can start a scalar or collection libyaml reads across lines at any indentation (a quoted
# scalar, a flow collection), and a line that holds one only where it closes on the line: entries' "- ", a key
# (plain without any of those characters or ":", or quoted), a value (quoted, a flow collection without anything
# nested, quoted or commented, or plain without any of those characters); no comment
_SPAN_CHARS = "\"'[{"
_QUOTED = r"""(?:"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\n]*(?:''[^'\n]*)*')"""
_CLOSED = re.compile(
    rf""" *(?:- +)*(?:(?:[^\s"'\[\]{{}}#:][^"'\[\]{{}}#\n:]*|{_QUOTED}): +)?"""
    rf"""(?:{_QUOTED}|\[[^\[\]{{}}"'#\n]*\]|\{{[^\[\]{{}}"'#\n]*\}}|[^\s"'\[\]{{}}#][^"'\[\]{{}}#\n]*)? *""")


_ENDS: dict[tuple[int, bool], re.Pattern[str]] = {}


def _ends(column: int, indentless: bool) -> re.Pattern[str]:
    """What :func:`_leap` looks for: the line break before the first line that ends a block collection at
    ``column`` (an ``indentless`` sequence: its ``- `` at its key's column) and is not blank or a comment: one
    indented less, or at that column and not an entry (a pattern that starts with the line break: sre finds it
    at C speed; the spaces are matched possessively: a deeper line fails at once, without giving them back one by
    one)."""
    less = f" {{0,{column - 1}}}+[^ \n#]" if column else "(?!)"
    same = f"| {{{column}}}(?:[^ \n#-]|-[^ \n])" if indentless else ""
    pattern = _ENDS[column, indentless] = re.compile(f"\n(?:{less}{same})")
    return pattern


def _leap(text: str, pos: int, column: int, indentless: bool) -> int:
    """The start of the line where libyaml ends the block collection at ``column`` whose lines continue at ``pos``
    (the text's end if none), on a text libyaml reads; -1 when that is not sure (then read its lines one by one).

    Inside the collection every line that is not blank or a comment is indented more than ``column`` (or, for
    an indentless sequence, is a ``- `` entry at it), and libyaml's first token at or left of it ends the
    collection there: a plain scalar's continuation must be deeper than the innermost collection, a block
    scalar's lines deeper than its parent's (a line to the left ends it, and a ``#`` line there is a comment),
    and a document marker (column 0) is to the left. Only a quoted scalar or a flow collection can go on at
    any column, and only from a line that starts one without closing it: a skipped line with any of ``"'[{``
    must be one :func:`closed` reads whole (the skipped text starts on a line the scan read: outside any of
    them), else the skipped lines are left to the line scan. :func:`scannable` rules out tabs and line breaks
    other than LF."""
    if not column and not indentless:
        return -1  # the root: a document marker at its column ends it
    end = collection_end(text, pos, column, indentless)
    return end if closed(text, pos, end) else -1


def collection_end(text: str, pos: int, column: int, indentless: bool) -> int:
    """The start of the first line from ``pos`` (a line's start) that ends a block collection at ``column`` (see
    :func:`_ends`), or the text's end: where libyaml ends it when the lines between are :func:`closed` and hold
    no document marker."""
    found = (_ENDS.get((column, indentless)) or _ends(column, indentless)).search(text, pos - 1)
    return len(text) if found is None else found.start() + 1


def closed(text: str, pos: int, end: int) -> bool:
    """Whether no quoted scalar or flow collection can go on past its line in ``text[pos:end]`` (which starts
    outside any): every line there with any of ``"'[{`` is one :data:`_CLOSED` or the line scan's :data:`LINE`
    (a flow mapping of JSON-quoted values) reads whole (a line found so is remembered: what both read is the line
    and its line break); False for one on a last line without a line break (it is not read)."""
    find = text.find
    known = _CLOSED_LINES
    for quote in _SPAN_CHARS:
        at = find(quote, pos, end)
        while at >= 0:
            line_end = find("\n", at)
            if line_end < 0:
                return False  # a last line without its line break (never in a scannable text): not read
            line_start = text.rfind("\n", 0, at) + 1
            line = text[line_start:line_end]  # what the checks read: the line
            if line not in known:
                if _CLOSED.fullmatch(text, line_start, line_end) is None and LINE.match(text, line_start) is None:
                    return False
                if len(known) < 4096:
                    known.add(line)
            at = find(quote, line_end, end)
    return True


# lines found closed (the same lines recur on every item of a fleet)
_CLOSED_LINES: set[str] = set()
