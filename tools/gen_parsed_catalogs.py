#!/usr/bin/env python3
"""Regenerate ``krm_fn/catalog/parsed/NAME.json`` for every builtin catalog (``krm_fn/catalog/precomputed.py``).

Usage: ``python3 tools/gen_parsed_catalogs.py [--check]`` (``--check`` exits 1 when a stored form is stale).
Run it after editing ``catalog/*.yaml``; until then the edited catalog is parsed on every run (slower, same
output) and ``tests/unit/catalog/test_precomputed.py`` fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from krm_fn.catalog import precomputed  # noqa: E402
from krm_fn.catalog.spec import BUILTIN_DIR, builtin_names  # noqa: E402


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        print(__doc__, file=sys.stderr)
        return 2
    stale = []
    precomputed.PARSED_DIR.mkdir(exist_ok=True)
    wanted = {f"{name}.json" for name in builtin_names()}
    for name in builtin_names():
        out = precomputed.PARSED_DIR / f"{name}.json"
        text = precomputed.build((BUILTIN_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
        if out.exists() and out.read_text(encoding="utf-8") == text:
            continue
        stale.append(out.name)
        if not check:
            out.write_text(text, encoding="utf-8")
    for extra in sorted(p for p in precomputed.PARSED_DIR.glob("*.json") if p.name not in wanted):
        stale.append(extra.name)
        if not check:
            extra.unlink()
    if stale:
        print(("stale: " if check else "written: ") + ", ".join(stale))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
