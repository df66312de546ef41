"""``preferredLaunchSecurity`` (``preference/apply/launchsecurity.go``)."""

from __future__ import annotations

from krm_fn.kube.paths import Obj, copy_json, ensure_map, get2


def apply_launch_security_preferences(pref: Obj, vmi: Obj) -> None:
    security = pref.get("preferredLaunchSecurity")
    if security is not None and get2(vmi, "domain", "launchSecurity") is None:
        ensure_map(vmi, ("domain",))["launchSecurity"] = copy_json(security)
