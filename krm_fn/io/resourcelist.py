"""ResourceList and plain YAML stream I/O (kpt SDK ``resourcelist.go``; kustomize ``kio``).

:class:`ResourceList` is the SDK's model. :func:`parse_resource_list` and :func:`parse_sources` read it, and
:func:`dump_resource_list` and :func:`dump_stream` write it. How the list was read stays private to the list
(``_read``, :class:`krm_fn.io.source.Read`): it is what lets an unchanged item be written back as its source
text. Each item's text is :func:`krm_fn.io.write.write_items`'. Line breaks are LF in and out (:func:`decode`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from krm_fn.errors import InputError
from krm_fn.io.document import Document
from krm_fn.io.emitter import Emitter
from krm_fn.io.fastload import load_plain, load_resource_list
from krm_fn.io.inputs import Joined, Skipped, Source, keep_whole_lines, read_documents, without_document_boms
from krm_fn.io.source import Origin, Read, Unusable, head_comment
from krm_fn.io.verify import check_emitted
from krm_fn.io.write import OutItem, shared_values, write_items
from krm_fn.kube.api import INSTANCETYPE_GROUP, RESOURCE_LIST_API_VERSION, RESOURCE_LIST_KIND, TYPE_KINDS
from krm_fn.kube import kpt_annotations
from krm_fn.kube.identity import group_of, object_id
from krm_fn.kube.meta import annotations_of, item_problem
from krm_fn.kube.paths import Obj


@dataclass(slots=True)
class ResourceList:
    """The kpt SDK's ResourceList: items, functionConfig, results. How the list was read (its text, each item's
    place in it, what else it held) stays in this module (``_read``)."""

    items: list[Obj]
    function_config: Obj | None = None
    results: list[Obj] = field(default_factory=list)
    _read: Read = field(default_factory=lambda: Read(""), repr=False, compare=False)


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


def rl_text(rl: ResourceList) -> str:
    """The text the list was read from (every input, one after the other)."""
    return rl._read.text


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


def parse_resource_list(text: str, fast: bool = True) -> ResourceList:
    """Parse a ResourceList (any apiVersion of kind ResourceList; missing items = []). ``fast``: let
    :mod:`krm_fn.io.fastload` read what it can (off where memory is capped: see cli/resources.py)."""
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
                if (problem := item_problem(item, f"items[{i}]", named=not _admitted_later(item))) is not None]
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
    read = Read(text if doc is not None else "", str(root.get("apiVersion") or RESOURCE_LIST_API_VERSION), extra)
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
    rl = ResourceList(items=[], _read=Read(joined))
    read = rl._read
    for (source, text), (at, _) in zip(kept, joined.parts):
        try:
            docs = keep_whole_lines(text, read_documents(text, fast=fast)[0])
        except InputError as exc:
            raise InputError(f"{source.name}: {exc.message}") from None
        after: int | None = 0  # where the document before ends (None: not known): the comment lines between are
        for index, d in enumerate([d for d in docs if d.value is not None]):  # the next one's head
            value = d.value
            spanned = d.end > d.start
            head = head_comment(text, after, d.start) if spanned and after is not None else ""
            after = d.end if spanned else None
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
                    problem = item_problem(item, f"{value.get('kind')}.items[{i}]", place)
                    if problem is not None:
                        read.unusable.append(Unusable(len(rl.items) + len(read.unusable), item, problem, origin))
                        continue
                    read.origins[id(item)] = origin
                    rl.items.append(item)
                continue
            problem = item_problem(value, "", place)
            if problem is not None:
                read.unusable.append(Unusable(len(rl.items) + len(read.unusable), value, problem, origin))
                continue
            rl.items.append(value)
            read.origins[id(value)] = origin
            if d.end > d.start:
                read.source[id(value)] = (at + d.start, at + d.end, d.column)
            if head:
                read.heads[id(value)] = head
    read.originals = list(rl.items)
    return rl


# --- writing -------------------------------------------------------------------------------------

def dump_resource_list(rl: ResourceList, items: Sequence[OutItem], results: list[Obj], splice: bool = True) -> str:
    """The output ResourceList: items (source text when unchanged), functionConfig, results. ``splice``: changed
    items keep their source text where they can."""
    e = Emitter()
    read = rl._read
    out = [f"apiVersion: {e.scalar(read.api_version)}\nkind: ResourceList\n"]
    if not items:
        out.append("items: []\n")
    else:
        out.append("items:\n")
        part = Emitter()
        part.shared = shared_values(read, items)
        out += write_items(read, part, items, True, splice)
    if rl.function_config is not None:
        e.mapping({"functionConfig": rl.function_config}, "")
    if read.extra:
        e.mapping(read.extra, "")
    if results:
        e.mapping({"results": results}, "")
    check_emitted(e.take_owed())
    out += e.out
    return "".join(out)


def entry_texts(rl: ResourceList, items: list[Obj], splice: bool = True) -> list[str]:
    """Each item's ``- `` entry, as :func:`dump_resource_list` writes it."""
    return _item_texts(rl, items, True, splice)


