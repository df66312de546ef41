"""The builtin catalogs' YAML, parsed ahead of time: a start-up shortcut, never a second source.

Reading ``catalog/common-instancetypes.yaml`` with PyYAML's constructor (:mod:`krm_fn.catalog.yamlsrc`) is
about a third of a generator run's own work. ``krm_fn/catalog/parsed/NAME.json`` holds what that read returns,
next to the exact source text it was made from: it is used only while the builtin's text is that text, so an
edited catalog is parsed afresh (and ``tests/unit/catalog/test_precomputed.py`` fails until
``python tools/gen_parsed_catalogs.py`` is run). Only the parse is stored: checking, resolving and generating
still run on every run. The test also proves each stored form equal to a fresh parse, types and key order
included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PARSED_DIR = Path(__file__).resolve().parent / "parsed"


def load(name: str, text: str) -> tuple[Any, list[Any]] | None:
    """What ``yamlsrc.load(text)`` returns for the builtin ``name`` (no problems), or None when nothing was
    stored for exactly ``text``."""
    try:
        stored = json.loads((PARSED_DIR / f"{name}.json").read_bytes())
    except (OSError, ValueError):  # not shipped, unreadable: the YAML is read as usual
        return None
    if type(stored) is not dict or stored.get("source") != text or "data" not in stored:
        return None
    return stored["data"], []


def build(text: str) -> str:
    """The stored form for a builtin catalog's ``text`` (``tools/gen_parsed_catalogs.py``); ValueError when the
    text has problems or its value does not survive JSON exactly."""
    from krm_fn.catalog import yamlsrc
    from krm_fn.io.verify import same

    data, problems = yamlsrc.load(text)
    if problems:
        raise ValueError(f"the catalog has problems: {problems}")
    try:
        out = json.dumps({"source": text, "data": data}, ensure_ascii=False, indent=1) + "\n"
    except TypeError:  # a value JSON has no type for (a timestamp)
        out = ""
    if not out or not same(json.loads(out)["data"], data):
        raise ValueError("the catalog's value does not survive JSON exactly")
    return out
