"""Two JSON values compared field by field: every leaf that differs, with its path and both values (``ABSENT``
where one side lacks the field). ``catalog diff`` and ``upgrade-report`` word what this finds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from krm_fn.kube.paths import FieldPath


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # the side of a change that lacks the field


def field_changes(ours: Any, theirs: Any, path: FieldPath = ()) -> Iterator[tuple[FieldPath, Any, Any]]:
    """``(path, ours, theirs)`` for every differing leaf, ``ours``' keys first, then the keys only ``theirs`` has;
    lists of equal length are compared item by item, any other pair of different values is one change."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in [*ours, *(k for k in theirs if k not in ours)]:
            yield from field_changes(ours.get(key, ABSENT), theirs.get(key, ABSENT), (*path, str(key)))
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for i, (a, b) in enumerate(zip(ours, theirs)):
            yield from field_changes(a, b, (*path, i))
    elif type(ours) is not type(theirs) or ours != theirs:
        yield path, ours, theirs


def shown_value(value: Any, width: int = 100) -> str:
    """A value on one line as JSON (``(absent)`` for :data:`ABSENT`), cut to ``width`` characters."""
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[:width - 3] + "..."
