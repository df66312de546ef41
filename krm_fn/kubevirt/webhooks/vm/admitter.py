"""What the VM validating webhook checks for instancetypes and preferences
(``pkg/instancetype/webhooks/vm/admitter.go`` ``ApplyToVM``, then the preference requirements): the spread
check, then the specs applied to a copy of the VM's template (conflicts), then KubeVirt's defaults and the
requirements on the result. The copy is discarded: admission changes nothing.

The checks are separate functions, because :mod:`krm_fn.kubevirt.pipeline` judges expand's copy instead of
making one of its own whenever expand gets that far (see there); :func:`admit` is the whole admission.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from krm_fn.kube.api import Family
from krm_fn.kube.paths import Obj, as_map, ensure_map, get2
from krm_fn.kubevirt.apply.vmi import VM_BASE, apply_to_vmi
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.conflict import Conflict, admission_message, join_causes
from krm_fn.kubevirt.defaults import NETWORKS_FIELD, DefaultsError, set_default_vmi_spec
from krm_fn.kubevirt.preference.requirements import check_requirements
from krm_fn.kubevirt.preference.validation import SPREAD_FIELD, check_spread
from krm_fn.kubevirt.rejection import Rejection
from krm_fn.kubevirt.vmcopy import template_copy
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vm.spec import validate_data_volume_namespaces, validate_vm_spec
from krm_fn.kubevirt.webhooks.vmi.presets import apply_presets
from krm_fn.kubevirt_versions import LATEST, Release


def admit(vm: Obj, it: Obj | None, pref: Obj | None, cluster: ClusterConfig,
          release: Release = LATEST) -> Rejection | None:
    """The whole admission, on its own copy of the template, as ``release`` admits. Lookup failures are ignored
    there (v1.6+; v1.5's refusal: :func:`lookup_rejection`): pass the specs that were found."""
    if it is None and pref is None:
        return None
    rejection = spread_rejection(it, pref)
    if rejection:
        return rejection
    template = template_copy(get2(vm, "spec", "template") or {})
    vmi = ensure_map(template, ("spec",))
    meta = ensure_map(template, ("metadata",))
    conflicts = apply_to_vmi(VM_BASE, it, pref, vmi, meta, release)
    if conflicts:
        return conflicts_rejection(conflicts)
    try:
        set_default_vmi_spec(cluster, vmi, release)
    except DefaultsError as err:
        return Rejection("admit", err.message, NETWORKS_FIELD)
    return requirements_rejection(it, pref, vmi, release)


def lookup_rejection(family: Family, message: str) -> Rejection:
    """v1.5 (``Release.missing_reference_refused``): a matcher whose object is not found refuses the VM (the
    instancetype's first; the preference's only once the instancetype was found)."""
    return Rejection("admit", f"Failure to find {family}: {message}", f"spec.{family}")


def spread_rejection(it: Obj | None, pref: Obj | None) -> Rejection | None:
    """``CheckSpreadCPUTopology``: the instancetype's vCPUs must divide as the preference spreads them."""
    message = check_spread(it, pref) if it is not None else None
    return Rejection("admit", message, SPREAD_FIELD) if message else None


def conflicts_rejection(conflicts: list[Conflict]) -> Rejection:
    """The specs conflict with what the VM sets: one cause per conflict, joined in one result (the expand-spec
    API answers with that one message too)."""
    return Rejection("admit", admission_message(conflicts), str(conflicts[0]))


def requirements_rejection(it: Obj | None, pref: Obj | None, vmi: Obj, release: Release = LATEST) -> Rejection | None:
    """The preference's requirements (those ``release`` checks), on the VMI spec with the specs applied and the
    defaults set."""
    failure = check_requirements(it, pref, vmi, release.architecture_preference)
    return Rejection("admit", failure.message, failure.field) if failure else None


def template_rejection(vm: Obj, spec: Obj, cluster: ClusterConfig, release: Release = LATEST,
                       memo: dict[Any, Any] | None = None) -> Rejection | None:
    """The webhook's rules on ``vm``'s spec, its template spec being ``spec``: a copy with the specs applied and
    KubeVirt's defaults set (:func:`defaulted_spec` for a VM without specs)."""
    vm_spec = as_map(vm.get("spec"))
    namespace = as_map(vm.get("metadata")).get("namespace")  # none: the namespace it is applied to, unknown here
    causes = validate_vm_spec(vm_spec, spec, WebhookConfig(release, cluster, memo)) or \
        (validate_data_volume_namespaces(vm_spec, namespace) if isinstance(namespace, str) and namespace else [])
    if not causes:
        return None
    return Rejection("template", join_causes([c.message for c in causes]), causes[0].field, tuple(causes))


def defaulted_spec(vm: Obj, cluster: ClusterConfig, release: Release = LATEST,
                   presets: Sequence[Obj] = ()) -> Obj | Rejection:
    """A copy of ``vm``'s template spec with KubeVirt's defaults set, as the webhook judges a VM without specs.
    ``presets``: merged in before the defaults, as the VMI mutating webhook does for the VMI of the VM."""
    template = template_copy(get2(vm, "spec", "template") or {})
    vmi = ensure_map(template, ("spec",))
    if presets:
        apply_presets(ensure_map(vmi, ("domain",)), presets)
    try:
        set_default_vmi_spec(cluster, vmi, release)
    except DefaultsError as err:
        return Rejection("admit", err.message, NETWORKS_FIELD)
    return vmi


def defaulted_rejection(vm: Obj, cluster: ClusterConfig, release: Release = LATEST,
                        memo: dict[Any, Any] | None = None) -> Rejection | None:
    """The template rules on ``vm`` as written, its defaults set."""
    spec = defaulted_spec(vm, cluster, release)
    return spec if isinstance(spec, Rejection) else template_rejection(vm, spec, cluster, release, memo)
