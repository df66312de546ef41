"""Small typed checkers for catalog values (jsonschema ``_keywords`` style): each appends precise problems.

Every checker takes the value and its key path and returns the typed value, or ``None`` after recording
exactly one problem, so one mistake gives one error and never a cascade.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from krm_fn.catalog import quantity
from krm_fn.errors import shown, type_name
from krm_fn.kube.meta import is_dns_label, is_label_value, is_qualified_key, not_a_label_value
from krm_fn.kube.paths import FieldPath

Problems = list[tuple[FieldPath, str]]


class Checker:
    def __init__(self) -> None:
        self.problems: Problems = []

    def add(self, path: FieldPath, message: str) -> None:
        self.problems.append((path, message))

    # --- containers ------------------------------------------------------------------------------
    def mapping(self, value: Any, path: FieldPath, known: Collection[str],
                required: Collection[str] = ()) -> dict[str, Any] | None:
        """``value`` as a mapping with only ``known`` keys; unknown/missing keys are one problem each.

        Returns the mapping even when some keys are unknown (so the known ones are still checked), and
        ``None`` only when it is not a mapping at all; check :meth:`count` to see if anything was added.
        """
        if not isinstance(value, dict):
            self.add(path, f"must be a mapping, got {type_name(value)}")
            return None
        for key in value:
            if not isinstance(key, str):
                self.add(path, f"keys must be strings, got {type_name(key)} {shown(key)}")
            elif key not in known:
                self.add((*path, key), f"unknown key {shown(key)}{suggest(key, known)}")
        for key in required:
            if key not in value:
                self.add(path, f"missing required key {shown(key)}")
        return value

    def named_mapping(self, value: Any, path: FieldPath, what: str) -> dict[str, Any] | None:
        """A mapping from names (strings) to entries, e.g. ``series`` or ``preferences``."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.add(path, f"must be a mapping of {what} names to {what} definitions, got {type_name(value)}")
            return None
        ok = {}
        for key, entry in value.items():
            if not isinstance(key, str):
                self.add(path, f"{what} names must be strings, got {type_name(key)} {shown(key)}")
            else:
                ok[key] = entry
        return ok

    def list_of(self, value: Any, path: FieldPath) -> list[Any] | None:
        if not isinstance(value, list):
            self.add(path, f"must be a list, got {type_name(value)}")
            return None
        return value

    # --- scalars ---------------------------------------------------------------------------------
    def string(self, value: Any, path: FieldPath) -> str | None:
        if not isinstance(value, str):
            hint = " (quote it)" if isinstance(value, (bool, int, float)) else ""
            self.add(path, f"must be a string, got {type_name(value)}{hint}")
            return None
        return value

    def integer(self, value: Any, path: FieldPath, minimum: int, maximum: int | None = None) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"must be an integer, got {type_name(value)} {shown(value)}")
            return None
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            self.add(path, f"must be {bound}, got {value}")
            return None
        return value

    def boolean(self, value: Any, path: FieldPath) -> bool | None:
        if not isinstance(value, bool):
            self.add(path, f"must be true or false, got {type_name(value)} {shown(value)}")
            return None
        return value

    def quantity(self, value: Any, path: FieldPath) -> str | None:
        if not isinstance(value, str) or (parsed := quantity.parse(value)) is None or parsed <= 0:
            self.add(path, f"must be a positive memory quantity such as 4Gi, 512Mi or 512M, got {shown(value)}")
            return None
        return value

    def enum(self, value: Any, path: FieldPath, allowed: Collection[str]) -> str | None:
        if not isinstance(value, str) or value not in allowed:
            self.add(path, f"must be one of {', '.join(allowed)}; got {shown(value)}{suggest(value, allowed)}")
            return None
        return value

    def label_value(self, value: Any, path: FieldPath) -> str | None:
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        s = self.string(value, path)
        if s is not None and not is_label_value(s):
            self.add(path, not_a_label_value(s))
            return None
        return s

    def name(self, value: Any, path: FieldPath, what: str) -> str | None:
        s = self.string(value, path)
        if s is not None and not is_dns_label(s):
            self.add(path, f"{what} {shown(s)} must be lowercase letters, digits and '-' (a DNS label)")
            return None
        return s

    def string_map(self, value: Any, path: FieldPath, *, labels: bool) -> dict[str, str] | None:
        """Labels (keys and values checked) or annotations (keys checked, values any string)."""
        if not isinstance(value, dict):
            self.add(path, f"must be a mapping of strings, got {type_name(value)}")
            return None
        out: dict[str, str] = {}
        before = len(self.problems)
        for key, item in value.items():
            if not isinstance(key, str) or not is_qualified_key(key):
                self.add(path, f"{shown(key)} is not a valid {'label' if labels else 'annotation'} key")
                continue
            checked = self.label_value(item, (*path, key)) if labels else self.string(item, (*path, key))
            if checked is not None:
                out[key] = checked
        return out if len(self.problems) == before else None

    def string_list(self, value: Any, path: FieldPath) -> list[str] | None:
        items = self.list_of(value, path)
        if items is None:
            return None
        before = len(self.problems)
        out = [s for i, v in enumerate(items) if (s := self.string(v, (*path, i))) is not None]
        return out if len(self.problems) == before else None


def suggest(word: Any, known: Collection[str]) -> str:
    """``; did you mean 'memory'?`` when a close match exists, else the list of known keys."""
    if not isinstance(word, str):
        return ""
    import difflib  # only for a message (start-up time)

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {shown(close[0])}?"
    if len(known) <= 20:
        return f" (known: {', '.join(sorted(known))})"
    return ""
