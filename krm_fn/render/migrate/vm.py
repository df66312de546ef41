"""VirtualMachines of the flavor era: ``spec.flavor`` (``{name, kind, profile}``, later ``{name, kind,
revisionName}``) becomes ``spec.instancetype`` with the kind renamed.

``profile`` named a profile of a ``profiles`` flavor. It is dropped when it names the profile the flavor's
instancetype is made from (:mod:`krm_fn.render.migrate.flavor`); any other profile is an error, the VM unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final

from krm_fn.kube.api import KIND_CLUSTER_INSTANCETYPE, KIND_INSTANCETYPE
from krm_fn.kube.paths import Obj
from krm_fn.render.migrate.common import KIND_CLUSTER_FLAVOR, KIND_FLAVOR, fail, warn
from krm_fn.render.migrate.flavor import Choice
from krm_fn.results import Result

# lower-cased matcher kind -> (flavor kind, instancetype kind); "" is the cluster kind in both eras
MATCHER_KINDS: Final[dict[str, tuple[str, str]]] = {
    "virtualmachineflavor": (KIND_FLAVOR, KIND_INSTANCETYPE),
    "virtualmachineflavors": (KIND_FLAVOR, KIND_INSTANCETYPE),
    "virtualmachineclusterflavor": (KIND_CLUSTER_FLAVOR, KIND_CLUSTER_INSTANCETYPE),
    "virtualmachineclusterflavors": (KIND_CLUSTER_FLAVOR, KIND_CLUSTER_INSTANCETYPE),
    "": (KIND_CLUSTER_FLAVOR, KIND_CLUSTER_INSTANCETYPE),
}

# (flavor kind, VM, flavor name) -> the profile choice, None for a flavor with a spec, False when not found
FlavorLookup = Callable[[str, Obj, str], "Choice | None | bool"]


def convert_vm(vm: Obj, lookup: FlavorLookup) -> tuple[Obj, list[Result]]:
    """``vm`` with ``spec.flavor`` rewritten (the same object without one). ``lookup`` returns the flavor's
    :class:`Choice`, ``None`` for a flavor with a ``spec``, ``False`` when the flavor is not in the input."""
    spec = vm.get("spec")
    if not isinstance(spec, dict) or "flavor" not in spec:
        return vm, []
    matcher = spec["flavor"]
    if "instancetype" in spec:
        return vm, [fail(vm, "has both spec.flavor and spec.instancetype: remove spec.flavor (or move it to "
                             "spec.instancetype) and rerun migrate", "spec.flavor")]
    if not isinstance(matcher, dict):
        return vm, [fail(vm, "spec.flavor must be a mapping", "spec.flavor")]
    old_kind = str(matcher.get("kind") or "")
    kinds = MATCHER_KINDS.get(old_kind.lower())
    if kinds is None:
        return vm, [fail(vm, f"unknown flavor kind {json.dumps(old_kind)}: use VirtualMachineFlavor or "
                             f"VirtualMachineClusterFlavor and rerun migrate", "spec.flavor.kind")]
    flavor_kind, new_kind = kinds
    name = str(matcher.get("name") or "")
    profile = matcher.get("profile")
    dropped = ""
    if profile not in (None, ""):
        found = lookup(flavor_kind, vm, name)
        where = f"{flavor_kind} {name}"
        if found is False:
            return vm, [fail(vm, (
                f"selects profile {json.dumps(profile)} of {where}, which is not in the input as a flavor with "
                f"profiles, so migrate cannot check that it is the profile the instancetype is made from: "
                f"migrate the flavor together with this VM, or remove profile if it is that flavor's default "
                f"profile"), "spec.flavor.profile")]
        if isinstance(found, Choice):
            if found.profile is None:
                return vm, [fail(vm, (
                    f"selects profile {json.dumps(profile)} of {where}, which cannot be migrated automatically "
                    f"(see its error): decide which profile the flavor keeps and rerun migrate"),
                    "spec.flavor.profile")]
            if found.name != profile:
                return vm, [fail(vm, (
                    f"selects profile {json.dumps(profile)} of {where}, but its instancetype is made from profile "
                    f"{json.dumps(found.name)}: give this VM a flavor of its own holding only profile "
                    f"{json.dumps(profile)} and rerun migrate"), "spec.flavor.profile")]
        dropped = f", profile {json.dumps(profile)} dropped (" + (
            "the profile the instancetype is made from)" if isinstance(found, Choice) else "the flavor has a spec)")
    new_matcher: Obj = {}
    for key, value in matcher.items():
        if key == "profile":
            continue
        new_matcher[key] = new_kind if key == "kind" and old_kind else value
    new_spec = {("instancetype" if k == "flavor" else k): (new_matcher if k == "flavor" else v)
                for k, v in spec.items()}
    new_vm = {**vm, "spec": new_spec}
    shown_old = old_kind or f"default {KIND_CLUSTER_FLAVOR}"
    shown_new = new_kind if old_kind else f"default {KIND_CLUSTER_INSTANCETYPE}"
    return new_vm, [warn(new_vm, f"spec.flavor (kind {shown_old}) rewritten as spec.instancetype (kind "
                                 f"{shown_new}){dropped}", "spec.instancetype")]
