"""The randomised tests' seed and budget: one seed per run, and a quick or a deep count of cases.

Every run draws a fresh seed (printed in the pytest header and summary); ``KUBEVIRT_KRM_SEED=N`` replays a
run's examples exactly. The seed goes into the environment, so pytest-xdist workers and subprocesses share it.
The default counts are sized for the README's ``pytest -q``; ``KUBEVIRT_KRM_DEEP=1`` runs the deep counts
(the counts every run used before, ten times the default for the slow fuzzers).
"""

from __future__ import annotations

import os
import random
import re
import secrets

SEED_VARIABLE = "KUBEVIRT_KRM_SEED"
DEEP_VARIABLE = "KUBEVIRT_KRM_DEEP"


def _run_seed() -> int:
    """``$KUBEVIRT_KRM_SEED``, else a fresh 32-bit seed; exported so every worker of the run uses the same."""
    text = os.environ.get(SEED_VARIABLE, "").strip()
    if not text:
        seed = secrets.randbits(32)
    elif text.isdigit():
        seed = int(text)
    else:
        raise ValueError(f"{SEED_VARIABLE}={text!r}: expected a non-negative integer (the seed a run printed)")
    os.environ[SEED_VARIABLE] = str(seed)
    return seed


SEED = _run_seed()
DEEP = os.environ.get(DEEP_VARIABLE, "") not in ("", "0")


def count(quick: int, deep: int, variable: str | None = None) -> int:
    """How many cases a randomised test tries: ``$variable`` when set, else the deep or the quick count."""
    if variable and os.environ.get(variable):
        return int(os.environ[variable])
    return deep if DEEP else quick


def digits_drawn_again(rng: random.Random, text: str) -> str:
    """``text`` with about half of its ASCII digits drawn again (a text alike but for its digits: the splice
    locator's recalled answers, the read-back's told values)."""
    return re.sub("[0-9]", lambda m: rng.choice("0123456789") if rng.random() < 0.5 else m.group(), text)


def describe() -> str:
    """One line for the pytest header and summary: the seed, how to replay it, the budget."""
    budget = "deep counts" if DEEP else f"quick counts ({DEEP_VARIABLE}=1 for the deep ones)"
    return f"randomised tests: seed {SEED} (replay: {SEED_VARIABLE}={SEED}), {budget}"
