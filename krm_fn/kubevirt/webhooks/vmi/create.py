"""``ValidateVirtualMachineInstanceSpec`` (``pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go``).

The VM validating webhook runs it on the VM's template spec, once the instancetype and preference are applied.
:func:`validate_vmi_spec` returns its causes in upstream's order.
It holds the families listed in :func:`validate_vmi_spec`.
"""

from __future__ import annotations

import json
from typing import Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import Cause
from krm_fn.kubevirt.dra.admitter import validate_dra
from krm_fn.kubevirt.network.admitter import validate_network
from krm_fn.kubevirt.network.dra import validate_dra_networks
from krm_fn.kubevirt.storage.disks import validate_container_disks, validate_disks
from krm_fn.kubevirt.storage.volumes import validate_volumes
from krm_fn.kubevirt.webhooks.vmi.affinity import validate_affinity
from krm_fn.kubevirt.webhooks.vmi.bootorder import validate_boot_order
from krm_fn.kubevirt.webhooks.vmi.cpu import validate_cpu, validate_realtime
from krm_fn.kubevirt.webhooks.vmi.credentials import validate_access_credentials
from krm_fn.kubevirt.webhooks.vmi.devices import (
    validate_inputs,
    validate_io_threads_policy,
    validate_probes,
    validate_ramfb,
    validate_sound,
    validate_start_strategy,
)
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vmi.dns import validate_dns, validate_names
from krm_fn.kubevirt.webhooks.vmi.features import (
    validate_architecture,
    validate_eviction,
    validate_gated_devices,
    validate_host_devices,
    validate_panic_devices,
    validate_video,
)
from krm_fn.kubevirt.webhooks.vmi.grace import validate_grace
from krm_fn.kubevirt.webhooks.vmi.firmware import validate_acpi, validate_firmware, validate_serial
from krm_fn.kubevirt.webhooks.vmi.launchsecurity import validate_launch_security
from krm_fn.kubevirt.webhooks.vmi.memory import validate_emulated_machine, validate_memory

TEMPLATE_SPEC: Final = "spec.template.spec"


def validate_vmi_spec(field: str, spec: Obj, config: WebhookConfig = WebhookConfig()) -> list[Cause]:
    """The causes of a VMI spec at ``field`` (a VM's template spec: ``spec.template.spec``), as ``config``'s release
    and cluster find them.

    The families held so far, in upstream's order: names, memory, the machine type, firmware serial, ACPI, CPU,
    start strategy, realtime, the architecture's gate, the networks and interfaces, boot order, devices and
    probes, the domain (disks, firmware), the volumes, the containerDisk paths, the access credentials, DNS, the
    eviction strategy, ramfb, host devices, sound, launch security, the gated devices, video and panic devices.
    The families that read only the domain, the architecture and the networks are judged once per distinct domain
    and networks of a render (``config.memo``): a fleet's VMs of one instancetype share them, their names and
    volumes differ."""
    release = config.release
    domain = as_map(spec.get("domain"))
    devices = as_map(domain.get("devices"))
    volumes = as_list(spec.get("volumes"))
    own = _domain_causes(field, spec, domain, config)
    causes = validate_names(field, spec) + own[0] + validate_acpi(f"{field}.acpi", spec, release) + own[1]
    causes += validate_start_strategy(field, spec) + own[2] + own[3]
    causes += validate_dra_networks(field, spec, config) + validate_affinity(field, spec)
    causes += validate_boot_order(field, spec, config) + own[4] + validate_probes(field, spec) + own[5]
    causes += validate_volumes(f"{field}.volumes", volumes, config.gate)
    causes += validate_container_disks(field + ".volumes", volumes)
    causes += validate_access_credentials(f"{field}.accessCredentials", as_list(spec.get("accessCredentials")), volumes)
    causes += validate_dns(field, spec) + validate_eviction(field, spec) + own[6] + validate_dra(field, spec, config)
    causes += validate_launch_security(field, spec, config) + validate_gated_devices(field, spec, devices, config)
    return causes + own[7]


DomainCauses = tuple[list[Cause], ...]


def _domain_causes(field: str, spec: Obj, domain: Obj, config: WebhookConfig) -> DomainCauses:
    """The families of the domain and the networks, in eight runs of upstream's order (see
    :func:`validate_vmi_spec`), remembered in ``config.memo`` by their JSON text and the architecture."""
    if config.memo is None:
        return _judge_domain(field, spec, domain, config)
    try:
        key = (field, config.release.tag, id(config.cluster), spec.get("architecture"),
               json.dumps((domain, spec.get("networks")), separators=(",", ":")))
    except (TypeError, ValueError):  # a value JSON does not hold (a YAML timestamp): not remembered
        return _judge_domain(field, spec, domain, config)
    known = config.memo.get(key)
    if known is None:
        if len(config.memo) >= MEMO_SIZE:
            config.memo.clear()
        known = config.memo[key] = _judge_domain(field, spec, domain, config)
    return known


MEMO_SIZE: Final = 4096  # distinct domains remembered in a render before the memo starts over


def _judge_domain(field: str, spec: Obj, domain: Obj, config: WebhookConfig) -> DomainCauses:
    release = config.release
    devices = as_map(domain.get("devices"))
    disks = devices.get("disks")
    arch = str(spec.get("architecture") or config.cluster.architecture)
    return (
        validate_memory(field, spec, config) + validate_emulated_machine(field, spec, config)
        + validate_serial(field, domain),
        validate_cpu(field, domain, release, arch),
        validate_realtime(field, domain),
        validate_architecture(field, spec, config) + validate_network(field, spec, config),
        validate_inputs(field, devices) + validate_io_threads_policy(field, domain),
        (validate_disks(f"{field}.domain.devices.disks", disks, release) if isinstance(disks, list) else [])
        + validate_firmware(f"{field}.domain", domain),
        validate_ramfb(field, devices) + validate_host_devices(field, devices, config)
        + validate_grace(field, spec, config) + validate_sound(field, devices),
        validate_video(field, devices, config) + validate_panic_devices(field, spec, devices, config),
    )
