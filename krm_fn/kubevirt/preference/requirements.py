"""Preference ``requirements`` (``preference/requirements/{checker,cpu,memory,arch}.go``): checked on the
defaulted, expanded copy at admission; the first failure only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from krm_fn.kube.paths import Obj, get2, get3
from krm_fn.kube.quantity import Quantity
from krm_fn.kube.quantity_json import parsed
from krm_fn.kubevirt.topology import (
    ACROSS_CORES_THREADS,
    ACROSS_SOCKETS_CORES,
    ACROSS_SOCKETS_CORES_THREADS,
    DEPRECATED_NAMES,
    preferred_topology,
    spread_options,
)

PREFIX: Final = "failure checking preference requirements: "
_CPU: Final = "spec.template.spec.domain.cpu"
_SPREAD_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    ACROSS_SOCKETS_CORES: ("sockets", "cores"),
    ACROSS_CORES_THREADS: ("cores", "threads"),
    ACROSS_SOCKETS_CORES_THREADS: ("sockets", "cores", "threads"),
}


@dataclass(frozen=True, slots=True)
class RequirementFailure:
    paths: tuple[str, ...]
    reason: str

    @property
    def message(self) -> str:
        return PREFIX + self.reason

    @property
    def field(self) -> str:
        return ", ".join(self.paths)


def _check_cpu(it: Obj | None, pref: Obj, needed: int, vmi: Obj) -> RequirementFailure | None:
    if it is not None:
        guest = int(get2(it, "cpu", "guest") or 0)
        if guest < needed:
            return RequirementFailure(
                ("spec.instancetype",),
                f"insufficient CPU resources of {guest} vCPU provided by instance type, "
                f"preference requires {needed} vCPU")
        return None
    cpu = get2(vmi, "domain", "cpu")
    if cpu is None:
        return RequirementFailure(
            (_CPU,), f"no CPU resources provided by VirtualMachine, preference requires {needed} vCPU")
    topology = preferred_topology(pref)
    topology = DEPRECATED_NAMES.get(topology, topology)
    if topology in ("threads", "cores", "sockets"):
        fields: tuple[str, ...] = (topology,)
        what = topology
    elif topology == "any":
        fields = ("cores", "sockets", "threads")
        what = "cores, sockets and threads"
    elif topology == "spread":
        _, across = spread_options(pref)
        fields = _SPREAD_FIELDS.get(across, ())  # an unknown across provides 0 vCPUs upstream
        what = across
    else:
        return None
    have = 1 if fields else 0
    for field in fields:
        have *= int(cpu.get(field) or 0)
    if have < needed:
        return RequirementFailure(
            tuple(f"{_CPU}.{f}" for f in fields),
            f"insufficient CPU resources of {have} vCPU provided by VirtualMachine, "
            f"preference requires {needed} vCPU provided as {what}")
    return None


def _check_memory(it: Obj | None, needed: Quantity, vmi: Obj) -> RequirementFailure | None:
    guest = get3(vmi, "domain", "memory", "guest")
    if guest is None and it is not None:
        guest = get2(it, "memory", "guest")
    provided = parsed(guest) if guest is not None else Quantity.from_int(0, "DecimalSI")
    if provided.cmp(needed) >= 0:
        return None
    if it is not None:
        return RequirementFailure(
            ("spec.instancetype",),
            f"insufficient Memory resources of {provided} provided by instance type, preference requires {needed}")
    return RequirementFailure(
        ("spec.template.spec.domain.memory",),
        f"insufficient Memory resources of {provided} provided by VirtualMachine, preference requires {needed}")


def check_requirements(it: Obj | None, pref: Obj | None, vmi: Obj,
                       architecture: bool = True) -> RequirementFailure | None:
    """The first unmet requirement of ``pref`` for the (defaulted) VMI spec, or ``None``. ``architecture``: the
    release checks
    ``requirements.architecture`` (v1.7+)."""
    if pref is None:
        return None
    req = pref.get("requirements")
    if req is None:
        return None
    cpu = req.get("cpu")
    if cpu is not None:
        failure = _check_cpu(it, pref, int(cpu.get("guest") or 0), vmi)
        if failure:
            return failure
    memory = req.get("memory")
    if memory is not None:
        failure = _check_memory(it, parsed(memory.get("guest") or 0), vmi)
        if failure:
            return failure
    arch = req.get("architecture") if architecture else None
    if arch is not None:
        actual = vmi.get("architecture") or ""
        if actual != arch:
            return RequirementFailure(
                ("spec.template.spec.architecture",),
                f"preference requires architecture {arch} but {actual} is being requested")
    return None
