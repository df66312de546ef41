"""How a list was read (:class:`Read`): its text, each item's span in it, and when a span may be copied as it stands.

Items keep their source text. An item the function returns unchanged (the *same object*) is written back from
that text, so kpt sees exactly what it sent: quotes, block styles, flow maps, key order, every annotation. An
item's identity is its ``id()``: :attr:`Read.originals` keeps the objects read alive so that ids stay unique.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from krm_fn.io.subset import hazard
from krm_fn.io.verify import has_directives
from krm_fn.kube.api import ANN_ID, RESOURCE_LIST_API_VERSION
from krm_fn.kube.identity import name_of, object_id
from krm_fn.kube.meta import annotations_of
from krm_fn.kube.paths import Obj

# between an entry's "-" and its first key: a space, then only comments on lines indented to the content
_HEAD_GAP = re.compile(r" (?:[ \t]*#[^\n]*\n  )*")


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a stream item came from (side data: the item itself is not annotated): its input's name, the
    index of its document in that input, the offsets of the input and of the document in the text, and
    whether the input is a file (``Source.is_file``)."""

    file: str
    index: int
    part: int
    start: int
    is_file: bool = True

    def line(self, text: str) -> int:
        """The document's line in its own input (1-based)."""
        return text.count("\n", self.part, self.start) + 1


class Unusable(NamedTuple):
    """An input item that cannot be processed (not a mapping, no kind, no name nor generateName, ...): set aside
    at parsing, with its place in the input list and why (``where: problem``; a stream item's ``FILE line N``),
    reported as an error result on it while the others are processed (:func:`set_aside`)."""

    position: int
    item: Any
    message: str
    origin: Origin | None = None  # a stream item's input


class Read:
    """How a list was read: its text and each item's span in it (source text written back as it stands), the
    items as read (their ids key the spans), each stream item's origin, and the ResourceList's other keys."""

    __slots__ = ("text", "api_version", "extra", "source", "originals", "origins", "heads", "unusable",
                 "_by_identity", "_directives")

    def __init__(self, text: str, api_version: str = RESOURCE_LIST_API_VERSION, extra: Obj | None = None) -> None:
        self.text = text
        self.api_version = api_version
        self.extra: Obj = extra if extra is not None else {}  # other top-level keys, passed through
        self.source: dict[int, tuple[int, int, int]] = {}  # id(item) -> (start, end, column) of its node in text
        self.originals: list[Any] = []  # the objects `source` refers to, kept alive so their ids stay unique
        self.origins: dict[int, Origin] = {}  # id(item) -> where it came from (the stream modes' inputs)
        self.heads: dict[int, str] = {}  # id(item) -> the comment lines above its document (stream inputs)
        self.unusable: list[Unusable] = []  # items set aside at parsing, in input order
        self._by_identity: dict[tuple[str, ...], Any] | None = None
        self._directives: bool | None = None

    def original_of(self, obj: Any) -> Any:
        """The input item a changed item replaces (same kpt id, else same object id)."""
        by_identity = self._by_identity if self._by_identity is not None else self.index_originals()
        for key in identities(obj):
            found = by_identity.get(key)
            if found is not None:
                return found
        return None

    def index_originals(self) -> dict[tuple[str, ...], Any]:
        """Build the lookup :meth:`original_of` uses (once: before writing is split between processes)."""
        if self._by_identity is None:
            self._by_identity = {}
            for o in self.originals:
                if id(o) in self.source:
                    for key in identities(o):
                        self._by_identity.setdefault(key, o)
        return self._by_identity

    def source_text(self, obj: Any, as_entry: bool) -> tuple[str, bool] | None:
        """An item's source text, as a ``- `` entry or a document at column 0, and whether that text can be
        trusted to mean the item as it stands (else it must be read back); None for an item without one."""
        span = self.source.get(id(obj))
        if span is None:
            return None
        trusted = self.trusted(span)
        if as_entry:
            entry = self.entry_text(*span)
            if entry is not None:
                return entry, trusted
        doc = as_document_text(self.text, *span)
        if doc is None:
            return None
        if as_entry:
            return item_as_entry(doc), False
        return doc, trusted and span[2] == 0

    def trusted(self, span: tuple[int, int, int]) -> bool:
        """Whether the source text at ``span``, copied as it stands (not shifted), provably means what it meant
        in the input: it ends with its own line break, holds no alias or other line break (``subset.hazard``),
        and the input has no directive."""
        start, end, _ = span
        text = self.text
        if self._directives is None:
            self._directives = has_directives(text)
        return end > start and text[end - 1] == "\n" and not self._directives and not hazard(text, start, end)

    def entry_text(self, start: int, end: int, column: int) -> str | None:
        """The item's text exactly as it stands in the input, when it is a ``- `` entry at column 0."""
        text = self.text
        if column == 2:
            # the entry's "- " at column 0, possibly followed by head comments before the first key
            dash = text.rfind("\n-", 0, start) + 1
            if text[dash:dash + 1] == "-" and _HEAD_GAP.fullmatch(text, dash + 1, start):
                chunk = text[dash:end]
                return chunk if chunk.endswith("\n") else chunk + "\n"
        return None


def identities(obj: Any) -> list[tuple[str, ...]]:
    """The keys an item is known by: kpt's id annotation when it has one, then its object id."""
    if not isinstance(obj, dict):
        return []
    ann = annotations_of(obj)
    kpt_id = ann.get(ANN_ID) or ann.get("config.k8s.io/id")
    # a nameless object (generateName) is no one object: several may share its id, so it is not matched by it
    own: list[tuple[str, ...]] = [object_id(obj)] if name_of(obj) else []
    return [("id", str(kpt_id)), *own] if kpt_id else own


def head_comment(text: str, start: int, end: int) -> str:
    """The comment lines of ``text[start:end]``, the gap between a document's root node and the one before it
    (or its input's start), from the first comment line to the last, without ``---``, ``...`` and directive
    lines: what a stream output writes above the document again (comments at the top of a file are kept)."""
    gap = text[start:end]
    if "#" not in gap:
        return ""
    lines: list[str] = []
    for line in gap.split("\n")[:-1]:
        if line.startswith(("---", "...", "%")):
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            lines = []  # not a comment (a tag on its own line): only the comments after it are the head
            continue
        lines.append(line)
    marks = [i for i, line in enumerate(lines) if line.strip()]
    return "\n".join(lines[marks[0]:marks[-1] + 1]) + "\n" if marks else ""


def as_document_text(text: str, start: int, end: int, column: int) -> str | None:
    """The node at text[start:end] (starting at ``column``) shifted to column 0, or None if it cannot be."""
    chunk = text[start:end]
    if not chunk.endswith("\n"):
        chunk += "\n"
    if column == 0:
        return chunk
    pad = " " * column
    first, sep, rest = chunk.partition("\n")
    lines = [first]
    for line in rest.split("\n")[:-1]:
        if line.startswith(pad):
            lines.append(line[column:])
        elif not line.strip():
            lines.append("")
        elif line.lstrip().startswith("#"):
            continue
        else:
            return None
    return "\n".join(lines) + "\n"


def item_as_entry(src: str) -> str:
    """A column-0 document text as a ``- `` sequence entry."""
    if "\n" not in src[:-1]:
        return "- " + src
    first, rest = src.split("\n", 1)
    body = "\n".join(("  " + line) if line else "" for line in rest.split("\n")[:-1])
    return f"- {first}\n{body}\n"
