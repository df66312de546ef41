"""``pkg/network/admitter`` ``Validator``: the VMI spec's networks and interfaces, in upstream's order.

:func:`validate_creation` is what the VM webhook runs on CREATE first: a discontinued binding refuses the VM alone.
:func:`validate_network` is ``Validate``: the network sources, the interface states and bindings, the names on both
sides, then each interface's own fields (:mod:`krm_fn.kubevirt.network.netiface`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import DUPLICATE, INVALID, NOT_SUPPORTED, REQUIRED, Cause
from krm_fn.kubevirt.network.netiface import validate_interface_fields
from krm_fn.kubevirt.webhooks.config import WebhookConfig

METHODS: Final = ("bridge", "masquerade", "sriov", "passtBinding")
# bindings discontinued in v1.3: refused on create (slirp always; macvtap and passt from v1.8, behind a gate before)
DISCONTINUED: Final = (("slirp", "Slirp interface support has been discontinued since v1.3"),
                       ("macvtap", "Macvtap network binding has been discontinued since v1.3"),
                       ("passt", "Passt network binding has been discontinued since v1.3"))
STATES: Final = ("", "absent", "down", "up")
RESERVED_MAC: Final = "02:00:00:00:00:00"  # the in-pod bridge's (link.IsReserved)


def validate_discontinued_gates(spec: Obj, config: WebhookConfig) -> list[Cause]:
    """``deprecation.ValidateFeatureGates``: a discontinued gate the cluster still lists, whose binding the VM uses
    (no field: the cluster's configuration is at fault)."""
    used = {kind for iface in _interfaces(spec) for kind in ("macvtap", "passt") if iface.get(kind) is not None}
    return [Cause(NOT_SUPPORTED, None, f"{gate} network binding is discontinued since v1.3. Please refer to Kubevirt "
                                       "user guide for alternatives.")
            for gate in config.cluster.feature_gates if gate in ("Macvtap", "Passt") and gate.lower() in used]


def validate_creation(spec: Obj, config: WebhookConfig) -> list[Cause]:
    """``ValidateCreation``: an interface with a discontinued binding (upstream's path starts ``spec.domain``)."""
    causes = []
    kinds = DISCONTINUED if config.release.discontinued_bindings else DISCONTINUED[:1]
    for idx, iface in enumerate(_interfaces(spec)):
        for kind, message in kinds:
            if iface.get(kind) is not None:
                causes.append(Cause(INVALID, f"spec.domain.devices.interfaces[{idx}].{kind}", message))
    return causes


def _interfaces(spec: Obj) -> list[Obj]:
    return [as_map(i) for i in as_list(as_map(as_map(spec.get("domain")).get("devices")).get("interfaces"))]


def validate_network(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """The causes of the networks and interfaces of the VMI spec at ``field``."""
    networks = [as_map(n) for n in as_list(spec.get("networks"))]
    interfaces = _interfaces(spec)
    if not networks and not interfaces:
        return []
    by_name: dict[Any, Obj] = {}
    for net in networks:
        by_name.setdefault(net.get("name", ""), net)
    ifaces_at = f"{field}.domain.devices.interfaces"
    causes = _sources(field, networks) + _states(ifaces_at, interfaces, networks)
    for idx, iface in enumerate(interfaces):
        causes += _binding(f"{ifaces_at}[{idx}]", iface, by_name.get(iface.get("name", "")), config)
    causes += _names(field, ifaces_at, networks, interfaces)
    for idx, iface in enumerate(interfaces):
        causes += validate_interface_fields(f"{ifaces_at}[{idx}]", iface, by_name.get(iface.get("name", "")), config)
    return causes


def _sources(field: str, networks: list[Obj]) -> list[Cause]:
    """One pod network, one Multus default network and not both; each network one source, a Multus one named."""
    causes = []
    pods = [n for n in networks if n.get("pod") is not None]
    defaults = [n for n in networks if as_map(n.get("multus")).get("default") is True]
    if len(pods) > 1:
        causes.append(Cause(DUPLICATE, f"{field}.interfaces",
                            f"more than one interface is connected to a pod network in {field}.interfaces"))
    if len(defaults) > 1:
        causes.append(Cause(INVALID, f"{field}.networks", "Multus CNI should only have one default network"))
    if pods and defaults:
        causes.append(Cause(INVALID, f"{field}.networks",
                            "Pod network cannot be defined when Multus default network is defined"))
    for idx, net in enumerate(networks):
        pod, multus = net.get("pod") is not None, net.get("multus") is not None
        if not pod and not multus and net.get("resourceClaim") is None:  # a DRA network (v1.9) is a source too
            causes.append(Cause(REQUIRED, f"{field}.networks[{idx}]", "should have a network type"))
        elif pod and multus:
            causes.append(Cause(REQUIRED, f"{field}.networks[{idx}]", "should have only one network type"))
    unnamed = next((idx for idx, net in enumerate(networks)
                    if net.get("multus") is not None and not as_map(net.get("multus")).get("networkName")), None)
    if unnamed is not None:
        causes.append(Cause(REQUIRED, f"{field}.networks[{unnamed}]", "CNI delegating plugin must have a networkName"))
    return causes


def _default_network(networks: list[Obj]) -> Obj | None:
    """``LookUpDefaultNetwork``: the pod network, or the Multus default one."""
    return next((n for n in networks if n.get("pod") is not None or as_map(n.get("multus")).get("default") is True),
                None)


def _states(at: str, interfaces: list[Obj], networks: list[Obj]) -> list[Cause]:
    """``validateInterfaceStateValue``: a known state; absent only for a bridge off the default network; down and
    up not for SR-IOV."""
    causes = []
    default = _default_network(networks)
    for idx, iface in enumerate(interfaces):
        state, name = iface.get("state", ""), iface.get("name", "")
        where = f"{at}[{idx}].state"
        if state not in STATES:
            causes.append(Cause(INVALID, where, f"logical {name} interface state value is unsupported: {state}"))
        if state == "absent" and iface.get("bridge") is None:
            causes.append(Cause(INVALID, where, f'"{name}" interface\'s state "{state}" is supported only for bridge '
                                                "binding"))
        if state == "absent" and default is not None and default.get("name") == name:
            causes.append(Cause(INVALID, where, f'"{name}" interface\'s state "{state}" is not supported on default '
                                                "networks"))
        if state in ("down", "up") and iface.get("sriov") is not None:
            causes.append(Cause(INVALID, where, f'"{name}" interface\'s state "{state}" is not supported for SR-IOV '
                                                "NICs"))
    return causes


def _binding(at: str, iface: Obj, net: Obj | None, config: WebhookConfig) -> list[Cause]:
    """``validateInterfaceBinding`` for one interface: one binding, then what masquerade, bridge and passt need."""
    causes = []
    name = iface.get("name", "")
    methods = sum(iface.get(m) is not None for m in METHODS)
    plugin = iface.get("binding") is not None
    if config.release.binding_required:
        if methods + plugin != 1:
            causes.append(Cause(INVALID, at, f"logical {name} interface must have exactly one binding method or "
                                             "binding plugin"))
    elif plugin and methods:
        causes.append(Cause(INVALID, f"{at}.binding", f"logical {name} interface cannot have both binding plugin "
                                                      "and interface binding method"))
    on_pod = net is not None and net.get("pod") is not None
    if iface.get("masquerade") is not None:
        if not on_pod:
            causes.append(Cause(INVALID, f"{at}.name", "Masquerade interface only implemented with pod network"))
        if str(iface.get("macAddress", "")).lower() == RESERVED_MAC:
            causes.append(Cause(INVALID, f"{at}.macAddress", "The requested MAC address is reserved for the in-pod "
                                                             "bridge. Please choose another one."))
    if iface.get("bridge") is not None and on_pod and not config.cluster.permit_bridge_interface_on_pod_network:
        causes.append(Cause(INVALID, f"{at}.name", "Bridge on pod network configuration is not enabled under "
                                                   "kubevirt-config"))
    if iface.get("passtBinding") is not None:
        if not config.gate("PasstBinding"):
            causes.append(Cause(INVALID, f"{at}.name", "PasstBinding feature gate is not enabled"))
        elif not on_pod:
            causes.append(Cause(INVALID, f"{at}.name", "PasstBinding interface only implemented with pod network"))
    if not config.release.discontinued_bindings:
        for kind, gate in (("macvtap", "Macvtap"), ("passt", "Passt")):
            if iface.get(kind) is not None and not config.gate(gate):
                causes.append(Cause(INVALID, f"{at}.name", f"{gate} feature gate is not enabled"))
    return causes


def _names(field: str, ifaces_at: str, networks: list[Obj], interfaces: list[Obj]) -> list[Cause]:
    """Network names unique and each with an interface; interface names unique and each with a network."""
    return _side(f"{field}.networks", networks, interfaces, REQUIRED,
                 lambda name: f'Network with name "{name}" already exists, every network must have a unique name') + \
        _side(ifaces_at, interfaces, networks, INVALID,
              lambda name: "Only one interface can be connected to one specific network")


def _side(at: str, items: list[Obj], others: list[Obj], missing: str, duplicate: Callable[[Any], str]) -> list[Cause]:
    """Each of ``items`` (at ``at``) named once, and with one of ``others`` of its name."""
    causes = []
    seen: set[Any] = set()
    for idx, item in enumerate(items):
        name = item.get("name", "")
        if name in seen:
            causes.append(Cause(DUPLICATE, f"{at}[{idx}].name", duplicate(name)))
        seen.add(name)
    names = {o.get("name", "") for o in others}
    for idx, item in enumerate(items):
        if item.get("name", "") not in names:
            causes.append(Cause(missing, f"{at}[{idx}].name", f"{at}[{idx}].name '{item.get('name', '')}' not found."))
    return causes
