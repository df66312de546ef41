"""``memory_overhead``: the memory the launcher pod asks for beyond the guest's (``GetMemoryOverhead`` in
``pkg/hypervisor/kvm/hypervisorbackend.go``, ``renderresources.go`` before v1.8, plus the network's share from
``pkg/network/resources/memory.go``).

The terms are added in upstream's order; shared/docs/pod-resources.md section 4 has each with its release.
Every amount is in nano units (:mod:`krm_fn.kube.amount`).
"""

from __future__ import annotations

from typing import Final

from krm_fn.kube.amount import MI, NANO, nanos_or_zero, units
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kubevirt.webhooks.config import WebhookConfig

# virt-launcher-monitor, virt-launcher, virtlogd, virtqemud (the QEMU process is added by release)
PROCESSES: Final = (25 + 100 + 25 + 40) * MI
KILO: Final = 1000 * NANO
PASST_MEMORY: Final = 250 * MI


def vcpus(spec: Obj) -> int:
    """``GetNumberOfVCPUs`` of the VMI's topology; without one, the CPU limit's or request's units; at least 1."""
    cpu = spec["domain"].get("cpu")
    if isinstance(cpu, dict):
        count = 0
        for name in ("cores", "sockets", "threads"):
            n = cpu.get(name) or 0
            if isinstance(n, int) and n:
                count = n if count == 0 else count * n
    else:
        resources = as_map(spec["domain"].get("resources"))
        limits, requests = as_map(resources.get("limits")), as_map(resources.get("requests"))
        amount = limits.get("cpu") if "cpu" in limits else requests.get("cpu")
        count = units(nanos_or_zero(amount))
    return max(count, 1)


def dedicated(spec: Obj) -> bool:
    """``IsCPUDedicated``."""
    return as_map(spec["domain"].get("cpu")).get("dedicatedCpuPlacement") is True


def wants_guaranteed(spec: Obj, config: WebhookConfig) -> bool:
    """``WantsToHaveQOSGuaranteed``: CPU request equal to its limit, and the memory's too (from v1.6.4 also a memory
    limit without a request)."""
    resources = as_map(spec["domain"].get("resources"))
    requests, limits = as_map(resources.get("requests")), as_map(resources.get("limits"))
    memory, memory_limit = nanos_or_zero(requests.get("memory")), nanos_or_zero(limits.get("memory"))
    cpu = nanos_or_zero(requests.get("cpu"))
    memory_ok = memory != 0 and memory == memory_limit or \
        not config.release.expand_memory_request and memory == 0 and memory_limit != 0
    return memory_ok and cpu != 0 and cpu == nanos_or_zero(limits.get("cpu"))


def _probe_memory(spec: Obj) -> int:
    exec_probes = sum(1 for p in ("livenessProbe", "readinessProbe") if as_map(spec.get(p)).get("exec") is not None)
    return exec_probes * 10 * MI + (100 * MI if exec_probes else 0)


def _vfio(spec: Obj) -> bool:
    devices = spec["domain"].get("devices") or {}
    return bool(devices.get("hostDevices")) or bool(devices.get("gpus")) or \
        any(as_map(i).get("sriov") is not None for i in as_list(devices.get("interfaces")))


def is_sev(spec: Obj, config: WebhookConfig) -> bool:
    """``IsSEVVMI`` (SNP too from v1.7)."""
    security = as_map(spec["domain"].get("launchSecurity"))
    return security.get("sev") is not None or config.release.launch_security_arch and security.get("snp") is not None


def memory_overhead(spec: Obj, config: WebhookConfig) -> int:
    """The overhead of the VMI spec ``spec`` (after the VMI mutating webhook) on ``config``'s cluster."""
    release, domain = config.release, spec["domain"]
    devices = as_map(domain.get("devices"))
    requested = nanos_or_zero(as_map(as_map(domain.get("resources")).get("requests")).get("memory"))
    # page tables: the VMI's own request, in whole kilobytes rounded up, over 512
    overhead = (-(-requested // KILO) * 1000 // 512) * NANO
    overhead += PROCESSES + (50 if release.qemu_overhead_raised else 30) * MI
    overhead += 8 * MI * vcpus(spec) + 8 * MI  # each vCPU, and the IOThread
    if devices.get("autoattachGraphicsDevice") is not False:
        overhead += (32 if release.video_overhead_doubled else 16) * MI
    if (spec.get("architecture") or config.cluster.architecture) == "arm64":
        overhead += 128 * MI  # the pflash EFI image
    if _vfio(spec):
        overhead += 1024 * MI
    if any(as_map(v).get("downwardMetrics") is not None for v in as_list(spec.get("volumes"))):
        overhead += MI
    overhead += _probe_memory(spec)
    if is_sev(spec, config):
        overhead += 256 * MI
    tpm = devices.get("tpm")
    if isinstance(tpm, dict) and tpm.get("enabled") is not False:
        overhead += 53 * MI
    if dedicated(spec) or wants_guaranteed(spec, config):
        overhead += 100 * MI
    if release.reserved_overhead:
        overhead += nanos_or_zero(as_map(as_map(domain.get("memory")).get("reservedOverhead")).get("addedOverhead"))
    overhead = _with_ratio(overhead, config.cluster.configuration.get("additionalGuestMemoryOverheadRatio"))
    return overhead + network_memory(spec, config)


def _with_ratio(overhead: int, ratio: object) -> int:
    """``MultiplyMemory``: the overhead's kilobytes (rounded up) times the ratio less one, truncated, added."""
    try:
        factor = float(str(ratio)) if ratio is not None else None
    except ValueError:
        factor = None
    if factor is None:
        return overhead
    return overhead + int(float(-(-overhead // KILO)) * (factor - 1.0)) * KILO


def network_memory(spec: Obj, config: WebhookConfig) -> int:
    """The binding plugins' configured memory (each plugin once) and, from v1.8, the core passt binding's."""
    plugins = as_map(as_map(config.cluster.configuration.get("network")).get("binding"))
    interfaces = as_list(as_map(spec["domain"].get("devices")).get("interfaces"))
    total, seen = 0, set()
    for iface in interfaces:
        name = as_map(as_map(iface).get("binding")).get("name")
        if name is None or name in seen:
            continue
        seen.add(name)
        overhead = as_map(as_map(plugins.get(name)).get("computeResourceOverhead"))
        total += nanos_or_zero(as_map(overhead.get("requests")).get("memory"))
    if config.release.passt_memory and any(as_map(i).get("passtBinding") is not None for i in interfaces):
        total += PASST_MEMORY
    return total
