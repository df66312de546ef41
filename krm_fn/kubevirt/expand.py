"""What KubeVirt does to a VirtualMachine created in a cluster, then what expand-spec returns for it.

Stages (the first failure ends processing, see ``shared/conformance/README.md``):

1. ``schema``: the OpenAPI validator of virt-api (:func:`krm_fn.kubevirt.schema.validate_vm`);
2. ``mutate``: matcher validation, ``inferFromVolume``, the preference values the webhook persists;
3. ``admit``: on a copy: spread check, conflicts, defaults, preference requirements (lookup failures
   are ignored here);
4. ``expand``: ``pkg/instancetype/expand`` on the mutated VM: default disks and pod network, instancetype
   and preference, ``SetDefaultVirtualMachineInstanceSpec``, matchers and status refs removed; the result
   is what a Go round trip writes (:func:`krm_fn.kubevirt.schema.encode_shared`, only when the expanded VM is read:
   :attr:`Outcome.expanded`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from krm_fn.kubevirt.apply import VM_BASE, apply_to_vmi
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.conflict import Conflict, admission_message, expand_message
from krm_fn.kubevirt.defaults import (
    DefaultsError,
    set_default_network_interface,
    set_default_vmi_spec,
    set_default_volume_disks,
)
from krm_fn.kubevirt.find import FindError, Found, find_spec
from krm_fn.index import Index
from krm_fn.kubevirt.infer import InferError, infer_matchers, validate_matchers
from krm_fn.kube.paths import Obj, copy_json, ensure_map, get2
from krm_fn.kubevirt.preference.mutate import apply_persisted_preferences, persisted_preferences_apply
from krm_fn.kubevirt.preference.requirements import check_requirements
from krm_fn.kubevirt.preference.validation import SPREAD_FIELD, check_spread
from krm_fn.kubevirt.quantity import QuantityCache
from krm_fn.kubevirt.schema import encode_object, encode_shared, validate_vm

Stage = Literal["schema", "mutate", "admit", "expand"]

VM_DEFINITION: Final = "v1.VirtualMachine"
STAGE_PREFIX: Final[dict[str, str]] = {
    "schema": "Object is not a valid VirtualMachine: ",
    "mutate": 'admission webhook "virtualmachines-mutator.kubevirt.io" denied the request: ',
    "admit": 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: ',
    "expand": "unable to expand VirtualMachine: ",
}


@dataclass(frozen=True, slots=True)
class Rejection:
    stage: Stage
    error: str                      # KubeVirt's exact error text
    field_path: str | None = None

    @property
    def message(self) -> str:
        """The result message: where it failed, then KubeVirt's text (searchable as is)."""
        return STAGE_PREFIX[self.stage] + self.error


class Outcome:
    """``expanded`` is None for a VM without matchers (returned unchanged) or a rejected one.

    The Go round trip of the expanded VM is done on first access of ``expanded`` only (``pending`` holds the
    VM to encode): the validate and revisions modes never read it. It shares what it leaves unchanged with
    the VM (:func:`krm_fn.kubevirt.schema.encode_shared`): no part of an outcome may be mutated.
    """

    __slots__ = ("rejection", "mutated", "inferred", "_expanded", "_pending")

    def __init__(self, expanded: Obj | None = None, rejection: Rejection | None = None,
                 mutated: Obj | None = None, inferred: Obj | None = None, *, pending: Obj | None = None) -> None:
        self.rejection = rejection
        self.mutated = mutated      # the VM as the mutating webhook left it
        self.inferred = inferred    # the VM after inferFromVolume only (what a pinned VM keeps)
        self._expanded = expanded
        self._pending = pending

    @property
    def expanded(self) -> Obj | None:
        if self._pending is not None:
            self._expanded = encode_shared(self._pending, VM_DEFINITION)
            self._pending = None
        return self._expanded


