"""Each output item's text (:func:`write_items`), proven to mean its item before it is written.

An unchanged item is its source text. A changed item is its source text with the edits spliced in
(:mod:`krm_fn.io.splice`), or freshly emitted where splicing is off (expand mode) or cannot be used. A
generated item is emitted (:mod:`krm_fn.io.emitter`). What is copied or spliced is read back as its proof says
(:mod:`krm_fn.io.verify`); a text that fails is emitted fresh instead, and an emitted form that fails stops the
run (``WriteError``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from krm_fn.io.emitter import Emitter
from krm_fn.io.source import Read, as_document_text, item_as_entry
from krm_fn.io.verify import ReadBacks, check_emitted
from krm_fn.kube.paths import Obj


class Prewritten(NamedTuple):
    """An output item already written as its ``- `` entry (by the process that rendered it, krm_fn/process.py)."""

    text: str


OutItem = Obj | Prewritten  # an output item: an object, or its text when it is written already


def write_items(read: Read, e: Emitter, items: Sequence[OutItem], as_entry: bool, splice: bool) -> list[str]:
    """Each item as a ``- `` entry or as a document, every text proven to mean its item. ``splice``: changed
    items keep their source text where they can."""
    reads = ReadBacks()
    texts = [_item_text(read, e, item, as_entry, reads, i, splice) for i, item in enumerate(items)]
    for i in reads.failures():
        item = items[i]
        assert not isinstance(item, Prewritten), "a written item is not read back"
        texts[i] = fresh(e, item, as_entry)
    check_emitted(e.take_owed())
    return texts


def _item_text(read: Read, e: Emitter, item: OutItem, as_entry: bool, reads: ReadBacks, owner: int,
               splice: bool) -> str:
    """``item``'s text: already written (by the process that rendered it), its source text, or
    :func:`_changed_text`."""
    if isinstance(item, Prewritten):
        return item.text
    source = read.source_text(item, as_entry)
    if source is None:
        original = read.original_of(item)
        text = _changed_text(read, e, item, original, as_entry, reads, owner, splice)
        return _with_head(read, original, text) if read.heads and not as_entry else text
    text, trusted = source
    if not trusted:
        reads.add(text if as_entry else item_as_entry(text), item, owner)
    return _with_head(read, item, text) if read.heads and not as_entry else text


def _with_head(read: Read, original: Any, text: str) -> str:
    """A document's text under the comment lines that were above its original in a stream input."""
    return read.heads.get(id(original), "") + text


def _changed_text(read: Read, e: Emitter, item: Obj, original: Any, as_entry: bool, reads: ReadBacks, owner: int,
                  splice: bool) -> str:
    """A changed or generated item: its ``original``'s text (:meth:`Read.original_of`) with the edits spliced in
    where it has one (what that owes goes to ``reads``), else freshly emitted."""
    if not splice or type(original) is not dict:  # generated, or no mapping before
        return fresh(e, item, as_entry)
    from krm_fn.io.locate import plan  # reads with PyYAML (start-up time: not for new items)
    from krm_fn.io.splice import splice as spliced

    edits = plan(original, item)
    span = read.source.get(id(original)) if edits is not None else None
    if edits is None or span is None:
        return fresh(e, item, as_entry)
    trusted = read.trusted(span)
    entry = read.entry_text(*span) if as_entry else None
    if entry is not None:  # splice the "- " entry as it stands: no re-indenting either way
        done = spliced(entry, original, item, e, edits, entry=True, trusted=trusted)
        if done is not None:
            reads.owe(done.text, item, done.proof, owner)
            return done.text
    doc = as_document_text(read.text, *span)
    done = spliced(doc, original, item, e, edits, trusted=trusted and span[2] == 0 and not as_entry) \
        if doc is not None else None
    if done is None:
        return fresh(e, item, as_entry)
    text = item_as_entry(done.text)
    reads.owe(text, item, done.proof, owner)
    return text if as_entry else done.text


def shared_values(read: Read, items: Sequence[OutItem]) -> frozenset[int]:
    """Ids of top-level mapping values held by several new items (written once, see Emitter.item)."""
    seen: set[int] = set()
    shared: set[int] = set()
    for item in items:
        if id(item) in read.source or type(item) is not dict:
            continue
        for value in item.values():
            if type(value) is dict and value:
                (shared if id(value) in seen else seen).add(id(value))
    return frozenset(shared)


def fresh(e: Emitter, item: Obj, as_entry: bool) -> str:
    if as_entry:
        e.item(item, "  ", first_prefix="- ")
    else:
        e.item(item, "")
    text = e.text()
    e.out.clear()
    return text
