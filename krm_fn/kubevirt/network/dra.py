"""``pkg/network/admitter/dra.go``: networks backed by a DRA resource claim (v1.9, behind the
NetworkDevicesWithDRA gate)."""

from __future__ import annotations

from typing import Any

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import DUPLICATE, INVALID, NOT_FOUND, REQUIRED, Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig


def validate_dra_networks(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """``validateNetworkDevicesWithDRA``: the gate, no Multus network beside, then each DRA network's interface,
    claim and request names, claim and uniqueness."""
    networks = [as_map(n) for n in as_list(spec.get("networks"))]
    if not any(n.get("resourceClaim") is not None for n in networks):
        return []
    interfaces = [as_map(i) for i in as_list(as_map(as_map(spec.get("domain")).get("devices")).get("interfaces"))]
    if not config.gate("NetworkDevicesWithDRA"):
        return [Cause(INVALID, f"{field}.networks",
                      "vmi.spec.networks contains DRA networks but NetworkDevicesWithDRA feature gate is not enabled")]
    if any(n.get("multus") is not None for n in networks):
        return [Cause(INVALID, f"{field}.networks",
                      "mixing Multus and DRA resourceClaim networks in the same VMI is not supported")]
    claims = {as_map(c).get("name") for c in as_list(spec.get("resourceClaims"))}
    first: dict[str, int] = {}
    causes = []
    for idx, net in enumerate(networks):
        claim = net.get("resourceClaim")
        if claim is None:
            continue
        claim = as_map(claim)
        causes += _interface_binding(field, interfaces, net.get("name", ""))
        at = f"{field}.networks[{idx}]"
        claim_name, request = claim.get("claimName", ""), claim.get("requestName", "")
        for key, value in (("claimName", claim_name), ("requestName", request)):
            if not value:
                causes.append(Cause(REQUIRED, f"{at}.resourceClaim.{key}", f"{key} is required for DRA network"))
        if not claim_name or not request:
            continue
        if claim_name not in claims:
            causes.append(Cause(NOT_FOUND, f"{at}.resourceClaim.claimName",
                                f'network references resourceClaim "{claim_name}" which is not defined in '
                                "spec.resourceClaims"))
        key = f"{claim_name}/{request}"
        if first.setdefault(key, idx) != idx:
            causes.append(Cause(DUPLICATE, at, f'duplicate claimName/requestName combination "{key}"'))
    return causes


def _interface_binding(field: str, interfaces: list[Obj], name: Any) -> list[Cause]:
    """A DRA network's interface is SR-IOV or a binding plugin."""
    iface = next((i for i in interfaces if i.get("name", "") == name), None)
    if iface is None or iface.get("sriov") is not None or iface.get("binding") is not None:
        return []
    return [Cause(INVALID, f"{field}.domain.devices.interfaces",
                  f'DRA network "{name}" requires an SR-IOV or binding plugin interface')]
