"""The ResourceQuota admission plugin over a namespace's pods (``krm_fn.kube.quota``).

Messages are those of kubernetes ``staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go``
(``failed quota: %s: %v``, ``exceeded quota: %s, requested: %s, used: %s, limited: %s`` with ``prettyPrint``) and
``pkg/quota/v1/evaluator/core/pods.go`` (``Constraints``: ``must specify %s`` of ``<name> for: <containers>`` parts);
the usage case is ``pods_test.go`` ``TestPodEvaluatorUsage`` "init container maximums override sum of containers".
"""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kube.pod import printed
from krm_fn.kube.quota import QuotaState, admit, forbidden, matches, must_specify, tracked, usage
from tests.builders import pod_container, pod_of

Obj = dict[str, Any]


def _quota(name: str, hard: Obj, scopes: list[str] | None = None, selector: list[Obj] | None = None) -> Obj:
    spec: Obj = {"hard": hard}
    if scopes is not None:
        spec["scopes"] = scopes
    if selector is not None:
        spec["scopeSelector"] = {"matchExpressions": selector}
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": spec}


BURSTABLE = pod_of([pod_container("compute", {"cpu": "1", "memory": "1Gi"})])
BEST_EFFORT = pod_of([pod_container("compute")])
# conformance-vms case 001's launcher pod: the compute container limits neither cpu nor memory
LAUNCHER = pod_of(
    [pod_container("compute", {"cpu": "100m", "ephemeral-storage": "50M", "memory": "1294Mi"},
        {"devices.kubevirt.io/kvm": "1", "devices.kubevirt.io/tun": "1", "devices.kubevirt.io/vhost-net": "1"})],
    [pod_container("guest-console-log", {"cpu": "5m", "memory": "35M"}, {"cpu": "15m", "memory": "60M"}, sidecar=True),
     pod_container("volumerootdisk", {"cpu": "1m", "ephemeral-storage": "50M", "memory": "1M"}, {"cpu": "10m", "memory": "40M"})])


@pytest.mark.parametrize(("name", "is_tracked"), [
    pytest.param("pods", True, id="pods"),
    pytest.param("count/pods", True, id="count-pods"),
    pytest.param("cpu", True, id="cpu"),
    pytest.param("requests.memory", True, id="requests-memory"),
    pytest.param("limits.ephemeral-storage", True, id="limits-ephemeral-storage"),
    pytest.param("requests.devices.kubevirt.io/kvm", True, id="extended-kvm"),
    pytest.param("requests.nvidia.com/gpu", True, id="extended-gpu"),
    pytest.param("requests.hugepages-2Mi", True, id="hugepages-requests"),
    pytest.param("hugepages-1Gi", True, id="hugepages-bare"),
    pytest.param("limits.nvidia.com/gpu", False, id="extended-only-under-requests"),
    pytest.param("nvidia.com/gpu", False, id="extended-bare"),
    pytest.param("requests.storage", False, id="pvc-storage"),
    pytest.param("services", False, id="services"),
])
def test_tracked_names(name: str, is_tracked: bool) -> None:
    assert tracked([name]) == ([name] if is_tracked else [])


def test_usage_takes_the_largest_init_container() -> None:
    def c(name: str, cpu: tuple[str, str], memory: tuple[str, str], dongle: str) -> Obj:
        return pod_container(name, {"cpu": cpu[0], "memory": memory[0], "example.com/dongle": dongle},
                  {"cpu": cpu[1], "memory": memory[1], "example.com/dongle": dongle})

    pod = pod_of([c("a", ("1", "2"), ("50M", "100M"), "1"), c("b", ("2", "5"), ("25M", "50M"), "2")],
               [c("i", ("4", "8"), ("100M", "200M"), "4"), c("j", ("1", "2"), ("50M", "100M"), "2")])
    assert printed(usage(pod)) == {
        "count/pods": "1", "cpu": "4", "limits.cpu": "8", "limits.memory": "200M", "memory": "100M", "pods": "1",
        "requests.cpu": "4", "requests.example.com/dongle": "4", "requests.memory": "100M"}


