"""What the VMI create webhook refuses when virt-controller starts a stored VM: the rules only the VMI webhook runs,
on the VMI the controller makes (the VM's template with its instancetype and preference applied).

:func:`validate_vmi_start` returns them in upstream's order: the memory the VMI must request, the Hyper-V features
and their dependencies, containerPath volumes, then the architecture's rules (:mod:`krm_fn.kubevirt.webhooks.vmi.arch`).
The fields are the VMI's (``spec.domain...``), as KubeVirt reports them in the VM's ``FailedCreate`` event.
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vmi.arch import validate_architecture_settings

VMI_SPEC: Final = "spec"
VMI_VALIDATOR: Final = 'admission webhook "virtualmachineinstances-create-validator.kubevirt.io" denied the request: '
# (feature, the feature it requires), leaves first (getHypervFeatureDependencies)
HYPERV_REQUIRES: Final = (("evmcs", "vapic"), ("ipi", "vpindex"), ("tlbflush", "vpindex"), ("synictimer", "synic"),
                          ("synic", "vpindex"))


def validate_vmi_start(spec: Obj, config: WebhookConfig) -> list[Cause]:
    """The VMI create webhook's own causes for the VMI spec ``spec`` (before its mutating webhook's defaults)."""
    domain = as_map(spec.get("domain"))
    return _memory(domain, config) + _hyperv(domain) + _container_paths(spec) + \
        validate_architecture_settings(VMI_SPEC, spec, config.release)


RESERVED_PATH: Final = "/var/run/kubevirt"


def _container_paths(spec: Obj) -> list[Cause]:
    """A containerPath volume (v1.8+) is a filesystem, not a disk, and not under KubeVirt's own directory (upstream
    names the volumes ``spec.domain.volumes``)."""
    causes = []
    devices = as_map(as_map(spec.get("domain")).get("devices"))
    for idx, volume in enumerate(as_list(spec.get("volumes"))):
        source = as_map(volume).get("containerPath")
        if not isinstance(source, dict):
            continue
        name, at = as_map(volume).get("name", ""), f"{VMI_SPEC}.domain.volumes[{idx}]"
        if any(as_map(d).get("name") == name for d in as_list(devices.get("disks"))):
            causes.append(Cause(INVALID, at, f"ContainerPath volume '{name}' must be mapped to a filesystem, not a "
                                             "disk"))
        if not any(as_map(f).get("name") == name for f in as_list(devices.get("filesystems"))):
            causes.append(Cause(INVALID, at, f"ContainerPath volume '{name}' must have a matching filesystem defined "
                                             "in spec.domain.devices.filesystems"))
        if str(source.get("path", "")).startswith(RESERVED_PATH):
            causes.append(Cause(INVALID, f"{at}.containerPath.path", f"ContainerPath volume '{name}' uses reserved "
                                                                     f"path prefix '{RESERVED_PATH}'"))
    return causes


def _memory(domain: Obj, config: WebhookConfig) -> list[Cause]:
    """Some memory is requested: the guest memory, a hugepages size or a memory request."""
    memory = as_map(domain.get("memory"))
    if memory.get("guest") or as_map(memory.get("hugepages")).get("pageSize") or \
            as_map(as_map(domain.get("resources")).get("requests")).get("memory"):
        return []
    pages = "hugepages.pageSize" if config.release.hugepages_page_size_field else "hugepages.size"
    return [Cause(REQUIRED, None, f"no memory requested, at least one of 'spec.domain.memory.guest', "
                                  f"'spec.domain.memory.{pages}' or 'spec.domain.resources.requests.memory' must be set")]


def _enabled(state: Any) -> bool:
    """A Hyper-V feature the VMI mutating webhook leaves on: present, not ``enabled: false``."""
    return isinstance(state, dict) and state.get("enabled") is not False


def _hyperv(domain: Obj) -> list[Cause]:
    """Passthrough excludes explicit features; a feature on needs its requirement not switched off (the webhook
    switches on a requirement left unset)."""
    features = as_map(domain.get("features"))
    hyperv = features.get("hyperv")
    if not isinstance(hyperv, dict):
        return []
    at = f"{VMI_SPEC}.domain.features.hyperv"
    if as_map(features.get("hypervPassthrough")).get("enabled") is True:
        return [Cause(INVALID, at, "Cannot explicitly set hyperV features if HypervPassthrough is being used. Please "
                                   "use either HyperV or HypervPassthrough.")]
    causes = []
    named = f"{at}.domain.features.hyperv"  # upstream joins the path twice
    for feature, needs in HYPERV_REQUIRES:
        required = hyperv.get(needs)
        if _enabled(hyperv.get(feature)) and isinstance(required, dict) and required.get("enabled") is False:
            causes.append(Cause(INVALID, f"{named}.{feature}", f"'{named}.{feature}' requires '{named}.{needs}', "
                                                               "which was disabled."))
    return causes
