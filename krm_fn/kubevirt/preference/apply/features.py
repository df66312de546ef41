"""``features`` preferences (``preference/apply/features.go``). ``preferredAcpi`` always overwrites (the VMI
field is a plain struct); the rest, and each Hyper-V sub-feature, only fill what the VM left unset."""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, copy_json, ensure_map

HYPERV_FEATURES: Final = (
    "evmcs", "frequencies", "ipi", "reenlightenment", "relaxed", "reset", "runtime", "spinlocks",
    "synic", "synictimer", "tlbflush", "vapic", "vpindex", "vendorid",
)
_AFTER_HYPERV: Final = (("kvm", "preferredKvm"), ("pvspinlock", "preferredPvspinlock"), ("smm", "preferredSmm"))


def apply_feature_preferences(pref: Obj, vmi: Obj) -> None:
    fp = pref.get("features")
    if fp is None:
        return
    features = ensure_map(vmi, ("domain", "features"))
    if fp.get("preferredAcpi") is not None:
        features["acpi"] = copy_json(fp["preferredAcpi"])
    if fp.get("preferredApic") is not None and features.get("apic") is None:
        features["apic"] = copy_json(fp["preferredApic"])
    preferred_hyperv = fp.get("preferredHyperv")
    if preferred_hyperv is not None:
        hyperv = features.get("hyperv")
        if hyperv is None:
            hyperv = features["hyperv"] = {}
        for name in HYPERV_FEATURES:
            if preferred_hyperv.get(name) is not None and hyperv.get(name) is None:
                hyperv[name] = copy_json(preferred_hyperv[name])
    for field, preferred in _AFTER_HYPERV:
        if fp.get(preferred) is not None and features.get(field) is None:
            features[field] = copy_json(fp[preferred])
