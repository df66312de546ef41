"""One read-back for many texts alike but for their digits (a fleet's VMs, spliced the same way).

:class:`krm_fn.io.verify.ReadBacks` reads every whole item it owes. A fleet's spliced VMs differ mostly in
numbers (``vm-00012``, ``storage: 30Gi``, an index annotation), so their texts are the same but for their ASCII
digits. Reading one such text with marks (:func:`template`) tells what every other text alike reads as
(:func:`changes`), without reading it; the read-back compares that as marshal's bytes (:func:`marshalled`) or,
where those differ, as the value (:func:`derive`):

* **The same events.** libyaml looks at which digit a character is only in a directive's version, a block
  scalar's indentation indicator (``|2``), an escape (``\\x41``, whose code it also checks), a tag's URI and an
  anchor's or alias's name; everywhere else a digit is a character like a letter. A text holding none of those
  (:data:`_UNALIKE`, a superset, searched on the template: texts alike hold the same characters but digits)
  is scanned and parsed into the same events as any text alike but for its digits, at the same places, with
  only the scalars' values differing.
* **The same values but where a scalar's text differs.** Where the two texts differ outside every scalar holding
  a digit (a comment), nothing is told. A mapping key whose text differs could repeat another key: nothing is
  told either. A scalar's value keeps every character of its text but indentation, line breaks, quotes and
  comments (no escape: no backslash); where it keeps every digit of its text (their count says so: a comment in a
  block scalar's header would not), the value here is the template's with its digits drawn again from this
  text, in order. It is then resolved as the loader resolves it (``0009`` may be a string where ``0007`` is an
  int), and set at the scalar's path in a copy of the template's value.

The template's value is the one its own read-back gave (the loader's, or the yaml-rs lane's, proven the same)
and matched what it must mean; the walk that finds its scalars' paths checks each value it finds there.
``tests/unit/io/test_alike.py`` runs what is told against the loader on texts whose digits are drawn again.
"""

from __future__ import annotations

import marshal
import re
from typing import Any, NamedTuple


# every ASCII digit read as 0: what texts alike but for their digits share (UTF-8 never holds those bytes
# inside another character)
_ZEROED = bytes.maketrans(b"123456789", b"000000000")
# where a digit may be more than a character (see the module's docstring), or a node that is no plain value: a
# backslash (escapes), a tag, an anchor, an alias, a directive, a block scalar's indentation indicator
_UNALIKE = re.compile(r"[\\!&*%]|[|>][-+]?[0-9]")
_DIGIT = re.compile("[0-9]")


def zeroed(text: str) -> bytes:
    """``text`` with every ASCII digit read as 0: texts alike but for their digits have the same."""
    return text.encode("utf-8", "surrogatepass").translate(_ZEROED)  # a lone surrogate is the writer's to refuse


class _Scalar(NamedTuple):
    """A scalar of the template whose text holds a digit."""

    start: int
    end: int  # its text: template[start:end]
    text: str
    path: tuple[Any, ...]  # from the item's mapping
    key: bool  # a mapping key: its text must stay the template's
    cut: int  # its value is its text but ``cut`` characters at each end (quotes); -1: see parts
    parts: list[str] | None  # its value split at its digits, when it keeps every digit of its text; else None
    offsets: tuple[int, ...]  # where its text's digits stand, from start
    plain: bool  # resolved as a plain scalar (else a string)


class Template(NamedTuple):
    """A text read with marks: its value and where its scalars holding a digit stand."""

    text: str
    value: dict[str, Any]  # never changed: :func:`derive` copies what it changes
    scalars: tuple[_Scalar, ...]
    gaps: tuple[tuple[int, str], ...]  # the text between them: (start, text)
    blob: bytes  # marshal's format 2 of value
    places: tuple[tuple[int, int], ...]  # where each scalar's value is in blob: (start, end); (0, 0) for a key


def template(text: str, value: dict[str, Any]) -> Template | None:
    """``text`` (a ``- `` entry holding one mapping, which reads as ``value``, kept as it is) read with marks;
    None where texts alike need not read alike (:data:`_UNALIKE`) or the walk finds anything else than plain
    values."""
    if _UNALIKE.search(text) is not None:
        return None
    try:
        scalars = _walk(text, value)
        if scalars is None:
            return None
        blob = marshal.dumps(value, 2)
        places = _places(value, blob, scalars)
    except Exception:  # noqa: BLE001 - libyaml's errors, the loader's InputError, a path the value lacks: no template
        return None
    if places is None:
        return None
    gaps = []
    at = 0
    for scalar in scalars:
        gaps.append((at, text[at:scalar.start]))
        at = scalar.end
    gaps.append((at, text[at:]))
    return Template(text, value, tuple(scalars), tuple(gaps), blob, tuple(places))


