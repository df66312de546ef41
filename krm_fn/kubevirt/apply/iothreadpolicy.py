"""``domain.ioThreadsPolicy`` from the instancetype (``apply/iothreadpolicy.go``)."""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj, ensure_map, get2
from krm_fn.kubevirt.conflict import Conflict, child


def apply_io_threads_policy(base: Sequence[str], it: Obj, vmi: Obj) -> list[Conflict]:
    policy = it.get("ioThreadsPolicy")
    if policy is None:
        return []
    if get2(vmi, "domain", "ioThreadsPolicy") is not None:
        return [child(base, "domain", "ioThreadsPolicy")]
    ensure_map(vmi, ("domain",))["ioThreadsPolicy"] = policy
    return []
