"""ResourceList and plain YAML stream I/O (kpt SDK ``resourcelist.go``; kustomize ``kio``).

Items keep their source text: an item the function returns unchanged (the *same object*) is written
back from that text, so kpt sees exactly what it sent (quotes, block styles, flow maps, key order,
every annotation). Only items we changed or generated go through :mod:`krm_fn.io.emitter`. Comments
inside a passed-through item are kept; comments we drop on changed items kpt restores from its ids.

No text is written before it is proven to mean its item (:mod:`krm_fn.io.verify`): source text copied where
the copy provably reads the same, else read back; splices read back where they edited; emitted forms read
back once each. Line breaks are LF in and out (:func:`decode`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from krm_fn.errors import InputError
from krm_fn.io.document import Document
from krm_fn.io.emitter import Emitter
from krm_fn.io.fastload import load_plain, load_resource_list
from krm_fn.io.inputs import Joined, Skipped, Source, keep_whole_lines, read_documents, without_document_boms
from krm_fn.io.split import write_parts
from krm_fn.io.verify import ReadBacks, check_emitted, has_directives, hazard
from krm_fn.kube.api import ANN_ID, INSTANCETYPE_GROUP, RESOURCE_LIST_API_VERSION, RESOURCE_LIST_KIND, TYPE_KINDS
from krm_fn.kube.identity import group_of, name_of, object_id
from krm_fn.kube.meta import annotations_of
from krm_fn.kube.paths import Obj

if TYPE_CHECKING:  # patch reads with PyYAML: imported when an item is changed (start-up time)
    from krm_fn.io.patch import SiteRead, Spliced

# between an entry's "-" and its first key: a space, then only comments on lines indented to the content
_HEAD_GAP = re.compile(r" (?:[ \t]*#[^\n]*\n  )*")


class Prewritten(NamedTuple):
    """An output item already written as its ``- `` entry (by the process that rendered it, krm_fn/process.py)."""

    text: str


OutItem = Obj | Prewritten  # an output item: an object, or its text when it is written already


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


@dataclass(slots=True)
class ResourceList:
    """The kpt SDK's ResourceList: items, functionConfig, results. How the list was read (its text, each item's
    place in it, what else it held) stays in this module (``_read``)."""

    items: list[Obj]
    function_config: Obj | None = None
    results: list[Obj] = field(default_factory=list)
    _read: _Read = field(default_factory=lambda: _Read(""), repr=False, compare=False)


def origin_of(rl: ResourceList, item: Obj) -> Origin | None:
    """Where a stream item came from (:func:`parse_sources`); None for an item that was not read."""
    return rl._read.origins.get(id(item))


def set_aside(rl: ResourceList) -> list[Unusable]:
    """The input items that could not be processed, in input order (not among ``rl.items``)."""
    return rl._read.unusable


def put_aside(rl: ResourceList, problems: dict[int, str]) -> None:
    """Set aside the items of ``rl.items`` at the indexes ``problems`` names, each with its message (a problem
    found after parsing; "" when a result says it already)."""
    if not problems:
        return
    read = rl._read
    taken = {u.position for u in read.unusable}
    places = [p for p in range(len(rl.items) + len(taken)) if p not in taken]  # each item's place in the input
    for i in problems:
        item = rl.items[i]
        origin = read.origins.get(id(item))
        read.unusable.append(Unusable(places[i], item, problems[i], origin))
    read.unusable.sort(key=lambda u: u.position)
    rl.items = [item for i, item in enumerate(rl.items) if i not in problems]


def with_set_aside(rl: ResourceList, items: Sequence[OutItem]) -> list[OutItem]:
    """``items`` (the processed items in input order, then generated ones) with the items set aside put back
    where they were in the input, unchanged: KRM mode hands every item back (kpt would delete a missing one)."""
    out = list(items)
    for unusable in rl._read.unusable:
        out.insert(min(unusable.position, len(out)), unusable.item)
    return out


def line_of(rl: ResourceList, origin: Origin) -> int:
    """The line of ``origin``'s document in its own input (1-based)."""
    return origin.line(rl._read.text)


