"""CPU from the instancetype (``apply/cpu.go``): conflicts first, then model, placement, NUMA, realtime,
maxSockets and the guest topology (:mod:`krm_fn.kubevirt.topology`)."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj, copy_json, ensure_map, get2
from krm_fn.kubevirt.conflict import Conflict, child
from krm_fn.kubevirt.topology import guest_topology


def validate_cpu(base: Sequence[str], it: Obj, vmi: Obj) -> list[Conflict]:
    """Every CPU conflict, in KubeVirt's order."""
    conflicts: list[Conflict] = []
    resources = get2(vmi, "domain", "resources") or {}
    if "cpu" in (resources.get("requests") or {}):
        conflicts.append(child(base, "domain", "resources", "requests", "cpu"))
    if "cpu" in (resources.get("limits") or {}):
        conflicts.append(child(base, "domain", "resources", "limits", "cpu"))
    cpu = get2(vmi, "domain", "cpu") or {}
    for field in ("sockets", "cores", "threads"):
        if cpu.get(field):
            conflicts.append(child(base, "domain", "cpu", field))
    itcpu = it.get("cpu") or {}
    if cpu.get("model") and itcpu.get("model") is not None:
        conflicts.append(child(base, "domain", "cpu", "model"))
    if cpu.get("dedicatedCpuPlacement") is True and itcpu.get("dedicatedCPUPlacement") is not None:
        conflicts.append(child(base, "domain", "cpu", "dedicatedCPUPlacement"))
    if cpu.get("isolateEmulatorThread") is True and itcpu.get("isolateEmulatorThread") is not None:
        conflicts.append(child(base, "domain", "cpu", "isolateEmulatorThread"))
    if cpu.get("numa") is not None and itcpu.get("numa") is not None:
        conflicts.append(child(base, "domain", "cpu", "numa"))
    if cpu.get("realtime") is not None and itcpu.get("realtime") is not None:
        conflicts.append(child(base, "domain", "cpu", "realtime"))
    return conflicts


def apply_cpu(base: Sequence[str], it: Obj, pref: Obj | None, vmi: Obj) -> list[Conflict]:
    cpu = ensure_map(vmi, ("domain", "cpu"))
    conflicts = validate_cpu(base, it, vmi)
    if conflicts:
        return conflicts
    itcpu = it.get("cpu") or {}
    if itcpu.get("model") is not None:
        cpu["model"] = itcpu["model"]
    if itcpu.get("dedicatedCPUPlacement") is not None:
        cpu["dedicatedCpuPlacement"] = itcpu["dedicatedCPUPlacement"]
    if itcpu.get("isolateEmulatorThread") is not None:
        cpu["isolateEmulatorThread"] = itcpu["isolateEmulatorThread"]
    if itcpu.get("numa") is not None:
        cpu["numa"] = copy_json(itcpu["numa"])
    if itcpu.get("realtime") is not None:
        cpu["realtime"] = copy_json(itcpu["realtime"])
    if itcpu.get("maxSockets") is not None:
        cpu["maxSockets"] = itcpu["maxSockets"]
    sockets, cores, threads = guest_topology(int(itcpu.get("guest") or 0), pref)
    cpu["sockets"] = sockets
    cpu["cores"] = cores
    cpu["threads"] = threads
    return []
