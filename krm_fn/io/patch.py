"""Write a changed object so that what did not change keeps the user's text.

kpt writes our output back with the scalar styles we emit (it restores comments and key order, not quotes
or flow maps), so a VM the renderer only touches in ``spec.instancetype`` must not come back with every
``"db"`` unquoted and every ``{app: x}`` turned into a block.

For a changed item whose original source text we have: diff the original value against the new one
(a small edit tree), find where the edited pairs sit in the source with one pass over its events (no values
are built, the pass stops once the last edited mapping is closed, and skips what holds no edit; the events come
from the lines for a plain block layout, :mod:`krm_fn.io.linescan`, else from libyaml), and splice freshly
emitted text for exactly those pairs into the original text. Everything else is the user's text.
Items that changed a lot (an expanded VM) are emitted fresh instead: splicing would not keep much.

Every mapping the splice edits comes back as a text of its own to read back (:class:`Spliced`): its lines
from its first key to its end, the blank lines after it, and only when the line after those closes the
mapping wherever it stands (``_site_text``). With the rest of the item being its trusted source text, the
item then means the new object (``krm_fn.io.verify``). In that text a pair written with a one-line scalar
has ``null`` in place of the scalar: the emitter reads back every scalar form it writes on its own, so the
mapping's text proves the structure, and the same text — the same matcher pinned on ten thousand VMs — is
read back once (:attr:`SiteRead.key`: the same text in a trusted source means the same value). A nested
mapping the source writes as a flow map (``instancetype: {name: u1.medium}``) is rewritten as a whole pair;
when its mapping has no other change of its own, that pair alone is the site (up to the next key), so the
walk stops after it and the pinned matcher's blanked text, the same on every VM, is read once per batch.
When the item's own mapping is edited its site is the whole item: the spliced text is then read back whole
(:meth:`Spliced.whole_item`), without a skeleton; its locator then searches for the edited keys' lines and the
ends of the edited mappings and pairs instead of walking events (:func:`_searched`: the walk's positions, found
with string searches, or given up to the walk; an answer is recalled for the next text alike but for its
digits, :func:`_recalled`), and the walk, where it runs, leaps over the lines of the
collections that hold no edit (:func:`krm_fn.io.linescan.scan`'s ``leap``). Whether such a splice stands is
then decided from what the search established (:meth:`Spliced._stands_as_searched`) before reading each site's lines.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Generator
from functools import cache, lru_cache
from typing import Any, NamedTuple

from yaml import events as ev

from krm_fn.io.alike import zeroed
from krm_fn.io.emitter import Emitter
from krm_fn.io.linescan import (ALIAS, END, FLOW_MAP, LINE, MAP, OTHER, SCALAR, SEQ, STREAM_END, Event, Unsure,
                                block_end, closed, collection_end, plain_key, scan, scannable)
from krm_fn.io.loader import EventParser, key_text, scalar_value
from krm_fn.io.verify import value_bytes

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


Located = tuple[list[tuple[int, int, str, Any]], list[Site]]


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


def locate(text: str, edits: Edits, entry: bool = False
           ) -> tuple[list[tuple[int, int, str, Any]], list[Site]] | None:
    """Positions in ``text`` for every edit: ``(start, end, kind, payload)``, and the mappings edited
    (:data:`Site`); None if not a block layout.

    For REPLACE/REMOVE the span is the pair's whole lines; for additions, an insertion point at the end
    of the mapping with the column of the mapping (and, in place of an end, a key that puts deeper
    insertions at the same point first).

    The events come from the line scan (:mod:`krm_fn.io.linescan`) when the text is in its subset, else from
    libyaml; the scan gives up at the first line outside it, and the walk then starts over on libyaml's. When the
    root mapping is edited (its site, and so what is read back, is the whole item) the positions are searched for
    (:func:`_searched`), and where that gives up the scan leaps over the lines of a collection without an edit
    after its first line.
    """
    return _located(text, edits, entry)[0]


def _located(text: str, edits: Edits, entry: bool) -> tuple[Located | None, bool]:
    """:func:`locate`'s answer, and whether :func:`_searched` gave it."""
    if scannable(text):
        if edits.direct():  # read back whole: the lines between the edits are searched, not read
            try:
                return _recalled(text, edits, entry), True
            except Unsure:
                pass
        rewritten: list[tuple[dict[str, Any], str, Edits]] = []
        try:
            # the item's own mapping edited: the spliced text is read back whole (Spliced.whole_item), so the
            # scan may leap over collections without an edit (linescan._leap)
            return _walk(text, edits, entry, scan(text, edits.direct()), rewritten), False
        except Unsure:
            for changes, key, sub in rewritten:  # as they were before the walk
                changes[key] = sub
    return _walk(text, edits, entry, _libyaml_events(text), []), False


