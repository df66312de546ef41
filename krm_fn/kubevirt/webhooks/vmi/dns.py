"""The VMI spec's names and DNS settings (``vmi-create-admitter.go``): ``hostname``, ``subdomain``, ``dnsPolicy``
and ``dnsConfig`` (the last two copied there from Kubernetes' pod validation, field names and all)."""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from krm_fn.kube.meta import dns_label_errors, dns_subdomain_errors
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, NOT_SUPPORTED, REQUIRED, Cause

MAX_NAMESERVERS: Final = 3
MAX_SEARCH_PATHS: Final = 6
MAX_SEARCH_CHARS: Final = 256
POLICIES: Final = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None", "")


def validate_names(field: str, spec: Obj) -> list[Cause]:
    """``hostname`` as a DNS label and ``subdomain`` as a DNS subdomain, each when set, then the service account."""
    causes = []
    for key, check, rules in (("hostname", dns_label_errors, "DNS_LABEL"), ("subdomain", dns_subdomain_errors, "DNS_SUBDOMAIN")):
        value = spec.get(key, "")
        errors = check(value) if value else []
        if errors:
            causes.append(Cause(INVALID, f"{field}.{key}", f"{field}.{key} does not conform to the kubernetes "
                                                           f"{rules} rules : {', '.join(errors)}"))
    return causes + _service_account(field, spec)


def _service_account(field: str, spec: Obj) -> list[Cause]:
    """``serviceAccountName`` (v1.9) a DNS subdomain, and the service account a serviceAccount volume names."""
    name = spec.get("serviceAccountName")
    if not name:
        return []
    at = f"{field}.serviceAccountName"
    errors = dns_subdomain_errors(str(name))
    if errors:
        return [Cause(INVALID, at, f"{at} is not a valid service account name: {', '.join(errors)}")]
    for volume in as_list(spec.get("volumes")):
        theirs = as_map(as_map(volume).get("serviceAccount")).get("serviceAccountName")
        if theirs is not None and theirs != name:
            return [Cause(INVALID, at, f'spec.serviceAccountName "{name}" and serviceAccount volume "{theirs}" must '
                                       "reference the same service account")]
    return []


def validate_dns(field: str, spec: Obj) -> list[Cause]:
    """``dnsPolicy`` (when set), then ``dnsConfig`` as that policy needs it."""
    policy = spec.get("dnsPolicy", "")
    causes = []
    if policy and policy not in POLICIES:
        causes.append(Cause(NOT_SUPPORTED, f"{field}.dnsPolicy",
                            f"DNSPolicy: {policy} is not supported, valid values: [{' '.join(POLICIES)}]"))
    return causes + _dns_config(f"{field}.dnsConfig", spec.get("dnsConfig"), policy)


def ip_ok(text: str) -> bool:
    """Whether Go's ``net.ParseIP`` reads ``text`` (an IPv4 or IPv6 address, no zone)."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return "%" not in text


def _dns_config(field: str, config: Any, policy: str) -> list[Cause]:
    if policy == "None":
        if not isinstance(config, dict):
            return [Cause(REQUIRED, field, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not config.get("nameservers"):
            return [Cause(REQUIRED, "nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None")]
    if not isinstance(config, dict):
        return []
    causes = []
    servers = config.get("nameservers") or []
    if len(servers) > MAX_NAMESERVERS:
        causes.append(Cause(INVALID, "nameservers", f"must not have more than {MAX_NAMESERVERS} nameservers: "
                                                    f"[{' '.join(servers)}]"))
    causes += [Cause(INVALID, "nameservers", f"must be valid IP address: {s}") for s in servers if not ip_ok(s)]
    searches = config.get("searches") or []
    if len(searches) > MAX_SEARCH_PATHS:
        causes.append(Cause(INVALID, "searchDomains", f"must not have more than {MAX_SEARCH_PATHS} search paths"))
    if len(" ".join(searches)) > MAX_SEARCH_CHARS:
        causes.append(Cause(INVALID, "searchDomains", f"must not have more than {MAX_SEARCH_CHARS} characters "
                                                      "(including spaces) in the search list"))
    causes += [Cause(INVALID, "searchDomains", m) for s in searches for m in dns_subdomain_errors(s)]
    causes += [Cause(INVALID, "options", "Option.Name must not be empty")
               for o in config.get("options") or [] if isinstance(o, dict) and not o.get("name")]
    return causes
