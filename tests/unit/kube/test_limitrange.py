"""The LimitRanger admission plugin on a pod (``krm_fn.kube.limitrange``).

Messages are those of kubernetes ``plugin/pkg/admission/limitranger/admission.go`` (``minConstraint``,
``maxConstraint``, ``limitRequestRatioConstraint``); the defaults follow its ``mergeContainerResources`` and
``SetDefaults_LimitRangeItem`` / ``SetDefaults_Pod`` of ``pkg/apis/core/v1/defaults.go``; the whole message is
``NewForbidden`` over ``utilerrors.NewAggregate``, as seen from a real cluster:
``pods "x" is forbidden: [maximum cpu usage per Container is 2, but limit is 4, maximum cpu usage per Pod is 4, ...]``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from krm_fn.kube.limitrange import defaulted_item, forbidden, limit_range_problems, max_problem, min_problem
from krm_fn.kube.quantity import Quantity
from tests.builders import pod_container, pod_of

Obj = dict[str, Any]


def _lr(*items: Obj, name: str = "lr") -> Obj:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name}, "spec": {"limits": list(items)}}


def _container_item(**fields: Obj) -> Obj:
    return {"type": "Container", **fields}


@pytest.mark.parametrize(("item", "default", "default_request"), [
    pytest.param(_container_item(max={"cpu": "2"}), {"cpu": "2"}, {"cpu": "2"}, id="max-gives-the-default"),
    pytest.param(_container_item(default={"cpu": "1"}, defaultRequest={"cpu": "250m"}), {"cpu": "1"},
                 {"cpu": "250m"}, id="own-default-request-kept"),
    pytest.param(_container_item(min={"memory": "64Mi"}), {}, {"memory": "64Mi"}, id="min-gives-the-default-request"),
    pytest.param(_container_item(min={"cpu": "100m"}, default={"cpu": "1"}), {"cpu": "1"}, {"cpu": "1"},
                 id="default-before-min"),
])
def test_a_container_item_is_defaulted_as_stored(item: Obj, default: Obj, default_request: Obj) -> None:
    stored = defaulted_item(item)
    assert (stored["default"], stored["defaultRequest"]) == (default, default_request)


def test_a_pod_item_is_not_defaulted() -> None:
    item = {"type": "Pod", "max": {"cpu": "2"}}
    assert defaulted_item(item) == item


def _admitted(pod: Obj, *ranges: Obj) -> Obj:
    admitted, problems = limit_range_problems(pod, list(ranges))
    assert problems == []
    return admitted


@pytest.mark.parametrize(("container", "ranges", "requests", "limits"), [
    pytest.param(pod_container("a"), [_lr(_container_item(default={"cpu": "500m", "memory": "512Mi"}))],
                 {"cpu": "500m", "memory": "512Mi"}, {"cpu": "500m", "memory": "512Mi"},
                 id="default-limit-and-request-from-default"),
    pytest.param(pod_container("a"), [_lr(_container_item(default={"cpu": "1"}, defaultRequest={"cpu": "250m"}))],
                 {"cpu": "250m"}, {"cpu": "1"}, id="default-request"),
    # SetDefaults_Pod runs before admission: the container's own limit is its request
    pytest.param(pod_container("a", limits={"cpu": "2"}),
                 [_lr(_container_item(default={"cpu": "1"}, defaultRequest={"cpu": "250m"}))],
                 {"cpu": "2"}, {"cpu": "2"}, id="own-limit-wins-over-default-request"),
    pytest.param(pod_container("a", {"cpu": "100m"}), [_lr(_container_item(default={"cpu": "1"}))],
                 {"cpu": "100m"}, {"cpu": "1"}, id="own-request-kept"),
    pytest.param(pod_container("a"), [_lr(_container_item(min={"memory": "64Mi"}))], {"memory": "64Mi"}, {},
                 id="min-gives-a-request-only"),
    pytest.param(pod_container("a"), [_lr(_container_item(max={"cpu": "2"}))], {"cpu": "2"}, {"cpu": "2"},
                 id="max-gives-limit-and-request"),
    pytest.param(pod_container("a"), [_lr(_container_item(default={"cpu": "1"})), _lr(_container_item(default={"cpu": "2"}))],
                 {"cpu": "1"}, {"cpu": "1"}, id="first-limit-range-wins"),
    pytest.param(pod_container("a"), [_lr(_container_item(default={"memory": "1024Mi"}))], {"memory": "1Gi"},
                 {"memory": "1Gi"}, id="defaults-in-canonical-form"),
])
def test_defaults(container: Obj, ranges: list[Obj], requests: Obj, limits: Obj) -> None:
    admitted = _admitted(pod_of([container]), *ranges)
    (got,) = admitted["containers"]
    assert (got["requests"], got["limits"]) == (requests, limits)


def test_init_containers_are_defaulted_and_the_input_kept() -> None:
    pod = pod_of([pod_container("a")], [pod_container("s", {"cpu": "10m"}, sidecar=True)])
    before = copy.deepcopy(pod)
    admitted = _admitted(pod, _lr(_container_item(default={"cpu": "1", "memory": "1Gi"})))
    assert admitted["initContainers"] == [{"name": "s", "requests": {"cpu": "10m", "memory": "1Gi"},
                                           "limits": {"cpu": "1", "memory": "1Gi"}, "restartPolicy": "Always"}]
    assert pod == before


@pytest.mark.parametrize(("item", "container", "expected"), [
    pytest.param(_container_item(max={"memory": "1Gi"}), pod_container("a", limits={"memory": "2Gi"}),
                 "maximum memory usage per Container is 1Gi, but limit is 2Gi", id="max-limit"),
    pytest.param(_container_item(max={"cpu": "1"}), pod_container("a", {"cpu": "2"}, {"cpu": "1"}),
                 "maximum cpu usage per Container is 1, but request is 2", id="max-request"),
    pytest.param(_container_item(min={"cpu": "100m"}), pod_container("a", {"cpu": "5m"}, {"cpu": "1"}),
                 "minimum cpu usage per Container is 100m, but request is 5m", id="min-request"),
    pytest.param(_container_item(min={"cpu": "100m"}), pod_container("a", {"cpu": "200m"}, {"cpu": "50m"}),
                 "minimum cpu usage per Container is 100m, but limit is 50m", id="min-limit"),
    pytest.param(_container_item(maxLimitRequestRatio={"memory": "2"}), pod_container("a", {"memory": "1Gi"}, {"memory": "3Gi"}),
                 "memory max limit to request ratio per Container is 2, but provided ratio is 3.000000", id="ratio"),
    pytest.param(_container_item(maxLimitRequestRatio={"cpu": "3"}), pod_container("a", {"cpu": "300m"}, {"cpu": "1"}),
                 "cpu max limit to request ratio per Container is 3, but provided ratio is 3.333333",
                 id="ratio-six-decimals"),
    pytest.param(_container_item(maxLimitRequestRatio={"cpu": "4"}), pod_container("a", {"cpu": "0"}, {"cpu": "1"}),
                 "cpu max limit to request ratio per Container is 4, but no request is specified or request is 0",
                 id="ratio-zero-request"),
    pytest.param(_container_item(maxLimitRequestRatio={"memory": "2"}), pod_container("a", {"memory": "1Gi"}),
                 "memory max limit to request ratio per Container is 2, but no limit is specified or limit is 0",
                 id="ratio-no-limit"),
])
def test_container_messages(item: Obj, container: Obj, expected: str) -> None:
    _, problems = limit_range_problems(pod_of([container]), [_lr(item)])
    assert problems == [expected]


@pytest.mark.parametrize(("item", "container"), [
    pytest.param(_container_item(maxLimitRequestRatio={"memory": "2"}), pod_container("a", {"memory": "1Gi"}, {"memory": "2Gi"}),
                 id="ratio-equal-to-the-maximum"),
    pytest.param(_container_item(max={"memory": "1Gi"}, min={"memory": "1Gi"}), pod_container("a", limits={"memory": "1024Mi"}),
                 id="bounds-are-inclusive"),
    # requestLimitEnforcedValues compares milli-values rounded up: 500u counts as 1m
    pytest.param(_container_item(min={"cpu": "1m"}), pod_container("a", {"cpu": "500u"}, {"cpu": "1"}), id="milli-precision"),
    # max defaults the limit, so a container never lacks one here
    pytest.param(_container_item(max={"cpu": "2"}), pod_container("a", {"cpu": "1"}), id="max-fills-the-missing-limit"),
])
def test_container_passes(item: Obj, container: Obj) -> None:
    assert limit_range_problems(pod_of([container]), [_lr(item)])[1] == []


@pytest.mark.parametrize(("check", "expected"), [
    pytest.param(max_problem, "maximum cpu usage per Container is 2.  No limit is specified", id="max"),
    pytest.param(min_problem, "minimum cpu usage per Container is 2.  No request is specified", id="min"),
])
def test_missing_values(check: Any, expected: str) -> None:
    assert check("Container", "cpu", Quantity.parse("2"), {}, {}) == expected


@pytest.mark.parametrize(("item", "pod", "expected"), [
    pytest.param({"type": "Pod", "max": {"cpu": "4"}},
                 pod_of([pod_container("a", limits={"cpu": "2"}), pod_container("b", limits={"cpu": "3"})]),
                 ["maximum cpu usage per Pod is 4, but limit is 5"], id="pod-max-limit"),
    pytest.param({"type": "Pod", "max": {"cpu": "2"}}, pod_of([pod_container("a", {"cpu": "1"})]),
                 ["maximum cpu usage per Pod is 2.  No limit is specified"], id="pod-no-limit"),
    pytest.param({"type": "Pod", "min": {"memory": "1Gi"}}, pod_of([pod_container("a", {"cpu": "1"})]),
                 ["minimum memory usage per Pod is 1Gi.  No request is specified"], id="pod-no-request"),
    # the pod's requests count sidecars as running: 600m + 500m
    pytest.param({"type": "Pod", "max": {"cpu": "1"}},
                 pod_of([pod_container("a", limits={"cpu": "600m"})], [pod_container("s", limits={"cpu": "500m"}, sidecar=True)]),
                 ["maximum cpu usage per Pod is 1, but limit is 1100m"], id="pod-sidecar-counted"),
])
def test_pod_messages(item: Obj, pod: Obj, expected: list[str]) -> None:
    assert limit_range_problems(pod, [_lr(item)])[1] == expected


def test_problems_come_in_the_plugins_order() -> None:
    """Items in order; a Container item over app containers, then init containers; names sorted in one map."""
    ranges = [_lr(_container_item(max={"memory": "1Gi", "cpu": "2"}), {"type": "Pod", "max": {"cpu": "500m"}})]
    pod = pod_of([pod_container("a", limits={"memory": "2Gi", "cpu": "3"})], [pod_container("i", limits={"memory": "3Gi", "cpu": "1"})])
    assert limit_range_problems(pod, ranges)[1] == [
        "maximum cpu usage per Container is 2, but limit is 3",
        "maximum memory usage per Container is 1Gi, but limit is 2Gi",
        "maximum memory usage per Container is 1Gi, but limit is 3Gi",
        "maximum cpu usage per Pod is 500m, but limit is 3",
    ]


def test_the_first_refusing_limit_range_answers() -> None:
    ranges = [_lr(_container_item(max={"cpu": "8"}), name="roomy"),
              _lr(_container_item(max={"cpu": "1"}), name="tight"),
              _lr(_container_item(max={"memory": "1Mi"}), name="tighter")]
    pod = pod_of([pod_container("a", limits={"cpu": "2", "memory": "1Gi"})])
    assert limit_range_problems(pod, ranges)[1] == ["maximum cpu usage per Container is 1, but limit is 2"]


@pytest.mark.parametrize(("pod", "expected"), [
    pytest.param(pod_of([pod_container("a", limits={"memory": "2Gi"}), pod_container("b", limits={"memory": "2Gi"})]),
                 'pods "virt-launcher-vm-" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi',
                 id="a-repeated-problem-stands-alone"),
    pytest.param(pod_of([pod_container("a", limits={"memory": "2Gi"}), pod_container("b", limits={"memory": "4Gi"})]),
                 'pods "virt-launcher-vm-" is forbidden: [maximum memory usage per Container is 1Gi, but limit is 2Gi, '
                 "maximum memory usage per Container is 1Gi, but limit is 4Gi]", id="several-in-brackets"),
])
def test_forbidden(pod: Obj, expected: str) -> None:
    _, problems = limit_range_problems(pod, [_lr(_container_item(max={"memory": "1Gi"}))])
    assert forbidden("virt-launcher-vm-", problems) == expected


def test_no_limit_range_changes_nothing_but_defaulting() -> None:
    pod = pod_of([pod_container("a", limits={"cpu": "1"})])
    admitted, problems = limit_range_problems(pod, [])
    assert problems == []
    assert admitted["containers"] == [{"name": "a", "requests": {"cpu": "1"}, "limits": {"cpu": "1"}}]
