"""Write a changed object so that what did not change keeps the user's text.

kpt writes our output back with the scalar styles we emit. It restores comments and key order, not quotes or
flow maps. So a VM the renderer only touches in ``spec.instancetype`` must not come back with every ``"db"``
unquoted and every ``{app: x}`` turned into a block.

:func:`splice` takes the edit tree (:func:`krm_fn.io.locate.plan`) and where each edit goes in the source
(:func:`krm_fn.io.locate.locate`). It splices freshly emitted text for exactly those pairs into the original
text. Everything else is the user's text. An item with more than ``MAX_EDITS`` edits is emitted fresh instead:
splicing would not keep much.

Each splice comes with its :data:`Proof`: what must be read back before the text may be written
(``krm_fn.io.verify.ReadBacks.owe``). The proof is the whole item (:class:`Whole`) or each edited mapping on
its own (:class:`Sites`, the rest being trusted source text). :func:`splice` returns None when the splice must
not be used. ``docs/design/splice.md`` says why a site's text proves its mapping.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, NamedTuple

from yaml import YAMLError

from krm_fn.io.emitter import Emitter
from krm_fn.io.locate import ADD, REMOVE, Edits, Site, Span, locate
from krm_fn.io.proof import WHOLE, Proof, SiteRead, Sites, readable_at


class Spliced(NamedTuple):
    """A spliced text and what must be read back before it may be written."""

    text: str
    proof: Proof


class _Edit(NamedTuple):
    """An edit as spliced."""

    start: int
    order: int
    end: int
    replacement: str
    pairs: dict[str, Any] | None  # the pairs written (None: removed)
    column: int
    mapping: dict[str, Any]  # their mapping
    cut: int  # characters cut from the start of the pairs' text


def splice(text: str, old: dict[str, Any], new: dict[str, Any], e: Emitter, edits: Edits, entry: bool = False,
           trusted: bool = True) -> Spliced | None:
    """``text`` edited to represent ``new``, with its proof; None when the splice must not be used.

    ``text`` is the column-0 source of ``old``, or with ``entry`` its ``- `` sequence entry; ``edits`` is
    :func:`plan`'s. ``trusted``: the source text, copied as it stands, provably means ``old``
    (``krm_fn.io.verify``); else the splice is read back whole."""
    if not edits.changes:
        return Spliced(text, Sites([]) if trusted else WHOLE)
    if not new or "&" in text:  # anchors: a replaced pair could hold an anchor an unchanged alias needs
        return None
    try:
        located = locate(text, edits, entry)
    except YAMLError:  # a source text libyaml does not read shifted as it stands
        return None
    if located is None:
        return None
    spans, sites = located
    if not all(_entry_prefix(text[site.line_start:site.start]) for site in sites):
        return None  # a tag or anything else before a mapping's first key: its column is not its keys' column
    edited = _edited(text, spans, e)
    if edited is None:
        return None
    out: list[str] = []
    pos = 0
    for edit in edited:
        if edit.start < pos:
            return None
        out.append(text[pos:edit.start])
        out.append(edit.replacement)
        pos = edit.end
    out.append(text[pos:])
    spliced = "".join(out)
    proof = _proof(spliced, text, edited, sites, e, edits, trusted)
    return None if proof is None else Spliced(spliced, proof)


def _edited(text: str, spans: list[Span], e: Emitter) -> list[_Edit] | None:
    """Each span's text written, in the order of the text; None where a key has anything but indentation and
    ``- `` before it on its line (an explicit key)."""
    edited: list[_Edit] = []
    for span in spans:
        start, kind, column = span.start, span.kind, span.column
        replacement = "" if kind == REMOVE else _emit_pairs(e, span.pairs, column)
        cut = 0
        if kind != ADD:
            line_start = text.rfind("\n", 0, start) + 1
            prefix = text[line_start:start]
            if not prefix.strip(" "):
                start = line_start
            elif kind != REMOVE and _entry_prefix(prefix):  # "- key: ..." (first key of a list entry): keep "- "
                replacement, cut = replacement[column:], column
            else:  # an explicit key ("? key"), or anything else before the key
                return None
        edited.append(_Edit(start, span.order, span.end, replacement, None if kind == REMOVE else span.pairs,
                            column, span.mapping, cut))
    edited.sort(key=lambda s: (s.start, s.order))
    return edited


def _proof(spliced: str, source: str, edited: list[_Edit], sites: list[Site], e: Emitter, root: Edits,
           trusted: bool) -> Proof | None:
    """What must be read back to trust ``spliced``; None when the splice must not be used.

    An untrusted source is read back whole. So is an item whose own mapping is edited, where the splice stands
    only if every edited mapping could be read on its own. Else each site is read, or the splice is refused
    when a site cannot be read alone (a rewritten flow pair that cannot is read with its whole item)."""
    if not trusted:
        return WHOLE
    if any(site.node is root and site.pair is None for site in sites):
        spans = _spans(edited, sites, [len(edit.replacement) for edit in edited])
        stands = all(site.pair is not None or readable_at(spliced, lo, hi, site.column, False)
                     for site, (lo, hi) in zip(sites, spans, strict=True))
        return WHOLE if stands else None
    reads = _reads(source, edited, sites, e)
    whole = False
    for site in reads:
        if not site.readable():
            if site.pair is None:
                return None
            whole = True
    return WHOLE if whole else Sites([site for site in reads if not _inside(site, reads)])


def _inside(site: SiteRead, sites: list[SiteRead]) -> bool:
    """Whether another of ``sites`` holds all of ``site``'s text (a mapping inside an edited one)."""
    return any(other.lo <= site.lo and site.hi <= other.hi and other.hi - other.lo > site.hi - site.lo
               for other in sites)


