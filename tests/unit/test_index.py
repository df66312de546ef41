"""The lookup index: kinds, groups, namespaces, List wrappers."""

from __future__ import annotations

from krm_fn.index import Index
from tests.builders import instancetype, make_object


def test_wrappers_are_looked_through_and_groups_checked() -> None:
    pvc = make_object("PersistentVolumeClaim", "c", {}, namespace="ns1")
    fake = {**make_object("PersistentVolumeClaim", "d", {}, namespace="ns1"), "apiVersion": "example.com/v1"}
    index = Index([{"apiVersion": "v1", "kind": "List", "items": [pvc, fake, instancetype("it")]}])
    assert index.get("PersistentVolumeClaim", "ns1", "c") is pvc
    assert index.get("PersistentVolumeClaim", "ns1", "d") is None
    assert index.get("VirtualMachineClusterInstancetype", "anything", "it") is not None


def test_missing_namespace_means_default_and_first_wins() -> None:
    a = make_object("VirtualMachinePreference", "p", {"x": 1})
    b = make_object("VirtualMachinePreference", "p", {"x": 2}, namespace="default")
    index = Index([a, b])
    assert index.get("VirtualMachinePreference", "", "p") is a
    assert index.get("VirtualMachinePreference", "default", "p") is a
    assert index.get("VirtualMachinePreference", "ns1", "p") is None
