"""What the YAML loader returns, apart from the loader: importing :mod:`krm_fn.io.loader` imports PyYAML
(~12 ms), which a run that reads no YAML with it (a generator's config read by the yaml-rs lane, an empty
stream) never needs. :mod:`krm_fn.io.loader` re-exports these names."""

from __future__ import annotations

from typing import Any

from krm_fn.errors import InputError

MAX_DEPTH = 1000
MAX_ALIAS_NODES = 1_000_000


class YAMLSyntaxError(InputError):
    """The text is not YAML; ``index``: where the parser stopped (a reader trying JSON first compares it)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


class Document:
    """One YAML document: its value, and the source spans of the children we were asked to track. (A plain
    class: a dataclass costs ten times as much to define, at the start-up of every run.)"""

    __slots__ = ("value", "start", "end", "column", "spans")

    def __init__(self, value: Any, start: int, end: int, column: int,
                 spans: dict[int, tuple[int, int, int]] | None = None) -> None:
        self.value = value
        self.start = start  # source span of the root node (index, end index, column)
        self.end = end
        self.column = column
        # id(child) -> (start, end, column) for tracked children (the items of a ResourceList)
        self.spans: dict[int, tuple[int, int, int]] = {} if spans is None else spans

    def __repr__(self) -> str:
        return f"Document({self.value!r}, {self.start}, {self.end}, {self.column}, {self.spans!r})"
