"""What a cluster running KubeVirt does with an instancetype or preference object it is asked to store.

1. The API server checks it against the CRD's structural schema: types, required fields, unknown fields,
   enums, bounds, object metadata (:func:`krm_fn.kubevirt.schema.strict.problems` on the shipped OpenAPI document, which
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

from collections.abc import Callable
from typing import Any, Final

from krm_fn.kube.api import (
    INSTANCETYPE_API_VERSION,
    KIND_CLUSTER_INSTANCETYPE,
    KIND_CLUSTER_PREFERENCE,
    KIND_INSTANCETYPE,
    KIND_PREFERENCE,
)
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.caches import Admission
from krm_fn.kubevirt.webhooks import Problem, instancetype, preference
from krm_fn.kubevirt.schema.strict import problems as schema_problems

WEBHOOKS: Final[dict[str, Callable[[Any], list[Problem]]]] = {
    KIND_INSTANCETYPE: instancetype.admit,
    KIND_CLUSTER_INSTANCETYPE: instancetype.admit,
    KIND_PREFERENCE: preference.admit,
    KIND_CLUSTER_PREFERENCE: preference.admit,
}


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


def admitted(obj: Obj, cache: dict[int, Admission] | None = None) -> list[Problem]:
    """:func:`admit`, computed once per object (by identity) when a ``cache`` (``Caches.admission``) is given."""
    return _cached(obj, cache)[0]


def refused(obj: Obj, cache: dict[int, Admission] | None = None) -> list[Problem]:
    """The errors ``obj`` is refused with (empty when it is not a :func:`covers` object or is admitted)."""
    return _cached(obj, cache)[1]


def _cached(obj: Obj, cache: dict[int, Admission] | None) -> Admission:
    """(every problem, the errors) of ``obj``; once per object and ``cache`` (every VM asks about its objects)."""
    found = cache.get(id(obj)) if cache is not None else None
    if found is None:
        problems = admit(obj) if covers(obj) else []
        found = (problems, [p for p in problems if p.severity == "error"])
        if cache is not None:
            cache[id(obj)] = found
    return found
