"""The remaining instancetype groups: nodeSelector, schedulerName, ioThreads(Policy), launchSecurity,
gpus, hostDevices, annotations; and the conflict messages (admission and expand wording)."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kubevirt.apply.vmi import VM_BASE, apply_to_vmi
from krm_fn.kubevirt.conflict import Conflict, admission_message
from tests.engine_support import expand_message

BASE = "spec.template.spec."


def _apply(it_extra: dict[str, Any], vmi: dict[str, Any], meta: dict[str, Any] | None = None) -> list[str]:
    it = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, **it_extra}
    return [str(c) for c in apply_to_vmi(VM_BASE, it, None, vmi, meta if meta is not None else {})]


@pytest.mark.parametrize(("it_extra", "vmi", "path", "value"), [
    ({"nodeSelector": {"a": "b"}}, {}, ("nodeSelector",), {"a": "b"}),
    ({"schedulerName": "s"}, {}, ("schedulerName",), "s"),
    ({"ioThreadsPolicy": "auto"}, {"domain": {}}, ("domain", "ioThreadsPolicy"), "auto"),
    ({"ioThreads": {"supplementalPoolThreadCount": 4}}, {"domain": {}}, ("domain", "ioThreads"),
     {"supplementalPoolThreadCount": 4}),
    ({"launchSecurity": {"sev": {}}}, {"domain": {}}, ("domain", "launchSecurity"), {"sev": {}}),
    ({"gpus": [{"name": "g", "deviceName": "d"}]}, {"domain": {"devices": {}}}, ("domain", "devices", "gpus"),
     [{"name": "g", "deviceName": "d"}]),
    ({"hostDevices": [{"name": "h", "deviceName": "d"}]}, {"domain": {"devices": {}}},
     ("domain", "devices", "hostDevices"), [{"name": "h", "deviceName": "d"}]),
])
def test_written(it_extra: dict[str, Any], vmi: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    assert _apply(it_extra, vmi) == []
    cur: Any = vmi
    for step in path:
        cur = cur[step]
    assert cur == value


@pytest.mark.parametrize(("it_extra", "vmi", "conflicts"), [
    pytest.param({"nodeSelector": {"a": "b"}}, {"nodeSelector": {}}, ["nodeSelector"],
                 id="an empty VM nodeSelector still conflicts"),
    pytest.param({"schedulerName": "s"}, {"schedulerName": "t"}, ["schedulerName"], id="schedulerName"),
    pytest.param({"schedulerName": ""}, {"schedulerName": "t"}, [], id="empty instancetype schedulerName"),
    pytest.param({"ioThreadsPolicy": "shared"}, {"domain": {"ioThreadsPolicy": "auto"}},
                 ["domain.ioThreadsPolicy"], id="ioThreadsPolicy"),
    pytest.param({"ioThreads": {"supplementalPoolThreadCount": 4}},
                 {"domain": {"ioThreads": {"supplementalPoolThreadCount": 2}}},
                 ["domain.ioThreads.supplementalPoolThreadCount"], id="supplementalPoolThreadCount"),
    pytest.param({"ioThreads": {}}, {"domain": {"ioThreads": {"supplementalPoolThreadCount": 2}}}, [],
                 id="ioThreads without a count is skipped"),
    pytest.param({"launchSecurity": {"sev": {}}}, {"domain": {"launchSecurity": {}}}, ["domain.launchSecurity"],
                 id="launchSecurity"),
    pytest.param({"gpus": [{"name": "g"}]}, {"domain": {"devices": {"gpus": [{"name": "x"}]}}},
                 ["domain.devices.gpus"], id="gpus on both"),
    pytest.param({"gpus": [{"name": "g"}]}, {"domain": {"devices": {"gpus": []}}}, [],
                 id="empty VM gpus are replaced"),
    pytest.param({"gpus": []}, {"domain": {"devices": {"gpus": [{"name": "x"}]}}}, [],
                 id="empty instancetype gpus are skipped"),
    pytest.param({"hostDevices": [{"name": "h"}]}, {"domain": {"devices": {"hostDevices": [{"name": "x"}]}}},
                 ["domain.devices.hostDevices"], id="hostDevices on both"),
])
def test_conflicts(it_extra: dict[str, Any], vmi: dict[str, Any], conflicts: list[str]) -> None:
    assert _apply(it_extra, vmi) == [BASE + c for c in conflicts]


def test_annotations_conflict_only_on_a_different_value_sorted_without_base() -> None:
    meta = {"annotations": {"b": "user", "a": "user", "same": "v"}}
    got = _apply({"annotations": {"b": "it", "a": "it", "same": "v", "new": "n"}}, {}, meta)
    assert got == ["annotations.a", "annotations.b"]


def test_annotations_are_added() -> None:
    meta: dict[str, Any] = {}
    assert _apply({"annotations": {"k": "v"}}, {}, meta) == []
    assert meta == {"annotations": {"k": "v"}}


def test_preferences_are_not_applied_after_a_conflict() -> None:
    vmi: dict[str, Any] = {"schedulerName": "t", "domain": {}}
    it = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "schedulerName": "s"}
    assert apply_to_vmi(VM_BASE, it, {"preferredSubdomain": "sub"}, vmi, {})
    assert "subdomain" not in vmi


def test_every_group_reports_its_conflicts_in_order() -> None:
    vmi = {"nodeSelector": {"a": "b"}, "schedulerName": "s",
           "domain": {"cpu": {"sockets": 1}, "memory": {"guest": "1Gi"}, "ioThreadsPolicy": "auto",
                      "launchSecurity": {}, "devices": {"gpus": [{"name": "g"}], "hostDevices": [{"name": "h"}]}}}
    meta = {"annotations": {"k": "user"}}
    it = {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}, "nodeSelector": {"x": "y"}, "schedulerName": "t",
          "ioThreadsPolicy": "shared", "launchSecurity": {"sev": {}}, "gpus": [{"name": "x"}],
          "hostDevices": [{"name": "y"}], "annotations": {"k": "it"}}
    got = [str(c) for c in apply_to_vmi(VM_BASE, it, None, vmi, meta)]
    assert got == [BASE + p for p in ("nodeSelector", "schedulerName", "domain.cpu.sockets", "domain.memory.guest",
                                      "domain.ioThreadsPolicy", "domain.launchSecurity", "domain.devices.gpus",
                                      "domain.devices.hostDevices")] + ["annotations.k"]


def _conflicts(n: int) -> list[Conflict]:
    return [Conflict(("spec", f"f{i}")) for i in range(n)]


def test_admission_message_one_cause_per_conflict() -> None:
    assert admission_message(_conflicts(2)) == ("VM field(s) spec.f0 conflicts with selected instance type, "
                                                "VM field(s) spec.f1 conflicts with selected instance type")


@pytest.mark.parametrize(("n", "suffix"), [(10, ""), (11, ", and 1 more validation errors"),
                                           (17, ", and 7 more validation errors")])
def test_admission_message_summarises_after_ten(n: int, suffix: str) -> None:
    message = admission_message(_conflicts(n))
    assert message.count("VM field(s)") == min(n, 10)
    assert message.endswith("spec.f9 conflicts with selected instance type" + suffix)


def test_expand_message_joins_paths() -> None:
    assert expand_message(_conflicts(3)) == "VM field(s) spec.f0, spec.f1, spec.f2 conflicts with selected instance type"
