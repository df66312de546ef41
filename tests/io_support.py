"""A text read as the stream modes read their inputs (``krm_fn.io.resourcelist.parse_sources``), for tests that
have the text rather than files: each part of a :class:`~krm_fn.io.inputs.Joined` text is one input."""

from __future__ import annotations

from krm_fn.io.inputs import Joined, Skipped, Source
from krm_fn.io.resourcelist import ResourceList, parse_sources

NAME = "stdin"  # what messages call a single input
NOTHING_SKIPPED = Skipped(frozenset(), frozenset())


def parse_stream(text: str) -> ResourceList:
    """``text`` as a stream of documents (``List`` objects and ResourceLists unwrapped), on the libyaml loader."""
    parts = [text[start:end] for start, end in text.parts] if isinstance(text, Joined) else [text]
    sources = [Source(NAME if len(parts) == 1 else f"part{i}", part.encode()) for i, part in enumerate(parts)]
    return parse_sources(sources, NOTHING_SKIPPED, fast=False)
