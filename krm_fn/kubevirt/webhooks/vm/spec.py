"""``ValidateVirtualMachineSpec`` (``pkg/virt-api/webhooks/validating-webhook/admitters/vms-admitter.go``): the VM
validating webhook's rules on the VM's spec, after the instancetype and preference are applied to a copy.

:func:`validate_vm_spec` returns, in upstream's order, the template spec's causes
(:mod:`krm_fn.kubevirt.webhooks.vmi.create`), the dataVolumeTemplates' and the run strategy's.
The template's metadata and the live-update rules are not here yet (issue 36).
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause
from krm_fn.kubevirt.webhooks.vmi.create import TEMPLATE_SPEC, validate_vmi_spec
from krm_fn.kubevirt_versions import LATEST, Release

RUN_STRATEGIES: Final = ("Halted", "Manual", "Always", "RerunOnFailure", "Once")
# a run strategy behind a feature gate: refused only when the gate is off, which waits for the cluster's gates
GATED_RUN_STRATEGY: Final = "WaitAsReceiver"


def validate_vm_spec(vm_spec: Obj, template_spec: Obj, release: Release = LATEST) -> list[Cause]:
    """The causes of a VM's ``spec``, whose template spec (with the specs applied) is ``template_spec``."""
    return validate_vmi_spec(TEMPLATE_SPEC, template_spec, release) + \
        _data_volume_templates(as_list(vm_spec.get("dataVolumeTemplates")), as_list(template_spec.get("volumes"))) + \
        _run_strategy(vm_spec, release)


def _data_volume_templates(templates: list[Any], volumes: list[Any]) -> list[Cause]:
    """Each dataVolumeTemplate has a name, and a volume (a PVC or a dataVolume of that name) uses it."""
    causes = []
    for idx, template in enumerate(templates):
        name = as_map(as_map(template).get("metadata")).get("name", "")
        at = f"spec.dataVolumeTemplate[{idx}]"  # upstream's path: the singular
        if not name:
            causes.append(Cause(REQUIRED, f"{at}.name",
                                f"'name' field must not be empty for DataVolumeTemplate entry {at}.name."))
        if not any(_uses(v, name) for v in volumes):
            causes.append(Cause(REQUIRED, at, f"DataVolumeTemplate entry {at} must be referenced in the VMI "
                                              "template's 'volumes' list"))
    return causes


def _uses(volume: Any, name: str) -> bool:
    volume = as_map(volume)
    claim, data = volume.get("persistentVolumeClaim"), volume.get("dataVolume")
    return isinstance(claim, dict) and claim.get("claimName", "") == name or \
        isinstance(data, dict) and data.get("name", "") == name


def _run_strategy(vm_spec: Obj, release: Release) -> list[Cause]:
    running, strategy = vm_spec.get("running"), vm_spec.get("runStrategy")
    causes = []
    if running is not None and strategy is not None:
        causes.append(Cause(INVALID, "spec.running", "Running and RunStrategy are mutually exclusive. Note that "
                                                     "Running is deprecated, please use RunStrategy instead"))
    if running is None and strategy is None:
        causes.append(Cause(INVALID, "spec.running", "RunStrategy must be specified"))
    known = RUN_STRATEGIES + ((GATED_RUN_STRATEGY,) if release.wait_as_receiver else ())
    if strategy is not None and strategy not in known:
        causes.append(Cause(INVALID, "spec.runStrategy", f"Invalid RunStrategy ({strategy})"))
    return causes
