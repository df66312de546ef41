"""The randomised tests' seed (``tests/randomised.py``): fresh per run, handed to hypothesis, replayable from one
environment variable; the quick and deep counts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import core, given, settings
from hypothesis import strategies as st

from tests import randomised
from tests.builders import REPO


def test_hypothesis_draws_from_the_runs_seed() -> None:
    assert core.global_force_seed == randomised.SEED
    assert os.environ[randomised.SEED_VARIABLE] == str(randomised.SEED)  # xdist workers and subprocesses


def test_the_same_seed_draws_the_same_examples() -> None:
    drawn: list[list[int]] = []

    @settings(max_examples=20, database=None)
    @given(st.lists(st.integers()))
    def record(values: list[int]) -> None:
        drawn[-1].append(sum(values))

    for _ in range(2):
        drawn.append([])
        record()
    assert drawn[0] == drawn[1] and len(set(drawn[0])) > 1


def _seed_in_a_new_run(value: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != randomised.SEED_VARIABLE}
    if value is not None:
        env[randomised.SEED_VARIABLE] = value
    code = "import os; from tests import randomised; print(randomised.SEED, os.environ['KUBEVIRT_KRM_SEED'])"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=60)


def test_a_new_run_draws_a_fresh_seed_unless_one_is_given() -> None:
    fresh = {_seed_in_a_new_run(None).stdout for _ in range(3)}
    assert len(fresh) > 1, fresh
    assert all(len(set(line.split())) == 1 for line in fresh)  # the drawn seed is exported
    assert _seed_in_a_new_run("1234").stdout.split() == ["1234", "1234"]
    bad = _seed_in_a_new_run("seven")
    assert bad.returncode != 0 and "expected a non-negative integer" in bad.stderr


def test_quick_and_deep_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(randomised, "DEEP", False)
    assert randomised.count(20, 200) == 20
    monkeypatch.setattr(randomised, "DEEP", True)
    assert randomised.count(20, 200) == 200
    monkeypatch.setenv("KUBEVIRT_KRM_TEST_COUNT", "7")
    assert randomised.count(20, 200, "KUBEVIRT_KRM_TEST_COUNT") == 7
    assert "seed" in randomised.describe() and str(randomised.SEED) in randomised.describe()