def has_matchers(vm: Obj) -> bool:
    spec = vm.get("spec")
    return isinstance(spec, dict) and (spec.get("instancetype") is not None or spec.get("preference") is not None)


def _conflict_field(conflicts: list[Conflict]) -> str:
    return str(conflicts[0])


def check_schema(vm: Obj) -> Rejection | None:
    errors = validate_vm(vm)
    if errors:
        return Rejection("schema", ", ".join(errors))
    return None


def infer(vm: Obj, index: Index) -> Obj | Rejection:
    """Matcher validation and ``inferFromVolume``: ``vm`` itself when nothing is inferred, else a copy."""
    causes = validate_matchers(vm)
    if causes:
        return Rejection("mutate", ", ".join(c.message for c in causes), causes[0].field)
    if not any((get2(vm, "spec", f) or {}).get("inferFromVolume") for f in ("instancetype", "preference")):
        return vm
    work: Obj = copy_json(vm)
    try:
        infer_matchers(work, index)
    except InferError as err:
        return Rejection("mutate", err.message)
    return work


def persist_preferences(vm: Obj, index: Index, found: Lookup = None) -> Obj:
    """The preference values the webhook writes into the VM: ``vm`` itself when none applies, else a copy.
    ``found``: the preference lookup for ``vm`` when already done."""
    pref = _found(found if found is not None else lookup(vm, "preference", index))
    if pref is None or not persisted_preferences_apply(pref.spec, vm):
        return vm
    work = _persist_copy(vm)
    apply_persisted_preferences(pref.spec, work)
    return work


def mutate(vm: Obj, index: Index) -> Obj | Rejection:
    """The instancetype part of the mutating webhook; ``vm`` itself when nothing changes, else a copy."""
    inferred = infer(vm, index)
    if isinstance(inferred, Rejection):
        return inferred
    return persist_preferences(inferred, index)


Lookup = Found | FindError | None


def lookup(vm: Obj, family: Literal["instancetype", "preference"], index: Index) -> Lookup:
    """The matcher's spec, ``None`` without a matcher, or the lookup error (as a value)."""
    try:
        return find_spec(vm, family, index)
    except FindError as err:
        return err


def _found(result: Lookup) -> Found | None:
    return result if isinstance(result, Found) else None


def admit(vm: Obj, it: Found | None, pref: Found | None, cluster: ClusterConfig,
          quantities: QuantityCache | None = None) -> Rejection | None:
    """The instancetype part of the validating webhook, run on a copy (discarded). Lookup failures are
    ignored there: pass what was found."""
    if it is None and pref is None:
        return None
    pref_spec = pref.spec if pref else None
    if it is not None:
        message = check_spread(it.spec, pref_spec)
        if message:
            return Rejection("admit", message, SPREAD_FIELD)
    template = template_copy(get2(vm, "spec", "template") or {})
    vmi = ensure_map(template, ("spec",))
    meta = ensure_map(template, ("metadata",))
    conflicts = apply_to_vmi(VM_BASE, it.spec if it else None, pref_spec, vmi, meta)
    if conflicts:
        return Rejection("admit", admission_message(conflicts), _conflict_field(conflicts))
    try:
        set_default_vmi_spec(cluster, vmi)
    except DefaultsError as err:
        return Rejection("admit", err.message, "spec.template.spec.networks")
    failure = check_requirements(it.spec if it else None, pref_spec, vmi, quantities)
    if failure:
        return Rejection("admit", failure.message, failure.field)
    return None


def _lookup_rejection(it: Lookup, pref: Lookup) -> Rejection | None:
    if isinstance(it, FindError):
        return Rejection("expand", it.message, "spec.instancetype")
    if isinstance(pref, FindError):
        return Rejection("expand", pref.message, "spec.preference")
    return None