def _walk(text: str, edits: Edits, entry: bool, pulled: Generator[Event, Any, None],
          rewritten: list[tuple[dict[str, Any], str, Edits]]
          ) -> tuple[list[tuple[int, int, str, Any]], list[Site]] | None:
    """:func:`locate` over the events ``pulled`` (sent a true value after a collection's start: its end next);
    each nested edit it turns into a rewritten pair goes to ``rewritten`` first."""
    get = pulled.__next__
    out: list[tuple[int, int, str, Any]] = []
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
                    out.append((pairs_end, order, ADD, (additions, done.column, node.new)))
                sites.append(Site(text.rfind("\n", 0, done.start) + 1, done.start, pairs_end, order, node,
                                  done.column))
                remaining -= 1
            remaining -= _value_done(frames[-1] if frames else None, end, text, out, sites, len(frames))
    return out, sites


def _searched(text: str, edits: Edits, entry: bool, named: list[tuple[int, Any]] | None = None) -> Located:
    """What :func:`_walk` finds on libyaml's events, for an item whose own mapping is edited (it is read back
    whole), found with string searches instead of events: per edited mapping, its edited keys' lines and its
    end, per edited pair its line and its end. Raises :class:`~krm_fn.io.linescan.Unsure` unless every line it
    reads is in the line scan's subset (:data:`~krm_fn.io.linescan.LINE`) and the lines it searches over are a
    plain block layout: no quoted scalar or flow collection over several lines
    (:func:`~krm_fn.io.linescan.closed`), no document marker. There a line with a mapping's column is one of its
    keys or entries (a block scalar's lines, a plain scalar's, a nested collection's are deeper), so the line
    ``key:`` at that column is the pair's (a source with a key twice was refused by the loader, except where a
    merge key set it first: a text with a merge key is left to the walk; a key written otherwise is not found:
    the walk decides), and a pair's value ends where
    :func:`~krm_fn.io.linescan.collection_end` says (as :func:`~krm_fn.io.linescan._leap`, which the same test
    runs against libyaml). A scalar value must be followed by a line that ends it (no deeper line, comment or
    blank one), a collection's first line must be an entry or a key, a mapping's last line content.
    ``named`` gets where each key it found by its name stands (for :func:`_recalled`)."""
    n = len(text)
    if not closed(text, 0, n) or text.startswith(("---", "...")) or "\n---" in text or "\n..." in text \
            or _MERGE.search(text) is not None:
        raise Unsure
    first = LINE.match(text)
    if first is None or first["key"] is None or first["ind"] or (first["dash"] is not None) != entry:
        raise Unsure
    out: list[tuple[int, int, str, Any]] = []
    sites: list[Site] = []
    _search_mapping(text, edits, first, collection_end(text, 1, 2, False) if entry else n, 0, out, sites, named)
    return out, sites


# a merge key (``<<:``, plain): after it the loader takes an explicit key again that the merge set (go-yaml v2's
# override), so a key may stand twice in the text (``<<`` of a heredoc in a block scalar has no colon after it)
_MERGE = re.compile(r"<<[ \t]*:")


# --- the search's answers, recalled for texts alike but for their digits ----------------------------------

