"""The annotations we read (file path, index, kpt's package path), checked where they enter, and the one place
that gives new objects a file and an index (:class:`IndexAllocator`).

kpt and kustomize read them as kyaml does: the path a string, the index a Go ``strconv.Atoi`` integer
(ASCII digits with an optional sign, int64). Python's ``int()`` also takes ``"٣"`` or ``" 3 "``, and
``str.isdigit()`` is true for ``"²"``, which ``int()`` refuses: every reader goes through :func:`file_index`,
and :func:`problems` names what kpt would refuse, with its field path, before anything reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from krm_fn.errors import shown
from krm_fn.kube.api import ANN_INDEX, ANN_LEGACY_INDEX, ANN_LEGACY_PATH, ANN_ORIGIN, ANN_PACKAGE_PATH, ANN_PATH
from krm_fn.kube.meta import annotations_of
from krm_fn.kube.paths import Obj, dotted

PATH_ANNOTATIONS: Final = (ANN_PATH, ANN_LEGACY_PATH)
INDEX_ANNOTATIONS: Final = (ANN_INDEX, ANN_LEGACY_INDEX)
# read on the functionConfig only (kpt: the package directory, krm_fn.process)
CONFIG_ANNOTATIONS: Final = (ANN_PACKAGE_PATH,)
# every annotation whose value we read (tests/reliability/test_hostile_config.py checks the code against it)
READ: Final = PATH_ANNOTATIONS + INDEX_ANNOTATIONS + CONFIG_ANNOTATIONS + (ANN_ORIGIN,)

INT64: Final = (-(1 << 63), (1 << 63) - 1)
_ATOI: Final = re.compile(r"[+-]?[0-9]+")  # strconv.Atoi; [0-9] is ASCII only, unlike \d


def atoi(value: Any) -> int | None:
    """``value`` as Go's ``strconv.Atoi`` reads it (ASCII digits, optional sign, int64), else None. A YAML
    integer (not a boolean) is taken as its decimal text."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _ATOI.fullmatch(value) and len(value.lstrip("+-").lstrip("0")) <= 19:
        number = int(value)  # at most 19 significant digits: int() never sees a 100,000-digit string
    else:
        return None
    return number if INT64[0] <= number <= INT64[1] else None


def file_path(obj: Any) -> str | None:
    """The file an item comes from (path annotation, internal form first); None when unset."""
    ann = annotations_of(obj)
    path = ann.get(ANN_PATH) or ann.get(ANN_LEGACY_PATH)
    return path if isinstance(path, str) and path and "\0" not in path else None


def origin_path(obj: Any) -> str | None:
    """The file kustomize's origin annotation names (its ``path:`` line; kustomize writes it for
    ``buildMetadata: [originAnnotations]``, and hands it to a legacy exec plugin), None when there is none."""
    value = annotations_of(obj).get(ANN_ORIGIN)
    for line in value.splitlines() if isinstance(value, str) else ():
        key, colon, rest = line.partition(":")
        if colon and key == "path":
            path = rest.strip().strip("'\"")
            return path if path and "\0" not in path else None
    return None


def file_index(obj: Any) -> int | None:
    """The item's index in its file (index annotation, internal form first); None when unset or invalid."""
    ann = annotations_of(obj)
    raw = ann.get(ANN_INDEX, ann.get(ANN_LEGACY_INDEX))
    return atoi(raw) if raw not in (None, "") else None


class IndexAllocator:
    """The path/index annotations of objects we add to kpt's files: each file's next free index, after every
    index the objects given at the start already take there (whatever their order), then one per object added."""

    __slots__ = ("_next",)

    def __init__(self, objs: Iterable[Any]) -> None:
        next_index: dict[str, int] = {}
        for obj in objs:
            path = file_path(obj)
            if path:
                next_index[path] = max(next_index.get(path, 0), (file_index(obj) or 0) + 1)
        self._next = next_index

    def place(self, path: str) -> dict[str, str]:
        """The annotations of the next object written to ``path`` (a new dict each time)."""
        idx = self._next.get(path, 0)
        self._next[path] = idx + 1
        return {ANN_PATH: path, ANN_INDEX: str(idx)}


def problems(obj: Obj, keys: tuple[str, ...] = PATH_ANNOTATIONS + INDEX_ANNOTATIONS) -> list[tuple[str, str]]:
    """(field path, message) for each annotation of ``keys`` on ``obj`` that kpt could not read, and for
    ``metadata.annotations`` itself when it is not a mapping. Runs on every item: the usual values (a path, a
    short decimal index) are told apart without a regular expression."""
    md = obj.get("metadata")
    if not isinstance(md, dict):
        return []  # the reader refuses an item without metadata.name; a functionConfig is checked by config.py
    ann = md.get("annotations")
    if ann is None:
        return []
    if not isinstance(ann, dict):
        return [("metadata.annotations", f"must be a mapping, got {shown(ann)}")]
    found: list[tuple[str, str]] = []
    for key in keys:
        value = ann.get(key)
        if value is None or value == "":
            continue  # unset: kyaml reads an empty annotation so, and Go decodes a null string as ""
        if key in INDEX_ANNOTATIONS:
            if (value.isdigit() and value.isascii() and len(value) < 19) if isinstance(value, str) else False:
                continue
            problem = None if atoi(value) is not None else \
                f"must be an integer index (ASCII digits, as kpt reads it), got {shown(value)}"
        elif isinstance(value, str):
            problem = f"must not contain a NUL character, got {shown(value)}" if "\0" in value else None
        else:
            problem = f"must be a string, got {shown(value)}"
        if problem is not None:
            found.append((dotted(("metadata", "annotations", key)), problem))
    return found
