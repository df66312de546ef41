"""``pkg/dra/admitter``: the VMI's resource claims, and the GPUs and host devices that use them.

A GPU or host device with a ``claimName`` or ``requestName`` is a DRA device (``drautil.IsGPUDRA``).
The GPUsWithDRA and HostDevicesWithDRA gates let them in.
The rules grew by release: v1.6 and v1.7 check the gate and that the claims are declared; v1.8 adds unique
claims, no mix of DRA and plugin GPUs and unique claim/request pairs (``Release.dra_pairs_checked``); v1.9 checks
each claim's name and source (``Release.resource_claims_checked``).
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.meta import dns_label_errors
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import DUPLICATE, INVALID, REQUIRED, Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig

SOURCES: Final = ("resourceClaimName", "resourceClaimTemplateName")


def is_dra(device: Obj) -> bool:
    """Whether a GPU or host device is backed by a resource claim."""
    return device.get("claimName") is not None or device.get("requestName") is not None


def validate_dra(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """``validateCreationDRA``: the resource claims, the GPUs, the host devices, then every claim they use is
    declared."""
    devices = as_map(as_map(spec.get("domain")).get("devices"))
    if not spec.get("resourceClaims") and not devices.get("gpus") and not devices.get("hostDevices"):
        return []
    gpus = [as_map(g) for g in as_list(devices.get("gpus"))]
    hosts = [as_map(h) for h in as_list(devices.get("hostDevices"))]
    claims = [as_map(c) for c in as_list(spec.get("resourceClaims"))]
    if not claims and not any(is_dra(d) for d in gpus + hosts):
        return []
    release = config.release
    causes = _claims(f"{field}.resourceClaims", claims, release.resource_claims_checked) \
        if release.dra_pairs_checked else []
    gpu_causes, used = _devices(field, "gpus", "GPU", gpus, config.gate("GPUsWithDRA"), config)
    causes += gpu_causes
    if release.dra_pairs_checked:
        host_causes, host_used = _devices(field, "hostDevices", "HostDevice", hosts,
                                          config.gate("HostDevicesWithDRA"), config)
        causes += host_causes
        used |= host_used
    if not used <= {c.get("name") for c in claims}:
        listed = "vmi.spec.domain.devices.gpus and vmi.spec.domain.devices.hostDevices" \
            if release.dra_pairs_checked else "vmi.spec.domain.devices.gpus"
        causes.append(Cause(INVALID, f"{field}.resourceClaims",
                            f"vmi.spec.resourceClaims must specify all claims used in {listed}"))
    return causes


def _claims(at: str, claims: list[Obj], checked: bool) -> list[Cause]:
    """Each claim named once; from v1.9, named as a DNS label and with exactly one source."""
    causes = []
    seen: set[Any] = set()
    for idx, claim in enumerate(claims):
        name = claim.get("name", "")
        if name in seen:
            causes.append(Cause(DUPLICATE, f"{at}[{idx}].name", f'duplicate resourceClaims name "{name}"'))
        seen.add(name)
        if not checked:
            continue
        errors = dns_label_errors(str(name))
        if errors:
            causes.append(Cause(INVALID, f"{at}[{idx}].name", f"{at}[{idx}].name does not conform to the kubernetes "
                                                              f"DNS_LABEL rules: {', '.join(errors)}"))
        sources = sum(bool(claim.get(key)) for key in SOURCES)
        if sources > 1:
            causes.append(Cause(INVALID, f"{at}[{idx}]",
                                "at most one of resourceClaimName or resourceClaimTemplateName may be specified"))
        elif not sources:
            causes.append(Cause(INVALID, f"{at}[{idx}]",
                                "must specify one of: resourceClaimName, resourceClaimTemplateName"))
    return causes


def _devices(field: str, key: str, kind: str, devices: list[Obj], gate: bool,
             config: WebhookConfig) -> tuple[list[Cause], set[Any]]:
    """The causes of the GPUs or host devices (``key``), and the claims their DRA devices use."""
    release = config.release
    at = f"{field}.domain.devices.{key}"
    dra = [(idx, d) for idx, d in enumerate(devices) if is_dra(d)]
    plugin = [d for d in devices if not is_dra(d)]
    causes = []
    if key == "gpus" and dra and plugin and release.dra_pairs_checked:
        return [Cause(INVALID, at, "vmi.spec.domain.devices.gpus contains both DRA and non-DRA GPUs; each GPU must "
                                   "be either DRA or non-DRA")], set()
    if dra and not gate:
        where = at if release.dra_pairs_checked else f"{field}.spec.domain.devices.{key}"
        causes.append(Cause(INVALID, where, f"vmi.spec.domain.devices.{key} contains DRA enabled {kind}s but feature "
                                            "gate is not enabled"))
        return causes, set()
    valid = []
    for idx, device in dra:
        missing = [name for name in ("claimName", "requestName") if not device.get(name)]
        for name in missing:
            causes.append(Cause(REQUIRED, f"{at}[{idx}].{name}", f"{name} is required for DRA {kind}"))
        if not missing:
            valid.append((idx, device))
    if release.dra_pairs_checked:
        pairs: set[str] = set()
        for idx, device in valid:
            pair = f"{device['claimName']}/{device['requestName']}"
            if pair in pairs:
                causes.append(Cause(DUPLICATE, f"{at}[{idx}]", f'duplicate claimName/requestName pair "{pair}"'))
            pairs.add(pair)
    return causes, {device["claimName"] for _, device in valid}