@pytest.mark.parametrize(("pod", "hard", "expected"), [
    pytest.param(pod_of([pod_container("compute", {"cpu": "1", "memory": "1Gi"}),
                       pod_container("hook-sidecar-0", {"cpu": "10m"}, {"memory": "64Mi"})]),
                 ["limits.cpu", "limits.memory"],
                 "must specify limits.cpu for: compute,hook-sidecar-0; limits.memory for: compute", id="per-name"),
    pytest.param(pod_of([pod_container("zeta"), pod_container("alpha")]), ["requests.cpu"], "must specify requests.cpu for: alpha,zeta",
                 id="containers-sorted"),
    pytest.param(pod_of([pod_container("a", {"memory": "1Gi"})], [pod_container("init")]), ["memory"], "must specify memory for: init",
                 id="init-containers-too"),
    pytest.param(pod_of([pod_container("a", limits={"cpu": "1"})]), ["requests.cpu", "cpu", "limits.cpu"], None,
                 id="a-limit-gives-the-request"),
    pytest.param(pod_of([pod_container("a")]), ["requests.ephemeral-storage", "pods", "requests.nvidia.com/gpu"], None,
                 id="only-cpu-and-memory-required"),
    pytest.param(LAUNCHER, ["limits.cpu", "limits.memory"],
                 "must specify limits.cpu for: compute; limits.memory for: compute", id="launcher"),
])
def test_must_specify(pod: Obj, hard: list[str], expected: str | None) -> None:
    assert must_specify(pod, hard) == expected


def _verdicts(pods: list[tuple[str, Obj]], quotas: list[Obj]) -> dict[str, str | None]:
    return admit(pods, quotas).pods


@pytest.mark.parametrize(("pod", "hard", "expected"), [
    pytest.param(pod_of([pod_container("a", limits={"memory": "2Gi"})]), {"limits.memory": "1Gi"},
                 "exceeded quota: q, requested: limits.memory=2Gi, used: limits.memory=0, limited: limits.memory=1Gi",
                 id="one-name"),
    pytest.param(pod_of([pod_container("a", limits={"memory": "2Gi", "cpu": "1"})]),
                 {"requests.memory": "1Gi", "limits.memory": "1Gi", "limits.cpu": "10"},
                 "exceeded quota: q, requested: limits.memory=2Gi,requests.memory=2Gi, used: limits.memory=0,"
                 "requests.memory=0, limited: limits.memory=1Gi,requests.memory=1Gi", id="only-exceeded-names-sorted"),
    pytest.param(pod_of([pod_container("a", limits={"devices.kubevirt.io/kvm": "2"})]), {"requests.devices.kubevirt.io/kvm": "1"},
                 "exceeded quota: q, requested: requests.devices.kubevirt.io/kvm=2, "
                 "used: requests.devices.kubevirt.io/kvm=0, limited: requests.devices.kubevirt.io/kvm=1", id="kvm"),
    pytest.param(pod_of([pod_container("a", limits={"nvidia.com/gpu": "1"})]), {"requests.nvidia.com/gpu": "0"},
                 "exceeded quota: q, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=0, "
                 "limited: requests.nvidia.com/gpu=0", id="gpu"),
    pytest.param(pod_of([pod_container("a", limits={"hugepages-2Mi": "2Gi", "memory": "1Gi"})]), {"requests.hugepages-2Mi": "1Gi"},
                 "exceeded quota: q, requested: requests.hugepages-2Mi=2Gi, used: requests.hugepages-2Mi=0, "
                 "limited: requests.hugepages-2Mi=1Gi", id="hugepages"),
    # 1Gi of requests plus 100Mi of overhead
    pytest.param({**pod_of([pod_container("a", {"memory": "1Gi"})]), "overhead": {"memory": "100Mi"}}, {"requests.memory": "1Gi"},
                 "exceeded quota: q, requested: requests.memory=1124Mi, used: requests.memory=0, "
                 "limited: requests.memory=1Gi", id="overhead-counts"),
    pytest.param(pod_of([pod_container("a", {"cpu": "1500m"})]), {"cpu": "1024m"},
                 "exceeded quota: q, requested: cpu=1500m, used: cpu=0, limited: cpu=1024m", id="bare-cpu"),
])
def test_exceeded(pod: Obj, hard: Obj, expected: str) -> None:
    assert _verdicts([("p", pod)], [_quota("q", hard)]) == {"p": expected}