def expand_found(vm: Obj, it: Found | None, pref: Found | None, cluster: ClusterConfig,
                 conflict_stage: Stage = "expand") -> Obj | Rejection:
    """``expand.Expand`` once the specs are known; mutates ``vm`` (pass :func:`expand_copy`), returns the
    Go round trip of the result. Conflicts are reported by ``conflict_stage`` (admission wording for
    ``admit``)."""
    result = expand_in_place(vm, it, pref, cluster, conflict_stage)
    return result if isinstance(result, Rejection) else encode_object(result, VM_DEFINITION)


def expand_in_place(vm: Obj, it: Found | None, pref: Found | None, cluster: ClusterConfig,
                    conflict_stage: Stage = "expand", quantities: QuantityCache | None = None) -> Obj | Rejection:
    """:func:`expand_found` without the Go round trip: returns ``vm`` itself, expanded in place."""
    template = ensure_map(vm, ("spec", "template"))
    vmi = ensure_map(template, ("spec",))
    meta = ensure_map(template, ("metadata",))
    set_default_volume_disks(vmi)
    try:
        set_default_network_interface(cluster, vmi)
    except DefaultsError as err:
        return Rejection("expand", err.message, "spec.template.spec.networks")
    it_spec = it.spec if it else None
    pref_spec = pref.spec if pref else None
    conflicts = apply_to_vmi(VM_BASE, it_spec, pref_spec, vmi, meta)
    if conflicts:
        if conflict_stage == "admit":
            return Rejection("admit", admission_message(conflicts), _conflict_field(conflicts))
        return Rejection("expand", expand_message(conflicts), _conflict_field(conflicts))
    set_default_vmi_spec(cluster, vmi)
    if conflict_stage == "admit":
        # the admission copy differs only in device lists, which requirements never look at
        failure = check_requirements(it_spec, pref_spec, vmi, quantities)
        if failure:
            return Rejection("admit", failure.message, failure.field)
    spec = vm["spec"]
    spec.pop("instancetype", None)
    spec.pop("preference", None)
    status = vm.get("status")
    if isinstance(status, dict):
        status.pop("instancetypeRef", None)
        status.pop("preferenceRef", None)
    return vm


def expand(vm: Obj, index: Index, cluster: ClusterConfig) -> Obj | Rejection:
    """``expand.Expand`` alone (what ``virtctl expand`` returns); ``vm`` is not changed."""
    it, pref = lookup(vm, "instancetype", index), lookup(vm, "preference", index)
    rejection = _lookup_rejection(it, pref)
    if rejection:
        return rejection
    return expand_found(expand_copy(vm), _found(it), _found(pref), cluster)


def expand_copy(vm: Obj) -> Obj:
    """A copy deep enough for :func:`expand_found`: ``spec``/``status`` shallowly, the template as
    :func:`template_copy`."""
    out = dict(vm)
    spec = vm.get("spec")
    if isinstance(spec, dict):
        out["spec"] = {**spec, "template": template_copy(spec.get("template") or {})}
    if isinstance(vm.get("status"), dict):
        out["status"] = dict(vm["status"])
    return out


def template_copy(template: object) -> Obj:
    """A copy of a VM template deep enough for expand and admission, which change (in place) only
    ``metadata.annotations``, top-level keys of ``spec``, anything under ``spec.domain`` and the
    ``containerDisk`` of volumes (pull policy); everything else is shared with ``template``."""
    if not isinstance(template, dict):
        out: Obj = copy_json(template)
        return out
    out = dict(template)
    meta = template.get("metadata")
    if isinstance(meta, dict):
        meta = out["metadata"] = dict(meta)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict):
            meta["annotations"] = dict(annotations)
    vmi = template.get("spec")
    if isinstance(vmi, dict):
        vmi = out["spec"] = dict(vmi)
        if "domain" in vmi:
            vmi["domain"] = copy_json(vmi["domain"])
        volumes = vmi.get("volumes")
        if isinstance(volumes, list):
            vmi["volumes"] = [
                {**v, "containerDisk": dict(v["containerDisk"])}
                if isinstance(v, dict) and isinstance(v.get("containerDisk"), dict) else v
                for v in volumes
            ]
    return out


