"""The ResourceQuota admission plugin over a namespace's pods, created one after the other.

Each pod is judged against the quotas in the order given, as the API server does with the quotas it lists.
First every quota that matches the pod checks the "must specify" rule, and the first one it fails refuses the pod.
Then the pod's usage is added to every matching quota, and the first quota it would exceed refuses the pod.
A refused pod changes no quota.
A quota matches a pod when it tracks a pod resource and all of its scopes match the pod.
The usage is the pod's totals (``PodRequests`` / ``PodLimits``, overhead included) on the pod as admitted:
the caller applies the LimitRange defaults first.
A quota's ``status.used`` is ignored: the usage starts at zero and grows with the pods admitted here.

Upstream (kubernetes/kubernetes, the v1.32 to v1.34 era): ``pkg/quota/v1/evaluator/core/pods.go``
(``podResources``, ``validationSet``, ``Constraints``, ``podComputeUsageHelper``, ``PodUsageFunc``,
``podMatchesScopeFunc``), ``staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go``
(``CheckRequest``, ``prettyPrint``) and ``staging/src/k8s.io/apiserver/pkg/quota/v1`` (``Add``, ``Mask``,
``LessThanOrEqual``, ``RemoveZeros``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from krm_fn.kube import pod as kpod
from krm_fn.kube.meta import is_qualified_key
from krm_fn.kube.paths import Obj
from krm_fn.kube.pod import Pod, ResourceList, quantities
from krm_fn.kube.quantity import Quantity

# podResources: the names a quota may track for pods, besides hugepages and extended resources
POD_RESOURCES: Final = (
    "count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
)
# validationSet: tracking one of these makes every container and init container set it
MUST_SPECIFY: Final = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
REQUESTS_PREFIX: Final = "requests."
HUGEPAGES_PREFIX: Final = "hugepages-"
TERMINATING: Final = "Terminating"
NOT_TERMINATING: Final = "NotTerminating"
BEST_EFFORT_SCOPE: Final = "BestEffort"
NOT_BEST_EFFORT: Final = "NotBestEffort"
# scopes this model cannot judge from a pod's resources alone: taken as matching
ASSUMED_MATCHING: Final = frozenset({"PriorityClass", "CrossNamespacePodAffinity"})
_ONE: Final = Quantity.from_int(1, "DecimalSI")
_ZERO: Final = Quantity.from_int(0, "DecimalSI")


def is_native(name: str) -> bool:
    """``IsNativeResource``: a name without a domain, or in the kubernetes.io domain."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    """``IsExtendedResourceName``: a resource outside the native ones, quotable as ``requests.<name>``."""
    return not is_native(name) and not name.startswith(REQUESTS_PREFIX) and is_qualified_key(REQUESTS_PREFIX + name)


def tracked(hard: Sequence[str]) -> list[str]:
    """``MatchingResources``: the quota's resource names that count pods.

    They are the pod resource names, hugepages (bare or under ``requests.``) and extended resources under
    ``requests.``.
    """
    return [name for name in hard if name in POD_RESOURCES or name.startswith(HUGEPAGES_PREFIX)
            or name.startswith(REQUESTS_PREFIX + HUGEPAGES_PREFIX)
            or (not is_native(name) and name.startswith(REQUESTS_PREFIX))]


def compute_usage(requests: ResourceList, limits: ResourceList) -> ResourceList:
    """``podComputeUsageHelper``: the quota names one set of requests and limits fills.

    ``pods`` is one.
    cpu, memory and ephemeral-storage requests count bare and under ``requests.``, their limits under ``limits.``.
    A hugepages request counts bare and under ``requests.``, an extended one only under ``requests.``.
    """
    usage: ResourceList = {"pods": _ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            usage[name] = requests[name]
            usage[REQUESTS_PREFIX + name] = requests[name]
        if name in limits:
            usage["limits." + name] = limits[name]
    for name, q in requests.items():
        if name.startswith(HUGEPAGES_PREFIX):
            usage[name] = q
            usage[REQUESTS_PREFIX + name] = q
        if is_extended(name):
            usage[REQUESTS_PREFIX + name] = q
    return usage


def usage(pod: Pod) -> ResourceList:
    """``PodUsageFunc`` for a pod being created: ``count/pods`` plus the compute usage of the pod's totals."""
    return kpod.memo(("usage", kpod.pod_key(pod)), lambda: _usage(pod))


