"""Cluster-scoped objects with a namespace (issue 15, point 3): stored without it, as the API server does."""

from __future__ import annotations

import copy
from typing import Any, cast

from tests.builders import instancetype, make_object, make_vm
from tests.render_support import render
from krm_fn.render.spec import RendererSpec, RevisionsSpec
from krm_fn.render.scope import clear_cluster_namespaces


def _stamped(obj: dict[str, Any], namespace: str = "team-b") -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"]["namespace"] = namespace
    return out


def _render(items: list[Any], mode: str = "revisions") -> tuple[list[Any], list[Any]]:
    spec = RendererSpec(mode=mode, revisions=RevisionsSpec(scope="shared"))  # type: ignore[arg-type]
    return render(items, spec, [])


def test_stamped_cluster_instancetype_gives_what_the_unstamped_one_gives() -> None:
    vm = make_vm(namespace="team-b", instancetype={"name": "it"})
    plain_out, plain_results = _render([instancetype(), vm])
    out, results = _render([_stamped(instancetype()), vm])
    assert plain_results == [] and [r.severity for r in results] == ["warning"]
    assert out == plain_out                            # the object written without it, the same revision
    assert "namespace" not in out[0]["metadata"]
    warning = results[0]
    assert warning.field_path == "metadata.namespace"
    assert warning.resource_ref is not None and warning.resource_ref.name == "it"
    assert warning.resource_ref.namespace is None       # the object as it will exist
    assert "'team-b'" in warning.message and warning.message.endswith("; the output has none")


def test_validate_mode_writes_nothing_and_still_warns() -> None:
    items = [_stamped(instancetype()), make_vm(namespace="team-b", instancetype={"name": "it"})]
    out, results = _render(items, "validate")
    assert all(a is b for a, b in zip(items, out))
    assert [r.severity for r in results] == ["warning"] and not results[0].message.endswith("the output has none")


def test_lists_are_looked_into_and_namespaced_kinds_left_alone() -> None:
    namespaced = make_object("VirtualMachineInstancetype", "nit", {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
                             namespace="team-b")
    wrapper: dict[str, Any] = {"apiVersion": "v1", "kind": "List", "items": [_stamped(instancetype()), namespaced]}
    items = [wrapper, make_vm()]
    out, results = clear_cluster_namespaces(items)
    assert out is not items and out[1] is items[1]
    assert cast(Any, out[0])["items"][1] is namespaced
    assert "namespace" not in out[0]["items"][0]["metadata"] and len(results) == 1
    assert wrapper["items"][0]["metadata"]["namespace"] == "team-b"  # the input is not mutated


def test_nothing_to_clear_returns_the_same_list() -> None:
    items = [instancetype(), _stamped(instancetype(), "")]
    out, results = clear_cluster_namespaces(items)
    assert out is items and results == []