class _Recipe(NamedTuple):
    """What :func:`_searched` answered on one text, with each edited mapping named by its path of keys from the
    item's (the :class:`Edits` are another item's): what it takes to give the same answer for another item."""

    paths: tuple[tuple[Any, ...], ...]  # the edited mappings'
    spans: tuple[tuple[int, int, str, int, Any, int], ...]  # (start, end, kind, its mapping's path, key, column)
    sites: tuple[tuple[int, int, int, int, int, int], ...]  # (line_start, start, end, order, path, column)
    named: tuple[tuple[int, Any], ...]  # where each key found by its name stands


# the key under which an answer is kept: every ASCII digit read as 0 (a fleet's VMs differ mostly in numbers)
_RECIPES: dict[tuple[bytes, bool, tuple[Any, ...]], _Recipe] = {}
_RECIPES_MAX = 256


def _recalled(text: str, edits: Edits, entry: bool) -> Located:
    """:func:`_searched`'s answer, recalled from an earlier text that is the same but for its digits (the same
    length), with edits of the same shape, when every key it found by name stands at the same place here.

    That is its answer here too: the search reads characters only through classes that hold every digit or none
    (the line scan's :data:`~krm_fn.io.linescan.LINE` and :func:`~krm_fn.io.linescan.closed`, indentation,
    ``- ``, ``#``, the document markers, a merge key), so it takes every branch it took there, except where it
    compares a key to an edited key: the first line's key, and ``str.find`` of an edited key's line. Each such key
    found stands here at the same place; none stands earlier on a line of the same mapping, which would be the same
    key twice there (the loader refused the source). ``tests/unit/io/test_linescan.py`` runs the recalled
    answer against the search on random layouts whose digits are drawn again."""
    key = (zeroed(text), entry, _shape(edits))
    recipe = _RECIPES.get(key)
    if recipe is not None and all(text.startswith(name, at) and text[at + len(name)] == ":"
                                  for at, name in recipe.named):
        return _cooked(recipe, edits)
    named: list[tuple[int, Any]] = []
    located = _searched(text, edits, entry, named)
    if len(_RECIPES) >= _RECIPES_MAX:  # many shapes: keep the latest ones
        _RECIPES.clear()
    _RECIPES[key] = _recipe(located, edits, named)
    return located


def _shape(edits: Edits) -> tuple[Any, ...]:
    """The edited keys in order and what each change is, mapping by mapping: how many, then each key and its
    change (None: a nested mapping's, whose own come later, the last first)."""
    out: list[Any] = []
    stack = [edits]
    while stack:
        changes = stack.pop().changes
        out.append(len(changes))
        for key, change in changes.items():
            out.append(key)
            if type(change) is str:
                out.append(change)
            else:
                out.append(None)
                stack.append(change)
    return tuple(out)


def _recipe(located: Located, edits: Edits, named: list[tuple[int, Any]]) -> _Recipe:
    paths: list[tuple[Any, ...]] = []
    index: dict[int, int] = {}  # id(Edits) and id(Edits.new) -> index of its path
    stack: list[tuple[Edits, tuple[Any, ...]]] = [(edits, ())]
    while stack:
        node, path = stack.pop()
        index[id(node)] = index[id(node.new)] = len(paths)
        paths.append(path)
        stack += [(sub, path + (key,)) for key, sub in node.changes.items() if isinstance(sub, Edits)]
    spans, sites = located
    return _Recipe(tuple(paths),
                   tuple((start, end, kind, index[id(mapping)], None if kind == ADD else next(iter(pairs)), column)
                         for start, end, kind, (pairs, column, mapping) in spans),
                   tuple((site.line_start, site.start, site.end, site.order, index[id(site.node)], site.column)
                         for site in sites),
                   tuple(named))


def _cooked(recipe: _Recipe, edits: Edits) -> Located:
    """The answer ``recipe`` keeps, for ``edits`` (of the same shape)."""
    nodes = []
    for path in recipe.paths:
        node = edits
        for key in path:
            node = node.changes[key]
        nodes.append(node)
    spans: list[tuple[int, int, str, Any]] = []
    for start, end, kind, at, key, column in recipe.spans:
        node = nodes[at]
        new = node.new
        pairs = {k: new[k] for k, v in node.changes.items() if v == ADD} if key is None else {key: new.get(key)}
        spans.append((start, end, kind, (pairs, column, new)))
    return spans, [Site(line_start, start, end, order, nodes[at], column)
                   for line_start, start, end, order, at, column in recipe.sites]


