"""VirtualMachineInstancePresets: what the VMI mutating webhook merges into a VMI's domain before its defaults
(``pkg/virt-api/webhooks/mutating-webhook/mutators/preset.go``; presets are deprecated but still applied).

:func:`matching_presets` finds the presets of the VMI's namespace whose selector selects its labels, by name.
:func:`apply_presets` merges each into the domain: the resource requests, the CPU, the firmware, the clock
(offset, then timer), the features and the watchdog, each only where the VMI has none.
Presets that disagree with each other on one of those are not applied at all, as upstream refuses to choose.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Final

from krm_fn.index import Index
from krm_fn.kube.paths import Obj, as_map
from krm_fn.kube.selector import matches

KIND_PRESET: Final = "VirtualMachineInstancePreset"
# the domain fields a preset fills, each as a whole (the clock's offset and timer apart)
WHOLE: Final = ("cpu", "firmware", "features")


def matching_presets(index: Index, namespace: str, labels: Obj) -> list[Obj]:
    """The presets of ``namespace`` among the indexed objects whose selector selects ``labels``, by name."""
    names = index.names(KIND_PRESET).get(namespace)
    if not names:
        return []
    found = [index.get(KIND_PRESET, namespace, name) for name in sorted(names)]
    return [p for p in found if p is not None and matches(as_map(as_map(p.get("spec")).get("selector")), labels)]


def _domain(preset: Obj) -> Obj:
    return as_map(as_map(preset.get("spec")).get("domain"))


def _disagree(a: Obj, b: Obj) -> bool:
    """``checkMergeConflicts`` of two domains: a field both set, set differently."""
    ra, rb = as_map(as_map(a.get("resources")).get("requests")), as_map(as_map(b.get("resources")).get("requests"))
    if any(k in rb and rb[k] != v for k, v in ra.items()):
        return True
    if any(a.get(f) is not None and b.get(f) is not None and a[f] != b[f] for f in WHOLE):
        return True
    ca, cb = a.get("clock"), b.get("clock")
    if isinstance(ca, dict) and isinstance(cb, dict):
        offset = ("utc", "timezone")
        if {k: ca.get(k) for k in offset} != {k: cb.get(k) for k in offset}:
            return True
        if ca.get("timer") is not None and cb.get("timer") is not None and ca["timer"] != cb["timer"]:
            return True
    wa, wb = as_map(a.get("devices")).get("watchdog"), as_map(b.get("devices")).get("watchdog")
    return wa is not None and wb is not None and wa != wb


def apply_presets(domain: Obj, presets: Sequence[Obj]) -> None:
    """Each preset merged into ``domain`` (changed in place), unless two of them disagree."""
    domains = [_domain(p) for p in presets]
    if any(_disagree(a, b) for i, a in enumerate(domains) for b in domains[:i]):
        return
    for preset in domains:
        _merge(preset, domain)


def _merge(preset: Obj, domain: Obj) -> None:
    """``mergeDomainSpec``: what the preset sets, where the domain has none."""
    requests = as_map(as_map(preset.get("resources")).get("requests"))
    if requests and not as_map(domain.get("resources")).get("requests"):
        domain["resources"] = {**as_map(domain.get("resources")), "requests": copy.deepcopy(requests)}
    for field in WHOLE:
        if preset.get(field) is not None and domain.get(field) is None:
            domain[field] = copy.deepcopy(preset[field])
    clock = preset.get("clock")
    if isinstance(clock, dict):
        if domain.get("clock") is None:
            domain["clock"] = {k: copy.deepcopy(v) for k, v in clock.items() if k in ("utc", "timezone")}
        if clock.get("timer") is not None and isinstance(domain["clock"], dict) and \
                domain["clock"].get("timer") is None:
            domain["clock"]["timer"] = copy.deepcopy(clock["timer"])
    watchdog = as_map(preset.get("devices")).get("watchdog")
    if watchdog is not None and as_map(domain.get("devices")).get("watchdog") is None:
        domain["devices"] = {**as_map(domain.get("devices")), "watchdog": copy.deepcopy(watchdog)}
