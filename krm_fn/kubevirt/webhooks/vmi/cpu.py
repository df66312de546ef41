"""The VMI spec's CPU rules (``vmi-create-admitter.go``): requests and limits, dedicated CPU placement, NUMA
passthrough, the emulator thread's isolation, the CPU features' policies, CPU hotplug, and realtime's
requirements."""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_map
from krm_fn.kube.quantity import Quantity
from krm_fn.kube.quantity_json import parsed
from krm_fn.kube.status import INVALID, NOT_SUPPORTED, REQUIRED, Cause
from krm_fn.kubevirt_versions import LATEST, Release

FEATURE_POLICIES: Final = frozenset({"", "force", "require", "optional", "disable", "forbid"})
ZERO: Final = Quantity.parse("0")


def quantity(resources: Obj, kind: str, name: str) -> Quantity:
    """``Resources.<kind>.<name>()``: the quantity, or zero when unset."""
    value = as_map(resources.get(kind)).get(name)
    return ZERO if value is None else parsed(value)


def vcpus(cpu: Obj) -> int:
    """``hwutil.GetNumberOfVCPUs``: cores, times sockets and threads where they are set."""
    count = int(cpu.get("cores") or 0)
    for key in ("sockets", "threads"):
        value = int(cpu.get(key) or 0)
        if value:
            count = value if count == 0 else count * value
    return count


def validate_cpu(field: str, domain: Obj, release: Release = LATEST, architecture: str = "amd64") -> list[Cause]:
    """Requests and limits, dedicated placement, NUMA, isolation, feature policies, hotplug (``field``: the
    template spec; ``architecture``: the VMI's, its default set)."""
    resources = as_map(domain.get("resources"))
    request, limit = quantity(resources, "requests", "cpu"), quantity(resources, "limits", "cpu")
    req_at, lim_at = f"{field}.domain.resources.requests.cpu", f"{field}.domain.resources.limits.cpu"
    causes = []
    if request.scaled_value(-3) < 0:
        causes.append(Cause(INVALID, req_at, f"{req_at} '{request}': must be greater than or equal to 0."))
    if limit.scaled_value(-3) < 0:
        causes.append(Cause(INVALID, lim_at, f"{lim_at} '{limit}': must be greater than or equal to 0."))
    if limit.scaled_value(-3) > 0 and request.scaled_value(-3) > limit.scaled_value(-3):
        causes.append(Cause(INVALID, req_at, f"{req_at} '{request}' is greater than {lim_at} '{limit}'"))
    cpu = as_map(domain.get("cpu"))
    if cpu.get("dedicatedCpuPlacement"):
        causes += _dedicated(field, domain, cpu, request, limit, release, architecture)
    causes += _numa(field, domain, cpu)
    if cpu.get("isolateEmulatorThread") and not cpu.get("dedicatedCpuPlacement"):
        causes.append(Cause(INVALID, f"{field}.domain.cpu.isolateEmulatorThread",
                            "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement"))
    for idx, feature in enumerate(cpu.get("features") or []):
        if isinstance(feature, dict) and feature.get("policy", "") not in FEATURE_POLICIES:
            causes.append(Cause(NOT_SUPPORTED, f"{field}.domain.cpu.features[{idx}].policy",
                                f"CPU feature {feature.get('name', '')} uses policy {feature.get('policy', '')} that "
                                "is not supported."))
    return causes + sockets_above_max(field, cpu)


def sockets_above_max(field: str, cpu: Obj) -> list[Cause]:
    """``validateCPUHotplug`` (and the LiveUpdate rule's twin): sockets at most ``maxSockets``, when that is set."""
    max_sockets = int(cpu.get("maxSockets") or 0)
    if max_sockets and int(cpu.get("sockets") or 0) > max_sockets:
        return [Cause(INVALID, f"{field}.domain.cpu.sockets",
                      "Number of sockets in CPU topology is greater than the maximum sockets allowed")]
    return []


def _numa(field: str, domain: Obj, cpu: Obj) -> list[Cause]:
    """Guest mapping passthrough needs dedicated CPUs and hugepages."""
    if as_map(cpu.get("numa")).get("guestMappingPassthrough") is None:
        return []
    at = f"{field}.domain.cpu.numa.guestMappingPassthrough"
    causes = []
    if not cpu.get("dedicatedCpuPlacement"):
        causes.append(Cause(INVALID, at, f"{field}.domain.cpu.dedicatedCpuPlacement must be set to true when NUMA "
                                         f"topology strategy is set in {at}"))
    if as_map(domain.get("memory")).get("hugepages") is None:
        causes.append(Cause(INVALID, at, f"{field}.domain.memory.hugepages must be requested when NUMA topology "
                                         f"strategy is set in {at}"))
    return causes


