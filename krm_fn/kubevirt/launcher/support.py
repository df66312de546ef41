"""The launcher pod's support containers and their resources: the container disks (``pkg/container-disk``), the
serial console's log (``serialconsolelog.go``), virtiofs (``virtiofs.go``) and the hook and binding-plugin
sidecars (``template.go``).

Each kind has upstream's defaults, which the KubeVirt CR's ``supportContainerResources`` overrides per type (a zero
quantity is ignored).
A pod KubeVirt wants Guaranteed (dedicated CPUs, or requests equal to limits) gets requests equal to limits.
shared/docs/pod-resources.md section 5 has the table.
"""

from __future__ import annotations

import json
from typing import Final

from krm_fn.kube.amount import nanos_or_zero
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vmi.metadata import SIDECARS

Resources = tuple[dict[str, str], dict[str, str]]  # (requests, limits), as rendered
CONTAINER_DISK: Final[Resources] = ({"cpu": "1m", "memory": "1M", "ephemeral-storage": "50M"},
                                    {"cpu": "10m", "memory": "40M"})
BINARY: Final[Resources] = ({"cpu": "10m", "memory": "1M"}, {"cpu": "100m", "memory": "40M"})
BINARY_GUARANTEED: Final = {"cpu": "10m", "memory": "40M"}
CONSOLE_LOG: Final[Resources] = ({"cpu": "5m", "memory": "35M"}, {"cpu": "15m", "memory": "60M"})
VIRTIOFS: Final[Resources] = ({"cpu": "10m", "memory": "1M"}, {"cpu": "100m", "memory": "80M"})
SIDECAR_GUARANTEED: Final = {"cpu": "200m", "memory": "64M"}
KERNEL_BOOT: Final = "kernel-boot-volume"


def _configured(defaults: Resources, kind: str, config: WebhookConfig) -> Resources:
    """``defaults`` with the CR's ``supportContainerResources`` of type ``kind`` over them."""
    requests, limits = dict(defaults[0]), dict(defaults[1])
    for entry in as_list(config.cluster.configuration.get("supportContainerResources")):
        if as_map(entry).get("type") != kind:
            continue
        resources = as_map(as_map(entry).get("resources"))
        for layer, given in ((requests, resources.get("requests")), (limits, resources.get("limits"))):
            layer.update({k: str(v) for k, v in as_map(given).items() if nanos_or_zero(v)})
    return requests, limits


def _guaranteed(resources: Resources) -> Resources:
    """Requests of CPU and memory equal to the limits."""
    requests, limits = resources
    return {**requests, **{k: v for k, v in limits.items() if k in ("cpu", "memory")}}, limits


def container(name: str, resources: Resources, sidecar: bool = False) -> Obj:
    """A container in the corpus's shape: its name, requests and limits (``restartPolicy: Always`` for a native
    sidecar init container)."""
    out: Obj = {"name": name, "requests": resources[0], "limits": resources[1]}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


def container_disk_volumes(spec: Obj) -> list[str]:
    """The names of the container-disk volumes, then the kernel boot container's, in the VMI's order."""
    names = [str(as_map(v).get("name")) for v in as_list(spec.get("volumes")) if as_map(v).get("containerDisk")]
    kernel = as_map(as_map(as_map(spec["domain"].get("firmware")).get("kernelBoot")).get("container"))
    if kernel.get("image"):
        names.append(KERNEL_BOOT)
    return names


def container_disks(spec: Obj, config: WebhookConfig, guaranteed: bool) -> tuple[list[Obj], list[Obj]]:
    """(containers, init containers) of the container disks: with the ImageVolume gate on, only the digest
    resolvers (v1.7+, init containers); else one container per disk, the binary copier and one init container
    per disk."""
    names = container_disk_volumes(spec)
    if not names:
        return [], []
    disk = _configured(CONTAINER_DISK, "container-disk", config)
    if guaranteed:
        disk = _guaranteed(disk)
    if config.gate("ImageVolume"):
        if not config.release.image_digest_init:
            return [], []
        return [], [container(f"volume{name}", disk) for name in names]
    binary = _configured(BINARY, "container-disk", config)
    if guaranteed:
        binary = (dict(BINARY_GUARANTEED), dict(BINARY_GUARANTEED))
    containers = [container(f"volume{name}", disk) for name in names]
    return containers, [container("container-disk-binary", binary)] + \
        [container(f"volume{name}-init", disk) for name in names]


def console_log(spec: Obj, config: WebhookConfig, guaranteed: bool) -> Obj | None:
    """The ``guest-console-log`` container, when the serial console is attached and its log is on (the VMI's
    ``logSerialConsole``, else the cluster's ``disableSerialConsoleLog``)."""
    devices = as_map(spec["domain"].get("devices"))
    if devices.get("autoattachSerialConsole") is False:
        return None
    logged = devices.get("logSerialConsole")
    options = as_map(config.cluster.configuration.get("virtualMachineOptions"))
    if logged is False or logged is None and options.get("disableSerialConsoleLog") is not None:
        return None
    resources = _configured(CONSOLE_LOG, "guest-console-log", config)
    return container("guest-console-log", _guaranteed(resources) if guaranteed else resources,
                     sidecar=config.release.console_log_sidecar)


def virtiofs(spec: Obj, config: WebhookConfig, guaranteed: bool) -> list[Obj]:
    """One ``virtiofs-<name>`` container per virtiofs filesystem (containerPath volumes aside)."""
    paths = {as_map(v).get("name") for v in as_list(spec.get("volumes")) if as_map(v).get("containerPath") is not None}
    resources = _configured(VIRTIOFS, "virtiofs", config)
    if guaranteed:
        resources = _guaranteed(resources)
    filesystems = as_list(as_map(spec["domain"].get("devices")).get("filesystems"))
    return [container(f"virtiofs-{as_map(fs).get('name')}", (dict(resources[0]), dict(resources[1])))
            for fs in filesystems if as_map(fs).get("virtiofs") is not None and as_map(fs).get("name") not in paths]


def sidecars(spec: Obj, annotations: Obj, config: WebhookConfig, guaranteed: bool) -> list[Obj]:
    """``hook-sidecar-<i>``: one per hook the VMI's annotation lists, then one per binding plugin (each once) with a
    sidecar image."""
    try:
        hooks = json.loads(str(annotations[SIDECARS])) if SIDECARS in annotations else []
    except ValueError:
        hooks = []
    count = len(hooks) if isinstance(hooks, list) else 0
    plugins = as_map(as_map(config.cluster.configuration.get("network")).get("binding"))
    seen: list[str] = []
    for iface in as_list(as_map(spec["domain"].get("devices")).get("interfaces")):
        name = as_map(as_map(iface).get("binding")).get("name")
        if name is not None and name not in seen and as_map(plugins.get(name)).get("sidecarImage"):
            seen.append(name)
    resources = _configured(({}, {}), "sidecar", config)
    if guaranteed:
        resources = _guaranteed(({**resources[0]}, {**SIDECAR_GUARANTEED, **resources[1]}))
    return [container(f"hook-sidecar-{i}", (dict(resources[0]), dict(resources[1]))) for i in range(count + len(seen))]
