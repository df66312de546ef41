"""kube/meta.py: the one rule for metadata the API server cannot decode, and ValidateObjectMeta's answers when
each rule is asked yes or no before its messages are made."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kube.meta import metadata_problems, object_meta_causes, undecodable_metadata
from krm_fn.kube.status import Cause


@pytest.mark.parametrize(("meta", "expected"), [
    (None, None),
    ({"name": "a", "namespace": "b", "labels": {"k": "v"}, "annotations": {"a/b": "c"}}, None),
    ({"name": "a", "labels": None, "annotations": None, "namespace": None}, None),
    ([], ("metadata", "must be a mapping")),
    ("x", ("metadata", "must be a mapping")),
    ({"namespace": 1}, ("metadata.namespace", "must be a string")),
    ({"generateName": ["a"]}, ("metadata.generateName", "must be a string")),
    ({"labels": {"a": 1}}, ("metadata.labels", "must be a map of strings")),
    ({"labels": {1: "a"}}, ("metadata.labels", "must be a map of strings")),  # keys too, for every caller
    ({"annotations": "x"}, ("metadata.annotations", "must be a map of strings")),
    ({"namespace": 1, "labels": 2}, ("metadata.namespace", "must be a string")),  # the first one
])
def test_undecodable_metadata_is_one_rule(meta: Any, expected: tuple[str, str] | None) -> None:
    cause = undecodable_metadata(meta)
    assert (None if cause is None else (cause.field, cause.message)) == expected


def _fields(causes: list[Cause]) -> list[tuple[str | None, str]]:
    return [(c.field, c.message.partition(":")[0]) for c in causes]


def test_valid_metadata_has_no_causes_and_each_refused_value_its_message() -> None:
    good = {"name": "vm-1", "namespace": "team-a", "labels": {"app": "fleet", "example.com/tier": "db"},
            "annotations": {"internal.config.kubernetes.io/path": "vms/a.yaml", "Note": ""}}
    assert object_meta_causes(good, True) == []
    bad = {**good, "name": "VM", "labels": {"app": "-x", "a/b/c": "ok"}, "annotations": {"-bad": "v"}}
    assert _fields(object_meta_causes(bad, True)) == [
        ("metadata.name", "Invalid value"), ("metadata.labels", "Invalid value"),
        ("metadata.labels", "Invalid value"), ("metadata.annotations", "Invalid value")]
    huge = {**good, "annotations": {"a": "x" * (256 * 1024)}}
    assert _fields(object_meta_causes(huge, True)) == [("metadata.annotations", "Too long")]


def test_a_missing_namespace_is_required_unless_defaulted() -> None:
    assert _fields(object_meta_causes({"name": "a"}, True)) == [("metadata.namespace", "Required value")]
    assert object_meta_causes({"name": "a"}, True, namespace_defaulted=True) == []
    found: list[Cause] = []
    metadata_problems({"name": "a"}, False, ("metadata",), found)  # a KRM item's namespace is default
    assert found == []


def test_mistyped_fields_are_skipped_not_read() -> None:
    found: list[Cause] = []
    metadata_problems({"name": 5, "labels": {"ok": "v", "bad": 1}, "generation": -1}, False, ("spec", "metadata"),
                      found)
    assert _fields(found) == [("spec.metadata.name", "Required value"), ("spec.metadata.generation", "Invalid value")]