def lines_of(rl: ResourceList, origins: Iterable[Origin]) -> dict[Origin, int]:
    """:func:`line_of` for many origins, each input's text read once (in order of the documents)."""
    text = rl._read.text
    out: dict[Origin, int] = {}
    part, pos, line = -1, 0, 1
    for origin in sorted(set(origins), key=lambda o: (o.part, o.start)):
        if origin.part != part:
            part, pos, line = origin.part, origin.part, 1
        line += text.count("\n", pos, origin.start)
        pos = origin.start
        out[origin] = line
    return out


class _Read:
    """How a list was read: its text and each item's span in it (source text written back as it stands), the
    items as read (their ids key the spans), each stream item's origin, and the ResourceList's other keys."""

    __slots__ = ("text", "api_version", "extra", "source", "originals", "origins", "unusable", "_by_identity",
                 "_directives")

    def __init__(self, text: str, api_version: str = RESOURCE_LIST_API_VERSION, extra: Obj | None = None) -> None:
        self.text = text
        self.api_version = api_version
        self.extra: Obj = extra if extra is not None else {}  # other top-level keys, passed through
        self.source: dict[int, tuple[int, int, int]] = {}  # id(item) -> (start, end, column) of its node in text
        self.originals: list[Any] = []  # the objects `source` refers to, kept alive so their ids stay unique
        self.origins: dict[int, Origin] = {}  # id(item) -> where it came from (the stream modes' inputs)
        self.unusable: list[Unusable] = []  # items set aside at parsing, in input order
        self._by_identity: dict[tuple[str, ...], Any] | None = None
        self._directives: bool | None = None

    def original_of(self, obj: Any) -> Any:
        """The input item a changed item replaces (same kpt id, else same object id)."""
        by_identity = self._by_identity if self._by_identity is not None else self.index_originals()
        for key in _identities(obj):
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
                    for key in _identities(o):
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
            entry = self._entry_text(*span)
            if entry is not None:
                return entry, trusted
        doc = _as_document_text(self.text, *span)
        if doc is None:
            return None
        if as_entry:
            return _item_as_entry(doc), False
        return doc, trusted and span[2] == 0

    def trusted(self, span: tuple[int, int, int]) -> bool:
        """Whether the source text at ``span``, copied as it stands (not shifted), provably means what it meant
        in the input: it ends with its own line break, holds no alias or other line break (``verify.hazard``),
        and the input has no directive."""
        start, end, _ = span
        text = self.text
        if self._directives is None:
            self._directives = has_directives(text)
        return end > start and text[end - 1] == "\n" and not self._directives and not hazard(text, start, end)

    def changed_text(self, e: Emitter, item: Obj, as_entry: bool, reads: ReadBacks, owner: int) -> str:
        """A changed or generated item: its original's text with the edits spliced in where it has one (the
        read-backs that proves go to ``reads``), else freshly emitted."""
        original = self.original_of(item)
        if type(original) is not dict:  # generated, or no mapping before
            return _fresh(e, item, as_entry)
        from krm_fn.io.patch import plan, splice_checked  # reads with PyYAML (start-up time: not for new items)

        edits = plan(original, item)
        span = self.source.get(id(original)) if edits is not None else None
        if span is None:
            return _fresh(e, item, as_entry)
        assert edits is not None
        trusted = self.trusted(span)
        entry = self._entry_text(*span) if as_entry else None
        if entry is not None:  # splice the "- " entry as it stands: no re-indenting either way
            done = splice_checked(entry, original, item, e, edits, entry=True)
            spliced = _owe(done, done.text, trusted, as_entry, item, reads, owner) if done is not None else None
            if spliced is not None:
                return spliced
        doc = _as_document_text(self.text, *span)
        done = splice_checked(doc, original, item, e, edits) if doc is not None else None
        if done is not None:
            text = _item_as_entry(done.text) if as_entry else done.text
            spliced = _owe(done, text, trusted and span[2] == 0 and not as_entry, as_entry, item, reads, owner)
            if spliced is not None:
                return spliced
        return _fresh(e, item, as_entry)

    def _entry_text(self, start: int, end: int, column: int) -> str | None:
        """The item's text exactly as it stands in the input, when it is a ``- `` entry at column 0."""
        text = self.text
        if column == 2:
            # the entry's "- " at column 0, possibly followed by head comments before the first key
            dash = text.rfind("\n-", 0, start) + 1
            if text[dash:dash + 1] == "-" and _HEAD_GAP.fullmatch(text, dash + 1, start):
                chunk = text[dash:end]
                return chunk if chunk.endswith("\n") else chunk + "\n"
        return None


