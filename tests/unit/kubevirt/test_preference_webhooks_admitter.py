"""The preference validating webhook (``krm_fn.kubevirt.preference.webhooks.admitter``).

Expected texts are upstream's, ``pkg/instancetype/preference/webhooks/admitter.go``: ``"unknown
preferredCPUTopology %s"``, ``"across %s is not supported"``, ``"only a ratio of 2 (1 core 2 threads) is allowed
when spreading vCPUs over cores and threads"`` and the warning ``"PreferredCPUTopology %s is deprecated for removal
in a future release, please use %s instead"``, with the fields of its ``admitter_test.go``
(``spec.cpu.preferredCPUTopology``, ``spec.cpu.spreadOptions.across``, ``spec.cpu.spreadOptions.ratio``). The
supported topologies are the v1beta1 constants (``staging/src/kubevirt.io/api/instancetype/v1beta1/types.go``),
the deprecated ``prefer*`` names included (they are warned about, so they are admitted).
"""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kube.status import DEPRECATED, INVALID, Cause
from krm_fn.kubevirt.preference.webhooks.admitter import admit, validate_spec

TOPOLOGY = "spec.cpu.preferredCPUTopology"
ACROSS = "spec.cpu.spreadOptions.across"
RATIO = "spec.cpu.spreadOptions.ratio"
RATIO_ERROR = "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores and threads"
RENAMED = {"preferSockets": "sockets", "preferCores": "cores", "preferThreads": "threads",
              "preferSpread": "spread", "preferAny": "any"}


def answered(spec: Any) -> list[Cause]:
    """The webhook's answer as one list: its causes (refused) or its warnings (admitted), each of its kind."""
    answer = admit(spec)
    assert all(c.type == INVALID for c in answer.causes) and all(w.type == DEPRECATED for w in answer.warnings)
    assert not (answer.causes and answer.warnings)
    return answer.causes + answer.warnings


def pref(topology: Any = None, legacy_ratio: Any = None, **spread: Any) -> dict[str, Any]:
    cpu: dict[str, Any] = {}
    if topology is not None:
        cpu["preferredCPUTopology"] = topology
    if spread:
        cpu["spreadOptions"] = spread
    out: dict[str, Any] = {"cpu": cpu}
    if legacy_ratio is not None:
        out["preferSpreadSocketToCoreRatio"] = legacy_ratio
    return out


def deprecation(old: str) -> Cause:
    return Cause(DEPRECATED, TOPOLOGY,
                   f"PreferredCPUTopology {old} is deprecated for removal in a future release, please use "
                   f"{RENAMED[old]} instead")


@pytest.mark.parametrize("topology", ["sockets", "cores", "threads", "spread", "any"])
def test_current_topologies_are_admitted_silently(topology: str) -> None:
    assert answered(pref(topology)) == []


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_each_deprecated_topology_is_admitted_with_a_warning(old: str) -> None:
    assert validate_spec(pref(old)) == []
    assert answered(pref(old)) == [deprecation(old)]


@pytest.mark.parametrize("topology", ["bogus", "Spread", "SOCKETS", "", "prefer-spread"])
def test_unknown_topology(topology: str) -> None:
    assert answered(pref(topology)) == [Cause(INVALID, TOPOLOGY, f"unknown preferredCPUTopology {topology}")]


@pytest.mark.parametrize("topology", ["spread", "preferSpread"])
@pytest.mark.parametrize("across", ["Nowhere", "foobar", "socketscores", ""])
def test_unsupported_across_with_a_spread_topology(topology: str, across: str) -> None:
    # upstream's test sets preferSpreadSocketToCoreRatio 3 as well: the across check comes first and returns
    expected = [Cause(INVALID, ACROSS, f"across {across} is not supported")]
    assert answered(pref(topology, legacy_ratio=3, across=across)) == expected
    assert answered(pref(topology, across=across, ratio=3)) == expected


@pytest.mark.parametrize("topology", ["sockets", "cores", "threads", "any", "preferCores"])
def test_spread_options_are_not_checked_without_a_spread_topology(topology: str) -> None:
    assert validate_spec(pref(topology, across="Nowhere", ratio=7)) == []
    assert validate_spec(pref(topology, legacy_ratio=3, across="CoresThreads")) == []


@pytest.mark.parametrize("topology", ["spread", "preferSpread"])
@pytest.mark.parametrize(("legacy", "spread", "refused"), [
    pytest.param(None, {"ratio": 3}, True, id="spreadOptions.ratio-3"),
    pytest.param(3, {}, True, id="preferSpreadSocketToCoreRatio-3"),
    pytest.param(4, {"ratio": 2}, False, id="spreadOptions.ratio-2-wins-over-legacy-4"),
    pytest.param(2, {"ratio": 3}, True, id="spreadOptions.ratio-3-wins-over-legacy-2"),
    pytest.param(None, {"ratio": 2}, False, id="ratio-2"),
    pytest.param(2, {}, False, id="legacy-2"),
    pytest.param(None, {}, False, id="default-ratio-2"),
    pytest.param(0, {}, False, id="legacy-0-means-unset"),
    pytest.param(None, {"ratio": 0}, True, id="spreadOptions.ratio-0"),
    pytest.param(None, {"ratio": 1}, True, id="ratio-1"),
    pytest.param(3, {"ratio": None}, True, id="null-ratio-keeps-legacy"),
])
def test_cores_threads_takes_only_an_effective_ratio_of_2(topology: str, legacy: Any, spread: dict[str, Any],
                                                          refused: bool) -> None:
    got = answered(pref(topology, legacy_ratio=legacy, across="CoresThreads", **spread))
    if refused:
        assert got == [Cause(INVALID, RATIO, RATIO_ERROR)]
    else:
        assert got == ([deprecation(topology)] if topology in RENAMED else [])


@pytest.mark.parametrize("across", ["SocketsCores", "SocketsCoresThreads", None])
@pytest.mark.parametrize("ratio", [0, 1, 3, 4])
def test_other_across_values_take_any_ratio(across: Any, ratio: int) -> None:
    """Only CoresThreads limits the ratio (ratio 0 included: the webhook does not check it; the VM admission's
    spread check refuses what it cannot divide, ``krm_fn.kubevirt.preference.validation``)."""
    assert answered(pref("spread", across=across, ratio=ratio)) == []
    assert answered(pref("spread", legacy_ratio=ratio, across=across)) == []


def test_a_refused_preference_gets_no_warning() -> None:
    assert answered(pref("preferSpread", across="Nowhere")) == [
        Cause(INVALID, ACROSS, "across Nowhere is not supported")]


@pytest.mark.parametrize("value", [
    None, 3, "x", [], {"cpu": None}, {"cpu": []}, {"cpu": {"preferredCPUTopology": 5}},
    {"cpu": {"preferredCPUTopology": None}}, pref("spread", legacy_ratio="3", across="CoresThreads"),
    pref("spread", across=5), pref("spread", across="CoresThreads", ratio="3"),
    pref("spread", across="CoresThreads", ratio=2.5), {"cpu": {"preferredCPUTopology": "spread", "spreadOptions": []}},
    pref("spread", legacy_ratio=True, across="CoresThreads"),
])
def test_values_go_cannot_decode_never_raise_and_are_left_to_the_schema(value: Any) -> None:
    assert answered(value) == []
