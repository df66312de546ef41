"""What a cluster running KubeVirt does with an instancetype or preference object it is asked to store.

1. The API server checks it against the CRD's structural schema: types, required fields, unknown fields,
   enums, bounds, object metadata (:func:`krm_fn.validate.problems` on the shipped OpenAPI document, which
   carries the CRD's bounds too: ``tools/gen_schema.py`` ``CRD_BOUNDS``; CRDs from
   ``pkg/virt-operator/resource/generate/components/crds.go``).
2. virt-api's validating webhook for the kind (:mod:`.instancetype`, :mod:`.preference`; registered in
   ``pkg/virt-operator/resource/generate/components/webhooks.go`` as ``<kind>-validator.instancetype.kubevirt.io``).

Any error refuses the object: it will not exist in the cluster. Warnings are what kubectl prints on success.
All problems are reported at once; where the schema and the webhook object to the same field (an
``overcommitPercent`` outside 0..100 breaks both the CRD's bounds and the webhook's rule), the webhook's
message, KubeVirt's own words, is kept. Schema problems keep this repository's wording, framed like the API
server's (``<Kind>.<group> "<name>" is invalid: <field>: <problem>``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from krm_fn.index import iter_objects
from krm_fn.kube.api import (
    INSTANCETYPE_API_VERSION,
    INSTANCETYPE_GROUP,
    KIND_CLUSTER_INSTANCETYPE,
    KIND_CLUSTER_PREFERENCE,
    KIND_INSTANCETYPE,
    KIND_PREFERENCE,
)
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.webhooks import Problem, instancetype, preference
from krm_fn.results import Result
from krm_fn.validate import problems as schema_problems

WEBHOOKS: Final[dict[str, Callable[[Any], list[Problem]]]] = {
    KIND_INSTANCETYPE: instancetype.admit,
    KIND_CLUSTER_INSTANCETYPE: instancetype.admit,
    KIND_PREFERENCE: preference.admit,
    KIND_CLUSTER_PREFERENCE: preference.admit,
}
MEMO_KEY: Final = "admission"  # first item of this module's keys in a shared memo (``Index.memo``)


def covers(obj: Any) -> bool:
    """An object these checks apply to: one of the four kinds in the version KubeVirt serves."""
    return isinstance(obj, dict) and obj.get("apiVersion") == INSTANCETYPE_API_VERSION and obj.get("kind") in WEBHOOKS


def admit(obj: Obj) -> list[Problem]:
    """The errors ``obj`` (a :func:`covers` object) is refused with, schema first; or, when it is admitted,
    its warnings."""
    schema = [Problem("error", path or None, message, "schema") for path, message in schema_problems(obj)]
    answer = WEBHOOKS[str(obj.get("kind"))](obj.get("spec"))
    causes = [p for p in answer if p.severity == "error"]
    if not schema and not causes:
        return answer
    fields = {p.field for p in causes}
    return [p for p in schema if p.field not in fields] + causes


def admitted(obj: Obj, memo: dict[Any, Any] | None = None) -> list[Problem]:
    """:func:`admit`, computed once per object (by identity) when a ``memo`` is given."""
    return _memoised(obj, memo)[0]


def refused(obj: Obj, memo: dict[Any, Any] | None = None) -> list[Problem]:
    """The errors ``obj`` is refused with (empty when it is not a :func:`covers` object or is admitted)."""
    return _memoised(obj, memo)[1]


def _memoised(obj: Obj, memo: dict[Any, Any] | None) -> tuple[list[Problem], list[Problem]]:
    """(every problem, the errors) of ``obj``; once per object and ``memo`` (every VM asks about its objects)."""
    key = (MEMO_KEY, id(obj))
    found: tuple[list[Problem], list[Problem]] | None = memo.get(key) if memo is not None else None
    if found is None:
        problems = admit(obj) if covers(obj) else []
        found = (problems, [p for p in problems if p.severity == "error"])
        if memo is not None:
            memo[key] = found
    return found


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


def results(objs: Iterable[Any], memo: dict[Any, Any] | None = None) -> list[Result]:
    """A result per problem of every instancetype/preference among ``objs`` (``List`` wrappers looked into),
    in order: ``error`` for a refused object, ``warning`` for what kubectl would warn about."""
    out: list[Result] = []
    for obj in iter_objects(objs):
        if covers(obj):
            out.extend(Result.for_object(describe(p, obj), obj, p.severity, field_path=p.field,
                                         tags=(("stage", p.stage),))
                       for p in admitted(obj, memo))
    return out
