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

from krm_fn.io.resourcelist import dump_resource_list, parse_resource_list
from krm_fn.process import Output, process
from krm_fn.index import is_vm
from krm_fn.kubevirt.schema.strict import covers
from krm_fn.kubevirt_versions import RELEASES
from tests.conftest import REPO
from tests.reliability.strategies import SEEDS, TRICKY_VALUES, Draw, item_lists, unowned_lists
from tests.reliability.support import PROPERTY, identity, parse, renderer, resource_list

pytestmark = [pytest.mark.reliability, pytest.mark.usefixtures("fast_builtin_catalog")]

MODES = ("revisions", "expand")


def _annotations(obj: dict[str, Any]) -> Any:
    return (obj.get("metadata") or {}).get("annotations")


def check_invariants(items: list[dict[str, Any]], fn_config: dict[str, Any],
                     invalid_output_ok: bool = False) -> Output:
    """Every invariant of one run; returns the run's output. ``invalid_output_ok``: the input is broken on
    purpose, so ``validateOutput`` error results are a correct answer (they still make exit 1)."""
    data = resource_list(items, fn_config)
    out = process(data)  # must not raise: the input is well-formed (or broken only inside a VM's spec)
    errors = [r for r in out.results if r.severity == "error"]
    assert out.exit_code == (1 if errors else 0)
    invalid = [r.summary() for r in out.results if ("stage", "output") in r.tags]
    assert invalid_output_ok or not invalid, "emitted objects that are not valid:\n" + "\n".join(invalid)

    before = parse(data)["items"] or []
    after = parse(out.data)["items"] or []
    assert [identity(o) for o in after[:len(before)]] == [identity(o) for o in before], "input items lost or moved"
    for a, b in zip(before, after):
        assert _annotations(a) == _annotations(b), f"annotations of {identity(a)} changed"
        if not is_vm(a):
            assert a == b, f"{identity(a)} is not ours but was changed"
    for extra in after[len(before):]:
        assert extra.get("kind") == "ControllerRevision", f"unexpected generated object {identity(extra)}"
        assert covers(extra)

    assert process(data).data == out.data, "output differs between two runs"

    rl = parse_resource_list(out.data.decode())
    again = dump_resource_list(rl, rl.items, []).encode()  # kpt drops the results between runs
    rl2 = parse_resource_list(process(again).data.decode())
    assert dump_resource_list(rl2, rl2.items, []).encode() == again, "rendering the output again changed it"
    return out


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


# --- wrong types anywhere in a VM's spec: an error result for that VM, never a crash ----------------------
_WRONG: tuple[Any, ...] = (None, True, 0, -1, 2.5, "", "two", "yes", [], [1], {}, {"x": 1}, "1Gi", 10**30)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(value[head], rest, new)
    return copy


WRONG_VALUES = st.one_of(st.sampled_from(_WRONG), TRICKY_VALUES)


def confused_items(rnd: random.Random, items: list[dict[str, Any]], wrong: Any) -> tuple[list[dict[str, Any]],
                                                                                        tuple[Any, ...]]:
    """``items`` with ``wrong`` put at a random path of the first VM's spec (``rnd`` picks it); the path."""
    at = next(i for i, o in enumerate(items) if o["kind"] == "VirtualMachine")
    path = rnd.choice(_paths(items[at]["spec"])[1:] or [()])
    items = list(items)
    items[at] = {**items[at], "spec": _replace(items[at]["spec"], path, wrong)}
    return items, path


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
