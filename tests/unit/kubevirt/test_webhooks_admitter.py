"""The instancetype validating webhook (``krm_fn.kubevirt.webhooks.admitter``).

Expected texts are upstream's: ``pkg/instancetype/webhooks/admitter.go`` (``percentValueMustBeInRangeMessagePattern``
``"%s '%d': must be in range between 0 and 100."`` with the field ``spec.memory.overcommitPercent``; the
hugepages cause ``"%s and %s should not be requested together."``; ``DeprecatedLaunchSecurityWarning``), as in
its ``admitter_test.go``; field paths are ``k8sfield.NewPath("spec").Child("memory", "overcommitPercent")``.
"""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kube.status import DEPRECATED, INVALID, Cause
from krm_fn.kubevirt.webhooks.admitter import admit, validate_spec, warnings

FIELD = "spec.memory.overcommitPercent"
TOGETHER = "spec.memory.overcommitPercent and spec.memory.hugepages should not be requested together."
LAUNCH_SECURITY = "launchSecurity is deprecated and will be removed in a future release. Use preference instead."


def answered(spec: Any) -> list[Cause]:
    """The webhook's answer as one list: its causes (refused) or its warnings (admitted), each of its kind."""
    answer = admit(spec)
    assert all(c.type == INVALID for c in answer.causes) and all(w.type == DEPRECATED for w in answer.warnings)
    assert not (answer.causes and answer.warnings)
    return answer.causes + answer.warnings


def spec(**memory: Any) -> dict[str, Any]:
    return {"cpu": {"guest": 2}, "memory": {"guest": "2Gi", **memory}}


def out_of_range(value: int) -> Cause:
    return Cause(INVALID, FIELD, f"spec.memory.overcommitPercent '{value}': must be in range between 0 and 100.")


@pytest.mark.parametrize(("percent", "expected"), [
    pytest.param(-1, [out_of_range(-1)], id="-1"),
    pytest.param(0, [], id="0"),
    pytest.param(1, [], id="1"),
    pytest.param(99, [], id="99"),
    pytest.param(100, [], id="100"),
    pytest.param(101, [out_of_range(101)], id="101"),
    pytest.param(150, [out_of_range(150)], id="150"),
])
def test_overcommit_percent_range(percent: int, expected: list[Cause]) -> None:
    assert validate_spec(spec(overcommitPercent=percent)) == expected


@pytest.mark.parametrize(("memory", "expected"), [
    pytest.param({"overcommitPercent": 10, "hugepages": {"pageSize": "2Mi"}}, [Cause(INVALID, FIELD, TOGETHER)],
                 id="overcommit-and-hugepages"),
    pytest.param({"overcommitPercent": 10, "hugepages": {}}, [Cause(INVALID, FIELD, TOGETHER)],
                 id="empty-hugepages-is-set"),
    pytest.param({"overcommitPercent": 0, "hugepages": {"pageSize": "1Gi"}}, [], id="zero-overcommit-is-unset"),
    pytest.param({"hugepages": {"pageSize": "1Gi"}}, [], id="hugepages-alone"),
    pytest.param({"overcommitPercent": 10, "hugepages": None}, [], id="null-hugepages-is-unset"),
    # both causes, in the webhook's order
    pytest.param({"overcommitPercent": 150, "hugepages": {"pageSize": "2Mi"}},
                 [out_of_range(150), Cause(INVALID, FIELD, TOGETHER)], id="both"),
    pytest.param({"overcommitPercent": -5, "hugepages": {"pageSize": "2Mi"}},
                 [out_of_range(-5), Cause(INVALID, FIELD, TOGETHER)], id="negative-and-hugepages"),
])
def test_overcommit_with_hugepages(memory: dict[str, Any], expected: list[Cause]) -> None:
    assert validate_spec(spec(**memory)) == expected


def test_launch_security_is_a_warning_of_an_admitted_instancetype() -> None:
    with_ls = {**spec(), "launchSecurity": {"sev": {}}}
    assert validate_spec(with_ls) == []
    assert answered(with_ls) == [Cause(DEPRECATED, "spec.launchSecurity", LAUNCH_SECURITY)]
    assert answered({**spec(), "launchSecurity": {}}) == [Cause(DEPRECATED, "spec.launchSecurity", LAUNCH_SECURITY)]
    assert warnings({**spec(), "launchSecurity": None}) == []
    assert answered(spec()) == []


def test_a_refused_instancetype_gets_no_warning() -> None:
    """The webhook answers with its causes and returns before collecting warnings."""
    refused = {**spec(overcommitPercent=101), "launchSecurity": {"sev": {}}}
    assert answered(refused) == [out_of_range(101)]


@pytest.mark.parametrize("value", [None, "150", 150.5, True, [], {"a": 1}, "x"])
def test_values_go_cannot_decode_are_left_to_the_schema(value: Any) -> None:
    """A value that is not an integer never reaches the webhook (the schema refuses the object first)."""
    assert validate_spec(spec(overcommitPercent=value, hugepages={})) == []


@pytest.mark.parametrize("value", [None, "x", 3, [], {"memory": "x"}, {"memory": None}, {"memory": []}])
def test_any_spec_shape_is_answered_without_raising(value: Any) -> None:
    assert answered(value) == []
