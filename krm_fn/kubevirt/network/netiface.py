"""``pkg/network/admitter/netiface.go``: one interface's own fields (name, model, MAC and PCI addresses, forwarded
ports, DHCP options)."""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import DUPLICATE, INVALID, NOT_SUPPORTED, REQUIRED, Cause
from krm_fn.kubevirt.storage.disks import pci_address_ok
from krm_fn.kubevirt.webhooks.config import WebhookConfig

MODELS: Final = frozenset({"e1000", "e1000e", "ne2k_pci", "pcnet", "rtl8139", "virtio"})
_NAME: Final = re.compile(r"[A-Za-z0-9_-]+")
_HEX: Final = r"[0-9A-Fa-f]"
# net.ParseMAC: 6, 8 or 20 octets, as pairs joined by ':' or '-', or as groups of four joined by '.'
_MAC: Final = re.compile(rf"({_HEX}{{2}})(?:([:-]){_HEX}{{2}}(?:\2{_HEX}{{2}})*)?|{_HEX}{{4}}(?:\.{_HEX}{{4}})+")
_PORT_NAME: Final = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?")
DHCP_PRIVATE: Final = range(224, 255)


def validate_interface_fields(at: str, iface: Obj, net: Obj | None, config: WebhookConfig) -> list[Cause]:
    """The causes of the interface at ``at`` (``...interfaces[i]``) on network ``net``."""
    causes = []
    name = iface.get("name", "")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        causes.append(Cause(INVALID, f"{at}.name", "Network interface name can only contain alphabetical characters, "
                                                   "numbers, dashes (-) or underscores (_)"))
    model = iface.get("model", "")
    if model and model not in MODELS:
        causes.append(Cause(NOT_SUPPORTED, f"{at}.model", f"interface {at}.name uses model {model} that is not "
                                                          "supported."))
    causes += _mac(at, iface.get("macAddress", ""))
    address = iface.get("pciAddress", "")
    if address and not pci_address_ok(address):
        causes.append(Cause(INVALID, f"{at}.pciAddress", f"interface {at}.name has malformed PCI address ({address})."))
    ports = iface.get("ports")
    if net is not None and net.get("pod") is not None and isinstance(ports, list):
        causes += _ports(at, ports, config)
    return causes + _dhcp(at, as_map(iface.get("dhcpOptions")))


def mac_octets(text: str) -> int | None:
    """How many octets ``net.ParseMAC`` reads from ``text``; None when it refuses it."""
    if not _MAC.fullmatch(text):
        return None
    octets = len(re.findall(_HEX, text)) // 2
    return octets if octets in (6, 8, 20) else None


def _mac(at: str, mac: Any) -> list[Cause]:
    if not mac:
        return []
    octets = mac_octets(str(mac))
    if octets is None:
        return [Cause(INVALID, f"{at}.macAddress", f"interface {at}.name has malformed MAC address ({mac}).")]
    if octets > 6:
        return [Cause(INVALID, f"{at}.macAddress", f"interface {at}.name has MAC address ({mac}) that is too long.")]
    return []


def port_name_ok(name: str) -> bool:
    """``IsValidPortName``: 1-15 lowercase letters, digits and single dashes, at least one letter."""
    return len(name) <= 15 and _PORT_NAME.fullmatch(name) is not None and "--" not in name and \
        any(c.isalpha() for c in name)


def _ports(at: str, ports: list[Any], config: WebhookConfig) -> list[Cause]:
    causes = []
    names: set[Any] = set()
    for idx, port in enumerate(ports):
        name = as_map(port).get("name", "")
        if not name:
            continue
        if name in names:
            causes.append(Cause(DUPLICATE, f"{at}.ports[{idx}].name", f"Duplicate name of the port: {name}"))
        if not port_name_ok(str(name)):
            causes.append(Cause(INVALID, f"{at}.ports[{idx}].name", f"Invalid name of the port: {name}"))
        names.add(name)
    suffix = ".port" if config.release.port_field else ""
    for idx, port in enumerate(ports):
        port = as_map(port)
        number = port.get("port", 0)
        where = f"{at}.ports[{idx}]"
        if number == 0:
            causes.append(Cause(REQUIRED, where + suffix, "Port field is mandatory."))
        if number < 0 or number > 65536:
            causes.append(Cause(INVALID, where + suffix, "Port field must be in range 0 < x < 65536."))
        if port.get("protocol", "") not in ("", "TCP", "UDP"):
            causes.append(Cause(INVALID, f"{where}.protocol", "Unknown protocol, only TCP or UDP allowed"))
    return causes


def _dhcp(at: str, options: Obj) -> list[Cause]:
    """Private options unique and within 224-254; NTP servers IPv4 addresses."""
    if not options:
        return []
    field = at.rsplit(".domain.devices.interfaces", 1)[0]
    causes = []
    private = [as_map(o).get("option") for o in as_list(options.get("privateOptions"))]
    if len(set(private)) != len(private):
        causes.append(Cause(INVALID, field, "Found Duplicates: you have provided duplicate DHCPPrivateOptions"))
    for option in private:
        if option not in DHCP_PRIVATE:
            causes.append(Cause(INVALID, field, "provided DHCPPrivateOptions are out of range, must be in range 224 "
                                                "to 254"))
    for idx, server in enumerate(as_list(options.get("ntpServers"))):
        if not _ipv4(server):
            causes.append(Cause(INVALID, f"{at}.dhcpOptions.ntpServers[{idx}]",
                                "NTP servers must be a list of valid IPv4 addresses."))
    return causes


def _ipv4(text: Any) -> bool:
    """``net.ParseIP(text).To4() != nil``: an IPv4 address, or an IPv4-mapped IPv6 one."""
    try:
        address = ipaddress.ip_address(str(text))
    except ValueError:
        return False
    return isinstance(address, ipaddress.IPv4Address) or address.ipv4_mapped is not None
