"""One object identity (krm_fn/kube/identity.py) where there were three, and one ``apiVersion`` -> group where
there were several that disagreed on ``v1``: each rule as apimachinery's ``ParseGroupVersion`` and kustomize's
resource ids have it, and the places that used their own copy now following it."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.config import load
from krm_fn.errors import ConfigError
from krm_fn.kube.api import ANN_INDEX, ANN_PATH
from krm_fn.kube.identity import ObjectId, group_of, object_id
from krm_fn.kube.paths import iter_objects, wrapped_items
from krm_fn.io.resourcelist import upsert
from krm_fn.render.migrate.revision import is_controller_revision, looks_like_ours


@pytest.mark.parametrize(("api_version", "group"), [
    ("v1", ""),  # the core group (one copy took "v1" for the group)
    ("apps/v1", "apps"),
    ("instancetype.kubevirt.io/v1beta1", "instancetype.kubevirt.io"),
    ("", ""),
    (None, ""),
    ("apps", ""),  # a version of the core group, as ParseGroupVersion reads it
    ("instancetype.kubevirt.io/v1/x", "instancetype.kubevirt.io/v1"),  # refused upstream: names no group
])
def test_group_of_is_parse_group_version(api_version: Any, group: str) -> None:
    assert group_of(api_version) == group


def test_an_object_without_a_namespace_is_in_default_whatever_its_version() -> None:
    a = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "K", "metadata": {"name": "n"}}
    b = {"apiVersion": "instancetype.kubevirt.io/v1alpha2", "kind": "K", "metadata": {"name": "n",
                                                                                    "namespace": "default"}}
    assert object_id(a) == object_id(b) == ObjectId("instancetype.kubevirt.io", "K", "default", "n")
    assert object_id({**b, "metadata": {"name": "n", "namespace": "other"}}) != object_id(a)
    assert object_id({"kind": "K", "metadata": "not a mapping"}) == ObjectId("", "K", "default", "")


def test_upsert_replaces_the_same_object_written_in_default_or_another_version() -> None:
    """Generated objects replace the item that is the same object: an item in ``default`` is the object the
    generator writes without a namespace (the upsert's own copy of the id took "" and "default" apart)."""
    given = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype",
             "metadata": {"name": "a", "namespace": "default", "annotations": {ANN_PATH: "a.yaml", ANN_INDEX: "0"}},
             "spec": {"old": 1}}
    new = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype",
           "metadata": {"name": "a"}, "spec": {"new": 1}}
    out = upsert([given], [new], "")
    assert len(out) == 1 and out[0]["spec"] == {"new": 1}
    assert out[0]["metadata"]["annotations"] == {ANN_PATH: "a.yaml", ANN_INDEX: "0"}
    older = {**given, "apiVersion": "instancetype.kubevirt.io/v1alpha2"}
    assert len(upsert([older], [new], "")) == 1


def test_a_revision_is_read_by_its_group() -> None:
    cr = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"},
          "data": {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype"}}
    assert is_controller_revision(cr) and looks_like_ours(cr)
    assert not is_controller_revision({**cr, "apiVersion": "apps"})  # the core group's version "apps"
    assert not looks_like_ours({**cr, "data": {"apiVersion": "instancetype.kubevirt.io/v1beta1/x"}})


def test_a_function_config_in_the_core_group_is_not_ours() -> None:
    """``kubevirt-krm.dev`` alone is a version of the core group: not our group (it was read as our group
    with a wrong version)."""
    with pytest.raises(ConfigError) as err:
        load({"apiVersion": "kubevirt-krm.dev", "kind": "VirtualMachineRenderer", "metadata": {"name": "c"}})
    assert "functionConfig 'kubevirt-krm.dev'/'VirtualMachineRenderer' is not supported" in str(err.value), err.value


def test_wrappers_are_looked_through_once() -> None:
    a, b, c = ({"kind": "K", "metadata": {"name": n}} for n in "abc")
    items: list[Any] = [a, {"kind": "List", "items": [b, {"kind": "ResourceList", "items": [c]}]}, "not an object",
             {"kind": "List", "items": "not a list"}]
    assert list(iter_objects(items)) == [a, b, c, items[3]]
    assert wrapped_items(items[1]) == [b, items[1]["items"][1]]
    assert wrapped_items(items[3]) is None and wrapped_items(a) is None and wrapped_items(None) is None


@pytest.mark.parametrize(("obj", "expected"), [
    pytest.param({"metadata": {"annotations": {"a": "1"}}}, {"a": "1"}, id="mapping"),
    pytest.param({"metadata": {"annotations": None}}, {}, id="null"),
    pytest.param({"metadata": {"annotations": ["a"]}}, {}, id="list"),
    pytest.param({"metadata": {"annotations": "a: 1"}}, {}, id="string"),
    pytest.param({"metadata": "x"}, {}, id="metadata-not-a-mapping"),
    pytest.param({}, {}, id="no-metadata"),
    pytest.param(["not", "an", "object"], {}, id="not-an-object"),
])
def test_annotations_are_read_in_one_place(obj: Any, expected: dict[str, str]) -> None:
    """``metadata.annotations`` as every reader sees it (kube/meta.py): a mapping, or empty when anything on the
    way is not one; the stream's, the ResourceList's and the renderer's readers follow it."""
    from krm_fn.kube.meta import annotations_of
    from krm_fn.render.revisions import with_sync_wave
    from krm_fn.stream import printed, unannotated

    assert annotations_of(obj) == expected
    if isinstance(obj, dict):
        assert unannotated(obj) is obj  # no tracking annotation to drop
        assert printed(obj, None)
        assert with_sync_wave(obj, 2)["metadata"]["annotations"] == {**expected, "argocd.argoproj.io/sync-wave": "2"}
