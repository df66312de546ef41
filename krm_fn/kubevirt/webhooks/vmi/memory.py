"""The VMI spec's memory rules (``vmi-create-admitter.go``): requests and limits, hugepages, the guest memory
under the limit, and the machine type among the cluster's emulated machines."""

from __future__ import annotations

import fnmatch
from typing import Final

from krm_fn.kube.paths import Obj, as_map
from krm_fn.kube.quantity import Quantity, QuantityError
from krm_fn.kube.quantity_json import parsed
from krm_fn.kube.status import INVALID, Cause
from krm_fn.kubevirt.cluster import architecture_configuration
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vmi.cpu import quantity

ONE_M: Final = Quantity.parse("1M")
# KubeVirt's emulated machines by architecture (virt-config defaults), when the CR names none
EMULATED_MACHINES: Final[dict[str, tuple[str, ...]]] = {
    "amd64": ("q35*", "pc-q35*"),
    "arm64": ("virt*",),
    "s390x": ("s390-ccw-virtio*",),
    "ppc64le": ("pseries*",),
}
# the regular expression a quantity must match (apimachinery resource.ErrFormatWrong)
FORMAT_WRONG: Final = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def validate_memory(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """The memory rules in upstream's order: requests, limits, hugepages, guest under the limit (``field``: the
    template spec)."""
    domain = as_map(spec.get("domain"))
    resources = as_map(domain.get("resources"))
    memory = as_map(domain.get("memory"))
    request, limit = quantity(resources, "requests", "memory"), quantity(resources, "limits", "memory")
    req_at, lim_at = f"{field}.domain.resources.requests.memory", f"{field}.domain.resources.limits.memory"
    causes = []
    if request.value() < 0:
        causes.append(Cause(INVALID, req_at, f"{req_at} '{request}': must be greater than or equal to 0."))
    elif request.value() > 0 and request.cmp(ONE_M) < 0:
        causes.append(Cause(INVALID, req_at, f"{req_at} '{request}': must be greater than or equal to 1M."))
    if limit.value() < 0:
        causes.append(Cause(INVALID, lim_at, f"{lim_at} '{limit}': must be greater than or equal to 0."))
    if limit.value() > 0 and request.value() > limit.value():
        causes.append(Cause(INVALID, req_at, f"{req_at} '{request}' is greater than {lim_at} '{limit}'"))
    causes += _hugepages(field, memory, request, config)
    guest = memory.get("guest")
    if guest is not None and not config.live_update():
        guest_q = quantity_or_none(guest)
        if guest_q is not None and limit.value() != 0 and limit.value() < guest_q.value():
            at = f"{field}.domain.memory.guest"
            causes.append(Cause(INVALID, at, f"{at} '{guest_q}' must be equal to or less than the memory limit "
                                             f"{lim_at} '{limit}'"))
    return causes


def quantity_or_none(value: object) -> Quantity | None:
    """A quantity field's value; None when unset or not a quantity."""
    try:
        return parsed(value)
    except QuantityError:
        return None


def _hugepages(field: str, memory: Obj, request: Quantity, config: WebhookConfig) -> list[Cause]:
    """The page size parses, and the memory (the request, else the guest memory) is a multiple of it, at least
    one page."""
    hugepages = memory.get("hugepages")
    if not isinstance(hugepages, dict):
        return []
    at = f"{field}.domain.memory.hugepages.pageSize" if config.release.hugepages_page_size_field \
        else f"{field}.domain.hugepages.size"
    text = hugepages.get("pageSize", "")
    size = quantity_or_none(text)
    if size is None:
        return [Cause(INVALID, at, f"{at} '{text}': {FORMAT_WRONG}")]
    guest = quantity_or_none(memory.get("guest"))
    amount = request if request.value() != 0 or guest is None else guest
    if amount.value() == 0:
        return []
    req_at = f"{field}.domain.resources.requests.memory"
    if amount.value() < size.value():
        return [Cause(INVALID, req_at, f"{req_at} '{amount}' must be equal to or larger than page size {at} '{text}'")]
    if size.value() and amount.value() % size.value():
        return [Cause(INVALID, req_at, f"{req_at} '{amount}' is not a multiple of the page size {at} '{text}'")]
    return []


def emulated_machines(config: WebhookConfig, arch: str) -> tuple[str, ...]:
    """``GetEmulatedMachines``: the CR's for ``arch``, else KubeVirt's defaults (ppc64le's from v1.7 are amd64's,
    as its machine type is)."""
    given = architecture_configuration(config.cluster, arch).get("emulatedMachines")
    if isinstance(given, list) and given:
        return tuple(str(m) for m in given)
    if arch == "ppc64le" and not config.release.ppc64le_machine_type:
        arch = "amd64"
    return EMULATED_MACHINES.get(arch, ())


def validate_emulated_machine(field: str, spec: Obj, config: WebhookConfig) -> list[Cause]:
    """A machine type matches one of the architecture's emulated machines (shell patterns)."""
    machine = as_map(as_map(spec.get("domain")).get("machine")).get("type")
    if not isinstance(machine, str) or not machine:
        return []
    allowed = emulated_machines(config, str(spec.get("architecture", "")))
    if any(fnmatch.fnmatchcase(machine, pattern) for pattern in allowed):
        return []
    at = f"{field}.domain.machine.type"
    return [Cause(INVALID, at, f"{at} is not supported: {machine} (allowed values: [{' '.join(allowed)}])")]
