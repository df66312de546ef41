"""What the YAML loader returns, apart from the loader: importing :mod:`krm_fn.io.loader` imports PyYAML
(~12 ms), which a run that reads no YAML with it (a generator's config read by the yaml-rs lane, an empty
stream) never needs. :mod:`krm_fn.io.loader` re-exports these names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from krm_fn.errors import InputError

MAX_DEPTH = 1000
MAX_ALIAS_NODES = 1_000_000


class YAMLSyntaxError(InputError):
    """The text is not YAML; ``index``: where the parser stopped (a reader trying JSON first compares it)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


@dataclass(slots=True)
class Document:
    """One YAML document: its value, and the source spans of the children we were asked to track."""

    value: Any
    start: int  # source span of the root node (index, end index, column)
    end: int
    column: int
    # id(child) -> (start, end, column) for tracked children (the items of a ResourceList)
    spans: dict[int, tuple[int, int, int]] = field(default_factory=dict)