def _usage(pod: Pod) -> ResourceList:
    result: ResourceList = {"count/pods": _ONE}
    kpod.add_into(result, compute_usage(kpod.aggregate(pod, "requests"), kpod.aggregate(pod, "limits")))
    return result


def must_specify(pod: Pod, names: Sequence[str]) -> str | None:
    """``Constraints``: the "must specify" refusal when a container lacks a tracked cpu or memory value, else None.

    Only the tracked names among cpu and memory (bare, ``requests.``, ``limits.``) are required.
    The text lists each missing name in sorted order with the sorted names of the containers lacking it, e.g.
    ``must specify limits.cpu for: compute,hook; limits.memory for: compute``.
    """
    return kpod.memo(("must", kpod.pod_key(pod), tuple(names)), lambda: _must_specify(pod, names))


def _must_specify(pod: Pod, names: Sequence[str]) -> str | None:
    required = MUST_SPECIFY.intersection(names)
    missing: dict[str, set[str]] = {}
    for container in kpod.containers(pod) + kpod.init_containers(pod):
        requests, limits = kpod.defaulted(container)
        present = compute_usage(quantities(requests), quantities(limits))
        for name in required.difference(present):
            missing.setdefault(name, set()).add(str(container.get("name", "")))
    if not missing:
        return None
    parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
    return "must specify " + "; ".join(parts)


def is_terminating(pod: Pod) -> bool:
    """True for a pod with a non-negative ``activeDeadlineSeconds``; a launcher pod has none."""
    deadline = pod.get("activeDeadlineSeconds")
    return isinstance(deadline, int) and not isinstance(deadline, bool) and deadline >= 0


def scope_matches(scope: str, pod: Pod) -> bool:
    """``podMatchesScopeFunc`` for one scope name.

    Terminating and NotTerminating go by ``activeDeadlineSeconds``.
    BestEffort and NotBestEffort go by the pod's QoS class.
    PriorityClass and CrossNamespacePodAffinity are taken as matching, since a pod here carries neither field.
    Any other name matches nothing, as upstream.
    """
    if scope == TERMINATING:
        return is_terminating(pod)
    if scope == NOT_TERMINATING:
        return not is_terminating(pod)
    if scope in (BEST_EFFORT_SCOPE, NOT_BEST_EFFORT):
        return (kpod.qos_class(pod) == kpod.BEST_EFFORT) == (scope == BEST_EFFORT_SCOPE)
    return scope in ASSUMED_MATCHING


def scopes(quota: Obj) -> list[str]:
    """The scope names of a quota: ``spec.scopes`` and then the ``scopeName`` of each ``scopeSelector`` expression."""
    spec = quota.get("spec") or {}
    names = [str(s) for s in spec.get("scopes") or []]
    selector = spec.get("scopeSelector") or {}
    names += [str(e.get("scopeName")) for e in selector.get("matchExpressions") or [] if isinstance(e, dict)]
    return names


def matches(quota: Obj, pod: Pod) -> bool:
    """``Matches``: the quota tracks a pod resource and every one of its scopes matches the pod.

    A ``scopeSelector`` expression is judged by its scope name alone, its operator and values ignored, as upstream
    does for every scope but PriorityClass; a PriorityClass scope, in ``scopes`` or ``scopeSelector``, is taken
    as matching.
    """
    hard = list(((quota.get("spec") or {}).get("hard") or {}))
    return bool(tracked(hard)) and all(scope_matches(s, pod) for s in scopes(quota))