def _search_mapping(text: str, node: Edits, first: re.Match[str], end: int, depth: int,
                    out: list[tuple[int, int, str, Any]], sites: list[Site], named: list[tuple[int, Any]] | None
                    ) -> None:
    """:func:`_searched` for the block mapping whose first line is ``first`` (a key, after the ``- `` of the
    item's entry for the root) and whose lines end at ``end``, ``depth`` mappings deep."""
    line_start = first.start("ind")
    column = len(first["ind"]) + 2 * (first["dash"] is not None)
    start = line_start + column
    changes = node.changes
    additions = {}
    found: list[tuple[int, str, Any, re.Match[str] | None]] = []
    after = first.end() - 1  # the line break before its second line
    pad = "\n" + " " * column
    first_key = first["key"]
    for key, change in changes.items():
        if change == ADD:
            additions[key] = node.new[key]
            continue
        if change == FLOW or not plain_key(key):
            raise Unsure  # FLOW: a flow map the walk rewrote
        if key == first_key:
            found.append((start, key, change, first))
            continue
        at = text.find(pad + key + ":", after, end)
        if at < 0:
            raise Unsure  # written otherwise (quoted...)
        found.append((at + 1 + column, key, change, None))
    direct = bool(additions)  # changes of its own
    found.sort()  # by where they stand (no two alike)
    if named is not None:
        named += [(at, key) for at, key, _, _ in found]
    for at, key, change, line in found:
        if isinstance(change, Edits):
            if text[at + len(key) + 1] != "\n":
                raise Unsure  # a value on the key's line (a flow map is rewritten as a whole pair: the walk's FLOW)
            below = _first_below(text, at + len(key) + 2)
            if below is None or below["key"] is None or below["dash"] is not None or len(below["ind"]) <= column:
                raise Unsure
            _search_mapping(text, change, below, collection_end(text, below.start("ind"), column + 1, False),
                            depth + 1, out, sites, named)
            continue
        direct = True
        if line is None:
            line = LINE.match(text, at - column)
            if line is None or line["key"] != key:
                raise Unsure
        out.append((at, _value_end(text, line, column), change, ({key: node.new.get(key)}, column, node.new)))
    if not direct:
        return
    last = text.rfind("\n", 0, end - 1) + 1  # the last line: its end is the last pair's (a scalar's or not)
    body = text[last:end].lstrip(" ")
    if end <= start or not body.strip() or body[0] == "#":
        raise Unsure
    order = end - depth - 1
    if additions:
        out.append((end, order, ADD, (additions, column, node.new)))
    sites.append(Site(line_start, start, end, order, node, column))


_BELOW = re.compile(r"\n*")
_INDENT = re.compile(" *")
_LINE_BELOW = re.compile(r"\n*(?:%s)" % LINE.pattern)


def _first_below(text: str, pos: int) -> re.Match[str] | None:
    """The first line from ``pos`` that is not empty, when in the line scan's subset (it starts at ``start("ind")``)."""
    return _LINE_BELOW.match(text, pos)


def _value_end(text: str, line: re.Match[str], column: int) -> int:
    """Where the value of the pair on ``line`` (its key at ``column``) ends as :func:`_line_end` of its last
    event's end gives it: the line's end for a scalar on it (the next line must end it), the start of the line
    that ends a block scalar or a block collection."""
    line_end = line.end()
    if line["val"] is not None or line["flow"] is not None:
        below = _BELOW.match(text, line_end).end()  # type: ignore[union-attr]
        rest = text[below:below + column + 1].lstrip(" ")
        if below < len(text) and (not rest or rest[0] in " #\n"):
            raise Unsure  # a deeper line (it could go on), a comment or blanks
        return line_end
    if line["blk"] is not None:
        end = block_end(text, line_end, column)
        if end < 0 or text.startswith("#", _INDENT.match(text, end).end()):  # type: ignore[union-attr]
            raise Unsure
        return end
    below = _first_below(text, line_end)
    if below is None or below["key"] is None and below["dash"] is None:
        raise Unsure  # not a block collection's first line
    indent = len(below["ind"])
    if indent < column or indent == column and below["dash"] is None:
        raise Unsure  # a null value
    return collection_end(text, line_end, column + (indent > column), indent == column)


