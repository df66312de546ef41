"""The VMI spec's firmware rules (``vmi-create-admitter.go``): the ACPI tables' volumes, the bootloader, and
Secure Boot's need for SMM. The kernel boot rules are not here yet (issue 36)."""

from __future__ import annotations

from typing import Any

from krm_fn.kube.paths import Obj, as_map
from krm_fn.kube.status import INVALID, Cause
from krm_fn.kubevirt_versions import LATEST, Release


def validate_acpi(field: str, spec: Obj, release: Release = LATEST) -> list[Cause]:
    """``firmware.acpi``: a SLIC or MSDM table, each naming a Secret volume (``field`` is upstream's, ``...acpi``).

    Before v1.6 the table is SLIC alone, and an empty name is looked up like any other."""
    firmware = as_map(as_map(spec.get("domain")).get("firmware"))
    acpi = firmware.get("acpi")
    if not isinstance(acpi, dict):
        return []
    volumes = [v for v in spec.get("volumes") or [] if isinstance(v, dict)]
    if not release.acpi_msdm:
        return _acpi_ref(field, acpi.get("slicNameRef", ""), volumes, "slicNameRef", True)
    if not acpi.get("slicNameRef") and not acpi.get("msdmNameRef"):
        return [Cause(INVALID, field, "ACPI was set but no SLIC nor MSDM volume reference was set")]
    return _acpi_ref(field, acpi.get("slicNameRef", ""), volumes, "slicNameRef") + \
        _acpi_ref(field, acpi.get("msdmNameRef", ""), volumes, "msdmNameRef")


def _acpi_ref(field: str, name: str, volumes: list[dict[str, Any]], key: str, empty: bool = False) -> list[Cause]:
    if not name and not empty:
        return []
    volume = next((v for v in volumes if v.get("name") == name), None)
    if volume is None:
        return [Cause(INVALID, f"{field}.{key}", f"{field} does not have a matching Volume.")]
    if volume.get("secret") is None:
        return [Cause(INVALID, f"{field}.{key}", f"{field} refers to Volume of unsupported type.")]
    return []


def validate_firmware(field: str, domain: Obj) -> list[Cause]:
    """The bootloader (EFI and BIOS exclude each other), then Secure Boot without SMM (``field``: the domain's)."""
    firmware = domain.get("firmware")
    causes = []
    loader = firmware.get("bootloader") if isinstance(firmware, dict) else None
    at = f"{field}.firmware.bootloader"
    if isinstance(loader, dict) and loader.get("efi") is not None and loader.get("bios") is not None:
        causes.append(Cause(INVALID, at, f"{at} has both EFI and BIOS configured, but they are mutually exclusive."))
    if _secure_boot(loader) and not _smm(domain.get("features")):
        causes.append(Cause(INVALID, field, f"{field} has EFI SecureBoot enabled. SecureBoot requires SMM, which is "
                                            "currently disabled."))
    return causes


def _secure_boot(loader: Any) -> bool:
    efi = loader.get("efi") if isinstance(loader, dict) else None
    return isinstance(efi, dict) and efi.get("secureBoot", True) is not False


def _smm(features: Any) -> bool:
    smm = features.get("smm") if isinstance(features, dict) else None
    return isinstance(smm, dict) and smm.get("enabled", True) is not False
