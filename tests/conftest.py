"""The suite's hooks: the run's seed for the randomised tests (``tests/randomised.py``) is handed to hypothesis and
printed in the header and summary. Helpers the tests share are in ``tests/builders.py``."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests import randomised

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


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Every hypothesis test draws from the run's seed (hypothesis' own ``--hypothesis-seed`` wins if given)."""
    if config.getoption("hypothesis_seed", None) is None:
        config.option.hypothesis_seed = randomised.SEED


def pytest_report_header() -> str:
    return randomised.describe()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    terminalreporter.write_line(randomised.describe())
