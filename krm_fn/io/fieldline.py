"""The line of a field in a document's source (:func:`field_line`): where a result about ``spec.x[1].y`` points.

A field path (``spec.template.spec.domain.devices.disks[1].name``, a key in brackets for a map key with dots)
is followed through the document's YAML events as far as it goes; the line is that of the deepest key or item
found. A path KubeVirt builds for a field the document does not have still points near it.
PyYAML is imported on the first call (a run without a result about a field does not load it: start-up time).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from krm_fn.kube.identity import name_of, own_namespace

_STEP: Final = re.compile(r"\.?([^.\[\]]+)|\[([^\]]*)\]")
_BREAK: Final = re.compile("\n")


def steps(path: str) -> list[str | int]:
    """``a.b[1][k.x]`` -> ``["a", "b", 1, "k.x"]``."""
    out: list[str | int] = []
    for name, bracket in _STEP.findall(path):
        out.append(name if name else int(bracket) if bracket.isdigit() else bracket)
    return out


def field_line(document: str, path: str) -> int | None:
    """The 0-based line, counted from the start of ``document`` (one document's text), of the deepest part of
    ``path`` the document holds; None when it holds none of it or cannot be read."""
    return steps_line(document, steps(path))


def steps_line(document: str, path: Sequence[str | int]) -> int | None:
    """:func:`field_line` of a path given as its steps (a catalog problem's key path)."""
    import yaml

    try:
        events = yaml.parse(document, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        return _follow(events, list(path))
    except (yaml.YAMLError, StopIteration):  # not YAML, or no node in it
        return None


def _follow(events: Iterator[Any], path: list[str | int]) -> int | None:
    from yaml import events as ev

    event = next(events)
    while not isinstance(event, ev.NodeEvent):  # the stream and document starts
        event = next(events)
    line, at = None, 0
    while at < len(path):
        step = path[at]
        if isinstance(event, ev.MappingStartEvent) and isinstance(step, str):
            found = _key(events, _dotted(path, at))
        elif isinstance(event, ev.SequenceStartEvent) and isinstance(step, int):
            found = _item(events, step)
        else:
            return line
        if found is None:
            return line
        line, event, taken = found
        at += taken
    return line


def _dotted(path: list[str | int], at: int) -> dict[str, int]:
    """The keys step ``at`` may be, with the steps each takes: the name, or it and the names after it joined by
    dots (a ConfigMap's ``data.catalog.builtin`` is key ``catalog.builtin``)."""
    names: dict[str, int] = {}
    joined = ""
    for taken, step in enumerate(path[at:], 1):
        if not isinstance(step, str):
            break
        joined = f"{joined}.{step}" if joined else step
        names[joined] = taken
    return names


def _key(events: Iterator[Any], names: dict[str, int]) -> tuple[int, Any, int] | None:
    """In a mapping: the line of the first key among ``names``, its value's first event and the steps it takes;
    None once the mapping ends."""
    from yaml import events as ev

    while True:
        key = next(events)
        if isinstance(key, ev.MappingEndEvent):
            return None
        if isinstance(key, ev.ScalarEvent) and key.value in names:
            return _line(key), next(events), names[key.value]
        _skip(events, key)
        _skip(events, next(events))


def _item(events: Iterator[Any], index: int) -> tuple[int, Any, int] | None:
    """In a sequence: the line of item ``index`` and its first event; None once the sequence ends."""
    from yaml import events as ev

    for _ in range(index):
        item = next(events)
        if isinstance(item, ev.SequenceEndEvent):
            return None
        _skip(events, item)
    item = next(events)
    return None if isinstance(item, ev.SequenceEndEvent) else (_line(item), item, 1)


def _line(event: Any) -> int:
    mark = event.start_mark
    return int(mark.line) if mark is not None else 0


def _skip(events: Iterator[Any], first: Any) -> None:
    """Past the node that starts with ``first``."""
    from yaml import events as ev

    depth = 1 if isinstance(first, ev.CollectionStartEvent) else 0
    while depth:
        event = next(events)
        if isinstance(event, ev.CollectionStartEvent):
            depth += 1
        elif isinstance(event, ev.CollectionEndEvent):
            depth -= 1


# --- a field's line in a file kpt read: KRM mode, where only the item's path and index annotations are given ---

Identity = tuple[str, str, str]  # kind, namespace, name
MAX_FILE_BYTES: Final = 64 << 20  # a larger file is not read again for a line
# what makes a directory a package whose files may be read again: kpt's, or a kustomization's root (kustomize
# runs a legacy exec plugin there, and its origin annotations are relative to it)
PACKAGE_FILES: Final = ("Kptfile", "kustomization.yaml", "kustomization.yml", "Kustomization")


def document_field_line(text: str, start: int, end: int, path: str, breaks: list[int] | None = None) -> int:
    """The 1-based line in ``text`` of field ``path`` in the document whose root node spans ``start:end``
    (its first line when the field is not found). ``breaks``: the offsets of the text's line breaks
    (:func:`line_breaks`), for many documents of one text."""
    begin = text.rfind("\n", 0, start) + 1
    first = (bisect.bisect_left(breaks, begin) if breaks is not None else text.count("\n", 0, begin)) + 1
    offset = field_line(text[begin:end], path) if path else None
    return first + (offset or 0)


def line_breaks(text: str) -> list[int]:
    return [m.start() for m in _BREAK.finditer(text)]


def line_in_package(root: str, file: str, index: int | None, identity: Identity, path: str,
                    cache: dict[tuple[str, str], Any]) -> int | None:
    """The 1-based line of field ``path`` of the object ``identity`` in ``file`` of the package at ``root`` (an
    absolute path holding one of :data:`PACKAGE_FILES`), read again from disk (:func:`object_field_line`).
    None when the file is outside the package, unreadable or too large. ``cache``: each file of each package
    read once a run."""
    if (root, file) not in cache:
        cache[(root, file)] = _package_documents(Path(root), file)
    read = cache[(root, file)]
    return None if read is None else object_field_line(read[0], read[1], identity, path, index, read[2])


def object_field_line(text: str, docs: list[Any], identity: Identity, path: str, index: int | None = None,
                      breaks: list[int] | None = None) -> int | None:
    """The 1-based line of field ``path`` of the object ``identity`` (kind, namespace, name) among ``docs``, the
    documents of ``text``: the document at ``index`` when it is that object, else the first that is (one
    without a namespace is the object in any: kustomize may have set it). None when none is."""
    wanted = (identity, (identity[0], "", identity[2]))
    at = [docs[index]] if index is not None and 0 <= index < len(docs) else []
    doc = next((d for d in at if _identity(d.value) in wanted), None) or \
        next((d for d in docs if _identity(d.value) in wanted), None)
    return None if doc is None else document_field_line(text, doc.start, doc.end, path, breaks)


def _package_documents(root: Path, file: str) -> tuple[str, list[Any], list[int]] | None:
    from krm_fn.errors import InputError
    from krm_fn.io.inputs import read_stream

    try:
        if not root.is_absolute() or not any((root / name).is_file() for name in PACKAGE_FILES):
            return None
        target = (root / file).resolve()
        if not target.is_relative_to(root.resolve()) or target.stat().st_size > MAX_FILE_BYTES:
            return None
        text, docs = read_stream(target.read_text(encoding="utf-8"))
        return text, docs, line_breaks(text)
    except (OSError, ValueError, RuntimeError, InputError):
        return None


def _identity(value: Any) -> Identity | None:
    if not isinstance(value, dict) or not isinstance(value.get("metadata"), dict):
        return None
    return str(value.get("kind", "")), own_namespace(value), name_of(value)