# --- reading -------------------------------------------------------------------------------------

def decode(data: bytes) -> str:
    """Input bytes as text: UTF-8, without a leading BOM, line breaks normalised to LF.

    YAML reads CRLF and a lone CR as line breaks and normalises them to LF inside scalars, so the meaning
    is unchanged (``tests/unit/io/test_verify.py`` checks the loader on both texts), and everything after —
    the line-based splicing, the output — deals with LF only: the output uses LF throughout."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"input is not valid UTF-8 (byte {exc.start}: {data[exc.start:exc.start + 1]!r})") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text[1:] if text.startswith("\ufeff") else text


def _identities(obj: Any) -> list[tuple[str, ...]]:
    """The keys an item is known by: kpt's id annotation when it has one, then its object id."""
    if not isinstance(obj, dict):
        return []
    ann = annotations_of(obj)
    kpt_id = ann.get(ANN_ID) or ann.get("config.k8s.io/id")
    # a nameless object (generateName) is no one object: several may share its id, so it is not matched by it
    own: list[tuple[str, ...]] = [object_id(obj)] if name_of(obj) else []
    return [("id", str(kpt_id)), *own] if kpt_id else own


def _as_document_text(text: str, start: int, end: int, column: int) -> str | None:
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


def parse_resource_list(text: str, fast: bool = True) -> ResourceList:
    """Parse a ResourceList (any apiVersion of kind ResourceList; missing items = []). ``fast``: let
    :mod:`krm_fn.io.fastload` read what it can (off where memory is capped: see cli.py)."""
    text = without_document_boms(text)
    lane = (load_resource_list(text) or _without_items(text)) if fast else None
    docs, from_json = ([lane], False) if lane is not None else read_documents(text, track="items")
    keep_source = not from_json  # JSON items are written fresh
    docs = keep_whole_lines(text, docs, "items") if keep_source else docs
    docs = [d for d in docs if d.value is not None]
    if not docs:
        raise InputError("empty input: expected a ResourceList")
    if len(docs) > 1:
        raise InputError(f"expected one ResourceList document, got {len(docs)} documents")
    root = docs[0].value
    return _resource_list_from(root, text, docs[0] if keep_source else None)


def _without_items(text: str) -> Document | None:
    """A short ResourceList without items (kpt's input to a generator: ``items: []``) read by the yaml-rs lane
    (:func:`krm_fn.io.fastload.load_plain`): start-up without PyYAML. Items have source spans to keep: those
    are the entry lane's or the loader's."""
    if len(text) > _PLAIN_MAX:
        return None
    value = load_plain(text)
    if type(value) is not dict or value.get("items", []) != []:
        return None
    return Document(value, 0, len(text), 0)


_PLAIN_MAX = 1 << 16  # load_plain's scan is slow per character: for short texts only


def is_resource_list(value: Any) -> bool:
    return isinstance(value, dict) and value.get("kind") == RESOURCE_LIST_KIND


def _resource_list_from(root: Any, text: str, doc: Document | None) -> ResourceList:
    if not is_resource_list(root):
        kind = root.get("kind") if isinstance(root, dict) else type(root).__name__
        raise InputError(f"expected kind ResourceList on stdin, got {kind!r}")
    items = root.get("items")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise InputError(f"ResourceList.items must be a list, got {type(items).__name__}")
    unusable = [Unusable(i, item, problem) for i, item in enumerate(items)
                if (problem := _item_problem(item, f"items[{i}]", named=not _admitted_later(item))) is not None]
    if unusable:
        aside = {u.position for u in unusable}
        items = [item for i, item in enumerate(items) if i not in aside]
    fn_config = root.get("functionConfig")
    if fn_config is not None and not isinstance(fn_config, dict):
        raise InputError("ResourceList.functionConfig must be a mapping")
    results = root.get("results") or []
    if not isinstance(results, list):
        raise InputError("ResourceList.results must be a list")
    extra = {k: v for k, v in root.items() if k not in ("apiVersion", "kind", "items", "functionConfig", "results")}
    read = _Read(text if doc is not None else "", str(root.get("apiVersion") or RESOURCE_LIST_API_VERSION), extra)
    read.unusable = unusable
    if doc is not None:
        read.originals = [*items, *(u.item for u in unusable)]
        for item in read.originals:
            span = doc.spans.get(id(item))
            if span is not None:
                read.source[id(item)] = span
    return ResourceList(items, fn_config, results, read)


