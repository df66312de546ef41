"""The line of a field in a document's source (:func:`field_line`): where a result about ``spec.x[1].y`` points.

A field path (``spec.template.spec.domain.devices.disks[1].name``, a key in brackets for a map key with dots)
is followed through the document's YAML events as far as it goes; the line is that of the deepest key or item
found. A path KubeVirt builds for a field the document does not have still points near it.
PyYAML is imported on the first call (a run without a result about a field does not load it: start-up time).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

_STEP: Final = re.compile(r"\.?([^.\[\]]+)|\[([^\]]*)\]")


def steps(path: str) -> list[str | int]:
    """``a.b[1][k.x]`` -> ``["a", "b", 1, "k.x"]``."""
    out: list[str | int] = []
    for name, bracket in _STEP.findall(path):
        out.append(name if name else int(bracket) if bracket.isdigit() else bracket)
    return out


def field_line(document: str, path: str) -> int | None:
    """The 0-based line, counted from the start of ``document`` (one document's text), of the deepest part of
    ``path`` the document holds; None when it holds none of it or cannot be read."""
    import yaml

    try:
        events = yaml.parse(document, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        return _follow(events, steps(path))
    except yaml.YAMLError:
        return None


def _follow(events: Iterator[Any], path: list[str | int]) -> int | None:
    from yaml import events as ev

    event = next(events)
    while not isinstance(event, ev.NodeEvent):  # the stream and document starts
        event = next(events)
    line = None
    for step in path:
        if isinstance(event, ev.MappingStartEvent) and isinstance(step, str):
            found = _key(events, step)
        elif isinstance(event, ev.SequenceStartEvent) and isinstance(step, int):
            found = _item(events, step)
        else:
            return line
        if found is None:
            return line
        line, event = found
    return line


def _key(events: Iterator[Any], name: str) -> tuple[int, Any] | None:
    """In a mapping: the line of key ``name`` and its value's first event; None once the mapping ends."""
    from yaml import events as ev

    while True:
        key = next(events)
        if isinstance(key, ev.MappingEndEvent):
            return None
        if isinstance(key, ev.ScalarEvent) and key.value == name:
            return _line(key), next(events)
        _skip(events, key)
        _skip(events, next(events))


def _item(events: Iterator[Any], index: int) -> tuple[int, Any] | None:
    """In a sequence: the line of item ``index`` and its first event; None once the sequence ends."""
    from yaml import events as ev

    for _ in range(index):
        item = next(events)
        if isinstance(item, ev.SequenceEndEvent):
            return None
        _skip(events, item)
    item = next(events)
    return None if isinstance(item, ev.SequenceEndEvent) else (_line(item), item)


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
