"""``namespace_reports``: the launcher pods of the VMs that run, summed per namespace and admitted as the API
server would admit them, one after the other in input order: the namespace's LimitRanges first (their defaults,
then their bounds), then its ResourceQuotas (:mod:`krm_fn.kube.limitrange`, :mod:`krm_fn.kube.quota`).

A VM that does not run asks for nothing.
A pool's template counts once per replica.
The totals are what the pods ask for, whether the namespace admits them or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from krm_fn.capacity.pods import PodUse
from krm_fn.kube.amount import is_memory, nanos, text
from krm_fn.kube.limitrange import limit_range_problems
from krm_fn.kube.paths import Obj
from krm_fn.kube.pod import forbidden
from krm_fn.kube.quota import admit
from krm_fn.kubevirt.launcher.namespace import Namespaces


class Refusal(NamedTuple):
    """A launcher pod the namespace refuses: whose, and the API server's message."""

    use: PodUse
    pod_name: str
    message: str


class NamespaceReport(NamedTuple):
    namespace: str
    vms: int  # the VMs that run there
    pods: int  # their launcher pods (a pool's replicas each)
    requests: dict[str, str]  # what those pods ask for, summed
    limits: dict[str, str]
    quotas: list[Obj]  # per ResourceQuota: name, hard, used (by the pods it admits), refused (pod names)
    refused: list[Refusal]


def pod_name(use: PodUse, replica: int) -> str:
    """The launcher pod's name as reported: virt-launcher pods are named after their VM, with a random suffix."""
    vm = use.name if use.replicas == 1 and replica == 0 else f"{use.name}-{replica}"
    return f"virt-launcher-{vm}"


def namespace_reports(uses: Sequence[PodUse], namespaces: Namespaces) -> list[NamespaceReport]:
    """One report per namespace where a VM runs, by namespace name."""
    by_namespace: dict[str, list[tuple[PodUse, Obj]]] = {}
    for use in uses:
        if use.runs and use.pod is not None and use.pod.get("error") is None and use.replicas:
            by_namespace.setdefault(use.namespace, []).append((use, use.pod))
    return [_report(ns, by_namespace[ns], namespaces) for ns in sorted(by_namespace)]


def _report(namespace: str, uses: list[tuple[PodUse, Obj]], namespaces: Namespaces) -> NamespaceReport:
    asked: dict[int, tuple[Obj, int]] = {}  # each pod (shared by alike VMs) and how many times it is asked for
    refused: list[Refusal] = []
    queued: list[tuple[str, Obj]] = []
    owner: dict[str, PodUse] = {}
    ranges = namespaces.limit_ranges(namespace)
    for use, rendered in uses:
        for replica in range(use.replicas):
            name = pod_name(use, replica)
            asked[id(rendered)] = (rendered, asked.get(id(rendered), (rendered, 0))[1] + 1)
            pod, problems = limit_range_problems(rendered, ranges) if ranges else (rendered, [])
            if problems:
                refused.append(Refusal(use, name, forbidden(name, problems)))
                continue
            queued.append((name, pod))
            owner[name] = use
    answer = admit(queued, namespaces.quotas(namespace))
    refused += [Refusal(owner[name], name, forbidden(name, [message])) for name, message in answer.pods.items()
                if message is not None]
    order = {name: i for i, (name, _) in enumerate(queued)}
    refused.sort(key=lambda r: order.get(r.pod_name, -1))
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    for pod, count in asked.values():
        _add(requests, pod["totals"]["requests"], count)
        _add(limits, pod["totals"]["limits"], count)
    pods = sum(use.replicas for use, _ in uses)
    quotas = [{"name": name, "hard": state.hard, "used": state.used, "refused": list(state.refused)}
              for name, state in answer.quotas.items()]
    return NamespaceReport(namespace, len(uses), pods, _printed(requests), _printed(limits), quotas, refused)


def _add(total: dict[str, int], more: dict[str, str], times: int) -> None:
    for key, value in more.items():
        total[key] = total.get(key, 0) + times * nanos(value)


def _printed(total: dict[str, int]) -> dict[str, str]:
    return {key: text(total[key], is_memory(key)) for key in sorted(total)}
