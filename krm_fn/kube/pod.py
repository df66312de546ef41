"""The API server's view of a pod's resources: defaulting, QoS class and the totals the scheduler and quota count.

A pod here is a plain dict: ``containers`` and ``initContainers`` (each ``{name, requests, limits,
restartPolicy?}``, quantities as written) and ``overhead`` (None or a resource list). ``restartPolicy: Always``
on an init container marks a sidecar. Sums are exact: every quantity is read as ``resource.Quantity`` does, and
an addition keeps the format Go's ``Quantity.Add`` would keep, so a printed sum is the text Kubernetes prints.

Upstream (kubernetes/kubernetes, read at the v1.31 to v1.34 era, same rules on master):
``pkg/apis/core/v1/defaults.go`` (``SetDefaults_Pod``), ``pkg/apis/core/v1/helper/qos/qos.go``
(``GetPodQOS``), ``staging/src/k8s.io/component-helpers/resource/helpers.go`` (``PodRequests``,
``PodLimits``, ``addResourceList``, ``maxResourceList``), apimachinery ``pkg/util/errors`` (``NewAggregate``)
and ``pkg/api/errors`` (``NewForbidden``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, Literal, TypeAlias, TypeVar

from krm_fn.kube.paths import Obj
from krm_fn.kube.quantity import Quantity
from krm_fn.kube.quantity_json import parsed
from krm_fn.kube.status import go_quote

T = TypeVar("T")
Pod: TypeAlias = Obj
ResourceList: TypeAlias = dict[str, Quantity]
Which: TypeAlias = Literal["requests", "limits"]

CPU: Final = "cpu"
MEMORY: Final = "memory"
GUARANTEED: Final = "Guaranteed"
BURSTABLE: Final = "Burstable"
BEST_EFFORT: Final = "BestEffort"
_QOS_RESOURCES: Final = (CPU, MEMORY)


def containers(pod: Pod) -> list[Obj]:
    """The pod's app containers, an empty list when it has none."""
    return [c for c in pod.get("containers") or [] if isinstance(c, dict)]


def init_containers(pod: Pod) -> list[Obj]:
    """The pod's init containers in order, an empty list when it has none."""
    return [c for c in pod.get("initContainers") or [] if isinstance(c, dict)]


def is_sidecar(container: Obj) -> bool:
    """True for a restartable init container (``restartPolicy: Always``), a native sidecar."""
    return container.get("restartPolicy") == "Always"


def defaulted(container: Obj) -> tuple[Obj, Obj]:
    """The container's (requests, limits) after ``SetDefaults_Pod``.

    A limit whose resource has no request is copied into the requests.
    The values stay as written, and the container itself is not changed.
    """
    requests = dict(container.get("requests") or {})
    limits = dict(container.get("limits") or {})
    for name, value in limits.items():
        requests.setdefault(name, value)
    return requests, limits


def quantities(values: Any) -> ResourceList:
    """A resource list read as the API server decodes it (strings, integers or floats), {} for none."""
    if not isinstance(values, dict):
        return {}
    return {str(name): parsed(value) for name, value in values.items()}


Key: TypeAlias = tuple[Any, ...]


def pod_key(pod: Pod) -> Key:
    """What the pod's resources are, as a hashable value: equal keys, equal answers of this module and the quota's.

    A fleet's launcher pods are mostly alike, so the answers are remembered by it (:func:`memo`)."""
    return (tuple(_container_key(c) for c in containers(pod)), tuple(_container_key(c) for c in init_containers(pod)),
            _items(pod.get("overhead")), pod.get("activeDeadlineSeconds"))


def _container_key(container: Obj) -> Key:
    return (container.get("name"), container.get("restartPolicy"), _items(container.get("requests")),
            _items(container.get("limits")))


def _items(values: Any) -> Key:
    return tuple(values.items()) if isinstance(values, dict) else ()


_MEMO: dict[Key, Any] = {}
MEMO_SIZE: Final = 4096


def memo(key: Key, compute: Callable[[], T]) -> T:
    """``compute()``, remembered by ``key`` (the answer is shared: it is not to be changed)."""
    try:
        found: T = _MEMO[key]
        return found
    except KeyError:
        if len(_MEMO) >= MEMO_SIZE:
            _MEMO.clear()
        value = _MEMO[key] = compute()
        return value


def add(a: Quantity, b: Quantity) -> Quantity:
    """``a.Add(b)`` as Go does it.

    The sum keeps the format of ``a``, or takes the format of ``b`` when ``a`` is zero.
    """
    fmt = b.format if a.is_zero() else a.format
    return Quantity("d", a.nanos() + b.nanos(), 9, fmt)


def add_into(total: ResourceList, more: ResourceList) -> None:
    """``addResourceList``: each quantity of ``more`` added to ``total``, a new resource copied in."""
    for name, q in more.items():
        total[name] = add(total[name], q) if name in total else q


