"""Preference requirements (CPU per topology, memory, architecture) and the spread divisibility check."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kubevirt.preference.requirements import check_requirements
from krm_fn.kubevirt.preference.validation import check_spread

IT = {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}}


def _req(topology: str | None = None, across: str | None = None, **req: Any) -> dict[str, Any]:
    pref: dict[str, Any] = {"requirements": req}
    if topology:
        pref["cpu"] = {"preferredCPUTopology": topology}
        if across:
            pref["cpu"]["spreadOptions"] = {"across": across}
    return pref


@pytest.mark.parametrize(("it", "pref", "vmi", "field", "reason"), [
    pytest.param(IT, _req(cpu={"guest": 4}), {}, "spec.instancetype",
                 "insufficient CPU resources of 2 vCPU provided by instance type, preference requires 4 vCPU",
                 id="cpu from the instancetype"),
    pytest.param(None, _req(cpu={"guest": 2}), {"domain": {}}, "spec.template.spec.domain.cpu",
                 "no CPU resources provided by VirtualMachine, preference requires 2 vCPU", id="no cpu at all"),
    pytest.param(None, _req(cpu={"guest": 2}), {"domain": {"cpu": {"cores": 4}}}, "spec.template.spec.domain.cpu.sockets",
                 "insufficient CPU resources of 0 vCPU provided by VirtualMachine, preference requires 2 vCPU "
                 "provided as sockets", id="sockets by default (cores ignored)"),
    pytest.param(None, _req("cores", cpu={"guest": 2}), {"domain": {"cpu": {"cores": 1, "sockets": 4}}},
                 "spec.template.spec.domain.cpu.cores",
                 "insufficient CPU resources of 1 vCPU provided by VirtualMachine, preference requires 2 vCPU "
                 "provided as cores", id="cores"),
    pytest.param(None, _req("preferThreads", cpu={"guest": 2}), {"domain": {"cpu": {"threads": 1}}},
                 "spec.template.spec.domain.cpu.threads",
                 "insufficient CPU resources of 1 vCPU provided by VirtualMachine, preference requires 2 vCPU "
                 "provided as threads", id="deprecated preferThreads"),
    pytest.param(None, _req("any", cpu={"guest": 4}), {"domain": {"cpu": {"cores": 1, "sockets": 2, "threads": 1}}},
                 "spec.template.spec.domain.cpu.cores, spec.template.spec.domain.cpu.sockets, "
                 "spec.template.spec.domain.cpu.threads",
                 "insufficient CPU resources of 2 vCPU provided by VirtualMachine, preference requires 4 vCPU "
                 "provided as cores, sockets and threads", id="any"),
    pytest.param(None, _req("spread", cpu={"guest": 4}), {"domain": {"cpu": {"cores": 1, "sockets": 2, "threads": 4}}},
                 "spec.template.spec.domain.cpu.sockets, spec.template.spec.domain.cpu.cores",
                 "insufficient CPU resources of 2 vCPU provided by VirtualMachine, preference requires 4 vCPU "
                 "provided as SocketsCores", id="spread SocketsCores"),
    pytest.param(None, _req("spread", "CoresThreads", cpu={"guest": 4}), {"domain": {"cpu": {"cores": 1, "threads": 2}}},
                 "spec.template.spec.domain.cpu.cores, spec.template.spec.domain.cpu.threads",
                 "insufficient CPU resources of 2 vCPU provided by VirtualMachine, preference requires 4 vCPU "
                 "provided as CoresThreads", id="spread CoresThreads"),
    pytest.param(IT, _req(memory={"guest": "4Gi"}), {"domain": {"memory": {"guest": "2Gi"}}}, "spec.instancetype",
                 "insufficient Memory resources of 2Gi provided by instance type, preference requires 4Gi",
                 id="memory from the instancetype"),
    pytest.param(None, _req(memory={"guest": "2Gi"}), {"domain": {}}, "spec.template.spec.domain.memory",
                 "insufficient Memory resources of 0 provided by VirtualMachine, preference requires 2Gi",
                 id="no memory renders as 0"),
    pytest.param(None, _req(memory={"guest": "2Gi"}), {"domain": {"memory": {"guest": "1536Mi"}}},
                 "spec.template.spec.domain.memory",
                 "insufficient Memory resources of 1536Mi provided by VirtualMachine, preference requires 2Gi",
                 id="memory from the VM, canonical"),
    pytest.param(None, _req(architecture="amd64"), {"architecture": "arm64"}, "spec.template.spec.architecture",
                 "preference requires architecture amd64 but arm64 is being requested", id="architecture"),
    pytest.param(IT, _req(cpu={"guest": 4}, memory={"guest": "4Gi"}), {}, "spec.instancetype",
                 "insufficient CPU resources of 2 vCPU provided by instance type, preference requires 4 vCPU",
                 id="only the first failure"),
])
def test_failures(it: Any, pref: dict[str, Any], vmi: dict[str, Any], field: str, reason: str) -> None:
    failure = check_requirements(it, pref, vmi)
    assert failure is not None
    assert (failure.field, failure.message) == (field, "failure checking preference requirements: " + reason)


@pytest.mark.parametrize(("it", "pref", "vmi"), [
    pytest.param(IT, _req(cpu={"guest": 2}, memory={"guest": "2Gi"}), {"domain": {"memory": {"guest": "2Gi"}}},
                 id="exactly met"),
    pytest.param(None, _req(architecture="amd64"), {"architecture": "amd64"}, id="architecture met"),
    pytest.param(IT, {}, {}, id="no requirements"),
    pytest.param(IT, None, {}, id="no preference"),
])
def test_met(it: Any, pref: Any, vmi: dict[str, Any]) -> None:
    assert check_requirements(it, pref, vmi) is None


def _spread(ratio: int | None = None, across: str | None = None) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    if ratio is not None:
        opts["ratio"] = ratio
    if across:
        opts["across"] = across
    return {"cpu": {"preferredCPUTopology": "spread", "spreadOptions": opts}}


@pytest.mark.parametrize(("guest", "pref", "message"), [
    (3, _spread(), "3 vCPUs provided by the instance type are not divisible by the "
                   "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 2 provided by the "
                   "preference"),
    (2, _spread(3), "2 vCPUs provided by the instance type are not divisible by the "
                    "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 3 provided by the "
                    "preference"),
    (5, _spread(across="CoresThreads"), "5 vCPUs provided by the instance type are not divisible by the number of "
                                        "threads per core 2"),
    (6, _spread(4, "SocketsCoresThreads"), "6 vCPUs provided by the instance type are not divisible by the number of "
                                           "threads per core 2 and Spec.PreferSpreadSocketToCoreRatio or "
                                           "Spec.CPU.PreferSpreadOptions.Ratio of 4"),
    (1, _spread(), "1 vCPUs provided by the instance type are not divisible by the "
                   "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 2 provided by the "
                   "preference"),
    (4, _spread(0), "4 vCPUs provided by the instance type are not divisible by the "
                    "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 0 provided by the "
                    "preference"),
])
def test_spread_rejections(guest: int, pref: dict[str, Any], message: str) -> None:
    assert check_spread({"cpu": {"guest": guest}}, pref) == message


@pytest.mark.parametrize(("guest", "pref"), [(4, _spread()), (8, _spread(2, "SocketsCoresThreads")),
                                             (3, {"cpu": {"preferredCPUTopology": "cores"}}), (3, None)])
def test_spread_accepted(guest: int, pref: Any) -> None:
    assert check_spread({"cpu": {"guest": guest}}, pref) is None
