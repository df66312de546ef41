"""The original ``flavor.kubevirt.io/v1alpha1`` flavor: a top-level ``profiles`` list instead of a ``spec``.

KubeVirt (``pkg/flavor``, before v0.56) used the profile a VM named in ``spec.flavor.profile``, or else the
first profile marked ``default: true``, and copied that profile's ``cpu`` (a whole VMI ``v1.CPU``) into the VMI.
A v1beta1 instancetype has exactly one spec, so the migration takes:

* the only profile, or the default profile (the first one marked ``default: true``, as KubeVirt chose);
* several profiles and none marked default: an error, the user decides (nothing is guessed).

The profile body becomes the instancetype spec. Its ``cpu`` is read in either form:

* the original ``v1.CPU``: ``guest`` = sockets x cores x threads (a missing count is 1); ``model``,
  ``dedicatedCpuPlacement`` (-> ``dedicatedCPUPlacement``), ``isolateEmulatorThread``, ``numa``,
  ``realtime``, ``maxSockets`` carried; ``features`` has no instancetype field (an error); a topology other
  than plain sockets cannot be carried by an instancetype (a warning says so);
* the instancetype form (``cpu.guest`` ...), copied.

Any other key of the body must be a v1beta1 instancetype spec key (``memory``, ``gpus``, ...). ``memory.guest``
is required by v1beta1 and the original profiles had none: a profile without it is an error that asks the
user to add it (then rerun).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final

from krm_fn.kube.api import INSTANCETYPE_API_VERSION
from krm_fn.kube.paths import Obj
from krm_fn.render.migrate.common import FLAVOR_KINDS, describe, fail, legacy_spec, warn, with_type
from krm_fn.results import Result

INSTANCETYPE_SPEC_KEYS: Final = frozenset({
    "cpu", "memory", "gpus", "hostDevices", "ioThreadsPolicy", "ioThreads", "launchSecurity", "annotations",
    "nodeSelector", "schedulerName",
})
PROFILE_META_KEYS: Final = frozenset({"name", "default"})
V1_CPU_TOPOLOGY: Final = ("sockets", "cores", "threads")
# v1.CPU key -> instancetype cpu key, and the zero value the v1.CPU field omitted
V1_CPU_CARRIED: Final[dict[str, tuple[str, Any]]] = {
    "model": ("model", ""),
    "dedicatedCpuPlacement": ("dedicatedCPUPlacement", False),
    "isolateEmulatorThread": ("isolateEmulatorThread", False),
    "numa": ("numa", None),
    "realtime": ("realtime", None),
    "maxSockets": ("maxSockets", 0),
}


def has_profiles(obj: Obj) -> bool:
    return obj.get("kind") in FLAVOR_KINDS and "profiles" in obj


@dataclass(slots=True)
class Choice:
    """Which profile of a flavor becomes the instancetype (``profile`` None: it cannot be decided)."""

    profile: Obj | None
    reason: str                       # "the only profile", "the default profile of 3", or the error message
    names: list[str] = field(default_factory=list)

    @property
    def name(self) -> str | None:
        return str(self.profile.get("name")) if self.profile is not None else None


def choose_profile(flavor: Obj) -> Choice:
    profiles = flavor.get("profiles")
    if not isinstance(profiles, list) or not profiles or not all(isinstance(p, dict) for p in profiles):
        return Choice(None, "profiles must be a non-empty list of profiles; there is nothing to migrate: "
                            "write the instancetype spec by hand")
    names = [str(p.get("name", "")) for p in profiles]
    if len(profiles) == 1:
        return Choice(profiles[0], "the only profile", names)
    defaults = [p for p in profiles if p.get("default") is True]
    if defaults:
        reason = f"the default profile of {len(profiles)}"
        if len(defaults) > 1:
            reason += f", the first of {len(defaults)} marked default as KubeVirt chose"
        return Choice(defaults[0], reason, names)
    listed = ", ".join(json.dumps(n) for n in names)
    return Choice(None, (
        f"has {len(profiles)} profiles ({listed}) and none is marked default: true, so migrate cannot tell "
        f"which one becomes the instancetype: mark the one to keep default: true (VMs that select another "
        f"profile need a flavor of their own: split the profiles into one flavor each) and rerun migrate"), names)


def _cpu_from_v1(cpu: Obj, profile: str) -> tuple[Obj, list[tuple[str, str]], list[tuple[str, str]]]:
    """(instancetype cpu, errors, warnings) for a VMI ``v1.CPU``; errors/warnings are (field, message)."""
    base = f"profiles[name={profile}].cpu"
    errors: list[tuple[str, str]] = []
    warnings: list[tuple[str, str]] = []
    counts: dict[str, int] = {}
    for key in V1_CPU_TOPOLOGY:
        value = cpu.get(key)
        if value is None or value == 0:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            errors.append((f"{base}.{key}", f"{key} must be a non-negative integer, got {json.dumps(value)}"))
        else:
            counts[key] = value
    out: Obj = {}
    if not counts and not errors:
        errors.append((base, (
            "sets no sockets, cores or threads, so the vCPU count came from each VM; a v1beta1 instancetype "
            "requires cpu.guest: add the vCPU count to the profile (cpu.sockets) and rerun migrate")))
    elif not errors:
        sockets, cores, threads = (counts.get(k, 1) for k in V1_CPU_TOPOLOGY)
        out["guest"] = sockets * cores * threads
        if cores > 1 or threads > 1:
            warnings.append((base, (
                f"guest topology sockets: {sockets}, cores: {cores}, threads: {threads} is not kept: a v1beta1 "
                f"instancetype carries only the vCPU count (guest: {out['guest']}); the VM's preference "
                f"(preferredCPUTopology) decides the topology now")))
    for key, value in cpu.items():
        if key in V1_CPU_TOPOLOGY:
            continue
        if key in V1_CPU_CARRIED:
            new_key, zero = V1_CPU_CARRIED[key]
            if value is not None and value != zero:
                out[new_key] = value
        elif key == "features":
            errors.append((f"{base}.features", (
                "CPU features have no place in a v1beta1 instancetype: move them to the VMs "
                "(spec.template.spec.domain.cpu.features) or to a preference (cpu.preferredCPUFeatures), "
                "remove them from the profile and rerun migrate")))
        else:
            errors.append((f"{base}.{key}", f"{key} has no v1beta1 instancetype equivalent: remove it from the "
                                            f"profile (or move it to the VMs) and rerun migrate"))
    return out, errors, warnings


def profile_spec(profile: Obj) -> tuple[Obj, list[tuple[str, str]], list[tuple[str, str]]]:
    """(instancetype spec, errors, warnings) for a profile body."""
    name = str(profile.get("name", ""))
    errors: list[tuple[str, str]] = []
    warnings: list[tuple[str, str]] = []
    spec: Obj = {}
    for key, value in profile.items():
        if key in PROFILE_META_KEYS:
            continue
        if key == "cpu" and isinstance(value, dict) and "guest" not in value:
            cpu, errs, warns = _cpu_from_v1(value, name)
            errors += errs
            warnings += warns
            spec["cpu"] = cpu
        elif key in INSTANCETYPE_SPEC_KEYS:
            spec[key] = value
        else:
            errors.append((f"profiles[name={name}].{key}", f"{key} has no v1beta1 instancetype equivalent: remove it "
                                                      f"from the profile and rerun migrate"))
    if "cpu" not in profile:
        errors.append((f"profiles[name={name}]", "sets no cpu; a v1beta1 instancetype requires cpu.guest: add the "
                                            "vCPU count to the profile (cpu.sockets) and rerun migrate"))
    memory = spec.get("memory")
    if not isinstance(memory, dict) or memory.get("guest") in (None, ""):
        errors.append((f"profiles[name={name}].memory", (
            "a v1beta1 instancetype requires memory.guest and flavor profiles had none (each VM set its own): "
            "add memory: {guest: <size>} to the profile, remove domain.memory.guest and "
            "resources.requests/limits.memory from the VMs that use it, and rerun migrate")))
    return spec, errors, warnings


def convert_flavor(flavor: Obj) -> tuple[Obj, list[Result]]:
    """A ``profiles`` flavor as a v1beta1 instancetype, or the flavor itself with error results."""
    api_version, kind = flavor.get("apiVersion"), str(flavor.get("kind"))
    new_kind = FLAVOR_KINDS[kind]
    if "spec" in flavor:
        return flavor, [fail(flavor, "has both profiles and spec: keep one and rerun migrate", "profiles")]
    choice = choose_profile(flavor)
    if choice.profile is None:
        return flavor, [fail(flavor, choice.reason, "profiles")]
    spec, errors, warnings = profile_spec(choice.profile)
    if errors:
        return flavor, [fail(flavor, f"{path}: {msg}" if not msg.startswith(path) else msg, path)
                        for path, msg in errors]
    source = f"{api_version} profile"
    spec, notes = legacy_spec(spec, "instancetype", source)
    new = with_type(flavor, INSTANCETYPE_API_VERSION, new_kind, {"profiles": ("spec", spec)})
    results = [warn(new, (
        f"{describe(api_version, kind)} (profiles) rewritten as "
        f"{describe(INSTANCETYPE_API_VERSION, new_kind)}: spec from profile {json.dumps(choice.name)} "
        f"({choice.reason})"), "profiles")]
    results += [warn(new, f"{path}: {msg}", path) for path, msg in warnings]
    return new, results + [warn(new, n.message, n.field_path) for n in notes]
