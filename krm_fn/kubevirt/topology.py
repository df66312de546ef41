"""Guest CPU topology from an instancetype's vCPUs and a preference (``apply/cpu.go``,
``preference/apply/cpu.go``: ``GetPreferredTopology``, ``GetSpreadOptions``). Pure functions."""

from __future__ import annotations

from typing import Any, Final

SOCKETS: Final = "sockets"
CORES: Final = "cores"
THREADS: Final = "threads"
SPREAD: Final = "spread"
ANY: Final = "any"
DEPRECATED_NAMES: Final = {
    "preferSockets": SOCKETS, "preferCores": CORES, "preferThreads": THREADS,
    "preferSpread": SPREAD, "preferAny": ANY,
}
SPREAD_TOPOLOGIES: Final = frozenset({SPREAD, "preferSpread"})

ACROSS_SOCKETS_CORES: Final = "SocketsCores"
ACROSS_CORES_THREADS: Final = "CoresThreads"
ACROSS_SOCKETS_CORES_THREADS: Final = "SocketsCoresThreads"
DEFAULT_SPREAD_RATIO: Final = 2


def preferred_topology(pref: dict[str, Any] | None) -> str:
    """The preference's ``cpu.preferredCPUTopology``; ``sockets`` when unset."""
    cpu = (pref or {}).get("cpu") or {}
    value = cpu.get("preferredCPUTopology")
    return str(value) if value is not None else SOCKETS


def spread_options(pref: dict[str, Any]) -> tuple[int, str]:
    """(ratio, across): ``spreadOptions`` win over ``preferSpreadSocketToCoreRatio``; default 2, SocketsCores."""
    ratio = DEFAULT_SPREAD_RATIO
    legacy = pref.get("preferSpreadSocketToCoreRatio")
    if legacy:
        ratio = int(legacy)
    across = ACROSS_SOCKETS_CORES
    options = (pref.get("cpu") or {}).get("spreadOptions")
    if options:
        if options.get("across") is not None:
            across = str(options["across"])
        if options.get("ratio") is not None:
            ratio = int(options["ratio"])
    return ratio, across


def guest_topology(vcpus: int, pref: dict[str, Any] | None) -> tuple[int, int, int]:
    """(sockets, cores, threads) for ``vcpus`` under the preference; integer division, no remainder.

    Exactly 1 vCPU is always 1/1/1. Unknown topology or ``across`` values give 1/1/1. A spread ratio of 0
    (a division by zero upstream) raises :class:`ZeroDivisionError`; callers reject it first.
    """
    sockets = cores = threads = 1
    if vcpus == 1:
        return 1, 1, 1
    topology = preferred_topology(pref)
    if topology in (CORES, "preferCores"):
        cores = vcpus
    elif topology in (SOCKETS, "preferSockets", ANY, "preferAny"):
        sockets = vcpus
    elif topology in (THREADS, "preferThreads"):
        threads = vcpus
    elif topology in SPREAD_TOPOLOGIES:
        ratio, across = spread_options(pref or {})
        if across == ACROSS_SOCKETS_CORES:
            cores = ratio
            sockets = vcpus // ratio
        elif across == ACROSS_CORES_THREADS:
            threads = ratio
            cores = vcpus // ratio
        elif across == ACROSS_SOCKETS_CORES_THREADS:
            threads = 2
            cores = ratio
            sockets = vcpus // 2 // ratio
    return sockets, cores, threads
