"""Output checks (``spec.validateOutput``; always on in the tests): every object a run generated or changed,
validated as the API server would store it (:mod:`krm_fn.kubevirt.schema.strict`), as ``error`` results; and
the generator's release check (:func:`release_results`): no field the target KubeVirt release does not know. A pool
we changed (its template expanded or pinned) is checked through the VM its controller makes of the template
(:mod:`krm_fn.render.carriers`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from krm_fn.kube.api import INSTANCETYPE_API_VERSION, INSTANCETYPE_VERSION, TYPE_KINDS
from krm_fn.kube.paths import Obj, wrapped_items
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.schema.crd import definition, unknown_fields
from krm_fn.kubevirt.schema.strict import covers, problems
from krm_fn.render.carriers import POOL_TEMPLATE, carried, moved
from krm_fn.kubevirt_versions import DEFAULT, RELEASES
from krm_fn.results import Result


def output_results(before: Sequence[Any], after: Sequence[Any], tag: str = DEFAULT_TAG) -> list[Result]:
    """``error`` results for every object of ``after`` that is not the identical object of ``before`` (we
    generated or changed it) and is not valid for KubeVirt ``tag``. ``List`` wrappers are looked into."""
    unchanged = {id(o) for o in before}
    results: list[Result] = []
    for obj in after:
        if id(obj) not in unchanged:
            _check_emitted(obj, unchanged, results, tag)
    return results


def _check_emitted(obj: Any, unchanged: set[int], results: list[Result], tag: str) -> None:
    inner = wrapped_items(obj)
    if inner is not None:
        for item in inner:
            if id(item) not in unchanged:
                _check_emitted(item, unchanged, results, tag)
        return
    if not covers(obj):
        for one in carried(obj, {}) or () if isinstance(obj, dict) else ():
            if one.written and one.vm is not None:  # a pool: its template as the VM each replica is
                vm_results: list[Result] = []
                _check_emitted(one.vm, unchanged, vm_results, tag)
                results += [moved(r, obj, POOL_TEMPLATE) for r in vm_results]
        return  # not a kind we emit
    for cause in problems(obj, tag):
        results.append(Result.for_object(f"output is not a valid {obj.get('kind')}: {cause.message}", obj,
                                         field_path=cause.field or None, tags=(("stage", "output"),)))


def release_results(objs: Sequence[Obj], version: str | None) -> list[Result]:
    """An ``error`` per field of a generated instancetype/preference that KubeVirt ``version`` (a row of
    ``krm_fn.kubevirt_versions``; None: the default) does not know (its API server would refuse the object),
    naming the release that introduced it: the first later row whose packaged schema has it."""
    line = version or DEFAULT
    later = list(RELEASES)[list(RELEASES).index(line) + 1:]
    results: list[Result] = []
    for obj in objs:
        kind = obj.get("kind")
        if obj.get("apiVersion") != INSTANCETYPE_API_VERSION or kind not in TYPE_KINDS:
            continue
        name = f"{INSTANCETYPE_VERSION}.{kind}"
        for path in unknown_fields(obj, definition(name, RELEASES[line].tag)):
            since = next((v for v in later if path not in unknown_fields(obj, definition(name, RELEASES[v].tag))),
                         None)
            where = f"introduced in {since}" if since else "nor to any later release"
            results.append(Result.for_object(f"field {path} is not known to KubeVirt {line} ({where})", obj,
                                             field_path=path, tags=(("stage", "output"),)))
    return results
