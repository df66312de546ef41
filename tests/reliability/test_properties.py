"""Property tests: random well-formed VMs, instancetypes, preferences (from the schema) and unowned items with
tricky scalars, through ``krm_fn.process.process(bytes)``.

For every input: no exception; every input item is in the output (same apiVersion/kind/namespace/name, in
order, annotations intact, unowned items unchanged); every object we generated or changed is strictly valid
(``validateOutput``); the output is byte-identical when run twice; rendering the output again (results
stripped, as kpt does) changes nothing. A small sample (every KubeVirt release) is also checked across
interpreters with different ``PYTHONHASHSEED``; every release on its own: ``test_releases.py``.

Examples per property: ``$KUBEVIRT_KRM_HYPOTHESIS_EXAMPLES`` (default 200, 2,000 with ``KUBEVIRT_KRM_DEEP=1``;
new ones every run, from the run's seed: ``KUBEVIRT_KRM_SEED=N`` replays them, see ``tests/randomised.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from krm_fn.kubevirt_versions import RELEASES
from krm_fn.process import process
from tests.builders import REPO
from tests.reliability.strategies import (
    SEEDS,
    Draw,
    item_lists,
    unowned_lists,
)
from tests.reliability.support import (
    MODES,
    PROPERTY,
    WRONG_VALUES,
    check_invariants,
    confused_items,
    renderer,
    resource_list,
)

pytestmark = [pytest.mark.reliability, pytest.mark.usefixtures("fast_builtin_catalog")]


@PROPERTY
@given(items=item_lists(), mode=st.sampled_from(MODES), shared=st.booleans())
def test_render_properties(items: list[dict[str, Any]], mode: str, shared: bool) -> None:
    spec: dict[str, Any] = {"validateOutput": True}
    if shared:
        spec["revisions"] = {"scope": "shared"}
    check_invariants(items, renderer(mode, **spec))


@PROPERTY
@given(items=unowned_lists(), mode=st.sampled_from(MODES + ("validate",)))
def test_unowned_items_pass_through_byte_for_byte(items: list[dict[str, Any]], mode: str) -> None:
    """Items that are not ours come back exactly as they went in, whatever their scalars look like."""
    data = resource_list(items, renderer(mode, validateOutput=True))
    out = process(data)
    assert out.exit_code == 0 and not out.results
    assert out.data == data


@st.composite
def confused_vms(draw: st.DrawFn) -> tuple[list[dict[str, Any]], tuple[Any, ...]]:
    items = draw(item_lists(vms=(1, 2)))
    rnd = random.Random(draw(SEEDS))
    return confused_items(rnd, items, draw(WRONG_VALUES))


@PROPERTY
@given(case=confused_vms(), mode=st.sampled_from(MODES))
def test_wrong_types_in_a_vm_spec_never_crash(case: tuple[list[dict[str, Any]], tuple[Any, ...]], mode: str) -> None:
    items, _path = case
    check_invariants(items, renderer(mode, validateOutput=True), invalid_output_ok=True)


# --- determinism across interpreters (hash randomisation) -----------------------------------------------------
_CHILD = """
import hashlib, json, sys
from krm_fn.process import Output, process
print(json.dumps([hashlib.sha256(process(bytes.fromhex(h)).data).hexdigest() for h in json.load(sys.stdin)]))
"""


def test_output_does_not_depend_on_the_hash_seed() -> None:
    rnd = random.Random(8)
    inputs = []
    for seed in range(24):
        values = [rnd.choice(("ünï ☃", "yes", "a: b", "0777", "multi\nline\n"))]
        version = list(RELEASES)[seed % len(RELEASES)]  # every release, its own API
        items = Draw(seed, values, ["k.x", "on"], RELEASES[version].tag).items((1, 3), 4, 3)
        mode = MODES[seed % 2]
        inputs.append(resource_list(items, renderer(mode, revisions={"scope": "shared" if seed % 3 else "per-vm"},
                                                    kubevirtVersion=version)))
    local = [hashlib.sha256(process(d).data).hexdigest() for d in inputs]
    payload = json.dumps([d.hex() for d in inputs])
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.run([sys.executable, "-c", _CHILD], input=payload, capture_output=True, text=True,
                              env=env, cwd=REPO, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == local, f"output differs with PYTHONHASHSEED={hash_seed}"
