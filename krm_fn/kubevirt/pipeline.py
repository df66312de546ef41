"""What KubeVirt does to a VirtualMachine created in a cluster, then what expand returns for it: one VM
through named stages; the first failure ends it (``shared/conformance/README.md``).

1. ``schema``: the OpenAPI validator of virt-api (:func:`krm_fn.kubevirt.schema.validation.schema_errors`);
2. ``mutate``: the mutating webhook (:mod:`krm_fn.kubevirt.webhooks.vm.mutator`): matcher validation,
   ``inferFromVolume``, the preference values it persists;
3. ``admit``: the validating webhook (:mod:`krm_fn.kubevirt.webhooks.vm.admitter`) on a copy: spread check,
   conflicts, defaults, preference requirements (lookup failures are ignored there);
4. ``template``: the same webhook's rules on the template, with the specs applied
   (:mod:`krm_fn.kubevirt.webhooks.vmi.create`; the expand-spec API does not run them, so
   ``shared/conformance`` does not record them, ``shared/conformance-vms`` does);
5. ``expand``: :func:`krm_fn.kubevirt.expand.expand` on the mutated VM, whose result is what a Go round trip
   writes (:func:`krm_fn.kubevirt.schema.roundtrip.encode_shared`, only when the expanded VM is read:
   :attr:`VmStages.expanded`).

Each matcher is looked up once (:func:`krm_fn.kubevirt.find.find_matches`): :attr:`VmStages.found` holds
what was found for it (kind, object or revision), and everything after the pipeline reads it there.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from krm_fn.index import Index
from krm_fn.kube.identity import namespace_of
from krm_fn.kube.paths import Obj, as_map
from krm_fn.kube.status import Cause
from krm_fn.kubevirt.caches import Caches
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.defaults import NETWORKS_FIELD
from krm_fn.kubevirt.expand import expand
from krm_fn.kubevirt.find.found import FindError, Found, Matches
from krm_fn.kubevirt.find.spec import find_matches
from krm_fn.kubevirt.rejection import Rejection
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.schema.roundtrip import encode_shared
from krm_fn.kubevirt.schema.validation import schema_errors
from krm_fn.kubevirt.vmcopy import expand_copy
from krm_fn.kubevirt.webhooks.vm.admitter import (
    admit,
    conflicts_rejection,
    lookup_rejection,
    requirements_rejection,
    defaulted_rejection,
    defaulted_spec,
    spread_rejection,
    template_rejection,
)
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vm.defaults import with_datasource_architecture
from krm_fn.kubevirt.webhooks.vm.mutator import default_matcher_kinds, mutate, persist_preferences
from krm_fn.kubevirt.launcher.manifest import pod_causes
from krm_fn.kubevirt.webhooks.vmi.presets import matching_presets
from krm_fn.kubevirt.webhooks.vmi.start import validate_vmi_start
from krm_fn.kubevirt_versions import LATEST, Release

VM_DEFINITION: Final = "v1.VirtualMachine"


class VmStages:
    """The VM as each stage left it, or the stage's rejection. ``expanded`` is None for a VM without matchers
    (returned unchanged) or a rejected one, except one refused by the template rules only (stage ``template``),
    which the expand-spec API expands all the same. ``found``: each matcher's lookup, on the VM as inferred once the
    pipeline got that far (else on the VM given).

    The Go round trip of the expanded VM is done on first access of ``expanded`` only (``pending`` holds the
    VM to encode): the validate and revisions modes never read it. It shares what it leaves unchanged with
    the VM (:func:`krm_fn.kubevirt.schema.roundtrip.encode_shared`): no part of it may be mutated.
    """

    __slots__ = ("rejection", "mutated", "inferred", "found", "start", "vmi", "_expanded", "_pending", "_tag")

    def __init__(self, found: Matches, rejection: Rejection | None = None, mutated: Obj | None = None,
                 inferred: Obj | None = None, *, pending: Obj | None = None, tag: str = DEFAULT_TAG,
                 start: tuple[Cause, ...] = (), vmi: Obj | None = None) -> None:
        self.found = found
        self.rejection = rejection
        # the VMI create webhook's causes when virt-controller starts the stored VM (it stays stored)
        self.start = start
        # the VM's template as virt-controller makes its VMI of it (specs applied, defaults set; shared, not to
        # be mutated), when the VM is admitted
        self.vmi = vmi
        self.mutated = mutated      # the VM as the mutating webhook left it
        self.inferred = inferred    # the VM after inferFromVolume only (what a pinned VM keeps)
        self._expanded: Obj | None = None
        self._pending = pending
        self._tag = tag  # the release whose Go types the expanded VM is written with

    @property
    def expanded(self) -> Obj | None:
        if self._pending is not None:
            self._expanded = encode_shared(self._pending, VM_DEFINITION, self._tag)
            self._pending = None
        return self._expanded


Lookup = Found | FindError | None


def _spec(result: Lookup) -> Obj | None:
    return result.spec if isinstance(result, Found) else None


def check_schema(vm: Obj, tag: str = DEFAULT_TAG) -> Rejection | None:
    """virt-api's message (every cause joined with ``", "``, as ``ToAdmissionResponse`` does) against KubeVirt
    ``tag``'s schema; the result's field is the precise place of the first cause, list indexes included (the
    messages have none)."""
    errors = schema_errors(vm, tag)
    if not errors:
        return None
    return Rejection("schema", ", ".join(e.message for e in errors), errors[0].field or None)


def vm_stages(vm: Obj, index: Index, cluster: ClusterConfig, caches: Caches | None = None,
              found: Matches | None = None, release: Release | None = None) -> VmStages:
    """The whole pipeline for one VM; never mutates ``vm``. ``caches``: the render's (else this VM's own).
    ``found``: ``vm``'s matches when the caller looked them up already
    (:func:`krm_fn.kubevirt.find.find_matches`), else they are looked up here. ``release``: the row of the
    KubeVirt release whose answer is wanted (``krm_fn.kubevirt_versions``; default the newest): every stage
    reads its behaviour switches from it, and its ``tag`` names the schema every object is read with (the VM
    validated, the specs found decoded, the expanded VM written)."""
    if release is None:
        release = LATEST
    tag = release.tag
    rejection = check_schema(vm, tag)
    if rejection:
        return VmStages(found or {}, rejection=rejection)
    if caches is None:
        caches = Caches()
    if found is None:
        found = find_matches(vm, index, caches, tag=tag)
    if not found:  # no matchers: the template rules alone
        rejection, start, vmi = _as_written(vm, index, cluster, release, caches)
        return VmStages(found, rejection=rejection, start=start, vmi=vmi)
    inferred = mutate(vm, index, release)
    if isinstance(inferred, Rejection):
        return VmStages(found, rejection=inferred)
    if inferred is not vm:  # inferFromVolume named objects: those matchers are looked up now
        found = find_matches(inferred, index, caches, found, vm, tag)
    if not found:
        # inference with the Ignore policy cleared the matchers: KubeVirt persists that VM as is
        rejection, start, vmi = _as_written(inferred, index, cluster, release, caches)
        if rejection is not None and rejection.stage != "template":
            return VmStages(found, rejection=rejection, mutated=inferred, inferred=inferred)
        # the template rules' refusal keeps the VM the expand-spec API answers (it does not run them)
        return VmStages(found, rejection=rejection, pending=inferred, mutated=inferred, inferred=inferred, tag=tag,
                        start=start, vmi=vmi)
    # the webhook's changes (architecture, machine type, storage class) leave the matchers, status refs
    # and namespace alone: the lookups on ``inferred`` hold for ``mutated``
    it, pref = found.get("instancetype"), found.get("preference")
    pref_spec = _spec(pref)
    mutated = persist_preferences(inferred, pref_spec, release) if pref_spec is not None else inferred
    if release.matcher_kind_defaulted:
        mutated = default_matcher_kinds(mutated)
    mutated = with_datasource_architecture(mutated, index, release)
    expanded = admit_and_expand(mutated, it, pref, cluster, release)
    if isinstance(expanded, Rejection):
        return VmStages(found, rejection=expanded, mutated=mutated, inferred=inferred)
    # the webhook's template rules, on expand's whole copy; the expand-spec API does not run them, so a VM they
    # refuse keeps its expanded form (what that API returns) beside the rejection
    template = expanded["spec"]["template"]
    rejection = template_rejection(mutated, template["spec"], cluster, release, caches.domains)
    if rejection:
        return VmStages(found, rejection=rejection, pending=expanded, mutated=mutated, inferred=inferred, tag=tag)
    presets = _presets(mutated, template, index)
    if presets:  # virt-controller's VMI has them merged in before its defaults
        made = expand(expand_copy(mutated), _spec(it), pref_spec, cluster, release, presets)
        template = made["spec"]["template"] if isinstance(made, dict) else template
    return VmStages(found, pending=expanded, mutated=mutated, inferred=inferred, tag=tag,
                    start=starting(template["spec"], cluster, release), vmi=template)


def _as_written(vm: Obj, index: Index, cluster: ClusterConfig, release: Release,
                caches: Caches) -> tuple[Rejection | None, tuple[Cause, ...], Obj | None]:
    """A VM without specs judged as written, KubeVirt's defaults set: the defaults' or the template rules'
    refusal, else the VMI create webhook's causes; and the template its VMI is made of (when admitted)."""
    source = with_datasource_architecture(vm, index, release)
    spec = defaulted_spec(source, cluster, release)
    if isinstance(spec, Rejection):
        return spec, (), None
    rejection = template_rejection(vm, spec, cluster, release, caches.domains)
    if rejection:
        return rejection, (), None
    template = {"metadata": vm["spec"]["template"].get("metadata"), "spec": spec}
    presets = _presets(vm, template, index)
    if presets:  # virt-controller's VMI has them merged in before its defaults
        again = defaulted_spec(source, cluster, release, presets)
        template["spec"] = spec if isinstance(again, Rejection) else again
    return None, starting(template["spec"], cluster, release), template


