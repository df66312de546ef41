"""``Report``: what starting the VMs costs, as the ``resources`` command prints it (a table, or JSON) and as the
renderer's opt-in results say it (an info result per namespace, an error per VM whose pod is refused).

The JSON form is ``{kubevirtVersion, vms, namespaces}``: ``vms`` lists ``{namespace, name, runs, replicas, pod}``
in input order, ``pod`` in shared/conformance-vms' shape; ``namespaces`` maps each namespace where a VM runs to
its totals, its quotas and the VMs it refuses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from krm_fn.capacity.namespaces import NamespaceReport
from krm_fn.capacity.pods import PodUse
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.launcher.manifest import POD_PREFIX
from krm_fn.results import Result


class Report(NamedTuple):
    kubevirt_version: str
    vms: tuple[PodUse, ...]
    namespaces: tuple[NamespaceReport, ...]
    # each ResourceQuota or LimitRange the API server would refuse, left out: (object, field, why)
    problems: tuple[tuple[Obj, str, str], ...] = ()

    @property
    def refused(self) -> bool:
        """Whether a VM that runs would not start: its pod is not rendered, or its namespace refuses it."""
        return any(ns.refused for ns in self.namespaces) or any(use.runs and not_rendered(use) for use in self.vms)


def not_rendered(use: PodUse) -> str | None:
    """Why KubeVirt makes no pod for the VM: it (or its VMI) is refused, or the pod cannot be rendered."""
    if use.pod is None:
        return use.refused or "refused"
    error = use.pod.get("error")
    return None if error is None else str(error)


def results(report: Report) -> list[Result]:
    """The renderer's opt-in results: an error per ResourceQuota or LimitRange left out, an info result per
    namespace, an error per refused pod."""
    out = [Result.for_object(f"the API server would refuse this {obj.get('kind')}: {message}; it is left out of the "
                             "capacity report", obj, field_path=field, tags=(("stage", "capacity"),))
           for obj, field, message in report.problems]
    for ns in report.namespaces:
        quotas = "".join(f"; ResourceQuota {q['name']}: " + ", ".join(
            f"{key} {q['used'].get(key, '0')} of {hard}" for key, hard in q["hard"].items()) for q in ns.quotas)
        out.append(Result(f"namespace {ns.namespace}: {_count(ns.vms, 'VM')} that run{'s' if ns.vms == 1 else ''}, "
                          f"{_count(ns.pods, 'launcher pod')}, requests {_listed(ns.requests)}, "
                          f"limits {_listed(ns.limits) or 'none'}{quotas}", "info", tags=(("stage", "capacity"),)))
        out += [r.use.anchor._replace(message=POD_PREFIX + r.message, tags=(("stage", "capacity"),))
                for r in ns.refused]
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _listed(amounts: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in amounts.items())


def as_json(report: Report) -> str:
    """The report as JSON, one VM and one namespace a line (json's C encoder writes only compact text)."""
    data = as_data(report)
    vms = ",\n".join("    " + json.dumps(vm) for vm in data["vms"])
    namespaces = ",\n".join(f"    {json.dumps(name)}: {json.dumps(ns)}"
                             for name, ns in data["namespaces"].items())
    return (f'{{\n  "kubevirtVersion": {json.dumps(data["kubevirtVersion"])},\n'
            f'  "vms": [\n{vms}\n  ],\n  "namespaces": {{\n{namespaces}\n  }}\n}}\n')


def _vm_data(use: PodUse, refused: dict[tuple[str, str], str]) -> dict[str, Any]:
    """A VM's entry: whether it runs and starts (None: it does not run), its pod, and why it does not start."""
    why = not_rendered(use) or refused.get((use.namespace, use.name))
    out: dict[str, Any] = {"namespace": use.namespace, "name": use.name, "runs": use.runs, "replicas": use.replicas,
                           "starts": (why is None) if use.runs else None, "pod": use.pod}
    if why is not None:
        out["refused"] = why
    return out


def _refusals(report: Report) -> dict[tuple[str, str], str]:
    return {(r.use.namespace, r.use.name): r.message for ns in report.namespaces for r in reversed(ns.refused)}


def as_data(report: Report) -> dict[str, Any]:
    refused = _refusals(report)
    return {
        "kubevirtVersion": report.kubevirt_version,
        "vms": [_vm_data(u, refused) for u in report.vms],
        "namespaces": {ns.namespace: {
            "vms": ns.vms, "pods": ns.pods, "totals": {"requests": ns.requests, "limits": ns.limits},
            "quotas": ns.quotas,
            "refused": [{"name": r.use.name, "pod": r.pod_name, "message": r.message} for r in ns.refused],
        } for ns in report.namespaces},
    }


COLUMNS = ("NAMESPACE", "VM", "RUNS", "CPU REQ", "CPU LIM", "MEMORY REQ", "MEMORY LIM", "STARTS")


def text(report: Report) -> str:
    """A table per VM, then per namespace its totals, its quotas and what it refuses."""
    refused = _refusals(report)
    rows = [COLUMNS] + [_row(u, refused.get((u.namespace, u.name))) for u in report.vms]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    unrendered = [(u, why) for u in report.vms if (why := not_rendered(u)) is not None]
    if unrendered:
        lines += ["", "no launcher pod:"] + [f"  {u.namespace}/{u.name}: {why}" for u, why in unrendered]
    for ns in report.namespaces:
        lines += ["", f"namespace {ns.namespace}: {_count(ns.vms, 'VM')} that run{'s' if ns.vms == 1 else ''}, "
                      f"{_count(ns.pods, 'launcher pod')}",
                  f"  requests  {_listed(ns.requests)}", f"  limits    {_listed(ns.limits) or 'none'}"]
        for q in ns.quotas:
            lines.append(f"  ResourceQuota {q['name']}: " + ", ".join(
                f"{key} {q['used'].get(key, '0')}/{hard}" for key, hard in q["hard"].items()))
        lines += [f"  {r.pod_name}: {r.message}" for r in ns.refused]
    return "\n".join(lines) + "\n"


def _row(use: PodUse, refusal: str | None) -> Sequence[str]:
    pod = use.pod
    if pod is None or pod.get("error") is not None:
        return (use.namespace, use.name, _runs(use), "-", "-", "-", "-", "no: no pod" if use.runs else "-")
    requests, limits = pod["totals"]["requests"], pod["totals"]["limits"]
    starts = "-" if not use.runs else "no: refused" if refusal else "yes"
    return (use.namespace, use.name, _runs(use), requests.get("cpu", "-"), limits.get("cpu", "-"),
            requests.get("memory", "-"), limits.get("memory", "-"), starts)


def _runs(use: PodUse) -> str:
    if not use.runs:
        return "no"
    return "yes" if use.replicas == 1 else f"x{use.replicas}"
