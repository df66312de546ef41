"""Output checks (``spec.validateOutput``; always on in the tests): every object a run generated or changed,
validated as the API server would store it (:mod:`krm_fn.kubevirt.schema.strict`), as ``error`` results. A pool
we changed (its template expanded or pinned) is checked through the VM its controller makes of the template
(:mod:`krm_fn.render.carriers`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from krm_fn.kube.paths import wrapped_items
from krm_fn.kubevirt.schema.strict import covers, problems
from krm_fn.render.carriers import POOL_TEMPLATE, carried, moved
from krm_fn.results import Result


def output_results(before: Sequence[Any], after: Sequence[Any]) -> list[Result]:
    """``error`` results for every object of ``after`` that is not the identical object of ``before`` (we
    generated or changed it) and is not valid. ``List`` wrappers are looked into."""
    unchanged = {id(o) for o in before}
    results: list[Result] = []
    for obj in after:
        if id(obj) not in unchanged:
            _check_emitted(obj, unchanged, results)
    return results


def _check_emitted(obj: Any, unchanged: set[int], results: list[Result]) -> None:
    inner = wrapped_items(obj)
    if inner is not None:
        for item in inner:
            if id(item) not in unchanged:
                _check_emitted(item, unchanged, results)
        return
    if not covers(obj):
        for one in carried(obj, {}) or () if isinstance(obj, dict) else ():
            if one.written and one.vm is not None:  # a pool: its template as the VM each replica is
                vm_results: list[Result] = []
                _check_emitted(one.vm, unchanged, vm_results)
                results += [moved(r, obj, POOL_TEMPLATE) for r in vm_results]
        return  # not a kind we emit
    for cause in problems(obj):
        results.append(Result.for_object(f"output is not a valid {obj.get('kind')}: {cause.message}", obj,
                                         field_path=cause.field or None, tags=(("stage", "output"),)))
