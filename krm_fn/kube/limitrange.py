"""The LimitRanger admission plugin on a pod: the namespace's LimitRange defaults, then its checks.

The API server first defaults the pod (``SetDefaults_Pod``: a limit without a request becomes the request).
Each LimitRange is defaulted as stored (``SetDefaults_LimitRangeItem``: ``default`` from ``max``,
``defaultRequest`` from ``default``, else from ``min``). So a container's own limit wins over the default request,
and a missing request takes the default request, else the default limit.
In the mutating phase every LimitRange, in order, fills the limits and then the requests a container still lacks
(app containers first, then init containers); a value set by an earlier LimitRange stays.
In the validating phase the LimitRanges are checked in order and the first one with a problem refuses the pod
with all of its own problems.
Within one LimitRange the items are checked in order.
A ``Container`` item checks every app container, then every init container, for ``min``, then ``max``, then
``maxLimitRequestRatio``; a ``Pod`` item checks the same on the pod's sums (``podRequests`` / ``podLimits``,
sidecars counted as running, no overhead).
Upstream iterates the resources of one ``min`` / ``max`` map in Go's random map order; here they go by name.
Comparisons use the plugin's common precision: milli-units when every value fits, whole units otherwise.
Field validation the API server runs before this plugin's checks (a request above its limit) is not modelled.

Upstream (kubernetes/kubernetes): ``plugin/pkg/admission/limitranger/admission.go`` (``PodMutateLimitFunc``,
``defaultContainerResourceRequirements``, ``mergeContainerResources``, ``PodValidateLimitFunc``,
``minConstraint``, ``maxConstraint``, ``limitRequestRatioConstraint``, ``requestLimitEnforcedValues``), the
v1.29 to v1.31 text (messages without a final period, the same on master), and ``pkg/apis/core/v1/defaults.go``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Final

from krm_fn.kube import pod as kpod
from krm_fn.kube.paths import Obj
from krm_fn.kube.pod import Pod, ResourceList, quantities
from krm_fn.kube.quantity import Quantity

CONTAINER: Final = "Container"
POD: Final = "Pod"
MAX_MILLI_VALUE: Final = ((1 << 63) - 1) // 1000  # resource.MaxMilliValue
_ZERO: Final = Quantity.from_int(0, "DecimalSI")


def defaulted_item(item: Obj) -> Obj:
    """A LimitRange item as the API server stores it (``SetDefaults_LimitRangeItem``).

    Only a ``Container`` item is defaulted.
    A missing ``default`` takes ``max``.
    A missing ``defaultRequest`` takes ``default``, else ``min``.
    """
    if item.get("type") != CONTAINER:
        return item
    default = dict(item.get("default") or {})
    request = dict(item.get("defaultRequest") or {})
    for name, value in (item.get("max") or {}).items():
        default.setdefault(name, value)
    for name, value in default.items():
        request.setdefault(name, value)
    for name, value in (item.get("min") or {}).items():
        request.setdefault(name, value)
    return {**item, "default": default, "defaultRequest": request}


def items(limit_range: Obj) -> list[Obj]:
    """A LimitRange's items (``spec.limits``), defaulted as stored."""
    spec = limit_range.get("spec") or {}
    return [defaulted_item(i) for i in spec.get("limits") or [] if isinstance(i, dict)]


def container_defaults(limit_range: Obj) -> tuple[dict[str, str], dict[str, str]]:
    """``defaultContainerResourceRequirements``: the (requests, limits) a container lacking them gets.

    They come from the ``Container`` items, a later item's value replacing an earlier one's.
    Values are canonical quantity texts.
    """
    requests: dict[str, str] = {}
    limits: dict[str, str] = {}
    for item in items(limit_range):
        if item.get("type") == CONTAINER:
            requests.update({k: str(q) for k, q in quantities(item["defaultRequest"]).items()})
            limits.update({k: str(q) for k, q in quantities(item["default"]).items()})
    return requests, limits


def _merged(container: Obj, requests: dict[str, str], limits: dict[str, str]) -> Obj:
    own_requests = dict(container.get("requests") or {})
    own_limits = dict(container.get("limits") or {})
    for name, value in limits.items():
        own_limits.setdefault(name, value)
    for name, value in requests.items():
        own_requests.setdefault(name, value)
    return {**container, "requests": own_requests, "limits": own_limits}


def with_defaults(pod: Pod, limit_ranges: Sequence[Obj]) -> Pod:
    """The pod after the API server's defaulting and the mutating phase of every LimitRange, in order.

    The input pod is not changed.
    """
    out = copy.deepcopy(pod)
    for key in ("containers", "initContainers"):
        if out.get(key):
            out[key] = [_defaulted_container(c) for c in out[key]]
    for limit_range in limit_ranges:
        requests, limits = container_defaults(limit_range)
        if not requests and not limits:
            continue
        for key in ("containers", "initContainers"):
            if out.get(key):
                out[key] = [_merged(c, requests, limits) for c in out[key]]
    return out


def _defaulted_container(container: Any) -> Any:
    if not isinstance(container, dict) or not container.get("limits"):
        return container
    requests, _ = kpod.defaulted(container)
    return {**container, "requests": requests}


