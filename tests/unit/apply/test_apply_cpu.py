"""CPU from an instancetype, driven through ``apply_to_vmi`` (like upstream ``apply/cpu_test.go``)."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kubevirt.apply.vmi import VM_BASE, apply_to_vmi

BASE = "spec.template.spec."


def _apply(it_cpu: dict[str, Any], vmi: dict[str, Any], pref: dict[str, Any] | None = None) -> list[str]:
    it = {"cpu": {"guest": 4, **it_cpu}, "memory": {"guest": "1Gi"}}
    return [str(c) for c in apply_to_vmi(VM_BASE, it, pref, vmi, {})]


def test_writes_topology_and_cpu_fields() -> None:
    vmi: dict[str, Any] = {"domain": {"devices": {}}}
    it_cpu = {"model": "Haswell", "dedicatedCPUPlacement": True, "isolateEmulatorThread": True,
              "numa": {"guestMappingPassthrough": {}}, "realtime": {"mask": "0-3"}, "maxSockets": 8}
    assert _apply(it_cpu, vmi, {"cpu": {"preferredCPUTopology": "cores"}}) == []
    assert vmi["domain"]["cpu"] == {
        "model": "Haswell", "dedicatedCpuPlacement": True, "isolateEmulatorThread": True,
        "numa": {"guestMappingPassthrough": {}}, "realtime": {"mask": "0-3"}, "maxSockets": 8,
        "sockets": 1, "cores": 4, "threads": 1,
    }


def test_false_placement_is_written_and_empty_model_is_written() -> None:
    vmi: dict[str, Any] = {"domain": {}}
    assert _apply({"dedicatedCPUPlacement": False, "model": ""}, vmi) == []
    assert vmi["domain"]["cpu"]["dedicatedCpuPlacement"] is False
    assert vmi["domain"]["cpu"]["model"] == ""


def test_cpu_is_created_and_values_are_copies() -> None:
    it: dict[str, Any] = {"cpu": {"guest": 2, "numa": {"guestMappingPassthrough": {}}}, "memory": {"guest": "1Gi"}}
    vmi: dict[str, Any] = {"domain": {}}
    apply_to_vmi(VM_BASE, it, None, vmi, {})
    assert vmi["domain"]["cpu"]["numa"] == it["cpu"]["numa"]
    assert vmi["domain"]["cpu"]["numa"] is not it["cpu"]["numa"]


@pytest.mark.parametrize(("vmi", "it_cpu", "conflicts"), [
    pytest.param({"domain": {"resources": {"requests": {"cpu": "1"}}}}, {}, ["domain.resources.requests.cpu"],
                 id="requests.cpu"),
    pytest.param({"domain": {"resources": {"limits": {"cpu": "1"}}}}, {}, ["domain.resources.limits.cpu"],
                 id="limits.cpu"),
    pytest.param({"domain": {"cpu": {"sockets": 1}}}, {}, ["domain.cpu.sockets"], id="sockets"),
    pytest.param({"domain": {"cpu": {"cores": 1}}}, {}, ["domain.cpu.cores"], id="cores"),
    pytest.param({"domain": {"cpu": {"threads": 1}}}, {}, ["domain.cpu.threads"], id="threads"),
    pytest.param({"domain": {"cpu": {"sockets": 0, "cores": 0}}}, {}, [], id="zero topology is unset"),
    pytest.param({"domain": {"cpu": {"model": "host-model"}}}, {"model": "Haswell"}, ["domain.cpu.model"],
                 id="model set on both"),
    pytest.param({"domain": {"cpu": {"model": "host-model"}}}, {}, [], id="model only on the VM"),
    pytest.param({"domain": {"cpu": {"dedicatedCpuPlacement": True}}}, {"dedicatedCPUPlacement": False},
                 ["domain.cpu.dedicatedCPUPlacement"], id="dedicated true vs any instancetype value"),
    pytest.param({"domain": {"cpu": {"dedicatedCpuPlacement": False}}}, {"dedicatedCPUPlacement": True}, [],
                 id="dedicated false on the VM is unset"),
    pytest.param({"domain": {"cpu": {"isolateEmulatorThread": True}}}, {"isolateEmulatorThread": True},
                 ["domain.cpu.isolateEmulatorThread"], id="isolateEmulatorThread"),
    pytest.param({"domain": {"cpu": {"numa": {}}}}, {"numa": {}}, ["domain.cpu.numa"], id="numa on both"),
    pytest.param({"domain": {"cpu": {"realtime": {}}}}, {"realtime": {"mask": "0"}}, ["domain.cpu.realtime"],
                 id="realtime on both"),
    pytest.param({"domain": {"cpu": {"maxSockets": 2}}}, {"maxSockets": 8}, [], id="maxSockets never conflicts"),
    pytest.param({"domain": {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}},
                             "cpu": {"sockets": 1, "cores": 1, "threads": 1, "model": "a"}}}, {"model": "b"},
                 ["domain.resources.requests.cpu", "domain.resources.limits.cpu", "domain.cpu.sockets",
                  "domain.cpu.cores", "domain.cpu.threads", "domain.cpu.model"], id="all collected, in order"),
])
def test_conflicts(vmi: dict[str, Any], it_cpu: dict[str, Any], conflicts: list[str]) -> None:
    assert _apply(it_cpu, vmi) == [BASE + c for c in conflicts]


def test_max_sockets_overwrites_silently() -> None:
    vmi: dict[str, Any] = {"domain": {"cpu": {"maxSockets": 2}}}
    assert _apply({"maxSockets": 8}, vmi) == []
    assert vmi["domain"]["cpu"]["maxSockets"] == 8


def test_nothing_cpu_related_is_written_on_a_conflict() -> None:
    vmi: dict[str, Any] = {"domain": {"cpu": {"sockets": 2}}}
    _apply({"model": "Haswell"}, vmi)
    assert vmi["domain"]["cpu"] == {"sockets": 2}
