"""``domain.launchSecurity`` from the (deprecated) instancetype field (``apply/launchsecurity.go``)."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj, copy_json, ensure_map, get2
from krm_fn.kubevirt.conflict import Conflict, child


def apply_launch_security(base: Sequence[str], it: Obj, vmi: Obj) -> list[Conflict]:
    security = it.get("launchSecurity")
    if security is None:
        return []
    if get2(vmi, "domain", "launchSecurity") is not None:
        return [child(base, "domain", "launchSecurity")]
    ensure_map(vmi, ("domain",))["launchSecurity"] = copy_json(security)
    return []
