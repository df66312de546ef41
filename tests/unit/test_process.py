"""The pure core's item handling: upsert of generated objects, path/index annotations."""

from __future__ import annotations

from typing import Any
from krm_fn.kube.api import ANN_INDEX, ANN_PATH
from krm_fn.io.resourcelist import upsert


def obj(kind: str, name: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": kind, "metadata": {"name": name}, **extra}


def test_new_objects_are_appended_with_distinct_path_and_index() -> None:
    out = upsert([], [obj("A", "a1"), obj("A", "a2"), obj("B", "b1")], "cat")
    anns = [(o["metadata"]["annotations"][ANN_PATH], o["metadata"]["annotations"][ANN_INDEX]) for o in out]
    assert anns == [("cat/as.yaml", "0"), ("cat/as.yaml", "1"), ("cat/bs.yaml", "0")]


def test_existing_object_is_replaced_in_place_keeping_annotations() -> None:
    existing = obj("A", "a1", spec={"old": 1})
    existing["metadata"]["annotations"] = {ANN_PATH: "mine.yaml", ANN_INDEX: "3", "note": "keep"}
    other = obj("C", "c")
    out = upsert([other, existing], [obj("A", "a1", spec={"new": 1})], "")
    assert out[0] is other and len(out) == 2
    assert out[1]["spec"] == {"new": 1}
    assert out[1]["metadata"]["annotations"] == {ANN_PATH: "mine.yaml", ANN_INDEX: "3", "note": "keep"}


def test_unchanged_existing_object_stays_the_same_object() -> None:
    first = upsert([], [obj("A", "a1", spec={"x": 1})], "")
    again = upsert(first, [obj("A", "a1", spec={"x": 1})], "")
    assert again[0] is first[0] and len(again) == 1


def test_new_indexes_do_not_collide_with_existing_ones() -> None:
    existing = obj("A", "a0")
    existing["metadata"]["annotations"] = {ANN_PATH: "as.yaml", ANN_INDEX: "0"}
    out = upsert([existing], [obj("A", "a1")], "")
    assert out[1]["metadata"]["annotations"][ANN_INDEX] == "1"
