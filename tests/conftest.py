"""Shared test fixtures: where ../shared lives, a runner for the installed console script, and the run's seed
for the randomised tests (``tests/randomised.py``) handed to hypothesis and printed in the header and summary."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

from tests import randomised

REPO = Path(__file__).resolve().parents[1]

try:
    from hypothesis import HealthCheck, settings
    from hypothesis.configuration import set_hypothesis_home_dir
except ImportError:  # a pytest without the test extra (.ci/container.sh's PYTHON) runs no hypothesis test
    pass
else:  # hypothesis' files (unicode tables, constants, example databases) go to the temp dir, not the repository
    set_hypothesis_home_dir(str(Path(tempfile.gettempdir()) / "kubevirt-krm-hypothesis"))
    # every property's default: how fast examples are drawn is the host's load (2 cores shared), not a finding;
    # a @settings of a test's own inherits this
    settings.register_profile("kubevirt-krm", suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("kubevirt-krm")


def bench_module(name: str) -> ModuleType:
    """A module of bench/: ``synth`` (the synthetic fleets) or ``run`` (the benchmark's renderer config)."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def shared_dir() -> Path:
    """``$KUBEVIRT_KRM_SHARED`` or the repo's sibling ``../shared``."""
    return Path(os.environ.get("KUBEVIRT_KRM_SHARED", REPO.parent / "shared"))


def require_shared(sub: str = "") -> Path:
    """The shared dir (or a sub path); skip when absent, except in CI where it must exist."""
    path = shared_dir() / sub
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing in CI (set KUBEVIRT_KRM_SHARED)")
        pytest.skip(f"{path} not found: the shared conformance/reference data is not in this clone "
                    "(set KUBEVIRT_KRM_SHARED to enable these tests)")
    return path


def fn_command() -> list[str]:
    exe = shutil.which("kubevirt-krm")
    return [exe] if exe else [sys.executable, "-m", "krm_fn"]


def run_fn(args: list[str], stdin: bytes | str = b"", env: dict[str, str] | None = None,
           cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}
    full_env.update(env or {})
    return subprocess.run(fn_command() + args, input=data, capture_output=True, env=full_env, cwd=cwd,
                          timeout=120)


def assert_clean_failure(proc: subprocess.CompletedProcess[bytes], message: str) -> None:
    """Exit 1, the message on stderr in one line, no traceback anywhere."""
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert message in err, err
    assert "Traceback" not in err and b"Traceback" not in proc.stdout
    assert len([line for line in err.splitlines() if line.strip()]) >= 1


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Every hypothesis test draws from the run's seed (hypothesis' own ``--hypothesis-seed`` wins if given)."""
    if config.getoption("hypothesis_seed", None) is None:
        config.option.hypothesis_seed = randomised.SEED


def pytest_report_header() -> str:
    return randomised.describe()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    terminalreporter.write_line(randomised.describe())