def test_pods_are_counted_one_after_the_other() -> None:
    answer = admit([("a", BEST_EFFORT), ("b", BEST_EFFORT), ("c", BEST_EFFORT)], [_quota("q", {"pods": "2"})])
    assert answer.pods == {"a": None, "b": None,
                           "c": "exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2"}
    assert answer.quotas == {"q": QuotaState({"pods": "2"}, {"pods": "2"}, ("c",))}


def test_a_refused_pod_uses_nothing() -> None:
    cpu = {name: pod_of([pod_container("x", {"cpu": value})]) for name, value in (("a", "600m"), ("b", "600m"), ("c", "400m"))}
    answer = admit(list(cpu.items()), [_quota("q", {"requests.cpu": "1"})])
    assert answer.pods == {
        "a": None,
        "b": "exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1",
        "c": None}
    assert answer.quotas["q"].used == {"requests.cpu": "1"}


def test_used_prints_as_go_adds() -> None:
    """Zero takes the first pod's binary format; 2588Mi + 35M is no whole number of Ki, so it prints plainly."""
    pods = [("a", pod_of([pod_container("x", {"memory": "1294Mi"})])), ("b", pod_of([pod_container("x", {"memory": "1294Mi"})]))]
    quota = _quota("q", {"requests.memory": "10Gi"})
    assert admit(pods, [quota]).quotas["q"].used == {"requests.memory": "2588Mi"}
    pods.append(("c", pod_of([pod_container("x", {"memory": "35M"})])))
    assert admit(pods, [quota]).quotas["q"].used == {"requests.memory": "2748714688"}


def test_hard_is_canonical_and_untracked_names_have_no_usage() -> None:
    answer = admit([("a", BURSTABLE)], [_quota("q", {"limits.memory": "1024Mi", "pods": 10, "services": "2"})])
    assert answer.pods == {"a": "failed quota: q: must specify limits.memory for: compute"}
    assert answer.quotas["q"] == QuotaState({"limits.memory": "1Gi", "pods": "10", "services": "2"},
                                            {"limits.memory": "0", "pods": "0"}, ("a",))


def test_must_specify_of_any_quota_comes_before_exceeded() -> None:
    quotas = [_quota("full", {"pods": "0"}), _quota("limits", {"limits.cpu": "10"})]
    assert _verdicts([("p", BURSTABLE)], quotas) == {"p": "failed quota: limits: must specify limits.cpu for: compute"}


def test_the_first_exceeded_quota_refuses_and_none_changes() -> None:
    quotas = [_quota("roomy", {"requests.cpu": "10"}), _quota("tight", {"requests.cpu": "500m"})]
    answer = admit([("p", BURSTABLE)], quotas)
    assert answer.pods == {"p": "exceeded quota: tight, requested: requests.cpu=1, used: requests.cpu=0, "
                                "limited: requests.cpu=500m"}
    assert answer.quotas["roomy"] == QuotaState({"requests.cpu": "10"}, {"requests.cpu": "0"}, ())
    assert answer.quotas["tight"].refused == ("p",)


def test_a_quota_of_other_resources_does_not_match() -> None:
    answer = admit([("p", BEST_EFFORT)], [_quota("storage", {"requests.storage": "1Gi", "services": "1"})])
    assert answer.pods == {"p": None}
    assert answer.quotas["storage"].used == {}


