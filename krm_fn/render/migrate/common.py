"""What the legacy forms are and how a legacy spec reads in v1beta1. Pure functions, no I/O.

Legacy forms (``docs/migrate.md``):

* ``flavor.kubevirt.io/v1alpha1``: ``VirtualMachineFlavor`` / ``VirtualMachineClusterFlavor`` (either the
  original top-level ``profiles`` list or the later ``spec``) and ``VirtualMachinePreference`` /
  ``VirtualMachineClusterPreference``;
* ``instancetype.kubevirt.io/v1alpha1`` and ``v1alpha2``: the four kinds (removed in KubeVirt v1.7);
* the deprecated ``preferredCPUTopology`` values (``preferSockets`` ...), still accepted by v1beta1.

Between v1alpha1/v1alpha2 and v1beta1 every field kept its JSON key and type family (upstream
``Convert_v1alpha2_*_To_v1beta1_*``). Three instancetype fields and the preference topology went from values
to pointers: a v1alpha zero value (``model: ""``, ``dedicatedCPUPlacement: false``,
``isolateEmulatorThread: false``, ``preferredCPUTopology: ""``) meant *unset*, while v1beta1 reads a present
``""``/``false`` as *set* (a VM that sets the field then conflicts). The migration keeps the v1alpha meaning and
drops them; KubeVirt's Go conversion materialised them instead (see ``docs/migrate.md``, decisions).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from krm_fn.kube.api import (
    ALPHA_API_VERSIONS,
    FAMILY_KINDS,
    INSTANCETYPE_API_VERSION,
    KIND_CLUSTER_INSTANCETYPE,
    KIND_INSTANCETYPE,
    TYPE_KINDS,
    Family,
)
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.compatibility import zero_values
from krm_fn.kubevirt.topology import DEPRECATED_NAMES
from krm_fn.results import Result

FLAVOR_GROUP: Final = "flavor.kubevirt.io"
FLAVOR_API_VERSION: Final = "flavor.kubevirt.io/v1alpha1"
KIND_FLAVOR: Final = "VirtualMachineFlavor"
KIND_CLUSTER_FLAVOR: Final = "VirtualMachineClusterFlavor"
FLAVOR_KINDS: Final = {KIND_FLAVOR: KIND_INSTANCETYPE, KIND_CLUSTER_FLAVOR: KIND_CLUSTER_INSTANCETYPE}
TOPOLOGY_PATH: Final = "spec.cpu.preferredCPUTopology"



def family_of(kind: str) -> Family | None:
    for family, kinds in FAMILY_KINDS.items():
        if kind in kinds:
            return family
    return None


def target_kind(api_version: Any, kind: Any) -> str | None:
    """The v1beta1 kind a legacy instancetype/preference/flavor object becomes; ``None`` for anything else
    (including objects that already are v1beta1)."""
    if api_version == FLAVOR_API_VERSION:
        if kind in FLAVOR_KINDS:
            return FLAVOR_KINDS[str(kind)]
        return str(kind) if kind in FAMILY_KINDS["preference"] else None
    if api_version in ALPHA_API_VERSIONS and kind in TYPE_KINDS:
        return str(kind)
    return None


def current_kind(api_version: Any, kind: Any) -> str | None:
    """The kind of an instancetype/preference object in any served or legacy version."""
    if api_version == INSTANCETYPE_API_VERSION and kind in TYPE_KINDS:
        return str(kind)
    return target_kind(api_version, kind)


@dataclass(frozen=True, slots=True)
class Note:
    """One field-level rewrite of a spec: where, and what it said before and after."""

    field_path: str
    message: str


def _with_cpu(spec: Obj, cpu: Obj | None) -> Obj:
    out = dict(spec)
    if cpu:
        out["cpu"] = cpu
    else:
        out.pop("cpu", None)
    return out


def deprecated_topology(spec: Any) -> tuple[str, str] | None:
    """``(old, new)`` when a preference spec uses a deprecated ``preferredCPUTopology`` value."""
    cpu = spec.get("cpu") if isinstance(spec, dict) else None
    value = cpu.get("preferredCPUTopology") if isinstance(cpu, dict) else None
    if isinstance(value, str) and value in DEPRECATED_NAMES:
        return value, DEPRECATED_NAMES[value]
    return None


def modern_spec(spec: Any, family: Family) -> tuple[Any, list[Note]]:
    """A v1beta1 spec with the deprecated topology value replaced; the same object when nothing changes."""
    if family != "preference" or not isinstance(spec, dict):
        return spec, []
    found = deprecated_topology(spec)
    if found is None:
        return spec, []
    old, new = found
    return _with_cpu(spec, {**spec["cpu"], "preferredCPUTopology": new}), [
        Note(TOPOLOGY_PATH, f"{TOPOLOGY_PATH}: deprecated value {old} rewritten as {new}")]


def legacy_spec(spec: Any, family: Family, source: str) -> tuple[Any, list[Note]]:
    """A v1alpha1/v1alpha2 (or flavor) spec as v1beta1: zero values that meant *unset* dropped, deprecated
    topology values replaced. ``source`` names the legacy version in the notes."""
    if not isinstance(spec, dict):
        return spec, []
    notes: list[Note] = []
    cpu = spec.get("cpu")
    if isinstance(cpu, dict):
        new_cpu = dict(cpu)
        if family == "instancetype":
            for key in zero_values(cpu, family):  # the conversion's rule (krm_fn.kubevirt.compatibility)
                notes.append(Note(f"spec.cpu.{key}", (
                    f"spec.cpu.{key}: {json.dumps(new_cpu.pop(key))} removed: {source} read it as unset, v1beta1 "
                    f"would read it as set (a VM setting the field would then conflict)")))
        elif new_cpu.get("preferredCPUTopology") == "":
            del new_cpu["preferredCPUTopology"]
            notes.append(Note(TOPOLOGY_PATH, f'{TOPOLOGY_PATH}: "" removed: {source} read it as unset'))
        if new_cpu != cpu:
            spec = _with_cpu(spec, new_cpu)
    spec, more = modern_spec(spec, family)
    return spec, notes + more


def with_type(obj: Obj, api_version: str, kind: str, replace: dict[str, tuple[str, Any]] | None = None) -> Obj:
    """A copy of ``obj`` with ``apiVersion``/``kind`` set and keys replaced in place (``old key -> (new key,
    value)``), keeping the key order of ``obj``."""
    replace = replace or {}
    out: Obj = {}
    for key, value in obj.items():
        if key == "apiVersion":
            out[key] = api_version
        elif key == "kind":
            out[key] = kind
        elif key in replace:
            new_key, new_value = replace[key]
            out[new_key] = new_value
        else:
            out[key] = value
    out.setdefault("apiVersion", api_version)
    out.setdefault("kind", kind)
    return out


def warn(obj: Obj, message: str, field_path: str | None = None) -> Result:
    return Result.for_object(message, obj, "warning", field_path=field_path, tags=(("stage", "migrate"),))


def fail(obj: Obj, message: str, field_path: str | None = None) -> Result:
    return Result.for_object(message, obj, "error", field_path=field_path, tags=(("stage", "migrate"),))


def describe(api_version: Any, kind: Any) -> str:
    return f"{api_version} {kind}"
