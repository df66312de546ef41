"""The VMI spec's CPU rules (``vmi-create-admitter.go``) held so far: the emulator thread's isolation and the CPU
features' policies. Requests, limits, pinning and NUMA are not here yet (issue 36)."""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj
from krm_fn.kube.status import INVALID, NOT_SUPPORTED, Cause

FEATURE_POLICIES: Final = frozenset({"", "force", "require", "optional", "disable", "forbid"})


def validate_cpu(field: str, domain: Obj) -> list[Cause]:
    """``isolateEmulatorThread`` needs ``dedicatedCpuPlacement``; each CPU feature's policy is known."""
    cpu = domain.get("cpu")
    if not isinstance(cpu, dict):
        return []
    causes = []
    if cpu.get("isolateEmulatorThread") and not cpu.get("dedicatedCpuPlacement"):
        causes.append(Cause(INVALID, f"{field}.domain.cpu.isolateEmulatorThread",
                            "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement"))
    for idx, feature in enumerate(cpu.get("features") or []):
        if isinstance(feature, dict) and feature.get("policy", "") not in FEATURE_POLICIES:
            causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.cpu.features[{idx}].policy",
                                f"CPU feature {feature.get('name', '')} uses policy {feature.get('policy', '')} that "
                                "is not supported."))
    return causes
