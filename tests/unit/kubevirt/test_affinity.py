"""The template's affinity as the VM webhook judges it (``krm_fn.kubevirt.webhooks.vmi.affinity``).

The weight's words are ``shared/conformance-vms`` case 106's; the selector expressions' are Kubernetes' own
(``validateNodeSelectorRequirement``, ``ValidateLabelSelectorRequirement``), with KubeVirt's path root (the template
spec, not its ``affinity``).
"""

from __future__ import annotations

from krm_fn.kubevirt.webhooks.vmi.affinity import validate_affinity

AT = "spec.template.spec"
REQ = "requiredDuringSchedulingIgnoredDuringExecution"
PREF = "preferredDuringSchedulingIgnoredDuringExecution"


def _messages(affinity: dict[str, object]) -> list[str]:
    return [c.message for c in validate_affinity(AT, {"affinity": affinity})]


def test_a_preferred_term_weighs_one_to_a_hundred() -> None:
    term = {"weight": 200, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}
    assert _messages({"podAntiAffinity": {PREF: [term]}}) == [
        f"{AT}.podAntiAffinity.{PREF}[0].weight: Invalid value: 200: must be in the range 1-100"]
    assert _messages({"podAntiAffinity": {PREF: [{**term, "weight": 100}]}}) == []


def test_selector_expressions_want_a_known_operator_and_its_values() -> None:
    terms = [{"matchExpressions": [{"key": "a", "operator": "In"}, {"key": "b", "operator": "Near", "values": ["x"]},
                                   {"key": "c", "operator": "Gt", "values": ["1", "2"]}]}]
    at = f"{AT}.nodeAffinity.{REQ}.nodeSelectorTerms[0].matchExpressions"
    assert _messages({"nodeAffinity": {REQ: {"nodeSelectorTerms": terms}}}) == [
        f"{at}[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        f'{at}[1].operator: Invalid value: "Near": not a valid selector operator',
        f"{at}[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"]
    pod = {"labelSelector": {"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["v"]}]}}
    assert _messages({"podAffinity": {REQ: [pod]}}) == [
        f"{AT}.podAffinity.{REQ}[0].labelSelector.matchExpressions[0].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'",
        f"{AT}.podAffinity.{REQ}[0].topologyKey: Required value: can not be empty"]
    assert _messages({"nodeAffinity": {REQ: {"nodeSelectorTerms": []}}}) == [
        f"{AT}.nodeAffinity.{REQ}.nodeSelectorTerms: Required value: must have at least one node selector term"]
