"""``cpu.preferredCPUFeatures`` (``preference/apply/cpu.go``): features the VM does not name are appended.

The topology preferences only act through an instancetype (:mod:`krm_fn.kubevirt.topology`).
"""

from __future__ import annotations

from krm_fn.kube.paths import Obj, copy_json, ensure_map


def apply_cpu_preferences(pref: Obj, vmi: Obj) -> None:
    features = (pref.get("cpu") or {}).get("preferredCPUFeatures")
    if not features:
        return
    # upstream dereferences a nil domain.cpu here (a panic, only reachable without an instancetype);
    # creating it is the documented port decision
    cpu = ensure_map(vmi, ("domain", "cpu"))
    current = cpu.get("features") or []
    names = {f.get("name") for f in current if isinstance(f, dict)}
    merged = list(current)
    for feature in features:
        if feature.get("name") not in names:
            merged.append(copy_json(feature))
    cpu["features"] = merged
