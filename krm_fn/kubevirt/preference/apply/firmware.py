"""``firmware`` preferences (``preference/apply/firmware.go``), evaluated in sequence; ``preferredEfi`` wins
over the deprecated EFI fields, BIOS wins over EFI, a user's EFI is never replaced (bug #12985)."""

from __future__ import annotations

from krm_fn.kube.paths import Obj, copy_json, ensure_map


def apply_firmware_preferences(pref: Obj, vmi: Obj) -> None:
    fp = pref.get("firmware")
    if fp is None:
        return
    firmware = ensure_map(vmi, ("domain", "firmware"))
    boot = firmware.get("bootloader")
    if boot is None:
        boot = firmware["bootloader"] = {}
    if fp.get("preferredUseBios") is True and boot.get("bios") is None and boot.get("efi") is None:
        boot["bios"] = {}
    serial = fp.get("preferredUseBiosSerial")
    if serial is not None and boot.get("bios") is not None and boot["bios"].get("useSerial") is None:
        boot["bios"]["useSerial"] = serial
    if boot.get("efi") is None and boot.get("bios") is None and fp.get("preferredEfi") is not None:
        boot["efi"] = copy_json(fp["preferredEfi"])
        return
    if fp.get("preferredUseEfi") is True and boot.get("efi") is None and boot.get("bios") is None:
        boot["efi"] = {}
    secure = fp.get("preferredUseSecureBoot")
    if secure is not None and boot.get("efi") is not None and boot["efi"].get("secureBoot") is None:
        boot["efi"]["secureBoot"] = secure
