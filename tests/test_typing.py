"""The package and its tests are mypy --strict clean (both are configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.builders import REPO

pytestmark = pytest.mark.typing


def test_mypy_strict() -> None:
    pytest.importorskip("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
