"""The spread divisibility check of the VM validating webhook (``preference/validation/cpu.go``)."""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, get2
from krm_fn.kubevirt.topology import (
    ACROSS_CORES_THREADS,
    ACROSS_SOCKETS_CORES,
    ACROSS_SOCKETS_CORES_THREADS,
    SPREAD_TOPOLOGIES,
    preferred_topology,
    spread_options,
)

SPREAD_FIELD: Final = "instancetype.spec.cpu.guest"


def _divisible(value: int, by: int) -> bool:
    return by != 0 and value % by == 0


def check_spread(it: Obj, pref: Obj | None) -> str | None:
    """The rejection message when the instancetype's vCPUs cannot be spread as the preference asks.

    A ratio of 0 (a division by zero upstream) is rejected here too, as not divisible.
    """
    if pref is None or preferred_topology(pref) not in SPREAD_TOPOLOGIES:
        return None
    guest = int(get2(it, "cpu", "guest") or 0)
    ratio, across = spread_options(pref)
    if across == ACROSS_SOCKETS_CORES and not _divisible(guest, ratio):
        return (f"{guest} vCPUs provided by the instance type are not divisible by the "
                f"Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of {ratio} "
                f"provided by the preference")
    if across == ACROSS_CORES_THREADS and not _divisible(guest, ratio):
        return (f"{guest} vCPUs provided by the instance type are not divisible by the number of threads "
                f"per core {ratio}")
    if across == ACROSS_SOCKETS_CORES_THREADS and (guest % 2 != 0 or not _divisible(guest // 2, ratio)):
        return (f"{guest} vCPUs provided by the instance type are not divisible by the number of threads "
                f"per core 2 and Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio "
                f"of {ratio}")
    return None