def _persist_copy(vm: Obj) -> Obj:
    """A copy deep enough for :func:`apply_persisted_preferences`: the path to ``domain.machine`` and the
    ``pvc``/``storage`` of each ``dataVolumeTemplates`` spec are copied, the rest is shared with ``vm``."""
    out = dict(vm)
    spec = vm.get("spec")
    if not isinstance(spec, dict):
        return out
    spec = out["spec"] = dict(spec)
    template = spec.get("template")
    if isinstance(template, dict):
        template = spec["template"] = dict(template)
        vmi = template.get("spec")
        if isinstance(vmi, dict):
            vmi = template["spec"] = dict(vmi)
            domain = vmi.get("domain")
            if isinstance(domain, dict):
                domain = vmi["domain"] = dict(domain)
                if isinstance(domain.get("machine"), dict):
                    domain["machine"] = dict(domain["machine"])
    templates = spec.get("dataVolumeTemplates")
    if isinstance(templates, list):
        copied: list[object] = []
        for dvt in templates:
            if isinstance(dvt, dict) and isinstance(dvt.get("spec"), dict):
                dv_spec = dict(dvt["spec"])
                for key in ("pvc", "storage"):
                    if isinstance(dv_spec.get(key), dict):
                        dv_spec[key] = dict(dv_spec[key])
                dvt = {**dvt, "spec": dv_spec}
            copied.append(dvt)
        spec["dataVolumeTemplates"] = copied
    return out


def process_vm(vm: Obj, index: Index, cluster: ClusterConfig) -> Outcome:
    """The whole pipeline for one VM; never mutates ``vm``."""
    rejection = check_schema(vm)
    if rejection:
        return Outcome(rejection=rejection)
    if not has_matchers(vm):
        return Outcome()
    inferred = infer(vm, index)
    if isinstance(inferred, Rejection):
        return Outcome(rejection=inferred)
    if not has_matchers(inferred):
        # inference with the Ignore policy cleared the matchers: KubeVirt persists that VM as is
        return Outcome(pending=inferred, mutated=inferred, inferred=inferred)
    # the webhook's changes (architecture, machine type, storage class) leave the matchers, status refs
    # and namespace alone: the lookups on ``inferred`` hold for ``mutated``
    it, pref = lookup(inferred, "instancetype", index), lookup(inferred, "preference", index)
    mutated = persist_preferences(inferred, index, pref)
    failed = _lookup_rejection(it, pref)
    if failed is not None:
        # admission ignores lookup failures (checks with what it found); expand then fails on the lookup
        rejection = admit(mutated, _found(it), _found(pref), cluster, index.quantities)
        return Outcome(rejection=rejection or failed, mutated=mutated, inferred=inferred)
    it_found, pref_found = _found(it), _found(pref)
    if it_found is not None:
        message = check_spread(it_found.spec, pref_found.spec if pref_found else None)
        if message:
            return Outcome(rejection=Rejection("admit", message, SPREAD_FIELD), mutated=mutated, inferred=inferred)
    # one pass serves admission and expand: they apply the same specs and differ only in when the
    # default disks/interface are added, which neither conflicts nor requirements depend on
    expanded = expand_in_place(expand_copy(mutated), it_found, pref_found, cluster, conflict_stage="admit",
                               quantities=index.quantities)
    if isinstance(expanded, Rejection):
        if expanded.stage == "expand":  # a defaults error before apply: take the exact path
            rejection = admit(mutated, it_found, pref_found, cluster, index.quantities)
            return Outcome(rejection=rejection or expanded, mutated=mutated, inferred=inferred)
        return Outcome(rejection=expanded, mutated=mutated, inferred=inferred)
    return Outcome(pending=expanded, mutated=mutated, inferred=inferred)
