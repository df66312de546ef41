"""Device preferences that act on lists: disks, interfaces, inputs, panic devices, sound."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kubevirt.preference.apply.vmi import apply_preference

DISK_PREF = {"preferredDiskBus": "virtio", "preferredDiskCache": "writethrough", "preferredDiskIO": "native",
             "preferredDiskBlockSize": {"custom": {"logical": 512, "physical": 4096}},
             "preferredDiskDedicatedIoThread": True, "preferredCdromBus": "sata", "preferredLunBus": "scsi"}


def _devices(pref_devices: dict[str, Any], devices: dict[str, Any], networks: Any = None) -> dict[str, Any]:
    vmi: dict[str, Any] = {"domain": {"devices": devices}}
    if networks is not None:
        vmi["networks"] = networks
    apply_preference({"devices": pref_devices}, vmi, {})
    result: dict[str, Any] = vmi["domain"]["devices"]
    return result


def test_disk_without_target_gets_disk_and_all_disk_preferences() -> None:
    devices = _devices(DISK_PREF, {"disks": [{"name": "a"}]})
    assert devices["disks"] == [{"name": "a", "disk": {"bus": "virtio"}, "cache": "writethrough", "io": "native",
                                 "blockSize": {"custom": {"logical": 512, "physical": 4096}},
                                 "dedicatedIOThread": True}]


def test_target_less_disk_gets_disk_even_without_disk_preferences() -> None:
    assert _devices({"preferredRng": {}}, {"disks": [{"name": "a"}]})["disks"] == [{"name": "a", "disk": {}}]


@pytest.mark.parametrize(("disk", "expected"), [
    pytest.param({"name": "a", "disk": {"bus": "sata"}, "cache": "none", "io": "threads", "dedicatedIOThread": False},
                 {"name": "a", "disk": {"bus": "sata"}, "cache": "none", "io": "threads", "dedicatedIOThread": False,
                  "blockSize": {"custom": {"logical": 512, "physical": 4096}}},
                 id="does not overwrite user-set bus, cache, io, dedicatedIOThread"),
    pytest.param({"name": "a", "disk": {"bus": "scsi"}},
                 {"name": "a", "disk": {"bus": "scsi"}, "cache": "writethrough", "io": "native",
                  "blockSize": {"custom": {"logical": 512, "physical": 4096}}},
                 id="dedicated IO thread only on a virtio bus"),
    pytest.param({"name": "c", "cdrom": {}}, {"name": "c", "cdrom": {"bus": "sata"}}, id="cdrom bus"),
    pytest.param({"name": "c", "cdrom": {"bus": "scsi"}}, {"name": "c", "cdrom": {"bus": "scsi"}},
                 id="does not overwrite user-set cdrom bus"),
    pytest.param({"name": "l", "lun": {}}, {"name": "l", "lun": {"bus": "scsi"}}, id="lun bus"),
    pytest.param({"name": "l", "lun": {"bus": "sata"}}, {"name": "l", "lun": {"bus": "sata"}},
                 id="does not overwrite user-set lun bus"),
])
def test_disks(disk: dict[str, Any], expected: dict[str, Any]) -> None:
    assert _devices(DISK_PREF, {"disks": [disk]})["disks"] == [expected]


def test_dedicated_io_thread_false_is_copied() -> None:
    devices = _devices({"preferredDiskBus": "virtio", "preferredDiskDedicatedIoThread": False}, {"disks": [{"name": "a"}]})
    assert devices["disks"][0]["dedicatedIOThread"] is False


def test_interface_model_and_masquerade() -> None:
    ifaces = [{"name": "pod"}, {"name": "bound", "bridge": {}}, {"name": "multus"}, {"name": "m", "model": "e1000"}]
    networks = [{"name": "pod", "pod": {}}, {"name": "bound", "pod": {}}, {"name": "multus", "multus": {"networkName": "n"}}]
    devices = _devices({"preferredInterfaceModel": "virtio", "preferredInterfaceMasquerade": {}},
                       {"interfaces": ifaces}, networks)
    assert devices["interfaces"] == [
        {"name": "pod", "model": "virtio", "masquerade": {}},
        {"name": "bound", "bridge": {}, "model": "virtio"},
        {"name": "multus", "model": "virtio"},
        {"name": "m", "model": "e1000"},
    ]


def test_inputs_bus_and_type() -> None:
    devices = _devices({"preferredInputBus": "virtio", "preferredInputType": "tablet"},
                       {"inputs": [{"name": "a"}, {"name": "b", "bus": "usb", "type": "keyboard"}]})
    assert devices["inputs"] == [{"name": "a", "bus": "virtio", "type": "tablet"},
                                 {"name": "b", "bus": "usb", "type": "keyboard"}]


@pytest.mark.parametrize(("panic", "expected"), [
    pytest.param(None, [{"model": "hyperv"}], id="appended when empty"),
    pytest.param([{}, {"model": "isa"}, {"model": ""}], [{"model": "hyperv"}, {"model": "isa"}, {"model": ""}],
                 id="only nil models are set; an explicit empty model counts as set"),
])
def test_panic_devices(panic: Any, expected: list[dict[str, Any]]) -> None:
    devices: dict[str, Any] = {} if panic is None else {"panicDevices": panic}
    assert _devices({"preferredPanicDeviceModel": "hyperv"}, devices)["panicDevices"] == expected


@pytest.mark.parametrize(("sound", "expected"), [
    pytest.param(None, None, id="never creates a sound device"),
    pytest.param({"name": "s"}, {"name": "s", "model": "ich9"}, id="fills an empty model"),
    pytest.param({"name": "s", "model": "ac97"}, {"name": "s", "model": "ac97"}, id="does not overwrite user-set model"),
])
def test_sound(sound: Any, expected: Any) -> None:
    devices: dict[str, Any] = {} if sound is None else {"sound": sound}
    assert _devices({"preferredSoundModel": "ich9"}, devices).get("sound") == expected


def test_video_created_when_missing() -> None:
    assert _devices({"preferredVideoType": "virtio"}, {})["video"] == {"type": "virtio"}
    assert _devices({"preferredVideoType": "virtio"}, {"video": {}})["video"] == {"type": "virtio"}
