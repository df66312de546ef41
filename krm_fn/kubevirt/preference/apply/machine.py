"""``machine.preferredMachineType`` (``preference/apply/machine.go``)."""

from __future__ import annotations

from krm_fn.kube.paths import Obj, ensure_map, get3


def apply_machine_preferences(pref: Obj, vmi: Obj) -> None:
    machine_type = (pref.get("machine") or {}).get("preferredMachineType")
    if machine_type and not get3(vmi, "domain", "machine", "type"):
        ensure_map(vmi, ("domain", "machine"))["type"] = machine_type
