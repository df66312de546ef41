"""The VMI spec's firmware rules (``vmi-create-admitter.go``): the serial, the ACPI tables' volumes, the bootloader,
the kernel boot container, and Secure Boot's need for SMM."""

from __future__ import annotations

from typing import Any

from krm_fn.kube.paths import Obj, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause
from krm_fn.kubevirt.storage.disks import MAX_SERIAL, path_causes, serial_ok
from krm_fn.kubevirt_versions import LATEST, Release


def validate_acpi(field: str, spec: Obj, release: Release = LATEST) -> list[Cause]:
    """``firmware.acpi``: a SLIC or MSDM table, each naming a Secret volume (``field`` is upstream's, ``...acpi``).

    Before v1.6 the table is SLIC alone, an empty name is looked up like any other, and a cause names ``acpi``."""
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


def _acpi_ref(field: str, name: str, volumes: list[dict[str, Any]], key: str, slic_only: bool = False) -> list[Cause]:
    if not name and not slic_only:
        return []
    volume = next((v for v in volumes if v.get("name") == name), None)
    if volume is None:  # v1.5 names acpi itself here
        return [Cause(INVALID, field if slic_only else f"{field}.{key}", f"{field} does not have a matching Volume.")]
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
    kernel_boot = as_map(firmware).get("kernelBoot")
    if isinstance(kernel_boot, dict):
        causes += _kernel_boot(f"{field}.firmware.kernelBoot", kernel_boot)
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


def validate_serial(field: str, domain: Obj) -> list[Cause]:
    """``firmware.serial``: at most 256 characters of ``[A-Za-z0-9_.+-]``."""
    serial = as_map(domain.get("firmware")).get("serial", "")
    if not serial:
        return []
    at = f"{field}.domain.firmware.serial"
    causes = []
    if len(serial.encode()) > MAX_SERIAL:
        causes.append(Cause(INVALID, at, f"{at} must be less than or equal to {MAX_SERIAL} in length, if specified"))
    if not serial_ok(serial):
        causes.append(Cause(INVALID, at, f"{at} must be made up of the following characters [A-Za-z0-9_.+-], if "
                                         "specified"))
    return causes


def _kernel_boot(at: str, kernel_boot: dict[str, Any]) -> list[Cause]:
    container = kernel_boot.get("container")
    if not isinstance(container, dict):
        if kernel_boot.get("kernelArgs"):
            return [Cause(INVALID, f"{at}.kernelArgs", "kernel arguments cannot be provided without an external kernel")]
        return []
    causes = []
    if not container.get("image"):
        causes.append(Cause(REQUIRED, f"{at}.container.image", f"{at}.container must be defined with an image"))
    kernel, initrd = container.get("kernelPath", ""), container.get("initrdPath", "")
    if not kernel and not initrd:
        causes.append(Cause(REQUIRED, f"{at}.container", f"{at}.container must be defined with at least one of the "
                                                         "following: kernelPath, initrdPath"))
    for key, path in (("kernelPath", kernel), ("initrdPath", initrd)):
        if path:
            causes += path_causes(f"{at}.container.{key}", path)
    return causes