def _dedicated(field: str, domain: Obj, cpu: Obj, request: Quantity, limit: Quantity,
               release: Release, architecture: str) -> list[Cause]:
    resources = as_map(domain.get("resources"))
    memory = as_map(domain.get("memory"))
    mem_request, mem_limit = quantity(resources, "requests", "memory"), quantity(resources, "limits", "memory")
    res = f"{field}.domain.resources"
    placement = f"{field}.domain.cpu.dedicatedCpuPlacement"
    causes = []
    if mem_limit.value() == 0 and mem_request.value() == 0 and not release.dedicated_memory_sources:
        causes.append(Cause(INVALID, f"{res}.limits.memory", f"{res}.requests.memory or {res}.limits.memory should be "
                                                             "provided"))
    elif mem_limit.value() == 0 and mem_request.value() == 0 and memory.get("hugepages") is None \
            and memory.get("guest") is None:
        causes.append(Cause(INVALID, f"{res}.limits.memory",
                            f"{res}.requests.memory, {res}.limits.memory, {field}.domain.memory.hugepages or "
                            f"{field}.domain.memory.guest should be provided"))
    for q, kind, words in ((request, "requests", "requests"), (limit, "limits", "limits")):
        if q.value() > 0 and q.value() * 1000 != q.scaled_value(-3):
            causes.append(Cause(INVALID, f"{res}.{kind}.cpu", f"provided resources CPU {words} must be an interger"))
    if mem_request.value() > 0 and mem_limit.value() > 0 and mem_request.value() != mem_limit.value():
        causes.append(Cause(INVALID, f"{res}.requests.memory",
                            f"{res}.requests.memory must be equal to {res}.limits.memory"))
    count = vcpus(cpu)
    if request.value() == 0 and limit.value() == 0 and count == 0:
        causes.append(Cause(INVALID, placement, f"either {res}.requests.cpu or {res}.limits.cpu or "
                                                f"{field}.domain.cpu.cores must be provided when DedicatedCPUPlacement "
                                                "is true "))
    if request.value() > 0 and limit.value() > 0 and request.value() != limit.value():
        causes.append(Cause(INVALID, placement, f"{res}.requests.cpu or {res}.limits.cpu must be equal when "
                                                "DedicatedCPUPlacement is true "))
    if (request.value() > 0 or limit.value() > 0) and count > 0 and request.value() != count \
            and limit.value() != count:
        causes.append(Cause(INVALID, placement, f"{res}.requests.cpu or {res}.limits.cpu must not be provided at the "
                                                f"same time with {field}.domain.cpu.cores when DedicatedCPUPlacement "
                                                "is true "))
    threads = int(cpu.get("threads") or 0)
    if threads > 1 and architecture == "arm64":
        causes.append(Cause(INVALID, f"{field}.architecture",
                            f"threads must not be greater than 1 at {field}.domain.cpu.threads (got {threads}) when "
                            f"{field}.architecture is arm64"))
    if threads > 2:
        causes.append(Cause(INVALID, placement, f"Not more than two threads must be provided at "
                                                f"{field}.domain.cpu.threads (got {threads}) when DedicatedCPUPlacement "
                                                "is true"))
    return causes


def validate_realtime(field: str, domain: Obj) -> list[Cause]:
    """``cpu.realtime`` needs dedicated placement and guest mapping passthrough."""
    cpu = as_map(domain.get("cpu"))
    if cpu.get("realtime") is None:
        return []
    causes = []
    if not cpu.get("dedicatedCpuPlacement"):
        at = f"{field}.domain.cpu.dedicatedCpuPlacement"
        causes.append(Cause(REQUIRED, at, f"{at} must be set to true when {field}.domain.cpu.realtime is used"))
    if as_map(cpu.get("numa")).get("guestMappingPassthrough") is None:
        at = f"{field}.domain.cpu.numa.guestMappingPassthrough"
        causes.append(Cause(REQUIRED, at, f"{at} must be defined when {field}.domain.cpu.realtime is used"))
    return causes
