"""The conformance corpus per KubeVirt release (``shared/conformance-releases/<tag>``): the 201 inputs of
``shared/conformance``, each answered as that release's own code answers it, through the renderer with
``kubevirtVersion`` set to the release's line. The same checks as :mod:`tests.test_conformance` (its helpers):
expand mode (engine API and bytes through ``process``), the store's revisions, and expand mode again from the
revisions mode's pins. The corpus's instancetypes and preferences are objects the cluster holds, so they are
given as the release's API server stored them (``engine_support.as_stored``: fields it does not know pruned).

The releases' expectations omit ``creationTimestamp: null`` (the harness dropped what the apimachinery of v1.7
and older writes for a zero timestamp, ``shared/conformance-releases/README.md``), so they compare as main's do.

Run: ``pytest tests/test_conformance_releases.py`` (``-k v1.5`` for one release).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from krm_fn.kubevirt_versions import RELEASES, KubevirtVersion
from tests.engine_support import case_dirs, load_case, release_dir, rendered
from tests.engine_support import check_expand, check_pinned_round_trip, check_process, check_revisions

# the older release lines and the upstream tag each reproduces; v1.9 and v1.10 answer as main (test_conformance)
VERSIONS: tuple[KubevirtVersion, ...] = ("v1.8", "v1.7", "v1.6", "v1.5")
CASES = case_dirs()
PARAMS = [pytest.param(v, p, id=f"{v}-{p.name}") for v in VERSIONS for p in CASES]


def test_the_release_expectations_are_present() -> None:
    """Every older release has its answers for every input (skipped locally without the corpus, a failure in CI)."""
    if not CASES:
        if os.environ.get("CI") == "true":
            pytest.fail("conformance corpus not found: set KUBEVIRT_KRM_SHARED or provide ../shared")
        pytest.skip("conformance corpus (../shared/conformance) not available: set KUBEVIRT_KRM_SHARED")
    for version in VERSIONS:
        cases = release_dir(RELEASES[version].tag) / "cases"
        assert sorted(p.name for p in cases.iterdir()) == [p.name for p in CASES], version


@pytest.mark.parametrize(("version", "path"), PARAMS)
def test_expand(version: KubevirtVersion, path: Path) -> None:
    problems = check_expand(rendered(path, "expand", version))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("version", "path"), PARAMS)
def test_expand_through_process(version: KubevirtVersion, path: Path) -> None:
    problems = check_process(load_case(path, RELEASES[version].tag), version)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("version", "path"), PARAMS)
def test_revisions(version: KubevirtVersion, path: Path) -> None:
    problems = check_revisions(load_case(path, RELEASES[version].tag), version)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("version", "path"), PARAMS)
def test_expand_from_pinned_revisions(version: KubevirtVersion, path: Path) -> None:
    problems = check_pinned_round_trip(rendered(path, "revisions", version), version)
    assert not problems, "\n".join(problems)
