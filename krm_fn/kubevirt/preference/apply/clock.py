"""``clock`` preferences (``preference/apply/clock.go``): the offset only when the VM sets neither ``utc``
nor ``timezone`` (no partial overwrite), the timers only when the VM has none."""

from __future__ import annotations

from krm_fn.kube.paths import Obj, copy_json, ensure_map


def apply_clock_preferences(pref: Obj, vmi: Obj) -> None:
    cp = pref.get("clock")
    if cp is None:
        return
    clock = ensure_map(vmi, ("domain", "clock"))
    offset = cp.get("preferredClockOffset")
    if offset is not None and clock.get("utc") is None and clock.get("timezone") is None:
        for key in ("utc", "timezone"):
            if offset.get(key) is not None:
                clock[key] = copy_json(offset[key])
    if cp.get("preferredTimer") is not None and clock.get("timer") is None:
        clock["timer"] = copy_json(cp["preferredTimer"])