def _spans(edited: list[_Edit], sites: list[Site], lengths: list[int]) -> list[tuple[int, int]]:
    """Each site's ``(lo, hi)`` in the text whose edits have the ``lengths`` given (the spliced text, or the
    skeleton)."""
    keys: list[tuple[int, int]] = []
    shifts: list[int] = []  # how far the text after each edit moved
    shift = 0
    for edit, length in zip(edited, lengths, strict=True):
        shift += length - (edit.end - edit.start)
        keys.append((edit.start, edit.order))
        shifts.append(shift)
    spans = []
    for site in sites:
        lo = bisect_left(keys, (site.line_start, site.line_start))
        hi = bisect_right(keys, (site.end, site.order))
        spans.append((site.line_start + (shifts[lo - 1] if lo else 0), site.end + (shifts[hi - 1] if hi else 0)))
    return spans


def _reads(source: str, edited: list[_Edit], sites: list[Site], e: Emitter) -> list[SiteRead]:
    """Each edited mapping to read back, in the skeleton text: the spliced text with ``null`` for each pair we
    wrote as one ``key: form`` line."""
    blanked: set[tuple[int, str]] = set()  # (id(Edits.new), key) of the pairs written with null
    shareable = True  # every pair written is blanked
    skel: list[str] = []
    lengths: list[int] = []
    pos = 0
    for start, _, end, replacement, pairs, column, mapping, cut in edited:
        skeleton = replacement
        if pairs is not None:
            blank = _blank(e, pairs, column, cut, replacement)
            if blank is None:
                shareable = False
            else:
                skeleton = blank
                blanked.update([(id(mapping), k) for k in pairs])
        skel.append(source[pos:start])
        skel.append(skeleton)
        pos = end
        lengths.append(len(skeleton))
    skel.append(source[pos:])
    skeleton_text = "".join(skel)
    frozen = frozenset(blanked)
    reads = []
    for site, (lo, hi) in zip(sites, _spans(edited, sites, lengths), strict=True):
        # lines start alike in the text and its skeleton: the closing line is checked on either
        key = (site.column, skeleton_text[lo:_closing(skeleton_text, hi)], site.pair) if shareable else None
        reads.append(SiteRead(key, skeleton_text, lo, hi, site.column, site.node, frozen, site.pair))
    return reads


def _closing(text: str, at: int) -> int:
    """Just past the first character of the first line from ``at`` that is not blank (or the end)."""
    n = len(text)
    while at < n:
        nl = text.find("\n", at)
        line_end = n if nl < 0 else nl
        stripped = text[at:line_end].lstrip(" ")
        if stripped:
            return line_end - len(stripped) + 1
        at = line_end + 1
    return n


_INLINE = (str, int, float, bool, type(None))


def _inline(v: Any) -> bool:
    return type(v) in _INLINE and not (type(v) is str and "\n" in v)


def _blank(e: Emitter, pairs: dict[str, Any], column: int, cut: int, written: str) -> str | None:
    """``written`` (the text of ``pairs``) with ``null`` for each value, when it is exactly one line
    ``key: form`` per pair with the forms the emitter reads back on their own, or for a mapping of such
    values (a pinned matcher), ``key:`` and those lines two columns deeper; else None."""
    pad = " " * column
    lines = []
    blanks = []
    for k, v in pairs.items():
        key = e.key(k)
        if type(v) is dict and v and all(map(_inline, v.values())):
            lines.append(f"{pad}{key}:\n")
            blanks.append(f"{pad}{key}:\n")
            for k2, v2 in v.items():
                key2 = e.key(k2)
                lines.append(f"{pad}  {key2}: {e.scalar(v2)}\n")
                blanks.append(f"{pad}  {key2}: null\n")
            continue
        if not _inline(v):
            return None
        lines.append(f"{pad}{key}: {e.scalar(v)}\n")
        blanks.append(f"{pad}{key}: null\n")
    if "".join(lines)[cut:] != written:
        return None
    return "".join(blanks)[cut:]


def _entry_prefix(prefix: str) -> bool:
    """Whether ``prefix`` (what stands before a key on its line) is indentation and ``- `` entry indicators."""
    return not prefix.replace("- ", "").strip(" ")


def _emit_pairs(e: Emitter, pairs: dict[str, Any], column: int) -> str:
    before = len(e.out)
    e.mapping(pairs, " " * column)
    text = "".join(e.out[before:])
    del e.out[before:]
    return text
