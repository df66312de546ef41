"""``ValidateVirtualMachineSpec`` (``pkg/virt-api/webhooks/validating-webhook/admitters/vms-admitter.go``): the VM
validating webhook's rules on the VM's spec, after the instancetype and preference are applied to a copy.

:func:`validate_vm_spec` returns, in upstream's order, the template metadata's causes
(:mod:`krm_fn.kubevirt.webhooks.vmi.metadata`), the template spec's (:mod:`krm_fn.kubevirt.webhooks.vmi.create`),
the dataVolumeTemplates', the run strategy's and, under the LiveUpdate rollout strategy, the hotplug limits'.
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import DEPRECATED, INVALID, REQUIRED, Cause
from krm_fn.kubevirt.network.admitter import validate_creation, validate_discontinued_gates
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vmi.cpu import sockets_above_max
from krm_fn.kubevirt.webhooks.vmi.create import TEMPLATE_SPEC, validate_vmi_spec
from krm_fn.kubevirt.webhooks.vmi.memory import quantity_or_none
from krm_fn.kubevirt.webhooks.vmi.grace import validate_grace_annotations
from krm_fn.kubevirt.webhooks.vmi.metadata import validate_metadata

RUN_STRATEGIES: Final = ("Halted", "Manual", "Always", "RerunOnFailure", "Once")
# a run strategy behind a feature gate (v1.6+)
GATED_RUN_STRATEGY: Final = "WaitAsReceiver"
GATED_RUN_STRATEGY_GATE: Final = "DecentralizedLiveMigration"


def validate_vm_spec(vm_spec: Obj, template_spec: Obj, config: WebhookConfig = WebhookConfig()) -> list[Cause]:
    """The causes of a VM's ``spec``, whose template spec (with the specs applied) is ``template_spec``; a
    discontinued gate or interface binding refuses the VM alone (the webhook's checks on CREATE)."""
    discontinued = validate_discontinued_gates(template_spec, config) or validate_creation(template_spec, config)
    if discontinued:
        return discontinued
    metadata = as_map(as_map(vm_spec.get("template")).get("metadata"))
    annotations = as_map(metadata.get("annotations"))
    return validate_metadata("spec.template.metadata", metadata, config) + \
        validate_grace_annotations("spec.template.metadata.annotations", template_spec, annotations, config) + \
        validate_vmi_spec(TEMPLATE_SPEC, template_spec, config) + \
        _data_volume_templates(as_list(vm_spec.get("dataVolumeTemplates")), as_list(template_spec.get("volumes"))) + \
        _run_strategy(vm_spec, config) + _live_update(template_spec, config)


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
        causes += _data_volume_spec(at, as_map(as_map(template).get("spec")))
    return causes


def validate_data_volume_namespaces(vm_spec: Obj, namespace: str) -> list[Cause]:
    """``authorizeVirtualMachineSpec``'s first rule (it runs once the spec's rules pass): a dataVolumeTemplate's
    namespace, when set, is the VM's (``namespace``)."""
    causes = []
    for idx, template in enumerate(as_list(vm_spec.get("dataVolumeTemplates"))):
        theirs = as_map(as_map(template).get("metadata")).get("namespace", "")
        if theirs and theirs != namespace:
            causes.append(Cause(INVALID, f"spec.dataVolumeTemplates[{idx}]",
                                f"Embedded DataVolume namespace {theirs} differs from VM namespace {namespace}"))
    return causes


def _data_volume_spec(at: str, spec: Obj) -> list[Cause]:
    """CDI's DataVolume spec rules (its webhook's first refusal): a PVC or a storage target, one source or an
    external population."""
    pvc, storage = spec.get("pvc"), spec.get("storage")
    if pvc is None and storage is None:
        return [Cause(INVALID, f"{at}.PVC.Storage", "Missing Data volume PVC or Storage")]
    if pvc is not None and storage is not None:
        return [Cause(INVALID, f"{at}.PVC.Storage", "Duplicate storage definition, both target storage and target "
                                                    "pvc defined")]
    target = as_map(pvc if pvc is not None else storage)
    external = target.get("dataSourceRef") is not None or target.get("dataSource") is not None
    source, ref = spec.get("source"), spec.get("sourceRef")
    if source is None and ref is None and not external:
        return [Cause(INVALID, f"{at}.source.sourceRef", "Data volume should have either Source, SourceRef, or be "
                                                         "externally populated")]
    if external and (source is not None or ref is not None):
        return [Cause(INVALID, f"{at}.source", "External population is incompatible with Source and SourceRef")]
    kinds = sum(v is not None for v in as_map(source).values())
    if isinstance(source, dict) and kinds > 1:
        return [Cause(INVALID, f"{at}.source", "Multiple dataVolume sources")]
    if isinstance(source, dict) and kinds == 0:
        return [Cause(INVALID, f"{at}.source", "Missing dataVolume valid source")]
    return []


def _uses(volume: Any, name: str) -> bool:
    volume = as_map(volume)
    claim, data = volume.get("persistentVolumeClaim"), volume.get("dataVolume")
    return isinstance(claim, dict) and claim.get("claimName", "") == name or \
        isinstance(data, dict) and data.get("name", "") == name


RUNNING_DEPRECATED: Final = "spec.running is deprecated, please use spec.runStrategy instead."


def vm_warnings(vm: Obj) -> list[Cause]:
    """The warnings the VM validating webhook returns with its answer (kubectl prints them as ``Warning: ...``)."""
    spec = vm.get("spec")
    if isinstance(spec, dict) and spec.get("running") is not None:
        return [Cause(DEPRECATED, "spec.running", RUNNING_DEPRECATED)]
    return []


def _run_strategy(vm_spec: Obj, config: WebhookConfig) -> list[Cause]:
    running, strategy = vm_spec.get("running"), vm_spec.get("runStrategy")
    causes = []
    if running is not None and strategy is not None:
        causes.append(Cause(INVALID, "spec.running", "Running and RunStrategy are mutually exclusive. Note that "
                                                     "Running is deprecated, please use RunStrategy instead"))
    if running is None and strategy is None:
        causes.append(Cause(INVALID, "spec.running", "RunStrategy must be specified"))
    if strategy == GATED_RUN_STRATEGY and config.release.wait_as_receiver:
        if not config.gate(GATED_RUN_STRATEGY_GATE):
            causes.append(Cause(INVALID, "spec.runStrategy", f"Invalid RunStrategy ({strategy}), "
                                                             f"{GATED_RUN_STRATEGY_GATE} feature gate is not enabled "
                                                             "in kubevirt resource"))
    elif strategy is not None and strategy not in RUN_STRATEGIES:
        causes.append(Cause(INVALID, "spec.runStrategy", f"Invalid RunStrategy ({strategy})"))
    return causes


def _live_update(spec: Obj, config: WebhookConfig) -> list[Cause]:
    """``validateLiveUpdateFeatures``: under LiveUpdate, sockets within maxSockets and guest memory within maxGuest."""
    if not config.live_update():
        return []
    domain = as_map(spec.get("domain"))
    cpu, memory = as_map(domain.get("cpu")), as_map(domain.get("memory"))
    causes = sockets_above_max(TEMPLATE_SPEC, cpu)
    if memory.get("maxGuest") is not None:
        causes += _live_update_memory(domain, memory, str(spec.get("architecture", "")))
    return causes


HOTPLUG_ALIGNMENT: Final = 2 * 1024 * 1024  # converter.MemoryHotplugBlockAlignmentBytes


def _live_update_memory(domain: Obj, memory: Obj, architecture: str) -> list[Cause]:
    """``validateLiveUpdateMemory``: what memory hotplug (a maxGuest) rules out, and the sizes it needs."""
    cpu = as_map(domain.get("cpu"))
    at = TEMPLATE_SPEC
    causes = []
    for present, where, words in (
            (cpu.get("realtime") is not None, "domain.cpu.realtime", "realtime VMs"),
            (as_map(cpu.get("numa")).get("guestMappingPassthrough") is not None,
             "domain.cpu.numa.guestMappingPassthrough", "guest mapping passthrough"),
            (domain.get("launchSecurity") is not None, "domain.launchSecurity", "encrypted VMs"),
            (bool(cpu.get("dedicatedCpuPlacement")), "domain.cpu.dedicatedCpuPlacement", "dedicated CPUs")):
        if present:
            causes.append(Cause(INVALID, f"{at}.{where}", f"Memory hotplug is not compatible with {words}"))
    guest, max_guest = _bytes(memory.get("guest")), _bytes(memory.get("maxGuest"))
    if guest is None:
        causes.append(Cause(INVALID, f"{at}.domain.memory.guest",
                            "Guest memory must be configured when memory hotplug is enabled"))
    elif max_guest is not None and guest > max_guest:
        causes.append(Cause(INVALID, f"{at}.domain.memory.guest", "Guest memory is greater than the configured maxGuest "
                                                                  "memory"))
    elif guest % HOTPLUG_ALIGNMENT:
        causes.append(Cause(INVALID, f"{at}.domain.memory.guest", "Guest memory must be 2Mi aligned"))
    if max_guest is not None and max_guest % HOTPLUG_ALIGNMENT:
        causes.append(Cause(INVALID, f"{at}.domain.memory.maxGuest", "MaxGuest must be 2Mi aligned"))
    if architecture != "amd64":
        causes.append(Cause(INVALID, f"{at}.architecture", "Memory hotplug is only available for x86_64 VMs"))
    return causes


def _bytes(value: Any) -> int | None:
    """A quantity's value in bytes; None when unset or not a quantity."""
    amount = quantity_or_none(value)
    return amount.value() if amount is not None else None