def document_texts(rl: ResourceList, items: list[Obj], splice: bool = True) -> list[str]:
    """Each item as a document, as :func:`dump_stream` writes it (without the ``---`` between documents)."""
    return _item_texts(rl, items, False, splice)


def _item_texts(rl: ResourceList, items: Sequence[OutItem], as_entry: bool, splice: bool) -> list[str]:
    e = Emitter()
    e.shared = shared_values(rl._read, items)
    return write_items(rl._read, e, items, as_entry, splice)


def dump_stream(rl: ResourceList, items: Sequence[OutItem], splice: bool = True) -> str:
    """A plain ``---``-separated stream of the items (no results): kustomize plugins, Argo CD CMP."""
    return "---\n".join(_item_texts(rl, items, False, splice))


# --- generated objects into the items (kpt SDK ``ResourceList.UpsertObjectToItems``) ------------------

def default_file(obj: Obj, directory: str) -> str:
    """Where kpt should write a generated object: one file per kind next to the config."""
    name = f"{str(obj.get('kind', 'object')).lower()}s.yaml"
    return posixpath.join(directory, name) if directory else name


def upsert(items: list[Obj], generated: Sequence[Obj], directory: str) -> list[Obj]:
    """Replace items with the same id (:func:`krm_fn.kube.identity.object_id`) in place (keeping their annotations),
    append the others with path/index annotations. An existing item whose content is already what we
    generate stays the very same object, so it is written back byte-for-byte."""
    position = {object_id(it): i for i, it in enumerate(items)}
    out = list(items)
    files = kpt_annotations.IndexAllocator(items)
    for obj in generated:
        key = object_id(obj)
        at = position.get(key)
        if at is not None:
            existing = out[at]
            merged = _with_annotations(obj, {**annotations_of(obj), **annotations_of(existing)})
            if merged != existing:
                out[at] = merged
            continue
        out.append(_with_annotations(obj, {**annotations_of(obj), **files.place(default_file(obj, directory))}))
        position[key] = len(out) - 1
    return out


def _with_annotations(obj: Obj, annotations: dict[str, Any]) -> Obj:
    """A shallow copy of ``obj`` whose metadata.annotations is ``annotations`` (metadata key order kept)."""
    md = dict(obj.get("metadata") or {})
    if annotations:
        if "annotations" in md:
            md["annotations"] = annotations
        else:  # kube order: name, namespace, labels, annotations, then the rest
            ordered: Obj = {}
            for k in ("name", "namespace", "labels"):
                if k in md:
                    ordered[k] = md.pop(k)
            md = {**ordered, "annotations": annotations, **md}
    out = dict(obj)
    out["metadata"] = md
    return out
