"""``devices`` preferences (``preference/apply/{device,disk,interface}.go``), in KubeVirt's order."""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, copy_json, ensure_map
from krm_fn.kubevirt_versions import LATEST, Release

# device flag <- preference field: the VM's explicit value wins
_FLAG_FIELDS: Final = (
    ("useVirtioTransitional", "preferredUseVirtioTransitional"),
    ("blockMultiQueue", "preferredBlockMultiQueue"),
    ("networkInterfaceMultiqueue", "preferredNetworkInterfaceMultiQueue"),
)
_AUTOATTACH_FIELDS: Final = (
    ("autoattachGraphicsDevice", "preferredAutoattachGraphicsDevice"),
    ("autoattachMemBalloon", "preferredAutoattachMemBalloon"),
    ("autoattachPodInterface", "preferredAutoattachPodInterface"),
    ("autoattachSerialConsole", "preferredAutoattachSerialConsole"),
    ("autoattachInputDevice", "preferredAutoattachInputDevice"),
)
BINDING_FIELDS: Final = ("bridge", "slirp", "masquerade", "sriov", "macvtap", "passt", "passtBinding", "binding")
VIRTIO: Final = "virtio"


def _fill(target: Obj, pairs: tuple[tuple[str, str], ...], dp: Obj) -> None:
    for field, preferred in pairs:
        value = dp.get(preferred)
        if value is not None and target.get(field) is None:
            target[field] = value


def apply_autoattach_preferences(dp: Obj, devices: Obj) -> None:
    """The five ``preferredAutoattach*`` fields (also used alone when a VMI is created)."""
    _fill(devices, _AUTOATTACH_FIELDS, dp)


def _apply_disks(dp: Obj, devices: Obj) -> None:
    disks = devices.get("disks")
    if not disks:
        return
    bus = dp.get("preferredDiskBus")
    block_size = dp.get("preferredDiskBlockSize")
    cache = dp.get("preferredDiskCache")
    io = dp.get("preferredDiskIO")
    dedicated = dp.get("preferredDiskDedicatedIoThread")
    for disk in disks:
        target = disk.get("disk")
        if target is None and disk.get("cdrom") is None and disk.get("lun") is None:
            target = disk["disk"] = {}
        if target is not None:
            if not target.get("bus") and bus:
                target["bus"] = bus
            if disk.get("blockSize") is None and block_size is not None:
                disk["blockSize"] = copy_json(block_size)
            if not disk.get("cache") and cache:
                disk["cache"] = cache
            if not disk.get("io") and io:
                disk["io"] = io
            if disk.get("dedicatedIOThread") is None and dedicated is not None and target.get("bus") == VIRTIO:
                disk["dedicatedIOThread"] = dedicated
        elif disk.get("cdrom") is not None:
            if not disk["cdrom"].get("bus") and dp.get("preferredCdromBus"):
                disk["cdrom"]["bus"] = dp["preferredCdromBus"]
        elif disk.get("lun") is not None:
            if not disk["lun"].get("bus") and dp.get("preferredLunBus"):
                disk["lun"]["bus"] = dp["preferredLunBus"]


def _has_binding(iface: Obj) -> bool:
    return any(iface.get(f) is not None for f in BINDING_FIELDS)


def _apply_interfaces(dp: Obj, devices: Obj, vmi: Obj) -> None:
    model = dp.get("preferredInterfaceModel")
    masquerade = dp.get("preferredInterfaceMasquerade")
    for iface in devices.get("interfaces") or []:
        if model and not iface.get("model"):
            iface["model"] = model
        if masquerade is not None and not _has_binding(iface) and _on_pod_network(iface.get("name"), vmi):
            iface["masquerade"] = copy_json(masquerade)


def _on_pod_network(name: object, vmi: Obj) -> bool:
    """The first network named like the interface is a pod network."""
    for network in vmi.get("networks") or []:
        if network.get("name") == name:
            return network.get("pod") is not None
    return False


def _apply_inputs(dp: Obj, devices: Obj) -> None:
    bus = dp.get("preferredInputBus")
    kind = dp.get("preferredInputType")
    for device in devices.get("inputs") or []:
        if bus and not device.get("bus"):
            device["bus"] = bus
        if kind and not device.get("type"):
            device["type"] = kind


def _apply_panic_devices(dp: Obj, devices: Obj, create: bool) -> None:
    """The preferred model on every panic device without one; ``create`` (v1.9+): one device when there is none."""
    model = dp.get("preferredPanicDeviceModel")
    if model is None:
        return
    panic = devices.get("panicDevices")
    if not panic:
        if create:
            devices["panicDevices"] = [{"model": model}]
        return
    for device in panic:
        if device.get("model") is None:
            device["model"] = model


def apply_device_preferences(pref: Obj, vmi: Obj, release: Release = LATEST) -> None:
    """``release``: its switches for the video type and panic devices."""
    dp = pref.get("devices")
    if dp is None:
        return
    devices = ensure_map(vmi, ("domain", "devices"))
    _fill(devices, _FLAG_FIELDS, dp)
    if dp.get("preferredDisableHotplug") is not None:
        devices["disableHotplug"] = dp["preferredDisableHotplug"]  # a plain bool upstream: always set
    sound = devices.get("sound")
    if sound is not None and not sound.get("model") and dp.get("preferredSoundModel"):
        sound["model"] = dp["preferredSoundModel"]
    if dp.get("preferredRng") is not None and devices.get("rng") is None:
        devices["rng"] = copy_json(dp["preferredRng"])
    if dp.get("preferredTPM") is not None and devices.get("tpm") is None:
        devices["tpm"] = copy_json(dp["preferredTPM"])
    if release.video_type and dp.get("preferredVideoType") is not None:
        video = devices.get("video")
        if video is None:
            video = devices["video"] = {}
        if not video.get("type"):
            video["type"] = dp["preferredVideoType"]
    apply_autoattach_preferences(dp, devices)
    _apply_disks(dp, devices)
    _apply_interfaces(dp, devices, vmi)
    _apply_inputs(dp, devices)
    if release.panic_device_model:
        _apply_panic_devices(dp, devices, release.panic_device_created)
