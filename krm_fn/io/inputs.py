"""What an input is: JSON only when the whole input is JSON, YAML otherwise; one file at a time.

* **JSON or YAML.** A YAML flow mapping starts with ``{`` too (``{apiVersion: v1, kind: ResourceList, ...}``),
  so ``{`` only means "try JSON": text JSON does not read entirely goes to the YAML loader. When neither
  reads it, the error is the one of the format that got further (a truncated JSON file gets JSON's message,
  a broken flow mapping YAML's).
* **JSON means what kubectl gets from it.** Numbers mean what the same text means in YAML
  (:func:`krm_fn.io.scalars.resolve_plain`: int64/uint64 integers, floats beyond); duplicate keys are an
  error as in YAML (kubectl refuses them), and so are numbers beyond float64 (Go's JSON decoder refuses
  them) and lone surrogate escapes (``"\\ud800"``: no UTF-8 text can hold one; YAML refuses the escape).
  ``NaN``/``Infinity`` are not JSON: such text is read as YAML, where they are strings.
* **BOMs.** A UTF-8 BOM may start any document of a stream (YAML 1.2 ``l-document-prefix``): before a
  ``---`` or ``...`` line, or (what joining files with ``---`` gives) on the first line after one. libyaml
  skips one only at the very start (elsewhere it shifts the line's columns: "did not find expected key"),
  so they are removed before parsing; source spans then refer to the text without them.
* **Several files** (the standalone mode) are one text with ``---`` between them (:class:`Joined`), but each
  is read on its own: a file that ends without a line break keeps its last value (``k: |`` then ``x``
  is ``"x"``, where the line break ``---`` needs would make it ``"x\\n"``), and each file is JSON or YAML
  by itself. Source text is written back as whole lines, so a document that would change with a line
  break added at its end keeps no source span (:func:`keep_whole_lines`): it is written fresh.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from krm_fn.errors import InputError
from krm_fn.io.document import MAX_DEPTH, Document, YAMLSyntaxError
from krm_fn.io.scalars import resolve_plain
from krm_fn.kube.identity import group_of
from krm_fn.kube.paths import FieldPath, dotted

_LEADING_BLANKS = re.compile(r"[ \t\r\n]*")
# JSON escapes of UTF-16 surrogates: json.loads pairs them, but leaves a lone one in the string
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_DOCUMENT_BOM = re.compile(r"(?m)^((?:---|\.\.\.)[ \t]*(?:#[^\n]*)?\n)\ufeff|^\ufeff(?=(?:---|\.\.\.)(?:[ \t\n]|\Z))")


@dataclass(frozen=True, slots=True)
class Source:
    """One input of the stream modes, as the edge read it: its bytes, the name messages give it (the path as
    given, a file found under a directory, or ``stdin``), whether it was found by walking a directory
    (where kustomize's and kpt's own files are skipped: :mod:`krm_fn.stream`), and whether it is a file
    (results name files; stdin, a kustomize plugin's only input, they do not). ``listed``: the text results'
    lines are counted in, when it is not ``data`` (the user's file that kustomize's copy of a config came from)."""

    name: str
    data: bytes
    in_directory: bool = False
    is_file: bool = True
    listed: bytes | None = None


class Skipped:
    """What a stream mode leaves out of the inputs found by walking a directory (``krm_fn.stream.BUILD_FILES``):
    every document of a file named one of ``names``, and documents of a kind of ``kinds`` (API group, kind)."""

    __slots__ = ("names", "kinds")

    def __init__(self, names: frozenset[str], kinds: frozenset[tuple[str, str]]) -> None:
        self.names = names
        self.kinds = kinds

    def covers(self, source: Source, value: Any) -> bool:
        """Whether the document ``value`` of ``source`` is left out."""
        if not source.in_directory:
            return False
        if PurePath(source.name).name in self.names:
            return True
        kind = value.get("kind") if isinstance(value, dict) else None
        return isinstance(kind, str) and (group_of(value.get("apiVersion")), kind) in self.kinds


class Joined(str):
    """Several inputs as one text, ``---`` between them; ``parts``: each input's (start, end) in the text."""

    parts: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, texts: list[str]) -> Joined:
        """``texts`` joined (a :class:`Joined` among them gives its parts)."""
        out: list[str] = []
        parts: list[tuple[int, int]] = []
        at = 0
        for text in [t[s:e] if isinstance(t, Joined) else t for t in texts for s, e in _parts(t)]:
            if out:
                out.append("---\n")
                at += 4
            parts.append((at, at + len(text)))
            out.append(text)
            at += len(text)
            if not text.endswith("\n"):
                out.append("\n")
                at += 1
        joined = cls("".join(out))
        joined.parts = tuple(parts)
        return joined


def _parts(text: str) -> tuple[tuple[int, int], ...]:
    return text.parts if isinstance(text, Joined) else ((0, len(text)),)


def read_stream(text: str) -> tuple[str, list[Document]]:
    """Every document of ``text`` (each part of a :class:`Joined` on its own), with the text the documents'
    spans refer to (``text`` without its document BOMs)."""
    if not isinstance(text, Joined):
        text = without_document_boms(text)
        return text, keep_whole_lines(text, read_documents(text)[0])
    parts = [without_document_boms(text[start:end]) for start, end in text.parts]
    joined = Joined.of(parts)
    docs = []
    for (at, _), part in zip(joined.parts, parts):
        docs += [Document(d.value, d.start + at, d.end + at, d.column, d.spans)
                 for d in keep_whole_lines(part, read_documents(part)[0])]
    return joined, docs


