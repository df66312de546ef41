"""``validateLaunchSecurity`` (``vmi-create-admitter.go``, ``webhooks/amd64.go``): confidential computing on a VMI
spec.

From v1.7 (``Release.launch_security_arch``) the rules are per architecture: amd64 takes one of SEV, SNP and TDX,
behind its gate, with UEFI; arm64 and the others take none (s390x's Secure Execution is not judged here).
Before v1.7 there is SEV only, judged the same way.
"""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import FORBIDDEN, INVALID, Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig

# type -> its gate
TYPES: Final = (("sev", "SEV", "WorkloadEncryptionSEV"), ("snp", "SNP", "WorkloadEncryptionSEV"),
                ("tdx", "TDX", "WorkloadEncryptionTDX"))


def validate_launch_security(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """The causes of ``domain.launchSecurity`` (``field``: the template spec)."""
    domain = as_map(spec.get("domain"))
    security = domain.get("launchSecurity")
    if not isinstance(security, dict):
        return []
    arch = spec.get("architecture") or config.cluster.architecture
    if config.release.launch_security_arch and arch == "s390x":
        return []
    if config.release.launch_security_arch and arch != "amd64":
        return [Cause(INVALID, f"{field}.architecture", f"No launchSecurity support for architecture: {arch}")]
    at = f"{field}.launchSecurity"
    chosen = [(name, gate) for key, name, gate in TYPES if security.get(key) is not None]
    if config.release.launch_security_arch and len(chosen) != 1:
        return [Cause(FORBIDDEN, at, "One and only one launchSecurity type can be set")]
    if not chosen:
        return []
    name, gate = chosen[0]
    if not config.gate(gate):
        return [Cause(INVALID, at, f"{gate} feature gate is not enabled in kubevirt-config")]
    causes = []
    smm = as_map(domain.get("features")).get("smm")
    if name == "TDX" and isinstance(smm, dict) and smm.get("enabled") is not False:
        causes.append(Cause(INVALID, at, "TDX does not work along with SMM"))
    efi = as_map(as_map(domain.get("firmware")).get("bootloader")).get("efi")
    if not isinstance(efi, dict):
        causes.append(Cause(INVALID, at, f"{name} requires OVMF (UEFI)"))
    else:
        if name in ("SEV", "SNP") and efi.get("secureBoot") is not False:
            causes.append(Cause(INVALID, at, f"{name} does not work along with SecureBoot"))
        if name in ("SNP", "TDX") and efi.get("persistent") is True:
            causes.append(Cause(INVALID, at, f"{name} does not work along with Persistent EFI variables"))
    attestation = as_map(security.get("sev")).get("attestation")
    if name == "SEV" and attestation is not None and spec.get("startStrategy") != "Paused":
        causes.append(Cause(INVALID, at, "SEV attestation requires VMI StartStrategy 'Paused'"))
    for iface in as_list(as_map(domain.get("devices")).get("interfaces")):
        if as_map(iface).get("bootOrder") is not None:
            causes.append(Cause(INVALID, at, f"{name} does not work with bootable NICs: {as_map(iface).get('name', '')}"))
    return causes
