"""``ValidateVirtualMachineInstanceSpec`` (``pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go``).

The VM validating webhook runs it on the VM's template spec, once the instancetype and preference are applied.
:func:`validate_vmi_spec` returns its causes in upstream's order.
So far it holds the disk and volume rules (:mod:`krm_fn.kubevirt.storage`); issue 36 adds the other families.
"""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj
from krm_fn.kube.status import Cause
from krm_fn.kubevirt.storage.disks import validate_disks
from krm_fn.kubevirt.storage.volumes import validate_volumes
from krm_fn.kubevirt_versions import LATEST, Release

TEMPLATE_SPEC: Final = "spec.template.spec"
MAX_CAUSES: Final = 10  # a refusal carries the first ten causes, and says how many more there were


def validate_vmi_spec(field: str, spec: Obj, release: Release = LATEST) -> list[Cause]:
    """The causes of a VMI spec at ``field`` (a VM's template spec: ``spec.template.spec``), as ``release`` finds them.

    The families held so far, in upstream's order: the domain's devices (disks), then the volumes."""
    causes: list[Cause] = []
    domain = spec.get("domain")
    devices = domain.get("devices") if isinstance(domain, dict) else None
    disks = devices.get("disks") if isinstance(devices, dict) else None
    if isinstance(disks, list):
        causes += validate_disks(f"{field}.domain.devices.disks", disks, release)
    volumes = spec.get("volumes")
    if isinstance(volumes, list):
        causes += validate_volumes(f"{field}.volumes", volumes)
    return causes


def refusal_message(causes: list[Cause]) -> str:
    """The webhook's ``Status.message`` for ``causes``: the first ten messages joined, then how many more."""
    shown = ", ".join(c.message for c in causes[:MAX_CAUSES])
    more = len(causes) - MAX_CAUSES
    return f"{shown}, and {more} more validation errors" if more > 0 else shown
