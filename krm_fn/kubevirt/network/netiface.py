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
    if net is not None and net.get("pod") is not None:
        causes += _port_configuration(at, iface, config)
    return causes + _dhcp(at, as_map(iface.get("dhcpOptions")))


def _port_configuration(at: str, iface: Obj, config: WebhookConfig) -> list[Cause]:
    """``validatePortConfiguration`` on the pod network: forwarded ports, then port ranges (v1.9, behind the
    PortRangesSpec gate) and not both."""
    ports, ranges = iface.get("ports"), iface.get("portRanges")
    causes = []
    if ranges is not None and not config.gate("PortRangesSpec"):
        causes.append(Cause(INVALID, f"{at}.name", "portRanges is specified on interface but the PortRangesSpec "
                                                   "feature gate is not enabled"))
        ranges = None
    if ports is not None and ranges is not None:
        causes.append(Cause(INVALID, f"{at}.name", "Cannot define both ports and portRanges on interface"))
    if isinstance(ports, list):
        causes += _ports(at, ports, config)
    if ranges is not None:
        if iface.get("masquerade") is None:
            causes.append(Cause(INVALID, f"{at}.name", "portRanges are only supported on masquerade interfaces"))
        causes += _port_ranges(f"{at}.portRanges", as_list(ranges))
    return causes


MAX_PORT_RANGES: Final = 10


def _port_ranges(at: str, ranges: list[Any]) -> list[Cause]:
    """At most ten ranges; each a known protocol and valid ports, start not after end (the first fault of each
    range); ranges of one protocol apart."""
    if len(ranges) > MAX_PORT_RANGES:
        return [Cause(INVALID, at, f"No more than {MAX_PORT_RANGES} portRanges are allowed")]
    causes = []
    by_protocol: dict[Any, list[tuple[Any, Any]]] = {}
    for idx, item in enumerate(ranges):
        item = as_map(item)
        protocol, start, end = item.get("protocol", ""), item.get("start", 0), item.get("end", 0)
        fault = _port_range_fault(protocol, start, end)
        if fault is not None:
            causes.append(Cause(INVALID, f"{at}[{idx}].{fault[0]}", fault[1]))
            continue
        by_protocol.setdefault(protocol, []).append((start, end))
    for protocol, spans in by_protocol.items():
        for i, (start, end) in enumerate(spans):
            for other_start, other_end in spans[i + 1:]:
                if start <= other_end and other_start <= end:
                    causes.append(Cause(INVALID, at, f"{protocol} portRanges [{start}-{end}] and "
                                                     f"[{other_start}-{other_end}] overlap"))
    return causes


def _port_range_fault(protocol: Any, start: Any, end: Any) -> tuple[str, str] | None:
    """The field and message of a port range's first fault; None when it has none."""
    if protocol not in ("TCP", "UDP"):
        return "protocol", "Unknown protocol, only TCP or UDP allowed"
    for key, number in (("start", start), ("end", end)):
        if not isinstance(number, int) or not 0 < number < 65536:
            return key, f"{key.capitalize()} must be a valid port number, 0 < x < 65536"
    if start > end:
        return "start", "Start must be less than or equal to end"
    return None


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
