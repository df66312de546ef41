"""What the VM mutating webhook persists from the preference (``webhooks/vm/mutator.go``): the preferred
architecture and machine type, and the preferred storage class on ``dataVolumeTemplates``."""

from __future__ import annotations

from krm_fn.kube.paths import Obj, ensure_map, get2, get3


def apply_persisted_preferences(pref: Obj, vm: Obj) -> None:
    """Mutates ``vm`` (a copy) in place."""
    template_spec = get3(vm, "spec", "template", "spec")
    if isinstance(template_spec, dict):
        arch = pref.get("preferredArchitecture")
        if arch and not template_spec.get("architecture"):
            template_spec["architecture"] = arch
        machine_type = (pref.get("machine") or {}).get("preferredMachineType")
        if machine_type and not get3(template_spec, "domain", "machine", "type"):
            ensure_map(template_spec, ("domain", "machine"))["type"] = machine_type
    storage_class = (pref.get("volumes") or {}).get("preferredStorageClassName")
    if not storage_class:
        return
    for template in get2(vm, "spec", "dataVolumeTemplates") or []:
        spec = template.get("spec") if isinstance(template, dict) else None
        if not isinstance(spec, dict):
            continue
        for key in ("pvc", "storage"):
            claim = spec.get(key)
            if isinstance(claim, dict) and claim.get("storageClassName") is None:
                claim["storageClassName"] = storage_class


def persisted_preferences_apply(pref: Obj, vm: Obj) -> bool:
    """Whether :func:`apply_persisted_preferences` would change ``vm``."""
    template_spec = get3(vm, "spec", "template", "spec") or {}
    if pref.get("preferredArchitecture") and not template_spec.get("architecture"):
        return True
    if (pref.get("machine") or {}).get("preferredMachineType") and not get3(template_spec, "domain", "machine", "type"):
        return True
    if (pref.get("volumes") or {}).get("preferredStorageClassName"):
        for template in get2(vm, "spec", "dataVolumeTemplates") or []:
            spec = template.get("spec") if isinstance(template, dict) else None
            if isinstance(spec, dict) and any(
                    isinstance(spec.get(k), dict) and spec[k].get("storageClassName") is None
                    for k in ("pvc", "storage")):
                return True
    return False
