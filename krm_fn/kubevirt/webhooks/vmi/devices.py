"""The VMI spec's device rules (``vmi-create-admitter.go``): input devices, the IOThreads policy, probes, ramfb
displays and the sound device."""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause

IO_THREADS_POLICIES: Final = ("shared", "auto", "supplementalPool")
PROBE_HANDLERS: Final = ("httpGet", "tcpSocket", "exec", "guestAgentPing")
SOUND_MODELS: Final = ("", "ich9", "ac97")


def validate_inputs(field: str, devices: Obj) -> list[Cause]:
    """Each input device: a virtio or usb bus, the tablet type."""
    causes = []
    for idx, device in enumerate(as_list(devices.get("inputs"))):
        device = as_map(device)
        at = f"{field}.domain.devices.inputs[{idx}]"
        if device.get("bus", "") not in ("virtio", "usb", ""):
            causes.append(Cause(INVALID, f"{at}.bus", "Input device can have only virtio or usb bus."))
        if device.get("type", "") != "tablet":
            causes.append(Cause(INVALID, f"{at}.type", "Input device can have only tablet type."))
    return causes


def validate_io_threads_policy(field: str, domain: Obj) -> list[Cause]:
    """``ioThreadsPolicy`` is known, and the supplemental pool has a positive thread count."""
    policy = domain.get("ioThreadsPolicy")
    if policy is None:
        return []
    causes = []
    if policy not in IO_THREADS_POLICIES:
        causes.append(Cause(INVALID, f"{field}.domain.ioThreadsPolicy", f"Invalid IOThreadsPolicy ({policy})"))
    count = as_map(domain.get("ioThreads")).get("supplementalPoolThreadCount")
    if policy == "supplementalPool" and (count is None or count < 1):
        causes.append(Cause(INVALID, f"{field}.domain.ioThreads.count",
                            "the number of iothreads needs to be set and positive for the dedicated policy"))
    return causes


def validate_probes(field: str, spec: Obj) -> list[Cause]:
    """The readiness and liveness probes: one handler each; HTTP and TCP ones only with the pod network."""
    causes = []
    for kind in ("readinessProbe", "livenessProbe"):
        probe = spec.get(kind)
        if not isinstance(probe, dict):
            continue
        at = f"{field}.{kind}"
        handlers = sum(probe.get(h) is not None for h in PROBE_HANDLERS)
        if handlers > 1:
            causes.append(Cause(INVALID, at, f"{at} must have exactly one probe type set"))
        if handlers < 1:
            causes.append(Cause(REQUIRED, at, f"either {at}.tcpSocket, {at}.exec or {at}.httpGet must be set if a "
                                              f"{at} is specified"))
    if not any(isinstance(n, dict) and n.get("pod") is not None for n in as_list(spec.get("networks"))):
        for kind in ("readinessProbe", "livenessProbe"):
            probe = as_map(spec.get(kind))
            for handler in ("httpGet", "tcpSocket"):
                if probe.get(handler) is not None:
                    at = f"{field}.{kind}.{handler}"
                    causes.append(Cause(INVALID, at, f"{at} is only allowed if the Pod Network is attached"))
    return causes


def validate_ramfb(field: str, devices: Obj) -> list[Cause]:
    """At most one vGPU display with ramfb."""
    count = 0
    for gpu in as_list(devices.get("gpus")):
        display = as_map(as_map(as_map(gpu).get("virtualGPUOptions")).get("display"))
        if not display or display.get("enabled", True) is False:
            continue
        ramfb = display.get("ramFB")
        if ramfb is None or isinstance(ramfb, dict) and ramfb.get("enabled") is True:
            count += 1
    if count > 1:
        return [Cause(INVALID, f"{field}.GPUs", "configuring multiple displays with ramfb is not valid ")]
    return []


def validate_sound(field: str, devices: Obj) -> list[Cause]:
    """The sound device: a known model, and a name."""
    sound = devices.get("sound")
    if not isinstance(sound, dict):
        return []
    causes = []
    if sound.get("model", "") not in SOUND_MODELS:
        causes.append(Cause(INVALID, f"{field}.Sound", "Sound device type is not supported. Options: 'ich9' or 'ac97'"))
    if not sound.get("name"):
        causes.append(Cause(INVALID, f"{field}.Sound", "Sound device requires a name field."))
    return causes


def validate_start_strategy(field: str, spec: Obj) -> list[Cause]:
    """``startStrategy``: only ``Paused``, and not with a liveness probe."""
    strategy = spec.get("startStrategy")
    if strategy is None:
        return []
    at = f"{field}.startStrategy"
    if strategy != "Paused":
        return [Cause(INVALID, at, f"{at} is set with an unrecognized option: {strategy}")]
    if spec.get("livenessProbe") is not None:
        return [Cause(INVALID, at, f"either {at} or {field}.livenessProbe should be provided.Pausing VMI with "
                                   "LivenessProbe is not supported")]
    return []