def max_into(total: ResourceList, more: ResourceList) -> None:
    """``maxResourceList``: each resource of ``more`` kept in ``total`` when it is larger or new there."""
    for name, q in more.items():
        if name not in total or q.cmp(total[name]) > 0:
            total[name] = q


def _own(container: Obj, which: Which) -> ResourceList:
    requests, limits = defaulted(container)
    return quantities(requests if which == "requests" else limits)


def aggregate(pod: Pod, which: Which, *, overhead: bool = True) -> ResourceList:
    """``PodRequests`` or ``PodLimits`` of the pod, after defaulting.

    The app containers are summed.
    Each sidecar init container is added to that sum and to the sidecars started so far.
    Each other init container counts its own value plus the sidecars started before it.
    The pod's value per resource is the larger of the sum and every init container's step.
    With ``overhead`` the pod's overhead is added to every request, and to every limit that is set and not zero.
    Limits only sum what is set: a container without a limit for a resource adds nothing to it.
    """
    total: ResourceList = {}
    for container in containers(pod):
        add_into(total, _own(container, which))
    sidecars: ResourceList = {}
    peak: ResourceList = {}
    for container in init_containers(pod):
        own = _own(container, which)
        if is_sidecar(container):
            add_into(total, own)
            add_into(sidecars, own)
            max_into(peak, sidecars)
        else:
            step = dict(own)
            add_into(step, sidecars)
            max_into(peak, step)
    max_into(total, peak)
    if overhead:
        extra = quantities(pod.get("overhead"))
        if which == "requests":
            add_into(total, extra)
        else:
            for name, q in extra.items():
                if name in total and not total[name].is_zero():
                    total[name] = add(total[name], q)
    return total


def printed(resources: ResourceList) -> dict[str, str]:
    """A resource list as the API server writes it: each quantity's canonical text, names sorted."""
    return {name: str(resources[name]) for name in sorted(resources)}


def totals(pod: Pod) -> dict[str, dict[str, str]]:
    """What the scheduler and ResourceQuota count for the pod, overhead included.

    The answer is ``{"requests": {...}, "limits": {...}}`` with quantities as Go's ``Quantity.String`` prints them.
    """
    return memo(("totals", pod_key(pod)), lambda: _totals(pod))


def described(pod: Pod) -> tuple[str, dict[str, dict[str, str]]]:
    """(:func:`qos_class`, :func:`totals`) of the pod, its key made once."""
    key = pod_key(pod)
    return memo(("qos", key), lambda: _qos_class(pod)), memo(("totals", key), lambda: _totals(pod))


def _totals(pod: Pod) -> dict[str, dict[str, str]]:
    return {"requests": printed(aggregate(pod, "requests")), "limits": printed(aggregate(pod, "limits"))}


def _all_containers(pod: Pod) -> Iterator[Obj]:
    yield from containers(pod)
    yield from init_containers(pod)


def qos_class(pod: Pod) -> str:
    """``GetPodQOS``: Guaranteed, Burstable or BestEffort, from cpu and memory only, on defaulted values.

    Only positive requests and limits count, init containers included.
    The pod is BestEffort when none is set.
    It is Guaranteed when every container limits both cpu and memory and the summed requests equal the summed limits.
    Otherwise it is Burstable.
    """
    return memo(("qos", pod_key(pod)), lambda: _qos_class(pod))


def _qos_class(pod: Pod) -> str:
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    for container in _all_containers(pod):
        own_requests, own_limits = defaulted(container)
        for name, q in quantities(own_requests).items():
            if name in _QOS_RESOURCES and q.cmp_int(0) > 0:
                requests[name] = requests.get(name, 0) + q.nanos()
        limited: set[str] = set()
        for name, q in quantities(own_limits).items():
            if name in _QOS_RESOURCES and q.cmp_int(0) > 0:
                limited.add(name)
                limits[name] = limits.get(name, 0) + q.nanos()
        if not limited.issuperset(_QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed and len(requests) == len(limits) and all(limits.get(n) == v for n, v in requests.items()):
        return GUARANTEED
    return BURSTABLE


def aggregate_error(messages: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``.

    One error is its own text.
    Several are deduplicated in order and joined with ", " inside brackets, unless only one distinct text is left.
    """
    distinct = list(dict.fromkeys(messages))
    if len(messages) == 1 or len(distinct) == 1:
        return distinct[0] if distinct else ""
    return "[" + ", ".join(distinct) + "]"


def forbidden(pod_name: str, messages: Sequence[str]) -> str:
    """The API server's whole message for a pod an admission plugin refused (``admission.NewForbidden``).

    It reads ``pods "NAME" is forbidden: `` followed by the plugin's errors as one aggregate.
    """
    return f"pods {go_quote(pod_name)} is forbidden: {aggregate_error(messages)}"
