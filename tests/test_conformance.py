"""The conformance corpus (``shared/conformance/cases``): one test per case, through ``render``. Each case is
parsed once and rendered once per mode per run (``engine_support.rendered``), whichever tests read it.

Missing corpus: skipped locally, a failure when ``CI=true``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.engine_support import case_dirs, load_case, rendered
from tests.engine_support import check_expand, check_pinned_round_trip, check_process, check_revisions

CASES = case_dirs()


def test_corpus_is_present() -> None:
    """Missing corpus: skipped locally, a failure in CI (``CI=true``)."""
    if not CASES:
        if os.environ.get("CI") == "true":
            pytest.fail("conformance corpus not found: set KUBEVIRT_KRM_SHARED or provide ../shared")
        pytest.skip("conformance corpus (../shared/conformance) not available: set KUBEVIRT_KRM_SHARED")


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_expand(path: Path) -> None:
    problems = check_expand(rendered(path, "expand"))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_revisions(path: Path) -> None:
    problems = check_revisions(load_case(path))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_expand_through_process(path: Path) -> None:
    problems = check_process(load_case(path))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_expand_from_pinned_revisions(path: Path) -> None:
    problems = check_pinned_round_trip(rendered(path, "revisions"))
    assert not problems, "\n".join(problems)
