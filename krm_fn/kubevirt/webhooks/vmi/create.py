"""``ValidateVirtualMachineInstanceSpec`` (``pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go``).

The VM validating webhook runs it on the VM's template spec, once the instancetype and preference are applied.
:func:`validate_vmi_spec` returns its causes in upstream's order.
It holds the families listed in :func:`validate_vmi_spec`; issue 36 adds the others.
"""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import Cause
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
from krm_fn.kubevirt.webhooks.vmi.dns import validate_dns, validate_names
from krm_fn.kubevirt.webhooks.vmi.firmware import validate_acpi, validate_firmware, validate_serial
from krm_fn.kubevirt_versions import LATEST, Release

TEMPLATE_SPEC: Final = "spec.template.spec"
MAX_CAUSES: Final = 10  # a refusal carries the first ten causes, and says how many more there were


def validate_vmi_spec(field: str, spec: Obj, release: Release = LATEST) -> list[Cause]:
    """The causes of a VMI spec at ``field`` (a VM's template spec: ``spec.template.spec``), as ``release`` finds them.

    The families held so far, in upstream's order: names, firmware serial, ACPI, CPU, start strategy, realtime, boot order, devices and probes, the domain
    (disks, firmware), the volumes, the containerDisk paths, the access credentials, DNS, ramfb and sound."""
    domain = as_map(spec.get("domain"))
    devices = as_map(domain.get("devices"))
    disks = devices.get("disks")
    volumes = as_list(spec.get("volumes"))
    causes = validate_names(field, spec) + validate_serial(field, domain)
    causes += validate_acpi(f"{field}.acpi", spec, release) + validate_cpu(field, domain, release)
    causes += validate_start_strategy(field, spec) + validate_realtime(field, domain)
    causes += validate_boot_order(field, spec) + validate_inputs(field, devices)
    causes += validate_io_threads_policy(field, domain) + validate_probes(field, spec)
    if isinstance(disks, list):
        causes += validate_disks(f"{field}.domain.devices.disks", disks, release)
    causes += validate_firmware(f"{field}.domain", domain)
    causes += validate_volumes(f"{field}.volumes", volumes) + validate_container_disks(field + ".volumes", volumes)
    causes += validate_access_credentials(f"{field}.accessCredentials", as_list(spec.get("accessCredentials")), volumes)
    return causes + validate_dns(field, spec) + validate_ramfb(field, devices) + validate_sound(field, devices)




def refusal_message(causes: list[Cause]) -> str:
    """The webhook's ``Status.message`` for ``causes``: the first ten messages joined, then how many more."""
    shown = ", ".join(c.message for c in causes[:MAX_CAUSES])
    more = len(causes) - MAX_CAUSES
    return f"{shown}, and {more} more validation errors" if more > 0 else shown