def _admitted_later(item: Any) -> bool:
    """An instancetype/preference item: its metadata is the admission check's to judge (a result on the item, in
    the API server's words, ``krm_fn.render.admission``), so a bad name does not stop the run."""
    return isinstance(item, dict) and item.get("kind") in TYPE_KINDS \
        and group_of(item.get("apiVersion")) == INSTANCETYPE_GROUP


def _item_problem(item: Any, where: str, place: Callable[[], str] | None = None,
                  named: bool = True) -> str | None:
    """Why an item cannot be processed as a Kubernetes object (a flat list of checks), or None; ``place()``
    (``FILE line N``, worked out only for a message) starts the message when given. ``named``: it must have a
    ``metadata.name`` or a ``metadata.generateName`` (the API server makes the name from it on create)."""
    def at(what: str) -> str:
        return ": ".join(p for p in (place() if place else "", what) if p)

    if not isinstance(item, dict):
        return f"{at(where) or 'the document'} must be a mapping (a Kubernetes object), got {type(item).__name__}"
    missing = [k for k in ("apiVersion", "kind") if not isinstance(item.get(k), str) or not item.get(k)]
    md = item.get("metadata")
    if named and not any(isinstance(md, dict) and isinstance(md.get(k), str) and md.get(k)
                         for k in ("name", "generateName")):
        missing.append("metadata.name (or metadata.generateName)")
    if missing:
        name = md.get("name") if isinstance(md, dict) else None
        what = ": ".join(p for p in (where, f"{item.get('kind') or 'object'} {name!r}") if p) if name else where
        return f"{at(what)}: missing or empty {', '.join(missing)}"
    if isinstance(md, dict) and md.get("annotations") is not None and not isinstance(md["annotations"], dict):
        return f"{at(where)}: metadata.annotations must be a mapping"
    return None


def _unwrapped(value: Any, place: Callable[[], str]) -> list[Any] | str | None:
    """The items of a ``List`` or ResourceList document, why they cannot be read (its ``items`` is not a list),
    or None for any other document."""
    if not (is_resource_list(value) or (isinstance(value, dict) and value.get("kind") == "List"
                                        and value.get("apiVersion") == "v1")):
        return None
    inner = value.get("items") or []
    return inner if isinstance(inner, list) else f"{place()}: {value.get('kind')}.items must be a list"


def parse_sources(sources: Sequence[Source], skip: Skipped, fast: bool = True) -> ResourceList:
    """The stream modes' inputs as one ResourceList: each input decoded and read on its own (JSON or YAML;
    ``fast``: YAML may take the yaml-rs lane), so every error names the input and a line in it; ``List``
    objects and ResourceLists unwrapped; the documents ``skip`` covers left out. Each item's origin is kept
    aside (:func:`origin_of`: the items are not annotated)."""
    texts = []
    for source in sources:
        try:
            texts.append(without_document_boms(decode(source.data)))
        except InputError as exc:
            raise InputError(f"{source.name}: {exc.message}") from None
    kept = [(source, text) for source, text in zip(sources, texts) if text.strip()]
    joined = Joined.of([text for _, text in kept])
    rl = ResourceList(items=[], _read=_Read(joined))
    read = rl._read
    for (source, text), (at, _) in zip(kept, joined.parts):
        try:
            docs = keep_whole_lines(text, read_documents(text, fast=fast)[0])
        except InputError as exc:
            raise InputError(f"{source.name}: {exc.message}") from None
        for index, d in enumerate([d for d in docs if d.value is not None]):  # empty documents are not counted
            value = d.value
            if skip.covers(source, value):
                continue
            origin = Origin(source.name, index, at, at + d.start, source.is_file)

            def place(origin: Origin = origin) -> str:
                return f"{origin.file} line {origin.line(joined)}"

            inner = _unwrapped(value, place)
            if isinstance(inner, str):
                read.unusable.append(Unusable(len(rl.items) + len(read.unusable), value, inner, origin))
                continue
            if inner is not None:
                for i, item in enumerate(inner):
                    problem = _item_problem(item, f"{value.get('kind')}.items[{i}]", place)
                    if problem is not None:
                        read.unusable.append(Unusable(len(rl.items) + len(read.unusable), item, problem, origin))
                        continue
                    read.origins[id(item)] = origin
                    rl.items.append(item)
                continue
            problem = _item_problem(value, "", place)
            if problem is not None:
                read.unusable.append(Unusable(len(rl.items) + len(read.unusable), value, problem, origin))
                continue
            rl.items.append(value)
            read.origins[id(value)] = origin
            if d.end > d.start:
                read.source[id(value)] = (at + d.start, at + d.end, d.column)
    read.originals = list(rl.items)
    return rl


