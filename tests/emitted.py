"""One YAML document as the function writes it (``krm_fn.io.emitter.Emitter``), for tests that build inputs."""

from __future__ import annotations

from typing import Any

from krm_fn.io.emitter import Emitter


def dump(value: Any) -> str:
    """One YAML document for ``value``."""
    e = Emitter()
    e.document(value)
    return e.text()
