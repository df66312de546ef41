"""Memory from the instancetype (``apply/memory.go``): only the first conflict is reported; the request
for ``overcommitPercent`` uses KubeVirt's float32 arithmetic (:func:`overcommit_request`)."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.float32 import f32
from krm_fn.kube.paths import Obj, copy_json, ensure_map, get2
from krm_fn.kube.quantity import Quantity
from krm_fn.kube.quantity_json import from_json
from krm_fn.kubevirt.conflict import Conflict, child


def overcommit_request(guest: Quantity, percent: int) -> Quantity:
    """KubeVirt's memory request for ``overcommitPercent`` (float32 ops, truncation, guest's format)."""
    v = guest.value()
    factor = f32(f32(1.0) - f32(f32(float(percent)) / f32(100.0)))
    r = f32(f32(float(v)) * factor)
    return Quantity.from_int(int(r), guest.format)


def validate_memory(base: Sequence[str], it: Obj, vmi: Obj, whole: bool = False) -> list[Conflict]:
    """The first conflict; ``whole`` (v1.5, v1.6): any ``domain.memory`` of the VM conflicts, on itself."""
    memory = get2(vmi, "domain", "memory")
    if whole and memory is not None:
        return [child(base, "domain", "memory")]
    memory = memory or {}
    itmem = it.get("memory") or {}
    resources = get2(vmi, "domain", "resources") or {}
    if memory.get("guest") is not None:
        return [child(base, "domain", "memory", "guest")]
    if memory.get("hugepages") is not None and itmem.get("hugepages") is not None:
        return [child(base, "domain", "memory", "hugepages")]
    if memory.get("maxGuest") is not None and itmem.get("maxGuest") is not None:
        return [child(base, "domain", "memory", "maxGuest")]
    if "memory" in (resources.get("requests") or {}):
        return [child(base, "domain", "resources", "requests", "memory")]
    if "memory" in (resources.get("limits") or {}):
        return [child(base, "domain", "resources", "limits", "memory")]
    return []


def apply_memory(base: Sequence[str], it: Obj, vmi: Obj, whole: bool = False) -> list[Conflict]:
    """``whole``: the conflict rule of v1.5 and v1.6 (:func:`validate_memory`); on success the result is the
    same, as a VM without ``domain.memory`` has nothing the instancetype's could be merged with."""
    conflicts = validate_memory(base, it, vmi, whole)
    if conflicts:
        return conflicts
    memory = ensure_map(vmi, ("domain", "memory"))
    itmem = it.get("memory") or {}
    guest = itmem.get("guest")
    if guest is not None:
        memory["guest"] = guest
    if itmem.get("hugepages") is not None:
        memory["hugepages"] = copy_json(itmem["hugepages"])
    if itmem.get("maxGuest") is not None:
        memory["maxGuest"] = itmem["maxGuest"]
    percent = int(itmem.get("overcommitPercent") or 0)
    if percent > 0 and guest is not None:
        requests = ensure_map(vmi, ("domain", "resources", "requests"))
        requests["memory"] = str(overcommit_request(from_json(guest), percent))
    return []