@pytest.mark.parametrize(("scopes", "selector", "pod", "expected"), [
    pytest.param(["BestEffort"], None, BURSTABLE, False, id="best-effort-skips-burstable"),
    pytest.param(["BestEffort"], None, BEST_EFFORT, True, id="best-effort"),
    pytest.param(["NotBestEffort"], None, BURSTABLE, True, id="not-best-effort"),
    pytest.param(["Terminating"], None, LAUNCHER, False, id="launcher-not-terminating"),
    pytest.param(["Terminating"], None, {**BURSTABLE, "activeDeadlineSeconds": 30}, True, id="deadline-terminating"),
    pytest.param(["NotTerminating", "NotBestEffort"], None, LAUNCHER, True, id="every-scope-must-match"),
    pytest.param(["NotTerminating", "BestEffort"], None, LAUNCHER, False, id="one-scope-fails"),
    pytest.param(None, [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}], LAUNCHER, True,
                 id="priority-class-taken-as-matching"),
    pytest.param(None, [{"scopeName": "Terminating", "operator": "Exists"}], LAUNCHER, False,
                 id="selector-terminating"),
    pytest.param(None, [{"scopeName": "NotTerminating", "operator": "Exists"}], LAUNCHER, True,
                 id="selector-not-terminating"),
])
def test_scopes(scopes: list[str] | None, selector: list[Obj] | None, pod: Obj, expected: bool) -> None:
    quota = _quota("q", {"pods": "0"}, scopes, selector)
    assert matches(quota, pod) is expected
    refusal = "exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0"
    assert _verdicts([("p", pod)], [quota]) == {"p": refusal if expected else None}


def test_the_api_server_message() -> None:
    answer = admit([("virt-launcher-vm-", LAUNCHER), ("other", BEST_EFFORT)], [_quota("q", {"limits.cpu": "1"})])
    assert answer.api_server_message("virt-launcher-vm-") == (
        'pods "virt-launcher-vm-" is forbidden: failed quota: q: must specify limits.cpu for: compute')
    assert answer.api_server_message("other") == (
        'pods "other" is forbidden: failed quota: q: must specify limits.cpu for: compute')
    assert admit([("ok", LAUNCHER)], [_quota("q", {"pods": "1"})]).api_server_message("ok") is None
    assert forbidden("p", ["exceeded quota: q"]) == 'pods "p" is forbidden: exceeded quota: q'


def test_the_launcher_pod_fits_a_quota_that_tracks_its_requests() -> None:
    """Case 001's totals: requests cpu 105m, memory 1294Mi + 35M (sidecar) against init steps that stay below."""
    quotas = [_quota("q", {"requests.cpu": "105m", "requests.memory": "1391857344", "requests.ephemeral-storage": "50M",
                           "requests.devices.kubevirt.io/kvm": "1", "count/pods": "1"})]
    answer = admit([("a", LAUNCHER), ("b", LAUNCHER)], quotas)
    assert answer.pods["a"] is None
    assert answer.quotas["q"].used == {
        "count/pods": "1", "requests.cpu": "105m", "requests.devices.kubevirt.io/kvm": "1",
        "requests.ephemeral-storage": "50M", "requests.memory": "1391857344"}
    assert answer.pods["b"] == (
        "exceeded quota: q, requested: count/pods=1,requests.cpu=105m,requests.devices.kubevirt.io/kvm=1,"
        "requests.ephemeral-storage=50M,requests.memory=1391857344, used: count/pods=1,requests.cpu=105m,"
        "requests.devices.kubevirt.io/kvm=1,requests.ephemeral-storage=50M,requests.memory=1391857344, "
        "limited: count/pods=1,requests.cpu=105m,requests.devices.kubevirt.io/kvm=1,requests.ephemeral-storage=50M,"
        "requests.memory=1391857344")
