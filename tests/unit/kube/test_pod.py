"""A pod's resources as the API server sees them (``krm_fn.kube.pod``).

The rules are Kubernetes' own: ``SetDefaults_Pod`` (pkg/apis/core/v1/defaults.go), ``GetPodQOS``
(pkg/apis/core/v1/helper/qos/qos.go), ``PodRequests`` / ``PodLimits`` (component-helpers resource/helpers.go) and
``NewForbidden`` over ``NewAggregate`` (apimachinery). The corpus test checks every launcher pod of
``shared/conformance-vms``, whose totals and QoS classes upstream code computed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.kube.pod import aggregate_error, defaulted, forbidden, qos_class, totals
from krm_fn.kube.quantity_json import parsed
from tests.builders import pod_container, pod_of
from tests.builders import shared_dir

Obj = dict[str, Any]
VMS = shared_dir() / "conformance-vms"


@pytest.mark.parametrize(("container", "expected"), [
    pytest.param({"requests": {"cpu": "1"}, "limits": {"cpu": "2", "memory": "1Gi"}},
                 ({"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"}), id="limit-fills-a-missing-request"),
    pytest.param({"requests": {"cpu": "1"}}, ({"cpu": "1"}, {}), id="no-limits-no-change"),
    pytest.param({"limits": {"devices.kubevirt.io/kvm": "1"}},
                 ({"devices.kubevirt.io/kvm": "1"}, {"devices.kubevirt.io/kvm": "1"}), id="extended-resource-too"),
    pytest.param({"name": "empty"}, ({}, {}), id="nothing-set"),
])
def test_defaulted_copies_limits_into_missing_requests(container: Obj, expected: tuple[Obj, Obj]) -> None:
    before = repr(container)
    assert defaulted(container) == expected
    assert repr(container) == before


GUARANTEED_LIMITS = {"cpu": "1", "memory": "1Gi"}


@pytest.mark.parametrize(("pod", "expected"), [
    pytest.param(pod_of([pod_container("a")]), "BestEffort", id="nothing-set"),
    pytest.param(pod_of([pod_container("a", {"ephemeral-storage": "1Gi"})]), "BestEffort", id="only-cpu-and-memory-count"),
    pytest.param(pod_of([pod_container("a", {"cpu": "0"})]), "BestEffort", id="a-zero-request-does-not-count"),
    pytest.param(pod_of([pod_container("a", limits={"nvidia.com/gpu": "1"})]), "BestEffort", id="extended-resource-alone"),
    pytest.param(pod_of([pod_container("a", limits=GUARANTEED_LIMITS)]), "Guaranteed", id="limits-only-defaulted-to-requests"),
    pytest.param(pod_of([pod_container("a", {"cpu": "500m", "memory": "1Gi"}, GUARANTEED_LIMITS)]), "Burstable",
                 id="request-below-limit"),
    pytest.param(pod_of([pod_container("a", limits={"memory": "1Gi"})]), "Burstable", id="cpu-limit-missing"),
    pytest.param(pod_of([pod_container("a", limits=GUARANTEED_LIMITS)], [pod_container("i", limits={"cpu": "1"})]), "Burstable",
                 id="init-container-without-memory-limit"),
    pytest.param(pod_of([pod_container("a", limits=GUARANTEED_LIMITS)], [pod_container("s", limits=GUARANTEED_LIMITS, sidecar=True)]),
                 "Guaranteed", id="init-containers-guaranteed-too"),
])
def test_qos_class(pod: Obj, expected: str) -> None:
    assert qos_class(pod) == expected


@pytest.mark.parametrize(("pod", "expected"), [
    pytest.param(pod_of([pod_container("a", {"cpu": "100m", "memory": "1Gi"}), pod_container("b", {"cpu": "200m", "memory": "512Mi"})]),
                 {"requests": {"cpu": "300m", "memory": "1536Mi"}, "limits": {}}, id="app-containers-summed"),
    pytest.param(pod_of([pod_container("a", {"cpu": "1"})], [pod_container("i", {"cpu": "2"})]),
                 {"requests": {"cpu": "2"}, "limits": {}}, id="larger-init-container-wins"),
    # sum: 1 + 500m, 100M + 50M; the init step: 1200m + 500m, 10M + 50M
    pytest.param(pod_of([pod_container("a", {"cpu": "1", "memory": "100M"})],
                      [pod_container("s", {"cpu": "500m", "memory": "50M"}, sidecar=True),
                       pod_container("i", {"cpu": "1200m", "memory": "10M"})]),
                 {"requests": {"cpu": "1700m", "memory": "150M"}, "limits": {}}, id="sidecar-counts-for-later-init"),
    # the sidecar starts after the init container: 500m + 300m against 1
    pytest.param(pod_of([pod_container("a", {"cpu": "500m"})], [pod_container("i", {"cpu": "1"}), pod_container("s", {"cpu": "300m"}, sidecar=True)]),
                 {"requests": {"cpu": "1"}, "limits": {}}, id="sidecar-after-init-container"),
    pytest.param(pod_of([pod_container("a", limits={"cpu": "1"}), pod_container("b", {"cpu": "1"})]),
                 {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}, id="limits-sum-only-what-is-set"),
    # requests 1Gi + 100Mi, limits 2Gi + 100Mi; no cpu limit is set, so the cpu overhead is not one
    pytest.param(pod_of([pod_container("a", {"cpu": "100m", "memory": "1Gi"}, {"memory": "2Gi"})],
                      overhead={"cpu": "50m", "memory": "100Mi"}),
                 {"requests": {"cpu": "150m", "memory": "1124Mi"}, "limits": {"memory": "2148Mi"}}, id="overhead"),
    # 1294Mi + 35M (conformance-vms case 001): Go keeps the binary format, whose text is then the plain number
    pytest.param(pod_of([pod_container("compute", {"memory": "1294Mi"})], [pod_container("log", {"memory": "35M"}, sidecar=True)]),
                 {"requests": {"memory": "1391857344"}, "limits": {}}, id="binary-plus-decimal"),
])
def test_totals(pod: Obj, expected: dict[str, dict[str, str]]) -> None:
    assert totals(pod) == expected


@pytest.mark.parametrize(("messages", "expected"), [
    pytest.param(["a"], 'pods "p" is forbidden: a', id="one"),
    pytest.param(["a", "b"], 'pods "p" is forbidden: [a, b]', id="two-in-brackets"),
    pytest.param(["a", "a"], 'pods "p" is forbidden: a', id="one-distinct-text-stands-alone"),
    pytest.param(["a", "b", "a"], 'pods "p" is forbidden: [a, b]', id="repeats-kept-once"),
])
def test_forbidden_prints_an_aggregate(messages: list[str], expected: str) -> None:
    assert forbidden("p", messages) == expected
    assert aggregate_error(messages) == expected.removeprefix('pods "p" is forbidden: ')


def _corpora() -> list[Path]:
    """The main release's cases and each other release's, as directories holding ``cases/*/expected.yaml``."""
    if not VMS.is_dir():
        return []
    return [VMS] + sorted(p for p in (VMS / "releases").iterdir() if (p / "cases").is_dir())


def _corpus_params() -> list[Any]:
    missing = pytest.mark.skip(reason=f"{VMS} not found (set KUBEVIRT_KRM_SHARED to the shared directory)")
    return [pytest.param(p, id="main" if p == VMS else p.name) for p in _corpora()] or [
        pytest.param(VMS, id="absent", marks=missing)]


def _by_value(resources: Obj | None) -> dict[str, Any]:
    return {name: parsed(value) for name, value in (resources or {}).items()}


_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@pytest.mark.parametrize("corpus", _corpus_params())
def test_conformance_pods(corpus: Path) -> None:
    """Every rendered launcher pod of a release: the totals by value and the QoS class upstream computed."""
    wrong: list[str] = []
    checked = 0
    for path in sorted(corpus.glob("cases/*/expected.yaml")):
        for entry in yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER):
            pod = entry.get("pod")
            if not pod or pod.get("totals") is None:
                continue
            checked += 1
            got = totals(pod)
            for key in ("requests", "limits"):
                if _by_value(got[key]) != _by_value(pod["totals"].get(key)):
                    wrong.append(f"{path.parent.name} {entry['vm']} {key}: {got[key]} != {pod['totals'].get(key)}")
            if qos_class(pod) != pod["qosClass"]:
                wrong.append(f"{path.parent.name} {entry['vm']} qosClass: {qos_class(pod)} != {pod['qosClass']}")
    assert checked > 100
    assert wrong == []


def test_the_corpus_is_there() -> None:
    if not VMS.is_dir():
        pytest.skip(f"{VMS} not found (set KUBEVIRT_KRM_SHARED to the shared directory)")
    assert len(_corpora()) >= 5  # v1.9.0 and the four other releases of its README
