"""Every ``preferred*`` field: applied to an unset VM value, and never overwriting a user-set one
(the documented exceptions ``preferredAcpi`` and ``preferredDisableHotplug`` always overwrite)."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kube.paths import get
from krm_fn.kubevirt.preference.apply.vmi import apply_preference

DEV = ("domain", "devices")

# (id, preference, VM template spec, path in the VMI spec, value applied to an empty VM, user value kept)
FIELDS: list[tuple[str, dict[str, Any], tuple[str, ...], Any, Any]] = [
    ("useVirtioTransitional", {"devices": {"preferredUseVirtioTransitional": True}}, (*DEV, "useVirtioTransitional"),
     True, False),
    ("blockMultiQueue", {"devices": {"preferredBlockMultiQueue": True}}, (*DEV, "blockMultiQueue"), True, False),
    ("networkInterfaceMultiqueue", {"devices": {"preferredNetworkInterfaceMultiQueue": True}},
     (*DEV, "networkInterfaceMultiqueue"), True, False),
    ("rng", {"devices": {"preferredRng": {}}}, (*DEV, "rng"), {}, {"x": 1}),
    ("tpm", {"devices": {"preferredTPM": {"persistent": True}}}, (*DEV, "tpm"), {"persistent": True},
     {"enabled": False}),
    ("autoattachGraphicsDevice", {"devices": {"preferredAutoattachGraphicsDevice": False}},
     (*DEV, "autoattachGraphicsDevice"), False, True),
    ("autoattachMemBalloon", {"devices": {"preferredAutoattachMemBalloon": False}}, (*DEV, "autoattachMemBalloon"),
     False, True),
    ("autoattachPodInterface", {"devices": {"preferredAutoattachPodInterface": False}},
     (*DEV, "autoattachPodInterface"), False, True),
    ("autoattachSerialConsole", {"devices": {"preferredAutoattachSerialConsole": False}},
     (*DEV, "autoattachSerialConsole"), False, True),
    ("autoattachInputDevice", {"devices": {"preferredAutoattachInputDevice": True}}, (*DEV, "autoattachInputDevice"),
     True, False),
    ("video.type", {"devices": {"preferredVideoType": "virtio"}}, (*DEV, "video", "type"), "virtio", "vga"),
    ("features.apic", {"features": {"preferredApic": {"enabled": True}}}, ("domain", "features", "apic"),
     {"enabled": True}, {"enabled": False}),
    ("features.kvm", {"features": {"preferredKvm": {"hidden": True}}}, ("domain", "features", "kvm"),
     {"hidden": True}, {}),
    ("features.pvspinlock", {"features": {"preferredPvspinlock": {"enabled": False}}},
     ("domain", "features", "pvspinlock"), {"enabled": False}, {"enabled": True}),
    ("features.smm", {"features": {"preferredSmm": {}}}, ("domain", "features", "smm"), {}, {"enabled": False}),
    ("hyperv.relaxed", {"features": {"preferredHyperv": {"relaxed": {}}}}, ("domain", "features", "hyperv", "relaxed"),
     {}, {"enabled": False}),
    ("hyperv.spinlocks", {"features": {"preferredHyperv": {"spinlocks": {"spinlocks": 8191}}}},
     ("domain", "features", "hyperv", "spinlocks"), {"spinlocks": 8191}, {"spinlocks": 4096}),
    ("hyperv.evmcs", {"features": {"preferredHyperv": {"evmcs": {}}}}, ("domain", "features", "hyperv", "evmcs"),
     {}, {"enabled": False}),
    ("clock.timer", {"clock": {"preferredTimer": {"hpet": {"present": False}}}}, ("domain", "clock", "timer"),
     {"hpet": {"present": False}}, {"rtc": {}}),
    ("machine.type", {"machine": {"preferredMachineType": "pc-q35"}}, ("domain", "machine", "type"), "pc-q35", "q35"),
    ("subdomain", {"preferredSubdomain": "sub"}, ("subdomain",), "sub", "mine"),
    ("terminationGracePeriodSeconds", {"preferredTerminationGracePeriodSeconds": 77},
     ("terminationGracePeriodSeconds",), 77, 0),
    ("architecture", {"preferredArchitecture": "arm64"}, ("architecture",), "arm64", "s390x"),
    ("launchSecurity", {"preferredLaunchSecurity": {"sev": {}}}, ("domain", "launchSecurity"), {"sev": {}}, {"tdx": {}}),
    ("firmware.efi", {"firmware": {"preferredEfi": {"secureBoot": True}}}, ("domain", "firmware", "bootloader", "efi"),
     {"secureBoot": True}, {"persistent": True}),
]


def _vmi_with(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    vmi: dict[str, Any] = {"domain": {"devices": {}}}
    cur = vmi
    for step in path[:-1]:
        cur = cur.setdefault(step, {})
    cur[path[-1]] = value
    return vmi


@pytest.mark.parametrize(("pref", "path", "value"), [pytest.param(p, path, v, id=f"applies {i}")
                                                     for i, p, path, v, _ in FIELDS])
def test_applies_to_an_unset_value(pref: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    vmi: dict[str, Any] = {"domain": {"devices": {}}}
    apply_preference(pref, vmi, {})
    assert get(vmi, path, "MISSING") == value or (value == {} and get(vmi, path) is None and
                                                  _has_path(vmi, path))


def _has_path(obj: Any, path: tuple[str, ...]) -> bool:
    for step in path:
        if not isinstance(obj, dict) or step not in obj:
            return False
        obj = obj[step]
    return True


@pytest.mark.parametrize(("pref", "path", "user"), [pytest.param(p, path, u, id=f"does not overwrite user-set {i}")
                                                    for i, p, path, _, u in FIELDS])
def test_does_not_overwrite_a_user_set_value(pref: dict[str, Any], path: tuple[str, ...], user: Any) -> None:
    vmi = _vmi_with(path, user)
    apply_preference(pref, vmi, {})
    cur: Any = vmi
    for step in path:
        cur = cur[step]
    assert cur == user


@pytest.mark.parametrize(("pref", "path", "user", "value"), [
    pytest.param({"features": {"preferredAcpi": {"enabled": True}}}, ("domain", "features", "acpi"),
                 {"enabled": False}, {"enabled": True}, id="preferredAcpi always overwrites"),
    pytest.param({"devices": {"preferredDisableHotplug": False}}, (*DEV, "disableHotplug"), True, False,
                 id="preferredDisableHotplug always overwrites"),
])
def test_documented_overwrites(pref: dict[str, Any], path: tuple[str, ...], user: Any, value: Any) -> None:
    vmi = _vmi_with(path, user)
    apply_preference(pref, vmi, {})
    assert get(vmi, path) == value


def test_preference_objects_are_copied() -> None:
    pref = {"devices": {"preferredTPM": {"persistent": True}}}
    vmi: dict[str, Any] = {"domain": {"devices": {}}}
    apply_preference(pref, vmi, {})
    vmi["domain"]["devices"]["tpm"]["persistent"] = False
    assert pref["devices"]["preferredTPM"] == {"persistent": True}
