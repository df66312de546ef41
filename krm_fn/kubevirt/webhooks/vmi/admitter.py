"""The VMI create webhook on a ``VirtualMachineInstance`` given as such (``vmi-create-admitter.go``): the VMI
mutating webhook's defaults on a copy, then the spec's rules (:mod:`krm_fn.kubevirt.webhooks.vmi.create`), then
the rules only the VMI webhook runs (:mod:`krm_fn.kubevirt.webhooks.vmi.start`).

A VMI made by a user (not by virt-controller) also may not carry the labels KubeVirt reserves.
"""

from __future__ import annotations

from krm_fn.kube.paths import Obj, as_map, copy_json
from krm_fn.kube.status import INVALID, Cause
from krm_fn.kubevirt.defaults import NETWORKS_FIELD, DefaultsError, set_default_vmi_spec
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vmi.create import validate_vmi_spec
from krm_fn.kubevirt.webhooks.vmi.metadata import validate_metadata
from krm_fn.kubevirt.webhooks.vmi.start import VMI_SPEC, validate_vmi_start


def admit_vmi(vmi: Obj, config: WebhookConfig) -> list[Cause]:
    """The causes of a VirtualMachineInstance as the VMI create webhook judges it; [] when it admits it."""
    spec = copy_json(as_map(vmi.get("spec")))
    try:
        set_default_vmi_spec(config.cluster, spec, config.release)
    except DefaultsError as err:
        return [Cause(INVALID, NETWORKS_FIELD.replace("spec.template.spec", VMI_SPEC), err.message)]
    return validate_metadata("metadata", as_map(vmi.get("metadata")), config) + \
        validate_vmi_spec(VMI_SPEC, spec, config) + validate_vmi_start(spec, config)