def _comparable(request: Quantity, limit: Quantity, enforced: Quantity) -> tuple[int, int, int]:
    """``requestLimitEnforcedValues``: milli-values when all three fit, else whole values (both rounded up)."""
    if all(q.value() <= MAX_MILLI_VALUE for q in (request, limit, enforced)):
        return request.scaled_value(-3), limit.scaled_value(-3), enforced.scaled_value(-3)
    return request.value(), limit.value(), enforced.value()


def min_problem(kind: str, name: str, enforced: Quantity, requests: ResourceList, limits: ResourceList) -> str | None:
    """``minConstraint``: the request must exist and reach the minimum, and so must a limit that is set."""
    req, lim = requests.get(name), limits.get(name)
    req_v, lim_v, enforced_v = _comparable(req or _ZERO, lim or _ZERO, enforced)
    head = f"minimum {name} usage per {kind} is {enforced}"
    if req is None:
        return f"{head}.  No request is specified"
    if req_v < enforced_v:
        return f"{head}, but request is {req}"
    if lim is not None and lim_v < enforced_v:
        return f"{head}, but limit is {lim}"
    return None


def max_problem(kind: str, name: str, enforced: Quantity, requests: ResourceList, limits: ResourceList) -> str | None:
    """``maxConstraint``: the limit must exist and stay within the maximum, and so must a request that is set."""
    req, lim = requests.get(name), limits.get(name)
    req_v, lim_v, enforced_v = _comparable(req or _ZERO, lim or _ZERO, enforced)
    head = f"maximum {name} usage per {kind} is {enforced}"
    if lim is None:
        return f"{head}.  No limit is specified"
    if lim_v > enforced_v:
        return f"{head}, but limit is {lim}"
    if req is not None and req_v > enforced_v:
        return f"{head}, but request is {req}"
    return None


def ratio_problem(kind: str, name: str, enforced: Quantity, requests: ResourceList,
                  limits: ResourceList) -> str | None:
    """``limitRequestRatioConstraint``: limit over request must not pass the ratio; both must be set, not zero.

    The ratio is a float64 division, printed with six decimals as Go's ``%f`` does.
    """
    req, lim = requests.get(name), limits.get(name)
    req_v, lim_v, _ = _comparable(req or _ZERO, lim or _ZERO, enforced)
    head = f"{name} max limit to request ratio per {kind} is {enforced}"
    if req is None or req_v == 0:
        return f"{head}, but no request is specified or request is 0"
    if lim is None or lim_v == 0:
        return f"{head}, but no limit is specified or limit is 0"
    observed = float(lim_v) / float(req_v)
    shown = observed
    allowed = float(enforced.value())
    if enforced.value() <= MAX_MILLI_VALUE:
        observed *= 1000
        allowed = float(enforced.scaled_value(-3))
    if observed > allowed:
        return f"{head}, but provided ratio is {shown:.6f}"
    return None


def _item_problems(item: Obj, kind: str, requests: ResourceList, limits: ResourceList) -> list[str]:
    problems: list[str] = []
    for key, check in (("min", min_problem), ("max", max_problem), ("maxLimitRequestRatio", ratio_problem)):
        bounds = quantities(item.get(key))
        for name in sorted(bounds):
            problem = check(kind, name, bounds[name], requests, limits)
            if problem is not None:
                problems.append(problem)
    return problems


def problems_of(pod: Pod, limit_range: Obj) -> list[str]:
    """``PodValidateLimitFunc``: one LimitRange's problems with a pod already defaulted, in the plugin's order."""
    problems: list[str] = []
    for item in items(limit_range):
        kind = item.get("type")
        if kind == CONTAINER:
            for container in kpod.containers(pod) + kpod.init_containers(pod):
                requests, limits = kpod.defaulted(container)
                problems += _item_problems(item, CONTAINER, quantities(requests), quantities(limits))
        elif kind == POD:
            requests_sum = kpod.aggregate(pod, "requests", overhead=False)
            limits_sum = kpod.aggregate(pod, "limits", overhead=False)
            problems += _item_problems(item, POD, requests_sum, limits_sum)
    return problems


def limit_range_problems(pod: Pod, limit_ranges: list[Obj]) -> tuple[Pod, list[str]]:
    """The LimitRanger plugin on a pod being created: (the pod as admitted, the refusal's problems).

    The pod comes back defaulted and with every LimitRange's defaults filled in.
    The problems are those of the first LimitRange that refuses the pod, in the plugin's order.
    They are empty when every LimitRange lets the pod in.
    """
    admitted = with_defaults(pod, limit_ranges)
    for limit_range in limit_ranges:
        problems = problems_of(admitted, limit_range)
        if problems:
            return admitted, problems
    return admitted, []


def forbidden(pod_name: str, messages: Sequence[str]) -> str:
    """The API server's message for a pod LimitRanger refused.

    It reads ``pods "NAME" is forbidden: `` and then the problems as ``utilerrors.NewAggregate`` prints them.
    A single distinct problem stands alone.
    Several are joined with ", " inside brackets, a repeated text kept once.
    """
    return kpod.forbidden(pod_name, messages)