def keep_whole_lines(text: str, docs: list[Document], track: str | None = None) -> list[Document]:
    """``docs`` of ``text``, minus the source spans that cannot be written back. Source text is written back
    as whole lines: when ``text`` ends without a line break, it is read again with one, and a document (or
    tracked item) whose value then changes (a block scalar on the last line would gain the line break) loses
    its span, so it is written fresh."""
    if text.endswith("\n") or not docs or not text.strip():
        return docs
    from krm_fn.io.loader import load_documents  # PyYAML: only for YAML (start-up time)

    try:
        again = load_documents(text + "\n", track=track)
    except InputError:  # pragma: no cover - a line break at the end cannot make YAML malformed
        again = []
    if len(again) != len(docs):  # pragma: no cover - nor add a document
        return [Document(d.value, d.start, d.start, d.column) for d in docs]
    last, redone = docs[-1], again[-1]
    if track is None and last.value != redone.value:
        return docs[:-1] + [Document(last.value, last.start, last.start, last.column)]
    items, items_again = (d.value.get(track) if isinstance(d.value, dict) and track else None for d in (last, redone))
    if isinstance(items, list) and isinstance(items_again, list):
        for item, item_again in zip(items, items_again):
            if item != item_again:
                last.spans.pop(id(item), None)
    return docs


def without_document_boms(text: str) -> str:
    if "\ufeff" not in text:
        return text
    text = text[1:] if text.startswith("\ufeff") else text
    return _DOCUMENT_BOM.sub(lambda m: m.group(1) or "", text)


class _NotJSON(Exception):
    """The text is not (entirely) JSON: read it as YAML. ``pos``: how far JSON got."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def read_documents(text: str, track: str | None = None, fast: bool = False) -> tuple[list[Document], bool]:
    """The documents of ``text`` and whether it was JSON (JSON documents carry no source spans). ``fast``: a
    YAML stream may take the yaml-rs lane (:func:`krm_fn.io.fastload.load_stream`); its empty documents (no
    value) are left out."""
    if not text:  # no documents (a generator's empty stdin): no YAML reader needed
        return [], False
    from krm_fn.io.fastload import load_stream
    from krm_fn.io.loader import load_documents  # PyYAML (start-up time)

    start = _LEADING_BLANKS.match(text)
    if start is None or text[start.end():start.end() + 1] != "{":
        if fast and track is None and text.endswith("\n"):
            lane = load_stream(text)
            if lane is not None:
                return lane, False
        return load_documents(text, track=track), False
    try:
        return [Document(loads_json(text), 0, 0, 0)], True
    except _NotJSON as not_json:
        try:
            return load_documents(text, track=track), False
        except YAMLSyntaxError as not_yaml:
            if not_json.pos >= not_yaml.index:
                raise InputError(not_json.message) from None
            raise


def loads_json(text: str) -> Any:
    """The value of the JSON ``text``, or :class:`_NotJSON` (see the module's docstring)."""
    duplicates: list[str] = []
    too_big: list[str] = []

    def number(literal: str) -> Any:
        value = resolve_plain(literal)
        if type(value) is str:
            too_big.append(literal)
            return 0
        return value

    def constant(name: str) -> Any:
        raise _NotJSON(f"malformed JSON: {name} is not a JSON value", text.find(name))

    def mapping(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs) and not duplicates:
            keys = [k for k, _ in pairs]
            duplicates.append(next(k for i, k in enumerate(keys) if k in keys[:i]))
        return obj

    try:
        value = json.loads(text, parse_int=number, parse_float=number, parse_constant=constant,
                           object_pairs_hook=mapping)
    except json.JSONDecodeError as exc:
        raise _NotJSON(f"malformed JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}", exc.pos) from None
    except RecursionError:
        raise InputError(f"document nested deeper than {MAX_DEPTH} levels") from None
    check_depth(value)
    if _SURROGATE_ESCAPE.search(text):
        where = _lone_surrogate(value)
        if where is not None:
            raise InputError(f"malformed JSON: {where} holds a lone UTF-16 surrogate escape (\\ud800-\\udfff "
                             "not part of a pair)")
    if too_big:
        raise InputError(f"malformed JSON: number {too_big[0][:40]} is beyond the range of a float64")
    if duplicates:
        from krm_fn.io.loader import load_documents

        try:  # the YAML loader reads JSON too, and says where the duplicate is
            load_documents(text)
        except InputError as exc:
            if "duplicate" in exc.message:
                raise InputError(f"malformed JSON: {exc.message}") from None
        raise InputError(f"malformed JSON: duplicate key {duplicates[0]!r}")
    return value


def _lone_surrogate(value: Any) -> str | None:
    """Where a string or key holds a lone surrogate (a field path), or None."""
    stack: list[tuple[Any, FieldPath]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is str:
            if _SURROGATE.search(node):
                return dotted(path) or "the document"
        elif type(node) is dict:
            for k, v in node.items():
                if _SURROGATE.search(k):
                    return f"a key of {dotted(path) or 'the document'}"
                stack.append((v, (*path, k)))
        elif type(node) is list:
            stack.extend((v, (*path, i)) for i, v in enumerate(node))
    return None


def check_depth(value: Any) -> None:
    """JSON input gets the same nesting limit as YAML input (the loader enforces it while parsing)."""
    level = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [c for v in level for c in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else ())
                 if isinstance(c, (dict, list))]
        if not level:
            return
    raise InputError(f"document nested deeper than {MAX_DEPTH} levels")