# --- writing -------------------------------------------------------------------------------------

def _item_as_entry(src: str) -> str:
    """A column-0 document text as a ``- `` sequence entry."""
    if "\n" not in src[:-1]:
        return "- " + src
    first, rest = src.split("\n", 1)
    body = "\n".join(("  " + line) if line else "" for line in rest.split("\n")[:-1])
    return f"- {first}\n{body}\n"


def _shared_values(rl: ResourceList, items: Sequence[OutItem]) -> frozenset[int]:
    """Ids of top-level mapping values held by several new items (written once, see Emitter.item)."""
    seen: set[int] = set()
    shared: set[int] = set()
    for item in items:
        if id(item) in rl._read.source or type(item) is not dict:
            continue
        for value in item.values():
            if type(value) is dict and value:
                (shared if id(value) in seen else seen).add(id(value))
    return frozenset(shared)


def dump_resource_list(rl: ResourceList, items: Sequence[OutItem], results: list[Obj], workers: int = 1) -> str:
    """The output ResourceList: items (source text when unchanged), functionConfig, results.

    ``workers``: processes that may write items (see :mod:`krm_fn.io.split`); the text is the same."""
    return "".join(resource_list_parts(rl, items, results, workers))


def resource_list_parts(rl: ResourceList, items: Sequence[OutItem], results: list[Obj], workers: int = 1
                        ) -> list[str]:
    """:func:`dump_resource_list`'s text in parts (each item's among them): a long output is joined only once,
    where it is written (a 10k-VM list's 22-36 MB)."""
    e = Emitter()
    shared = e.shared = _shared_values(rl, items)
    out = e.out
    read = rl._read
    out.append(f"apiVersion: {e.scalar(read.api_version)}\nkind: ResourceList\n")
    if not items:
        out.append("items: []\n")
    else:
        out.append("items:\n")

        part = Emitter()  # one per process (a forked child gets its own copy): its caches serve every block
        part.shared = shared
        read.index_originals()

        def entries(lo: int, hi: int) -> list[str]:
            return _write_items(rl, part, items[lo:hi], as_entry=True)

        out += write_parts(_write_costs(rl, items), entries, workers)
    if rl.function_config is not None:
        e.mapping({"functionConfig": rl.function_config}, "")
    if read.extra:
        e.mapping(read.extra, "")
    if results:
        e.mapping({"results": results}, "")
    check_emitted(e.take_owed())
    return out


def _take(e: Emitter) -> str:
    text = e.text()
    e.out.clear()
    return text


def _write_costs(rl: ResourceList, items: Sequence[OutItem]) -> list[int]:
    """1 for an item that must be written (changed or generated), 0 for one passed through as it came."""
    source = rl._read.source
    return [0 if id(item) in source or type(item) is Prewritten else 1 for item in items]


def entry_texts(rl: ResourceList, items: list[Obj]) -> list[str]:
    """Each item's ``- `` entry, as :func:`dump_resource_list` writes it."""
    return _item_texts(rl, items, as_entry=True)


def document_texts(rl: ResourceList, items: list[Obj]) -> list[str]:
    """Each item as a document, as :func:`dump_stream` writes it (without the ``---`` between documents)."""
    return _item_texts(rl, items, as_entry=False)


