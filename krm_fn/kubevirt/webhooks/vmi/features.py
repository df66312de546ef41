"""The VMI spec's rules that read the cluster (``vmi-create-admitter.go``): the eviction strategy, features behind a
feature gate (host devices, VSOCK, persistent reservation, downwardMetrics, virtiofs, video, panic devices) and the
architecture gate."""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig

EVICTION_STRATEGIES: Final = ("LiveMigrate", "LiveMigrateIfPossible", "None", "External")
PANIC_DEVICE_MODELS: Final = ("hyperv", "isa", "pvpanic")
CONFIG_VOLUMES: Final = ("configMap", "secret", "serviceAccount", "downwardAPI")
STORAGE_VOLUMES: Final = ("persistentVolumeClaim", "dataVolume")
CONTROL_PLANE_ARCH: Final = "amd64"  # runtime.GOARCH of virt-api: the corpus's, and most clusters'


def validate_architecture(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """Another architecture than the control plane's needs the MultiArchitecture gate."""
    arch = spec.get("architecture", "")
    if arch and arch != CONTROL_PLANE_ARCH and not config.gate("MultiArchitecture"):
        at = f"{field}.architecture"
        return [Cause(REQUIRED, at, f"MultiArchitecture feature gate is not enabled in kubevirt-config, invalid entry "
                                    f"{at}")]
    return []


def validate_eviction(field: str, spec: Obj) -> list[Cause]:
    """``validateLiveMigration``: a known eviction strategy (the VM's; the cluster's is one by its type)."""
    strategy: Any = spec.get("evictionStrategy")
    if strategy is None or strategy in EVICTION_STRATEGIES:
        return []
    at = f"{field}.evictionStrategy"
    return [Cause(INVALID, at, f"{at} is set with an unrecognized option: {strategy}")]


def validate_host_devices(field: str, devices: Obj, config: WebhookConfig) -> list[Cause]:
    """Host devices need the HostDevices gate."""
    if devices.get("hostDevices") is not None and not config.gate("HostDevices"):
        return [Cause(INVALID, f"{field}.HostDevices", "Host Devices feature gate is not enabled in kubevirt-config")]
    return []


def validate_gated_devices(field: str, spec: Obj, devices: Obj, config: WebhookConfig) -> list[Cause]:
    """VSOCK, persistent reservation, the reboot policy, reserved overhead, persistent TPM and EFI,
    downwardMetrics and virtiofs, each behind its gate; utility volumes only by hotplug."""
    causes = []
    if devices.get("autoattachVSOCK") is True and not config.gate("VSOCK"):
        causes.append(Cause(INVALID, f"{field}.domain.devices.autoattachVSOCK",
                            "VSOCK feature gate is not enabled in kubevirt-config"))
    reserved = any(as_map(as_map(d).get("lun")).get("reservation") is True for d in as_list(devices.get("disks")))
    if reserved and not config.gate("PersistentReservation"):
        message = "persistent reservation is not enabled in kubevirt config" if config.release.beta_gates_on \
            else "PersistentReservation feature gate is not enabled in kubevirt-config"
        causes.append(Cause(INVALID, f"{field}.domain.devices.disks.luns.reservation", message))
    domain = as_map(spec.get("domain"))
    if domain.get("rebootPolicy") is not None and not config.gate("RebootPolicy"):
        causes.append(Cause(INVALID, f"{field}.domain.rebootPolicy",
                            "RebootPolicy is specified but the RebootPolicy feature gate is not enabled"))
    if as_map(domain.get("memory")).get("reservedOverhead") is not None and not config.gate("ReservedOverheadMemlock"):
        causes.append(Cause(INVALID, f"{field}.domain.memory.reservedOverhead",
                            "Reserved overhead memlock feature gate is not enabled in kubevirt-config"))
    if spec.get("utilityVolumes"):
        causes.append(Cause(INVALID, f"{field}.utilityVolumes", "cannot create VMI with utility volumes in spec, "
                                                                "utility volumes can only be added via hotplug"))
    if not config.gate("VMPersistentState"):
        efi = as_map(as_map(as_map(domain.get("firmware")).get("bootloader")).get("efi"))
        for at, on in ((f"{field}.domain.devices.tpm.persistent", as_map(devices.get("tpm")).get("persistent")),
                       (f"{field}.domain.firmware.bootloader.efi.persistent", efi.get("persistent"))):
            if on is True:
                causes.append(Cause(INVALID, at, "VMPersistentState feature gate is not enabled in kubevirt-config"))
    if devices.get("downwardMetrics") is not None and not config.gate("DownwardMetrics"):
        causes.append(Cause(INVALID, f"{field}.domain.devices.downwardMetrics",
                            "downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled"))
    return causes + _virtiofs(field, spec, devices, config)


def _virtiofs(field: str, spec: Obj, devices: Obj, config: WebhookConfig) -> list[Cause]:
    filesystems = as_list(devices.get("filesystems"))
    if not filesystems:
        return []
    volumes = {as_map(v).get("name"): as_map(v) for v in as_list(spec.get("volumes"))}
    old = config.gate("ExperimentalVirtiofsSupport")
    causes = []
    for fs in filesystems:
        volume = volumes.get(as_map(fs).get("name"))
        if volume is None:
            continue
        if any(k in volume for k in CONFIG_VOLUMES) and not (config.gate("EnableVirtioFsConfigVolumes") or old):
            causes.append(Cause(INVALID, f"{field}.domain.devices.filesystems",
                                "virtiofs is not allowed: virtiofs feature gate is not enabled for config volumes"))
        elif any(k in volume for k in STORAGE_VOLUMES) and not (config.gate("EnableVirtioFsStorageVolumes") or old):
            causes.append(Cause(INVALID, f"{field}.domain.devices.filesystems",
                                "virtiofs is not allowed: virtiofs feature gate is not enabled for PVC"))
    return causes


def validate_video(field: str, devices: Obj, config: WebhookConfig) -> list[Cause]:
    """A video device needs the VideoConfig gate, and a graphics device attached."""
    if devices.get("video") is None:
        return []
    if not config.gate("VideoConfig"):
        return [Cause(INVALID, f"{field}.video",
                      "Video configuration is specified but the VideoConfig feature gate is not enabled")]
    if devices.get("autoattachGraphicsDevice") is False:
        return [Cause(INVALID, f"{field}.video",
                      "Video configuration is not allowed when autoattachGraphicsDevice is set to false")]
    return []


def validate_panic_devices(field: str, spec: Obj, devices: Obj, config: WebhookConfig) -> list[Cause]:
    """Panic devices need their gate, are not for s390x, and name a known model."""
    panic = as_list(devices.get("panicDevices"))
    if not panic:
        return []
    at = f"{field}.domain.devices.panicDevices"
    if not config.gate("PanicDevices"):
        return [Cause(INVALID, at, "Panic Devices feature gate is not enabled in kubevirt-config")]
    causes = []
    arch = spec.get("architecture") or config.cluster.architecture
    if arch == "s390x":
        causes.append(Cause(INVALID, at, f"custom panic devices are not supported on {arch} architecture"))
    for idx, device in enumerate(panic):
        model = as_map(device).get("model")
        if model is not None and model not in PANIC_DEVICE_MODELS:
            causes.append(Cause(INVALID, f"{at}[{idx}].model", f"invalid PanicDeviceModel({model})"))
    return causes
