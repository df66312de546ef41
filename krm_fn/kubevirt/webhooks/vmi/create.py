"""``ValidateVirtualMachineInstanceSpec`` (``pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go``).

The VM validating webhook runs it on the VM's template spec, once the instancetype and preference are applied.
:func:`validate_vmi_spec` returns its causes in upstream's order.
It holds the families listed in :func:`validate_vmi_spec`.
"""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import Cause
from krm_fn.kubevirt.network.admitter import validate_network
from krm_fn.kubevirt.storage.disks import validate_container_disks, validate_disks
from krm_fn.kubevirt.storage.volumes import validate_volumes
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
from krm_fn.kubevirt.webhooks.vmi.firmware import validate_acpi, validate_firmware, validate_serial
from krm_fn.kubevirt.webhooks.vmi.launchsecurity import validate_launch_security
from krm_fn.kubevirt.webhooks.vmi.memory import validate_emulated_machine, validate_memory

TEMPLATE_SPEC: Final = "spec.template.spec"


def validate_vmi_spec(field: str, spec: Obj, config: WebhookConfig = WebhookConfig()) -> list[Cause]:
    """The causes of a VMI spec at ``field`` (a VM's template spec: ``spec.template.spec``), as ``config``'s release
    and cluster find them.

    The families held so far, in upstream's order: names, memory, the machine type, firmware serial, ACPI, CPU,
    start strategy, realtime, the architecture's gate, the networks and interfaces, boot order, devices and probes, the domain (disks,
    firmware), the volumes, the containerDisk paths, the access credentials, DNS, the eviction strategy, ramfb,
    host devices, sound, launch security, the gated devices, video and panic devices."""
    release = config.release
    domain = as_map(spec.get("domain"))
    devices = as_map(domain.get("devices"))
    disks = devices.get("disks")
    volumes = as_list(spec.get("volumes"))
    causes = validate_names(field, spec) + validate_memory(field, spec, config)
    causes += validate_emulated_machine(field, spec, config) + validate_serial(field, domain)
    causes += validate_acpi(f"{field}.acpi", spec, release)
    causes += validate_cpu(field, domain, release, str(spec.get("architecture") or config.cluster.architecture))
    causes += validate_start_strategy(field, spec) + validate_realtime(field, domain)
    causes += validate_architecture(field, spec, config) + validate_network(field, spec, config)
    causes += validate_boot_order(field, spec, config) + validate_inputs(field, devices)
    causes += validate_io_threads_policy(field, domain) + validate_probes(field, spec)
    if isinstance(disks, list):
        causes += validate_disks(f"{field}.domain.devices.disks", disks, release)
    causes += validate_firmware(f"{field}.domain", domain)
    causes += validate_volumes(f"{field}.volumes", volumes, config.gate)
    causes += validate_container_disks(field + ".volumes", volumes)
    causes += validate_access_credentials(f"{field}.accessCredentials", as_list(spec.get("accessCredentials")), volumes)
    causes += validate_dns(field, spec) + validate_eviction(field, spec, config) + validate_ramfb(field, devices)
    causes += validate_host_devices(field, devices, config) + validate_sound(field, devices)
    causes += validate_launch_security(field, spec, config) + validate_gated_devices(field, spec, devices, config)
    return causes + validate_video(field, devices, config) + validate_panic_devices(field, spec, devices, config)