def _presets(vm: Obj, template: Obj, index: Index) -> list[Obj]:
    """The VirtualMachineInstancePresets of ``vm``'s namespace that select its VMI (the template's labels)."""
    return matching_presets(index, namespace_of(vm), as_map(as_map(template.get("metadata")).get("labels")))


def starting(spec: Obj, cluster: ClusterConfig, release: Release) -> tuple[Cause, ...]:
    """What starting the stored VM meets, its VMI spec being ``spec``: the VMI create webhook's causes, else what
    keeps its launcher pod from being created (a cause whose message has no webhook's words)."""
    config = WebhookConfig(release, cluster)
    return tuple(validate_vmi_start(spec, config)) or tuple(pod_causes(spec, config))


def admit_and_expand(vm: Obj, it: Lookup, pref: Lookup, cluster: ClusterConfig,
                     release: Release = LATEST) -> Obj | Rejection:
    """Admission, then expand, with one copy of the template where they can share it.

    Both apply the same specs and set the same defaults; they differ only in when the default disks and pod
    interface are added, which neither conflicts nor requirements depend on. So once expand gets past those
    devices, admission judges expand's copy: its conflicts in admission's words (admission runs first), or
    the requirements on its result. When it does not (a lookup failed, or the pod interface cannot be added),
    admission runs on its own copy, and expand's error stands only if admission lets the VM through.
    ``release``: the KubeVirt release that admits and expands (v1.5 refuses a failed lookup at admission).
    """
    it_spec, pref_spec = _spec(it), _spec(pref)
    if release.missing_reference_refused:
        if isinstance(it, FindError):
            return lookup_rejection("instancetype", it.message)
        if isinstance(pref, FindError):
            return lookup_rejection("preference", pref.message)
    if isinstance(it, FindError):
        failed = Rejection("expand", it.message, "spec.instancetype")
    elif isinstance(pref, FindError):
        failed = Rejection("expand", pref.message, "spec.preference")
    else:
        rejection = spread_rejection(it_spec, pref_spec)
        if rejection:
            return rejection
        expanded = expand(expand_copy(vm), it_spec, pref_spec, cluster, release)
        if isinstance(expanded, list):
            return conflicts_rejection(expanded)
        if isinstance(expanded, dict):
            applied = expanded["spec"]["template"]["spec"]
            return requirements_rejection(it_spec, pref_spec, applied, release) or expanded
        failed = Rejection("expand", expanded.message, NETWORKS_FIELD)
    admitted = admit(vm, it_spec, pref_spec, cluster, release)
    if admitted:
        return admitted
    template = defaulted_rejection(vm, cluster, release)
    return dataclasses.replace(template, expand_error=failed) if template else failed
