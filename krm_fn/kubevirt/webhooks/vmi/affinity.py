"""The VMI spec's affinity (Kubernetes' ``ValidateAffinity``, as KubeVirt calls it): preferred terms weigh 1-100,
pod (anti-)affinity terms name a topology key, a required node selector has a term.

KubeVirt passes the template spec's path, not the affinity's, so a fault under ``affinity.podAntiAffinity`` is
reported at ``spec.template.spec.podAntiAffinity``.
Each cause's message is apimachinery's ``field.Error`` text: the path, the kind of error and the detail.
"""

from __future__ import annotations

from typing import Any

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause

PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
REQUIRED_TERMS = "requiredDuringSchedulingIgnoredDuringExecution"


def validate_affinity(field: str, spec: Obj) -> list[Cause]:
    """The causes of ``spec.affinity`` (``field``: the template spec)."""
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict):
        return []
    causes = []
    node = as_map(affinity.get("nodeAffinity"))
    required = node.get(REQUIRED_TERMS)
    if isinstance(required, dict) and not as_list(required.get("nodeSelectorTerms")):
        causes.append(_required(f"{field}.nodeAffinity.{REQUIRED_TERMS}.nodeSelectorTerms",
                                "must have at least one node selector term"))
    for idx, term in enumerate(as_list(node.get(PREFERRED))):
        causes += _weight(f"{field}.nodeAffinity.{PREFERRED}[{idx}].weight", as_map(term).get("weight", 0))
    for kind in ("podAffinity", "podAntiAffinity"):
        pod = as_map(affinity.get(kind))
        for idx, term in enumerate(as_list(pod.get(REQUIRED_TERMS))):
            causes += _topology(f"{field}.{kind}.{REQUIRED_TERMS}[{idx}]", as_map(term))
        for idx, term in enumerate(as_list(pod.get(PREFERRED))):
            at = f"{field}.{kind}.{PREFERRED}[{idx}]"
            causes += _weight(f"{at}.weight", as_map(term).get("weight", 0))
            causes += _topology(f"{at}.podAffinityTerm", as_map(as_map(term).get("podAffinityTerm")))
    return causes


def _weight(at: str, weight: Any) -> list[Cause]:
    if isinstance(weight, int) and 0 < weight <= 100:
        return []
    return [Cause(INVALID, at, f"{at}: Invalid value: {weight}: must be in the range 1-100")]


def _topology(at: str, term: Obj) -> list[Cause]:
    return [] if term.get("topologyKey") else [_required(f"{at}.topologyKey", "can not be empty")]


def _required(at: str, detail: str) -> Cause:
    return Cause(REQUIRED, at, f"{at}: Required value: {detail}")
