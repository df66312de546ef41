"""``matches``: whether a ``metav1.LabelSelector`` selects a set of labels (``LabelSelectorAsSelector``).

``matchLabels`` must all hold, and so must every ``matchExpressions`` requirement: ``In`` and ``NotIn`` on the
label's value, ``Exists`` and ``DoesNotExist`` on its presence.
An empty selector selects everything.
An operator Kubernetes does not know selects nothing, as the API server refuses such a selector.
"""

from __future__ import annotations

from typing import Any

from krm_fn.kube.paths import Obj, as_list, as_map


def matches(selector: Obj, labels: Obj) -> bool:
    """Whether ``selector`` selects an object labelled ``labels``."""
    if any(labels.get(k) != v for k, v in as_map(selector.get("matchLabels")).items()):
        return False
    return all(_holds(as_map(e), labels) for e in as_list(selector.get("matchExpressions")))


def _holds(requirement: Obj, labels: Obj) -> bool:
    key, operator = requirement.get("key"), requirement.get("operator")
    values: list[Any] = as_list(requirement.get("values"))
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False
