"""The guest topology table (upstream ``apply/cpu_test.go`` entries plus the documented edge cases).
Order: (sockets, cores, threads)."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kubevirt.topology import guest_topology, preferred_topology, spread_options


def _spread(ratio: int | None = None, across: str | None = None, legacy: int | None = None,
            topology: str = "spread") -> dict[str, Any]:
    pref: dict[str, Any] = {"cpu": {"preferredCPUTopology": topology}}
    opts: dict[str, Any] = {}
    if ratio is not None:
        opts["ratio"] = ratio
    if across is not None:
        opts["across"] = across
    if opts:
        pref["cpu"]["spreadOptions"] = opts
    if legacy is not None:
        pref["preferSpreadSocketToCoreRatio"] = legacy
    return pref


CASES = [
    # default spread: ratio 2 across SocketsCores
    *[pytest.param(v, _spread(), e, id=f"spread default {v} vCPUs") for v, e in
      [(1, (1, 1, 1)), (2, (1, 2, 1)), (4, (2, 2, 1)), (6, (3, 2, 1)), (8, (4, 2, 1))]],
    *[pytest.param(v, _spread(3), e, id=f"spread across SocketsCores ratio 1:3, {v} vCPUs") for v, e in
      [(3, (1, 3, 1)), (6, (2, 3, 1)), (9, (3, 3, 1)), (12, (4, 3, 1))]],
    *[pytest.param(v, _spread(4), e, id=f"spread across SocketsCores ratio 1:4, {v} vCPUs") for v, e in
      [(4, (1, 4, 1)), (8, (2, 4, 1)), (12, (3, 4, 1)), (16, (4, 4, 1))]],
    *[pytest.param(v, _spread(2, "SocketsCoresThreads"), e, id=f"SocketsCoresThreads 1:2:2, {v} vCPUs")
      for v, e in [(4, (1, 2, 2)), (8, (2, 2, 2)), (12, (3, 2, 2)), (16, (4, 2, 2))]],
    *[pytest.param(v, _spread(3, "SocketsCoresThreads"), e, id=f"SocketsCoresThreads 1:3:2, {v} vCPUs")
      for v, e in [(6, (1, 3, 2)), (12, (2, 3, 2)), (18, (3, 3, 2)), (24, (4, 3, 2))]],
    *[pytest.param(v, _spread(4, "SocketsCoresThreads"), e, id=f"SocketsCoresThreads 1:4:2, {v} vCPUs")
      for v, e in [(8, (1, 4, 2)), (16, (2, 4, 2)), (24, (3, 4, 2)), (36, (4, 4, 2))]],
    *[pytest.param(v, _spread(across="CoresThreads"), e, id=f"CoresThreads, {v} vCPUs")
      for v, e in [(2, (1, 1, 2)), (4, (1, 2, 2)), (6, (1, 3, 2)), (8, (1, 4, 2))]],
    pytest.param(2, {"cpu": {"preferredCPUTopology": "sockets"}}, (2, 1, 1), id="sockets"),
    pytest.param(2, {"cpu": {"preferredCPUTopology": "cores"}}, (1, 2, 1), id="cores"),
    pytest.param(2, {"cpu": {"preferredCPUTopology": "threads"}}, (1, 1, 2), id="threads"),
    pytest.param(2, {"cpu": {"preferredCPUTopology": "any"}}, (2, 1, 1), id="any behaves like sockets"),
    pytest.param(4, {"cpu": {"preferredCPUTopology": "preferCores"}}, (1, 4, 1), id="deprecated preferCores"),
    pytest.param(4, {"cpu": {"preferredCPUTopology": "preferThreads"}}, (1, 1, 4), id="deprecated preferThreads"),
    pytest.param(4, {"cpu": {"preferredCPUTopology": "preferAny"}}, (4, 1, 1), id="deprecated preferAny"),
    pytest.param(4, {"cpu": {"preferredCPUTopology": "preferSockets"}}, (4, 1, 1), id="deprecated preferSockets"),
    pytest.param(6, _spread(topology="preferSpread"), (3, 2, 1), id="deprecated preferSpread"),
    pytest.param(6, None, (6, 1, 1), id="no preference: sockets"),
    pytest.param(6, {}, (6, 1, 1), id="preference without cpu: sockets"),
    pytest.param(1, {"cpu": {"preferredCPUTopology": "cores"}}, (1, 1, 1), id="1 vCPU is always 1:1:1"),
    pytest.param(0, {"cpu": {"preferredCPUTopology": "sockets"}}, (0, 1, 1), id="0 vCPUs is not special-cased"),
    pytest.param(3, _spread(), (1, 2, 1), id="non-divisible spread silently drops vCPUs"),
    pytest.param(6, _spread(2, "SocketsCoresThreads"), (1, 2, 2), id="SocketsCoresThreads 6 vCPUs drops two"),
    pytest.param(2, _spread(3), (0, 3, 1), id="ratio above vCPUs gives 0 sockets"),
    pytest.param(6, _spread(legacy=3), (2, 3, 1), id="legacy preferSpreadSocketToCoreRatio"),
    pytest.param(12, _spread(2, legacy=3), (6, 2, 1), id="spreadOptions.ratio wins over the legacy ratio"),
    pytest.param(12, _spread(legacy=3, across="SocketsCoresThreads"), (2, 3, 2), id="legacy ratio with across"),
    pytest.param(4, {"cpu": {"preferredCPUTopology": "diagonal"}}, (1, 1, 1), id="unknown topology: 1/1/1"),
    pytest.param(4, _spread(across="Diagonal"), (1, 1, 1), id="unknown across: 1/1/1"),
]


@pytest.mark.parametrize(("vcpus", "pref", "expected"), CASES)
def test_guest_topology(vcpus: int, pref: dict[str, Any] | None, expected: tuple[int, int, int]) -> None:
    assert guest_topology(vcpus, pref) == expected


def test_ratio_zero_is_a_division_by_zero() -> None:
    with pytest.raises(ZeroDivisionError):
        guest_topology(4, _spread(0))


def test_defaults() -> None:
    assert preferred_topology(None) == "sockets"
    assert spread_options({}) == (2, "SocketsCores")
    assert spread_options(_spread(0)) == (0, "SocketsCores")
