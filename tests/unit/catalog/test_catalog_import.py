"""Importing the package does no work: no YAML, no catalog parsing (CLI startup must stay fast)."""

from __future__ import annotations

import subprocess
import sys


def test_import_is_lazy() -> None:
    code = ("import sys, krm_fn.catalog, krm_fn.catalog.spec; "
            "print(sorted(m for m in sys.modules if m.startswith('krm_fn.catalog.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out) == ["krm_fn.catalog.spec"]