_KINDS = {ev.ScalarEvent: SCALAR, ev.AliasEvent: ALIAS, ev.SequenceStartEvent: SEQ, ev.MappingEndEvent: END,
          ev.SequenceEndEvent: END, ev.StreamEndEvent: STREAM_END}


def _libyaml_events(text: str) -> Generator[Event, Any, None]:
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


def _value_done(frame: _Frame | None, end: int, text: str, out: list[tuple[int, int, str, Any]],
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
        out.append((key_start, end, edit, ({key: node.new.get(key)}, column, node.new)))
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


class SiteRead(NamedTuple):
    """An edited mapping to read back: :meth:`entry` gives it as a ``- `` entry with the value it must have (or
    None: it cannot be read on its own). ``key`` is its text up to what closes it, with its column, when that
    determines the value too: every pair we wrote there is blanked (its value is ``null`` whatever it is), so
    the rest is source text, and the same text in the same place of a trusted source means the same value.
    None otherwise (a value we wrote could be written wrongly as another value's text). ``pair``: the site is
    that FLOW pair of ``node``'s mapping (read as a one-pair mapping)."""

    key: tuple[int, str, str | None] | None
    skeleton: str
    lo: int
    hi: int
    column: int
    node: Edits
    blanked: frozenset[tuple[int, str]]
    pair: str | None = None

    def readable(self) -> bool:
        """Whether :meth:`entry` gives a text (without making its value)."""
        return _site_lines(self.skeleton, self.lo, self.hi, self.column, self.pair is not None) is not None

    def entry(self) -> tuple[str, dict[str, Any]] | None:
        entry = _site_text(self.skeleton, self.lo, self.hi, self.column, self.pair is not None)
        if entry is None:
            return None
        value = _blanked(self.node, self.blanked)
        return entry, value if self.pair is None else {self.pair: value[self.pair]}


class Spliced:
    """A spliced text; :meth:`reads` gives what must be read back to trust it (the rest is the original's), or
    :meth:`whole_item` says it is all read back."""

    __slots__ = ("text", "_source", "_edited", "_sites", "_e", "_root", "_by_search")

    def __init__(self, text: str, source: str = "", edited: list[_Edit] | None = None, sites: list[Site] | None = None,
                 e: Emitter | None = None, root: Edits | None = None, by_search: bool = False) -> None:
        self.text = text
        self._source = source
        self._edited = edited or []
        self._sites = sites or []
        self._e = e
        self._root = root  # the item's own edits (its site, if any, is the whole item)
        self._by_search = by_search  # the sites are :func:`_searched`'s

    def whole_item(self) -> bool | None:
        """None unless the item's root mapping is an edited one (its site is the whole item: the item is read back
        whole instead, which proves every site in it); else whether the splice stands: every edited mapping but
        a FLOW pair could be read back on its own, as :meth:`SiteRead.readable` says on the skeleton. Decided
        on the spliced text itself: a blanked pair has the lines of the pair written (one ``key: form`` line
        each, the same indentation and first character; :func:`_blank` makes no other), so the checks of
        :func:`_site_lines`, which look only at line starts, blank lines and line ends, read the same there.
        Where :func:`_searched` found the sites, :meth:`_stands_as_searched` says so from what the search
        established, without reading each site's lines (else, or when it cannot tell, :meth:`_sites_stand`)."""
        root = self._root
        if root is None or not any(site.node is root and site.pair is None for site in self._sites):
            return None
        return self._by_search and self._stands_as_searched() or self._sites_stand()

    def _sites_stand(self) -> bool:
        """Whether :func:`_site_lines` passes every site but a FLOW pair on the spliced text."""
        text = self.text
        spans = self._spans([len(edit.replacement) for edit in self._edited])
        return all(site.pair is not None or _site_lines(text, lo, hi, site.column, False) is not None
                   for site, (lo, hi) in zip(self._sites, spans, strict=True))

    def _stands_as_searched(self) -> bool:
        """True when :meth:`_sites_stand` is, for sites :func:`_searched` found (False: it cannot tell).

        What the search established makes all but two of :func:`_site_lines`' checks pass on every site. Each
        site's lines (a mapping at ``column``) end where :func:`~krm_fn.io.linescan.collection_end` found the
        first line that is not blank or a comment and is indented no deeper than its parent's keys (the item's
        end for the root), at a line's start; what follows there in the spliced text is that line, or what an
        enclosing mapping's edit wrote there (its keys' lines, less indented; one removed leaves its value's
        end, where the search found a line no deeper than that key's or the end), so the line after the site
        closes it. Inside, a source line indented less than ``column`` would have been read by the loader (the
        text is the item's source; the search ruled out quoted scalars and flow collections over several
        lines) as ending the mapping or as invalid, so it is a comment: no comment line after the first may
        stand left of the deepest site's column. What is spliced in is each edit's text, inside its own
        mapping's site and no deeper one: its lines after the first must be blank or indented to that
        mapping's column (and hold no tab). ``tests/unit/io/test_linescan.py`` runs this against
        :meth:`_sites_stand` on random and noisy layouts."""
        deepest = max([site.column for site in self._sites])
        if deepest and _comment_left_of(self.text, deepest):
            return False
        return all(_written_stands(edit.replacement, edit.column) for edit in self._edited)

    def _spans(self, lengths: list[int]) -> list[tuple[int, int]]:
        """Each site's ``(lo, hi)`` in the text whose edits have the ``lengths`` given (the spliced text, or the
        skeleton)."""
        keys: list[tuple[int, int]] = []
        shifts: list[int] = []  # how far the text after each edit moved
        shift = 0
        for edit, length in zip(self._edited, lengths, strict=True):
            shift += length - (edit.end - edit.start)
            keys.append((edit.start, edit.order))
            shifts.append(shift)
        spans = []
        for line_start, _, end, order, _, _, _ in self._sites:  # Site's fields
            lo = bisect_left(keys, (line_start, line_start))
            hi = bisect_right(keys, (end, order))
            spans.append((line_start + (shifts[lo - 1] if lo else 0), end + (shifts[hi - 1] if hi else 0)))
        return spans

    def reads(self) -> list[SiteRead]:
        """Each edited mapping to read back (written on demand: the skeleton text costs only when verifying)."""
        if not self._sites or self._e is None:
            return []
        e, source = self._e, self._source
        blanked: set[tuple[int, str]] = set()  # (id(Edits.new), key) of the pairs written with null
        shareable = True  # every pair written is blanked
        skel: list[str] = []
        lengths: list[int] = []
        pos = 0
        for start, _, end, replacement, pairs, column, mapping, cut in self._edited:
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
        for site, (lo, hi) in zip(self._sites, self._spans(lengths), strict=True):
            # lines start alike in the text and its skeleton: the closing line is checked on either
            key = (site.column, skeleton_text[lo:_closing(skeleton_text, hi)], site.pair) if shareable else None
            reads.append(SiteRead(key, skeleton_text, lo, hi, site.column, site.node, frozen, site.pair))
        return reads


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


def splice_checked(text: str, old: dict[str, Any], new: dict[str, Any], e: Emitter, edits: Edits | None = None,
                   entry: bool = False) -> Spliced | None:
    """``text`` (the column-0 source of ``old``, or with ``entry`` its ``- `` sequence entry) edited to represent
    ``new``, with what to read back (:meth:`Spliced.reads`); None when it cannot be spliced."""
    if edits is None:
        edits = plan(old, new)
        if edits is None:
            return None
    if not edits.changes:
        return Spliced(text)
    if not new:
        return None
    if "&" in text:  # anchors: a replaced pair could hold an anchor an unchanged alias needs
        return None
    try:
        located, searched = _located(text, edits, entry)
    except Exception:  # malformed or unusual original: emit fresh
        return None
    if located is None:
        return None
    spans, sites = located
    for site in () if searched else sites:  # the search found each first key after spaces (and "- " for an entry)
        if not _entry_prefix(text[site.line_start:site.start]):  # a tag or anything else before the first key:
            return None                                          # its column is not its keys' column
    edited: list[_Edit] = []
    for start, order, kind, payload in spans:
        end = start if kind == ADD else order
        pairs, column, mapping = payload
        replacement = "" if kind == REMOVE else (_pairs_text if searched else _emit_pairs)(e, pairs, column)
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
        edited.append(_Edit(start, order, end, replacement, None if kind == REMOVE else pairs, column, mapping, cut))
    edited.sort(key=lambda s: (s.start, s.order))
    out: list[str] = []
    pos = 0
    for edit in edited:
        if edit.start < pos:
            return None
        out.append(text[pos:edit.start])
        out.append(edit.replacement)
        pos = edit.end
    out.append(text[pos:])
    return Spliced("".join(out), text, edited, sites, e, edits, searched)


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


def _blanked(node: Edits, blanked: frozenset[tuple[int, str]]) -> dict[str, Any]:
    """What the skeleton of ``node``'s mapping must read as: its new value, null for the pairs in ``blanked``
    (for a mapping value: null for each of its values)."""
    if not blanked:
        return node.new
    out = {}
    for key, value in node.new.items():
        change = node.changes.get(key)
        if isinstance(change, Edits):
            value = _blanked(change, blanked)
        elif (id(node.new), key) in blanked:
            value = {k: None for k in value} if type(value) is dict else None
        out[key] = value
    return out


def _entry_prefix(prefix: str) -> bool:
    """Whether ``prefix`` (what stands before a key on its line) is indentation and ``- `` entry indicators."""
    return not prefix.replace("- ", "").strip(" ")


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


def _comment_left_of(text: str, column: int) -> bool:
    """Whether a line after the first has ``#`` as its first character but spaces, indented less than ``column``
    (found from each ``#``: a text holds few)."""
    at = text.find("#")
    while at >= 0:
        line_start = text.rfind("\n", 0, at) + 1
        if 0 < line_start and at - line_start < column and not text[line_start:at].strip(" "):
            return True
        at = text.find("#", at + 1)
    return False


@lru_cache(maxsize=4096)  # a fleet's splices write the same texts (patch._pairs_text)
def _written_stands(written: str, column: int) -> bool:
    """Whether ``written``'s lines after the first are blank or indented to ``column``, without a tab."""
    return "\t" not in written and _shallow(column).search(written, 0, len(written) - 1) is None


def _emit_pairs(e: Emitter, pairs: dict[str, Any], column: int) -> str:
    before = len(e.out)
    e.mapping(pairs, " " * column)
    text = "".join(e.out[before:])
    del e.out[before:]
    return text


def _pairs_text(e: Emitter, pairs: dict[str, Any], column: int) -> str:
    """:func:`_emit_pairs`, remembered in ``e.memo`` per value and column when the pairs hold a collection, for an
    item read back whole (an expansion: every VM of a fleet alike writes the same ``cpu``, ``disks``, ``status``
    pairs; pairs of scalars only, such as a pinned revision name, are written as fast as they are looked up). The
    value is known by marshal's bytes (format 2: exact types and key order, no back-references); a value marshal
    does not write is written each time. Every form in a remembered text was owed to ``e`` when it was first
    written (the emitter owes each form once anyway), and each text is read back with its item."""
    if not any(type(v) is dict and v or type(v) is list and v for v in pairs.values()):
        return _emit_pairs(e, pairs, column)
    written = value_bytes(pairs)
    if written is None:  # a type marshal does not write, or too deep
        return _emit_pairs(e, pairs, column)
    key = (written, column)
    memo = e.memo
    text = memo.get(key)
    if text is None:
        text = _emit_pairs(e, pairs, column)
        if len(memo) >= 2_000:  # pairs that do not recur: keep the latest
            memo.clear()
        memo[key] = text
    return text
