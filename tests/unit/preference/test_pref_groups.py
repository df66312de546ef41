"""Firmware, clock, features (Hyper-V per sub-feature), CPU features and annotations."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kubevirt.preference.apply.vmi import apply_preference


def _apply(pref: dict[str, Any], vmi: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    apply_preference(pref, vmi, meta if meta is not None else {})
    return vmi


@pytest.mark.parametrize(("firmware_pref", "bootloader", "expected"), [
    pytest.param({"preferredUseBios": True}, None, {"bios": {}}, id="bios"),
    pytest.param({"preferredUseBios": False}, None, {}, id="preferredUseBios false does nothing"),
    pytest.param({"preferredUseBios": True, "preferredUseBiosSerial": True}, None, {"bios": {"useSerial": True}},
                 id="bios serial"),
    pytest.param({"preferredUseBiosSerial": True}, {"bios": {"useSerial": False}}, {"bios": {"useSerial": False}},
                 id="does not overwrite user-set useSerial"),
    pytest.param({"preferredUseBios": True, "preferredEfi": {"secureBoot": True}}, None, {"bios": {}},
                 id="BIOS beats preferredEfi"),
    pytest.param({"preferredEfi": {"secureBoot": True}, "preferredUseSecureBoot": False}, None,
                 {"efi": {"secureBoot": True}}, id="preferredEfi stops the deprecated fields"),
    pytest.param({"preferredEfi": {"secureBoot": True}}, {"efi": {"persistent": True}}, {"efi": {"persistent": True}},
                 id="preferredEfi never touches a user EFI - bug #12985"),
    pytest.param({"preferredUseEfi": True, "preferredUseSecureBoot": True}, None, {"efi": {"secureBoot": True}},
                 id="deprecated efi and secure boot"),
    pytest.param({"preferredUseSecureBoot": False}, {"efi": {}}, {"efi": {"secureBoot": False}},
                 id="deprecated secure boot on a user EFI"),
    pytest.param({"preferredUseEfi": True}, {"bios": {}}, {"bios": {}}, id="does not overwrite user-set bios"),
])
def test_firmware(firmware_pref: dict[str, Any], bootloader: Any, expected: dict[str, Any]) -> None:
    vmi: dict[str, Any] = {"domain": {}}
    if bootloader is not None:
        vmi["domain"]["firmware"] = {"bootloader": bootloader}
    _apply({"firmware": firmware_pref}, vmi)
    assert vmi["domain"]["firmware"]["bootloader"] == expected


@pytest.mark.parametrize(("clock", "expected"), [
    pytest.param(None, {"utc": {"offsetSeconds": 30}}, id="offset applied"),
    pytest.param({"timezone": "Europe/Paris"}, {"timezone": "Europe/Paris"}, id="does not overwrite user timezone"),
    pytest.param({"utc": {}}, {"utc": {}}, id="does not overwrite user utc"),
])
def test_clock_offset(clock: Any, expected: dict[str, Any]) -> None:
    vmi: dict[str, Any] = {"domain": {}}
    if clock is not None:
        vmi["domain"]["clock"] = clock
    _apply({"clock": {"preferredClockOffset": {"utc": {"offsetSeconds": 30}}}}, vmi)
    assert vmi["domain"]["clock"] == expected


def test_hyperv_per_feature() -> None:
    vmi: dict[str, Any] = {"domain": {"features": {"hyperv": {"evmcs": {"enabled": False}}}}}
    _apply({"features": {"preferredHyperv": {"evmcs": {}, "relaxed": {}}}}, vmi)
    assert vmi["domain"]["features"]["hyperv"] == {"evmcs": {"enabled": False}, "relaxed": {}}


def test_cpu_features_merge_by_name() -> None:
    vmi: dict[str, Any] = {"domain": {"cpu": {"features": [{"name": "vmx", "policy": "disable"}]}}}
    _apply({"cpu": {"preferredCPUFeatures": [{"name": "vmx", "policy": "require"}, {"name": "pcid"}]}}, vmi)
    assert vmi["domain"]["cpu"]["features"] == [{"name": "vmx", "policy": "disable"}, {"name": "pcid"}]


def test_cpu_features_without_cpu_create_it() -> None:
    vmi: dict[str, Any] = {"domain": {}}
    _apply({"cpu": {"preferredCPUFeatures": [{"name": "pcid"}]}}, vmi)
    assert vmi["domain"]["cpu"] == {"features": [{"name": "pcid"}]}


def test_topology_preferences_do_nothing_without_an_instancetype() -> None:
    vmi: dict[str, Any] = {"domain": {}}
    _apply({"cpu": {"preferredCPUTopology": "cores"}}, vmi)
    assert vmi == {"domain": {}}


def test_annotations_only_missing_keys() -> None:
    meta = {"annotations": {"a": "vm"}}
    _apply({"annotations": {"a": "pref", "b": "pref"}}, {"domain": {}}, meta)
    assert meta == {"annotations": {"a": "vm", "b": "pref"}}


def test_empty_groups_create_their_objects() -> None:
    vmi = _apply({"firmware": {}, "features": {}, "clock": {}}, {"domain": {}})
    assert vmi["domain"] == {"firmware": {"bootloader": {}}, "features": {}, "clock": {}}