Changes = list[tuple[int, Any]]  # (index of a template's scalar, its value here)


def changes(t: Template, text: str) -> Changes | None:
    """How what ``text`` reads as differs from ``t``'s value (``zeroed(text) == zeroed(t.text)``): the scalars
    whose value differs, with the value here; None when it cannot be told."""
    if len(text) != len(t.text) or not all(text.startswith(gap, at) for at, gap in t.gaps):
        return None
    out = []
    for index, scalar in enumerate(t.scalars):
        start = scalar.start
        if text.startswith(scalar.text, start):
            continue
        if scalar.key:
            return None
        cut = scalar.cut
        if cut >= 0:
            raw = text[start + cut:scalar.end - cut]
        elif scalar.parts is None:
            return None
        else:
            parts = scalar.parts
            raw = parts[0] + "".join([text[start + at] + part for at, part in zip(scalar.offsets, parts[1:])])
        out.append((index, _resolve_plain(raw) if scalar.plain else raw))
    return out


def marshalled(t: Template, told: Changes) -> bytes:
    """marshal's format 2 of the value ``told`` says (``marshal.dumps(derive(...), 2)``): the template's bytes
    with each changed scalar's written anew (the format has no back-references and no lengths of containers)."""
    if not told:
        return t.blob
    blob, places = t.blob, t.places
    out = []
    at = 0
    for index, value in told:
        start, end = places[index]
        out.append(blob[at:start])
        out.append(marshal.dumps(value, 2))
        at = end
    out.append(blob[at:])
    return b"".join(out)


def derive(t: Template, told: Changes) -> dict[str, Any]:
    """The value ``told`` says: the template's with the changed scalars, sharing every container that holds
    none."""
    root = dict(t.value)
    copies: dict[int, Any] = {id(t.value): root}  # a container (the template's or its copy) -> its copy
    for index, value in told:
        path = t.scalars[index].path
        node: Any = root
        for step in path[:-1]:
            child = node[step]
            copy = copies.get(id(child))
            if copy is None:
                copy = dict(child) if type(child) is dict else list(child)
                copies[id(child)] = copies[id(copy)] = copy
                node[step] = copy
            node = copy
        node[path[-1]] = value
    return root


def _places(value: dict[str, Any], blob: bytes, scalars: list[_Scalar]) -> list[tuple[int, int]] | None:
    """Where each scalar's value is written in ``blob`` (marshal's format 2 of ``value``; (0, 0) for a key): found
    by writing ``value`` with a distinct sentinel for each (a NUL in a string: no value read holds one), and
    proven by :func:`marshalled` giving those very bytes."""
    sentinels: Changes = [(i, f"\x00{i}\x00") for i, scalar in enumerate(scalars) if not scalar.key]
    probe = Template("", value, tuple(scalars), (), blob, ())
    written = marshal.dumps(derive(probe, sentinels), 2)
    found = sorted((written.find(marshal.dumps(sentinel, 2)), i) for i, sentinel in sentinels)
    by_index = dict(sentinels)
    places = [(0, 0)] * len(scalars)
    shift = 0  # how much longer the sentinels before are than the values they stand for
    for at, i in found:
        length = len(marshal.dumps(_at(value, scalars[i].path), 2))
        places[i] = (at - shift, at - shift + length)
        shift += len(marshal.dumps(by_index[i], 2)) - length
    if found and found[0][0] < 0 or marshalled(probe._replace(places=tuple(places)), sentinels) != written:
        return None
    return places


def _resolve_plain(raw: str) -> Any:
    from krm_fn.io.scalars import resolve_plain

    return resolve_plain(raw)


class _Frame:
    __slots__ = ("container", "key")

    def __init__(self, container: dict[str, Any] | list[Any]) -> None:
        self.container = container  # the keys seen (a mapping) or one None an entry (a sequence)
        self.key: Any = None  # a mapping's key awaiting its value (None: a key comes next)


