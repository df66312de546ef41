"""The VMI spec's affinity (Kubernetes' ``ValidateAffinity``, as KubeVirt calls it): preferred terms weigh 1-100,
pod (anti-)affinity terms name a topology key, a required node selector has a term, and selector expressions have a
known operator with the values it wants.

KubeVirt passes the template spec's path, not the affinity's, so a fault under ``affinity.podAntiAffinity`` is
reported at ``spec.template.spec.podAntiAffinity``.
Each cause's message is apimachinery's ``field.Error`` text: the path, the kind of error and the detail.
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import FORBIDDEN, INVALID, REQUIRED, Cause

PREFERRED: Final = "preferredDuringSchedulingIgnoredDuringExecution"
REQUIRED_TERMS: Final = "requiredDuringSchedulingIgnoredDuringExecution"
LABEL_OPERATORS: Final = ("In", "NotIn", "Exists", "DoesNotExist")  # a label selector's (metav1)
NODE_OPERATORS: Final = (*LABEL_OPERATORS, "Gt", "Lt")  # a node selector's


def validate_affinity(field: str, spec: Obj) -> list[Cause]:
    """The causes of ``spec.affinity`` (``field``: the template spec)."""
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict):
        return []
    causes = []
    node = as_map(affinity.get("nodeAffinity"))
    required = node.get(REQUIRED_TERMS)
    if isinstance(required, dict):
        at = f"{field}.nodeAffinity.{REQUIRED_TERMS}.nodeSelectorTerms"
        terms = as_list(required.get("nodeSelectorTerms"))
        if not terms:
            causes.append(_required(at, "must have at least one node selector term"))
        for idx, term in enumerate(terms):
            causes += _node_term(f"{at}[{idx}]", as_map(term))
    for idx, term in enumerate(as_list(node.get(PREFERRED))):
        at = f"{field}.nodeAffinity.{PREFERRED}[{idx}]"
        causes += _weight(f"{at}.weight", as_map(term).get("weight", 0))
        causes += _node_term(f"{at}.preference", as_map(as_map(term).get("preference")))
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


def _node_term(at: str, term: Obj) -> list[Cause]:
    """A node selector term's expressions."""
    return _expressions(f"{at}.matchExpressions", term.get("matchExpressions"), NODE_OPERATORS)


def _topology(at: str, term: Obj) -> list[Cause]:
    """A pod affinity term's label selector expressions, then its topology key."""
    causes = _expressions(f"{at}.labelSelector.matchExpressions",
                          as_map(term.get("labelSelector")).get("matchExpressions"), LABEL_OPERATORS)
    return causes + ([] if term.get("topologyKey") else [_required(f"{at}.topologyKey", "can not be empty")])


def _expressions(at: str, expressions: Any, operators: tuple[str, ...]) -> list[Cause]:
    """Each expression's operator one of ``operators``, with the values it wants."""
    causes = []
    for idx, req in enumerate(as_list(expressions)):
        req = as_map(req)
        where, operator, values = f"{at}[{idx}]", req.get("operator", ""), as_list(req.get("values"))
        if operator in ("In", "NotIn") and not values:
            causes.append(_required(f"{where}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist") and values:
            causes.append(_forbidden(f"{where}.values", "may not be specified when `operator` is 'Exists' or "
                                                        "'DoesNotExist'"))
        elif operator in ("Gt", "Lt") and operator in operators and len(values) != 1:
            causes.append(_required(f"{where}.values", "must be specified single value when `operator` is 'Lt' or "
                                                       "'Gt'"))
        elif operator not in operators:
            causes.append(Cause(INVALID, f"{where}.operator", f'{where}.operator: Invalid value: "{operator}": not a '
                                                              "valid selector operator"))
    return causes


def _forbidden(at: str, detail: str) -> Cause:
    return Cause(FORBIDDEN, at, f"{at}: Forbidden: {detail}")


def _required(at: str, detail: str) -> Cause:
    return Cause(REQUIRED, at, f"{at}: Required value: {detail}")
