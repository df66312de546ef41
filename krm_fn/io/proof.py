"""What must be read back before a spliced text may be written: a splice's :data:`Proof`.

:func:`krm_fn.io.splice.splice` makes the proof and ``krm_fn.io.verify.ReadBacks.owe`` consumes it. A proof is
the whole item (:class:`Whole`) or each edited mapping on its own (:class:`Sites`). An edited mapping is read
back as a ``- `` entry of its own (:class:`SiteRead`). ``docs/design/splice.md`` says why its text, closed by the
line after it, proves the mapping.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # locate reads with PyYAML: not imported by a generator run
    from krm_fn.io.locate import Edits


class SiteRead(NamedTuple):
    """An edited mapping to read back on its own, as a ``- `` entry (:meth:`entry`).

    ``key`` is its text up to what closes it, with its column, when that text determines the value too. That
    holds when every pair we wrote there is blanked (read as ``null`` whatever its value), so the rest is source
    text: the same text in the same place of a trusted source means the same value. ``key`` is None otherwise.
    ``pair`` names the FLOW pair of ``node``'s mapping that is the site (read as a one-pair mapping)."""

    key: tuple[int, str, str | None] | None
    skeleton: str
    lo: int
    hi: int
    column: int
    node: Edits
    blanked: frozenset[tuple[int, str]]
    pair: str | None = None

    def readable(self) -> bool:
        """Whether the mapping can be read back on its own."""
        return readable_at(self.skeleton, self.lo, self.hi, self.column, self.pair is not None)

    def entry(self) -> tuple[str, dict[str, Any]]:
        """The mapping as a ``- `` entry and the value it must read as (only for a :meth:`readable` site)."""
        entry = _site_text(self.skeleton, self.lo, self.hi, self.column, self.pair is not None)
        assert entry is not None, "entry() of a site that is not readable"
        value = _blanked(self.node, self.blanked)
        return entry, value if self.pair is None else {self.pair: value[self.pair]}


class Whole(NamedTuple):
    """The proof of a splice read back whole: the item's own mapping is edited, its source text is not trusted, or
    a rewritten flow pair cannot be read on its own."""


class Sites(NamedTuple):
    """The proof of a splice on a trusted source text: each edited mapping read back on its own (a site inside
    another is proven by the outer one's read-back, and is not listed)."""

    reads: list[SiteRead]


Proof = Whole | Sites
WHOLE = Whole()


def _blanked(node: Edits, blanked: frozenset[tuple[int, str]]) -> dict[str, Any]:
    """What the skeleton of ``node``'s mapping must read as: its new value, null for the pairs in ``blanked``
    (for a mapping value: null for each of its values)."""
    if not blanked:
        return node.new
    out = {}
    for key, value in node.new.items():
        change = node.changes.get(key)
        if change is not None and type(change) is not str:  # a nested mapping's Edits
            value = _blanked(change, blanked)
        elif (id(node.new), key) in blanked:
            value = {k: None for k in value} if type(value) is dict else None
        out[key] = value
    return out


def _site_text(out: str, lo: int, hi: int, column: int, pair: bool = False) -> str | None:
    """The mapping whose lines are ``out[lo:hi]`` (keys at ``column``) as a ``- `` entry (keys at column 2), with
    the blank lines after it; None unless every line is indented at least to ``column`` and the line after the blank
    ones closes the mapping in any context: the end, a comment at most at ``column``, or content left of it
    (a line that could belong to the mapping's last value, or be read differently alone, never passes).
    With ``pair`` the lines are one pair of a longer mapping, its key at ``column``: content at ``column`` (the
    next key) closes it too."""
    after = _site_lines(out, lo, hi, column, pair)
    if after is None:
        return None
    lines = out[lo:hi].split("\n")
    lines.pop()  # after the last line break
    doc = ["- " + lines[0][column:]]
    doc += ["  " + line[column:] if line.startswith(" " * column) else "" for line in lines[1:]]
    return "\n".join(doc + after) + "\n"


def readable_at(out: str, lo: int, hi: int, column: int, pair: bool) -> bool:
    """Whether the mapping whose lines are ``out[lo:hi]`` (keys at ``column``; with ``pair``, one pair of a longer
    mapping) can be read back on its own."""
    return _site_lines(out, lo, hi, column, pair) is not None


def _site_lines(out: str, lo: int, hi: int, column: int, pair: bool) -> list[str] | None:
    """The checks of :func:`_site_text`, without making the entry: None if they fail, else the blank lines after
    the mapping as the entry has them."""
    if hi > len(out) or (hi and out[hi - 1] != "\n"):
        return None
    if pair and out[lo:hi].partition("\n")[0][column:column + 1] in ("", " "):  # its key at its mapping's column
        return None
    if hi - 1 > lo and _shallow(column).search(out, lo, hi - 1) is not None:
        return None
    after = []
    at = hi
    while at < len(out):
        nl = out.find("\n", at)
        line = out[at:nl if nl >= 0 else len(out)]
        body = line.lstrip(" ")
        if body:
            indent = len(line) - len(body)
            if indent < column + pair and body[0] != "\t" or body[0] == "#" and indent <= column:
                break
            return None
        after.append("  " + line[column:] if len(line) > column else "")
        at = len(out) if nl < 0 else nl + 1
    return after


@cache
def _shallow(column: int) -> re.Pattern[str]:
    """A line after the first that is neither indented to ``column`` nor blank (spaces only)."""
    return re.compile(r"\n(?! {%d}| *$)" % column, re.M)
