"""What the VM mutating webhook does for instancetypes and preferences: matcher validation, then
``inferFromVolume`` (``pkg/instancetype/webhooks/vm/mutator.go``), and the preference values it persists
into the VM (``pkg/virt-api/webhooks/mutating-webhook/mutators/vm-mutator.go``): the preferred architecture
and machine type (through ``preference/apply``, as the webhook calls them) and the preferred storage class
on ``dataVolumeTemplates``."""

from __future__ import annotations

from krm_fn.index import Index
from krm_fn.kube.api import CLUSTER_KIND, FAMILIES, MATCHER_TYPE, Family
from krm_fn.kube.paths import Obj, copy_json, get2, get3
from krm_fn.kube.status import INVALID, NOT_FOUND, Cause
from krm_fn.kubevirt.infer import POLICIES, InferError, infer_matchers
from krm_fn.kubevirt.preference.apply.architecture import apply_architecture_preferences
from krm_fn.kubevirt.preference.apply.machine import apply_machine_preferences
from krm_fn.kubevirt.rejection import Rejection
from krm_fn.kubevirt_versions import LATEST, Release


def validate_matcher(vm: Obj, family: Family, release: Release = LATEST) -> list[Cause]:
    """The admission causes for one matcher (name/inferFromVolume/kind/policy rules; KubeVirt's ``NotFound``
    type for the name/inferFromVolume/kind rules), in ``release``'s words."""
    matcher = get2(vm, "spec", family)
    if not isinstance(matcher, dict):
        return []
    causes: list[Cause] = []
    base = f"spec.{family}"
    name = matcher.get("name")
    infer = matcher.get("inferFromVolume")
    if not name and not infer:
        causes.append(Cause(NOT_FOUND, base,
                            f"Either Name or InferFromVolume should be provided within the {MATCHER_TYPE[family]}"))
    if infer and name:
        causes.append(Cause(NOT_FOUND, f"{base}.name", _with_infer("Name", family, release)))
    if infer and matcher.get("kind"):
        causes.append(Cause(NOT_FOUND, f"{base}.kind", _with_infer("Kind", family, release)))
    policy = matcher.get("inferFromVolumeFailurePolicy")
    if policy is not None and policy not in POLICIES:
        causes.append(Cause(INVALID, f"{base}.inferFromVolumeFailurePolicy",
                            f"Invalid value '{policy}' for InferFromVolumeFailurePolicy"))
    return causes


def _with_infer(field: str, family: Family, release: Release) -> str:
    """A name or kind beside ``inferFromVolume``; v1.5 and v1.6 word it after the matcher type."""
    if release.infer_matcher_message:
        return f"{field} should not be provided when InferFromVolume is used within the {MATCHER_TYPE[family]}"
    return f"{field} already set, should be cleared before setting inferFromVolume"


def validate_matchers(vm: Obj, release: Release = LATEST) -> list[Cause]:
    """Instancetype causes; only when there are none, the preference's."""
    for family in FAMILIES:
        causes = validate_matcher(vm, family, release)
        if causes:
            return causes
    return []


def mutate(vm: Obj, index: Index, release: Release = LATEST) -> Obj | Rejection:
    """``Mutate`` as ``release`` does it: matcher validation, then ``inferFromVolume``; ``vm`` itself when
    nothing is inferred, else a copy."""
    causes = validate_matchers(vm, release)
    if causes:
        return Rejection("mutate", ", ".join(c.message for c in causes), causes[0].field)
    if not any((get2(vm, "spec", f) or {}).get("inferFromVolume") for f in FAMILIES):
        return vm
    work: Obj = copy_json(vm)
    try:
        infer_matchers(work, index, release.infer_snapshot_sources)
    except InferError as err:
        return Rejection("mutate", err.message)
    return work


def default_matcher_kinds(vm: Obj) -> Obj:
    """v1.5 and v1.6 (``Release.matcher_kind_defaulted``): an empty matcher kind becomes the cluster kind;
    ``vm`` itself when every matcher names its kind, else a copy sharing the rest."""
    spec = vm.get("spec")
    if not isinstance(spec, dict):
        return vm
    out: Obj | None = None  # the new spec, made at the first matcher defaulted (a loop: one per VM of a v1.5 fleet)
    for family in FAMILIES:
        matcher = spec.get(family)
        if isinstance(matcher, dict) and not matcher.get("kind"):
            if out is None:
                out = dict(spec)
            out[family] = {**matcher, "kind": CLUSTER_KIND[family]}
    return vm if out is None else {**vm, "spec": out}


def persist_preferences(vm: Obj, pref: Obj, release: Release = LATEST) -> Obj:
    """The preference values the webhook of ``release`` writes into ``vm``: ``vm`` itself when none applies,
    else a copy that shares everything it leaves unchanged."""
    template_spec = get3(vm, "spec", "template", "spec")
    applied = _with_preferred_machine(template_spec, pref, release.architecture_preference) \
        if isinstance(template_spec, dict) else None
    storage_class = (pref.get("volumes") or {}).get("preferredStorageClassName")
    templates = _with_storage_class(get2(vm, "spec", "dataVolumeTemplates"), storage_class) \
        if storage_class else None
    if applied is None and templates is None:
        return vm
    spec = dict(vm["spec"])
    if applied is not None:
        spec["template"] = {**spec["template"], "spec": applied}
    if templates is not None:
        spec["dataVolumeTemplates"] = templates
    return {**vm, "spec": spec}


def _with_preferred_machine(template_spec: Obj, pref: Obj, architecture: bool) -> Obj | None:
    """``template_spec`` with the preferred architecture (``architecture``: the release has it, v1.7+) and
    machine type applied, or None when that changes nothing: they are applied to a copy of the path they write
    to, then compared."""
    out = dict(template_spec)
    domain = out.get("domain")
    if isinstance(domain, dict):
        domain = out["domain"] = dict(domain)
        if isinstance(domain.get("machine"), dict):
            domain["machine"] = dict(domain["machine"])
    if architecture:
        apply_architecture_preferences(pref, out)
    apply_machine_preferences(pref, out)
    return None if out == template_spec else out


def _with_storage_class(templates: object, storage_class: object) -> list[object] | None:
    """``dataVolumeTemplates`` with ``storage_class`` on every ``pvc``/``storage`` claim that sets none, or
    None when there is no such claim."""
    if not isinstance(templates, list):
        return None
    out: list[object] = []
    changed = False
    for dvt in templates:
        spec = dvt.get("spec") if isinstance(dvt, dict) else None
        if isinstance(spec, dict):
            claims = {key: {**spec[key], "storageClassName": storage_class} for key in ("pvc", "storage")
                      if isinstance(spec.get(key), dict) and spec[key].get("storageClassName") is None}
            if claims:
                dvt = {**dvt, "spec": {**spec, **claims}}
                changed = True
        out.append(dvt)
    return out if changed else None
