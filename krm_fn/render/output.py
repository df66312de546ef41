"""Output checks (``spec.validateOutput``; always on in the tests): every object a run generated or changed,
validated as the API server would store it (:mod:`krm_fn.kubevirt.schema.strict`), as ``error`` results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from krm_fn.kube.paths import wrapped_items
from krm_fn.kubevirt.schema import DEFAULT_TAG
from krm_fn.kubevirt.schema.strict import covers, problems
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
        return  # not a kind we emit
    for cause in problems(obj, tag):
        results.append(Result.for_object(f"output is not a valid {obj.get('kind')}: {cause.message}", obj,
                                         field_path=cause.field or None, tags=(("stage", "output"),)))
