"""Fixtures for the catalog tests: the shared reference dir, generated builtins, and a catalog writer."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.kube.paths import Obj

REPO = Path(__file__).resolve().parents[3]


def shared_dir() -> Path:
    """``$KUBEVIRT_KRM_SHARED`` or ``<repo>/../shared``; missing: skip locally, fail when ``CI=true``."""
    path = Path(os.environ.get("KUBEVIRT_KRM_SHARED") or REPO.parent / "shared")
    if not (path / "reference" / "common-instancetypes").is_dir():
        message = (f"shared reference data not found at {path} (set KUBEVIRT_KRM_SHARED to the directory "
                   "holding reference/common-instancetypes and schemas/)")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def shared() -> Path:
    return shared_dir()


@pytest.fixture(scope="session")
def common_objects() -> list[Obj]:
    return generate(CatalogSpec(), None)


@pytest.fixture(scope="session")
def classic_objects() -> list[Obj]:
    return generate(CatalogSpec(builtin="classic"), None)


@pytest.fixture
def write_catalog(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write ``text`` (dedented) as ``tmp_path/<name>``; returns the file path (base dir is ``tmp_path``)."""
    def write(text: str, name: str = "my.yaml") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path
    return write