def pretty(resources: ResourceList, names: Sequence[str]) -> str:
    """``prettyPrint`` of a masked resource list: ``name=quantity`` by sorted name, joined with commas."""
    return ",".join(f"{name}={resources[name]}" for name in sorted(names) if name in resources)


@dataclass(frozen=True, slots=True)
class QuotaState:
    """One quota after the pods: its ``hard`` and ``used`` as canonical texts, and the pods it refused, in order."""

    hard: dict[str, str]
    used: dict[str, str]
    refused: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class QuotaAnswer:
    """The plugin's verdict per pod name and the state of every quota by name.

    ``pods`` holds the refusal text (``failed quota: ...`` or ``exceeded quota: ...``), or None for a pod let in.
    """

    pods: dict[str, str | None]
    quotas: dict[str, QuotaState]

    def api_server_message(self, pod_name: str) -> str | None:
        """The API server's whole message for a refused pod, None for one let in."""
        message = self.pods.get(pod_name)
        return None if message is None else forbidden(pod_name, [message])


@dataclass(slots=True)
class _Quota:
    name: str
    obj: Obj
    hard: ResourceList
    used: ResourceList
    refused: list[str]


def _state(quota: Obj) -> _Quota:
    spec = quota.get("spec") or {}
    hard = quantities(spec.get("hard"))
    name = str((quota.get("metadata") or {}).get("name", ""))
    return _Quota(name, quota, hard, {n: _ZERO for n in tracked(list(hard))}, [])


def _added(used: ResourceList, more: ResourceList) -> ResourceList:
    out = dict(used)
    kpod.add_into(out, more)
    return out


def _judge(pod: Pod, states: list[_Quota]) -> tuple[_Quota | None, str | None]:
    """``CheckRequest`` for one pod: (the refusing quota, its text), or (None, None) with the usage recorded."""
    matching: list[_Quota] = []
    for state in states:
        if not matches(state.obj, pod):
            continue
        missing = must_specify(pod, tracked(list(state.hard)))
        if missing is not None:
            return state, f"failed quota: {state.name}: {missing}"
        matching.append(state)
    delta = {name: q for name, q in usage(pod).items() if not q.is_zero()}
    if not matching or not delta:
        return None, None
    updates: list[tuple[_Quota, ResourceList]] = []
    for state in matching:
        requested = {name: q for name, q in delta.items() if name in state.hard}
        new_used = _added(state.used, requested)
        exceeded = [name for name in requested if new_used[name].cmp(state.hard[name]) > 0]
        if exceeded:
            return state, (f"exceeded quota: {state.name}, requested: {pretty(requested, exceeded)}, "
                           f"used: {pretty(state.used, exceeded)}, limited: {pretty(state.hard, exceeded)}")
        updates.append((state, new_used))
    for state, new_used in updates:
        state.used = new_used
    return None, None


def admit(pods: list[tuple[str, Pod]], quotas: list[Obj]) -> QuotaAnswer:
    """The ResourceQuota plugin on ``(name, pod)`` pairs created in order, against the namespace's quotas.

    A name given twice keeps the later pod's verdict.
    """
    states = [_state(q) for q in quotas]
    verdicts: dict[str, str | None] = {}
    if not states:
        return QuotaAnswer({name: None for name, _ in pods}, {})
    for name, pod in pods:
        state, message = _judge(pod, states)
        verdicts[name] = message
        if state is not None:
            state.refused.append(name)
    return QuotaAnswer(verdicts, {s.name: QuotaState(kpod.printed(s.hard), kpod.printed(s.used), tuple(s.refused))
                                  for s in states})


def forbidden(pod_name: str, messages: Sequence[str]) -> str:
    """The API server's message for a pod ResourceQuota refused: ``pods "NAME" is forbidden: `` and the text.

    The plugin refuses with one text, which stands alone without brackets.
    """
    return kpod.forbidden(pod_name, messages)

