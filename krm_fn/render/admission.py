"""The instancetype and preference objects of a run as a cluster running KubeVirt would take them
(:mod:`krm_fn.kubevirt.webhooks.admission`), as KRM results in the words kubectl would print."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from krm_fn.index import iter_objects
from krm_fn.kube.api import INSTANCETYPE_GROUP
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.caches import Admission
from krm_fn.kubevirt.webhooks import Problem
from krm_fn.kubevirt.webhooks.admission import admitted, covers
from krm_fn.results import Result


def describe(problem: Problem, obj: Obj) -> str:
    """The message a user of kubectl would see for ``problem`` of ``obj``."""
    kind = str(obj.get("kind"))
    if problem.severity == "warning":
        return problem.message
    if problem.stage == "admit":
        return (f'admission webhook "{kind.lower()}-validator.{INSTANCETYPE_GROUP}" denied the request: '
                f'{problem.message}')
    md = obj.get("metadata")
    name = md.get("name") if isinstance(md, dict) else None
    where = f"{problem.field}: " if problem.field else ""
    return f'{kind}.{INSTANCETYPE_GROUP} "{name or ""}" is invalid: {where}{problem.message}'


def results(objs: Iterable[Any], cache: dict[int, Admission] | None = None) -> list[Result]:
    """A result per problem of every instancetype/preference among ``objs`` (``List`` wrappers looked into),
    in order: ``error`` for a refused object, ``warning`` for what kubectl would warn about."""
    out: list[Result] = []
    for obj in iter_objects(objs):
        if covers(obj):
            out.extend(Result.for_object(describe(p, obj), obj, p.severity, field_path=p.field,
                                         tags=(("stage", p.stage),))
                       for p in admitted(obj, cache))
    return out
