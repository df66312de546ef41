"""Exceptions that carry a path. Raised only when an object cannot be processed at all;
``process`` turns them into :class:`krm_fn.results.Result` per object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from krm_fn.kube.paths import FieldPath, dotted


class FnError(Exception):
    """An object (or the input) cannot be processed. ``path`` is relative to the object's root."""

    def __init__(self, message: str, path: FieldPath = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    @property
    def field_path(self) -> str | None:
        return dotted(self.path) if self.path else None


class InputError(FnError):
    """The input as a whole is unusable (malformed YAML, not a ResourceList, ...): exit 1, one line."""


class ConfigError(FnError):
    """functionConfig problems; ``problems`` holds every (path, message) found, reported at once."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p}: {m}" if p else m for p, m in problems))


def shown(value: object, limit: int = 80) -> str:
    """``repr(value)`` for a message, cut to ``limit`` characters: a hostile 1 MB value still gives one short,
    readable line (``repr`` also escapes control characters and lone surrogates)."""
    return cut(repr(value), limit)


# what a value is, in the words of the messages that say what it should be: YAML's for the catalog, JSON
# schema's for what we write (``kubevirt/schema/strict.py``), and YAML's with every number a "number" for the
# functionConfig
YAML_TYPES: Final[Mapping[type, str]] = {bool: "boolean", int: "integer", float: "number", str: "string",
                                         list: "list", dict: "mapping"}
JSON_TYPES: Final[Mapping[type, str]] = {dict: "object", list: "array", str: "string", bool: "boolean",
                                         int: "integer", float: "number"}
CONFIG_TYPES: Final[Mapping[type, str]] = {**YAML_TYPES, int: "number"}


def type_name(value: object, names: Mapping[type, str] = YAML_TYPES) -> str:
    """``null``, the name ``names`` gives the value's exact type, or the Python type's name."""
    if value is None:
        return "null"
    return names.get(type(value), type(value).__name__)


def cut(value: object, limit: int = 200) -> str:
    """``str(value)`` as it stands when short (KubeVirt's messages quote values verbatim), else cut so that it
    fits ``limit`` characters with a note of its length: a hostile value still gives one readable line."""
    text = str(value)
    if len(text) <= limit:
        return text
    note = f"… ({len(text)} characters)"
    return text[:max(limit - len(note), 0)] + note