def _item_texts(rl: ResourceList, items: list[Obj], as_entry: bool) -> list[str]:
    e = Emitter()
    e.shared = _shared_values(rl, items)
    return _write_items(rl, e, items, as_entry)


def _write_items(rl: ResourceList, e: Emitter, items: Sequence[OutItem], as_entry: bool) -> list[str]:
    """Each item as an entry or a document, every text proven to mean its item (:mod:`krm_fn.io.verify`):
    source text where unchanged, spliced where changed, emitted otherwise; what is read back and fails is
    emitted fresh, and emitted forms that fail stop the run (WriteError)."""
    reads = ReadBacks()
    texts = [_item_text(rl, e, item, as_entry, reads, i) for i, item in enumerate(items)]
    for i in reads.failures():
        item = items[i]
        assert not isinstance(item, Prewritten), "a written item is not read back"
        texts[i] = _fresh(e, item, as_entry)
    check_emitted(e.take_owed())
    return texts


def _item_text(rl: ResourceList, e: Emitter, item: OutItem, as_entry: bool, reads: ReadBacks, owner: int) -> str:
    """``item``'s text: already written (by the process that rendered it), its source text, or
    :meth:`ResourceList.changed_text`."""
    if isinstance(item, Prewritten):
        return item.text
    source = rl._read.source_text(item, as_entry)
    if source is None:
        return rl._read.changed_text(e, item, as_entry, reads, owner)
    text, trusted = source
    if not trusted:
        reads.add(text if as_entry else _item_as_entry(text), item, owner, whole=True)
    return text


def _owe(done: Spliced, text: str, trusted: bool, as_entry: bool, item: Obj, reads: ReadBacks,
         owner: int) -> str | None:
    """``text`` (spliced as ``done``): on a trusted source text its edited mappings are read back, else all of
    it (all of it too when the item's own mapping is edited: its site is the whole item); None when an edited
    mapping cannot be read back on its own. A rewritten flow-map pair that cannot be read back on its own has
    the whole text read back instead."""
    whole = not trusted
    if not whole:
        alone = done.whole_item()  # the item's root is an edited mapping: read back whole (it proves every site)
        if alone is False:
            return None
        whole = alone is True
    sites = [] if whole else done.reads()
    for site in sites:
        joined = reads.join(site.key, owner) if site.key is not None else None
        if joined is None and site.key is None and _inside(site, sites):
            # its text is part of an enclosing site's, which is read back (or the whole text is): that read
            # proves it too; only whether it could be read alone decides, as before, whether to splice
            joined = site.readable() or None
        if joined is None:
            read = site.entry()
            if read is None:
                reads.unreadable(site.key)
                joined = False
            else:
                reads.add(read[0], read[1], owner, ordered=False, key=site.key)
        if joined is False:
            if site.pair is None:
                return None
            whole = True
    if whole:
        reads.add(text if as_entry else _item_as_entry(text), item, owner, ordered=False, whole=True)
    return text


def _inside(site: SiteRead, sites: list[SiteRead]) -> bool:
    """Whether another of ``sites`` holds all of ``site``'s text (an expanded VM: a mapping inside an edited one)."""
    return any(other.lo <= site.lo and site.hi <= other.hi and other.hi - other.lo > site.hi - site.lo
               for other in sites)


def _fresh(e: Emitter, item: Obj, as_entry: bool) -> str:
    if as_entry:
        e.item(item, "  ", first_prefix="- ")
    else:
        e.item(item, "")
    return _take(e)


def dump_stream(rl: ResourceList, items: Sequence[OutItem], workers: int = 1) -> str:
    """A plain ``---``-separated stream of the items (no results): kustomize plugins, Argo CD CMP."""
    e = Emitter()  # one per process, as in dump_resource_list
    e.shared = _shared_values(rl, items)
    rl._read.index_originals()

    def documents(lo: int, hi: int) -> list[str]:
        texts = _write_items(rl, e, items[lo:hi], as_entry=False)
        return [f"---\n{t}" if lo + i else t for i, t in enumerate(texts)]

    return "".join(write_parts(_write_costs(rl, items), documents, workers))