def _walk(text: str, value: dict[str, Any]) -> list[_Scalar] | None:
    """The scalars of ``text`` holding a digit, each checked against ``value`` at its path; None at anything
    but one document of one ``- `` entry holding a mapping of untagged values without anchors or merge keys."""
    from yaml import events as ev

    from krm_fn.io.loader import EventParser, key_text, scalar_value

    get: Any = EventParser(text).get_event
    frames: list[_Frame] = []  # the root sequence, the item's mapping, then what is open inside it
    path: list[Any] = []  # the keys and indexes from the item's mapping down to the innermost open container
    out: list[_Scalar] = []
    documents = 0
    while True:
        event = get()
        cls = type(event)
        if cls is ev.ScalarEvent or cls is ev.MappingStartEvent or cls is ev.SequenceStartEvent:
            if event.anchor is not None or event.tag is not None:
                return None
            if not frames:  # the root: a sequence
                if cls is not ev.SequenceStartEvent or documents != 1:
                    return None
                frames.append(_Frame([]))
                continue
            frame = frames[-1]
            container = frame.container
            digit = cls is ev.ScalarEvent and \
                _DIGIT.search(text, event.start_mark.index, event.end_mark.index) is not None
            if type(container) is dict:
                if frame.key is None:  # a key
                    if cls is not ev.ScalarEvent:
                        return None
                    key = key_text(scalar_value(event), event)
                    if key in container or (key == "<<" and not event.style):
                        return None
                    container[key] = None
                    frame.key = key
                    if digit:
                        scalar = _scalar(text, event, (*path, key), True)
                        if not _found(value, scalar.path, _KEY):
                            return None
                        out.append(scalar)
                    continue
                step: Any = frame.key
                frame.key = None
            else:
                assert type(container) is list
                step = len(container)
                container.append(None)
            if len(frames) == 1:  # the root's entries: exactly one, the item's mapping
                if step != 0 or cls is not ev.MappingStartEvent:
                    return None
                frames.append(_Frame({}))
                continue
            if cls is not ev.ScalarEvent:
                path.append(step)
                frames.append(_Frame({} if cls is ev.MappingStartEvent else []))
            elif digit:
                scalar = _scalar(text, event, (*path, step), False)
                if not _found(value, scalar.path, scalar_value(event)):
                    return None
                out.append(scalar)
        elif cls is ev.MappingEndEvent or cls is ev.SequenceEndEvent:
            frames.pop()
            if len(frames) >= 2:
                path.pop()
        elif cls is ev.DocumentStartEvent:
            documents += 1
            if documents > 1:
                return None
        elif cls is ev.AliasEvent:
            return None
        elif cls is ev.StreamEndEvent:
            return out if documents == 1 and not frames else None


def _scalar(text: str, event: Any, path: tuple[Any, ...], key: bool) -> _Scalar:
    start, end = event.start_mark.index, event.end_mark.index
    offsets = tuple(m.start() - start for m in _DIGIT.finditer(text, start, end))
    raw: str = event.value
    parts = _DIGIT.split(raw)
    kept = len(parts) - 1 == len(offsets)  # every digit of its text is one of its value's, in order
    plain = not event.style and bool(event.implicit[0])
    span = text[start:end]
    return _Scalar(start, end, span, path, key, _cut(span, raw, event.style), parts if kept else None, offsets, plain)


def _cut(span: str, raw: str, style: str | None) -> int:
    """How many characters at each end of a one-line scalar's text its value leaves out: none for a plain
    scalar, the quotes for a quoted one without a quote doubled (no escape: no backslash); -1 otherwise."""
    if "\n" in span:
        return -1
    if not style:
        return 0 if raw == span else -1
    return 1 if style in ("'", '"') and span[0] == style and "''" not in span and raw == span[1:-1] else -1


_KEY: Any = object()  # _found: only that the key is there


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    """What ``value`` holds at ``path``."""
    for step in path:
        value = value[step]
    return value


def _found(value: Any, path: tuple[Any, ...], got: Any) -> bool:
    """Whether ``value`` holds ``got`` at ``path`` (its exact type; with _KEY: whether it holds that key)."""
    node, last = _at(value, path[:-1]), path[-1]
    if got is _KEY:
        return type(node) is dict and last in node
    there = node[last]
    return type(there) is type(got) and (there == got or there != there and got != got)
