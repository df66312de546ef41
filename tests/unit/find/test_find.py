"""Lookup: kinds (case-insensitive, singular/plural, empty = cluster), namespaces, revisionName, status
refs, the catalog fallback and its laziness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from krm_fn.index import ANY_NAMESPACE, Index
from krm_fn.kubevirt.caches import Caches
from krm_fn.kubevirt.find.found import FindError
from krm_fn.kubevirt.find.spec import find_spec
from tests.builders import instancetype, make_object, make_vm, preference

NS_IT = make_object("VirtualMachineInstancetype", "small", {"cpu": {"guest": 1}}, namespace="ns1")
CL_IT = instancetype("small", cpu=2)
NS_PREF = make_object("VirtualMachinePreference", "p", {"preferredSubdomain": "ns"}, namespace="ns1")
CL_PREF = preference("p", preferredSubdomain="cluster")


@pytest.mark.parametrize(("kind", "guest"), [
    ("", 2), ("VirtualMachineClusterInstancetype", 2), ("virtualmachineclusterinstancetypes", 2),
    ("VirtualMachineInstancetype", 1), ("VirtualMachineInstanceType", 1), ("virtualmachineinstancetypes", 1),
])
def test_instancetype_kinds(kind: str, guest: int) -> None:
    vm = make_vm(instancetype={"name": "small", "kind": kind})
    found = find_spec(vm, "instancetype", Index([NS_IT, CL_IT]))
    assert found is not None and found.spec["cpu"]["guest"] == guest


@pytest.mark.parametrize(("kind", "value"), [("", "cluster"), ("virtualmachinepreference", "ns"),
                                             ("VirtualMachineClusterPreferences", "cluster")])
def test_preference_kinds(kind: str, value: str) -> None:
    vm = make_vm(preference={"name": "p", "kind": kind})
    found = find_spec(vm, "preference", Index([NS_PREF, CL_PREF]))
    assert found is not None and found.spec["preferredSubdomain"] == value


@pytest.mark.parametrize(("family", "matcher", "message"), [
    ("instancetype", {"name": "small", "kind": "vmf"}, "got unexpected kind in InstancetypeMatcher: vmf"),
    ("preference", {"name": "p", "kind": "Flavor"}, "got unexpected kind in PreferenceMatcher: Flavor"),
    ("instancetype", {"name": "ghost"},
     'virtualmachineclusterinstancetypes.instancetype.kubevirt.io "ghost" not found'),
    ("instancetype", {"name": "ghost", "kind": "VirtualMachineInstancetype"},
     'virtualmachineinstancetypes.instancetype.kubevirt.io "ghost" not found'),
    ("preference", {"name": "ghost", "kind": "VirtualMachinePreference"},
     'virtualmachinepreferences.instancetype.kubevirt.io "ghost" not found'),
    ("instancetype", {"name": "small", "revisionName": "nope"}, 'controllerrevisions.apps "nope" not found'),
])
def test_errors(family: Any, matcher: dict[str, Any], message: str) -> None:
    vm = make_vm(instancetype=matcher) if family == "instancetype" else make_vm(preference=matcher)
    with pytest.raises(FindError) as err:
        find_spec(vm, family, Index([NS_IT, CL_IT, NS_PREF, CL_PREF]))
    assert err.value.message == message


def test_namespaced_objects_are_looked_up_in_the_vm_namespace() -> None:
    vm = make_vm(namespace="other", instancetype={"name": "small", "kind": "VirtualMachineInstancetype"})
    with pytest.raises(FindError):
        find_spec(vm, "instancetype", Index([NS_IT]))


def _revision(name: str, data: Any, labels: dict[str, str] | None = None) -> dict[str, Any]:
    cr = make_object("ControllerRevision", name, {}, namespace="ns1", labels=labels)
    del cr["spec"]
    cr["data"] = data
    return cr


def _data(kind: str = "VirtualMachineClusterInstancetype", guest: int = 8,
          api_version: str = "instancetype.kubevirt.io/v1beta1") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "small"},
            "spec": {"cpu": {"guest": guest}, "memory": {"guest": "1Gi"}}}


def test_revision_name_wins_without_any_check() -> None:
    vm = make_vm(instancetype={"name": "whatever", "kind": "bogus", "revisionName": "r"})
    found = find_spec(vm, "instancetype", Index([_revision("r", _data())]))
    assert found is not None and found.spec["cpu"]["guest"] == 8 and found.obj is None


@pytest.mark.parametrize(("data", "message"), [
    (_data("VirtualMachinePreference"), "unexpected type in ControllerRevision: *v1beta1.VirtualMachinePreference"),
    # no data: the empty RawExtension is not decoded and the type switch sees a nil object (issue 15)
    (None, "unexpected type in ControllerRevision: <nil>"),
    (_data(api_version="instancetype.kubevirt.io/v1alpha2"),
     'failed to decode object in ControllerRevision: no kind "VirtualMachineClusterInstancetype" is registered for '
     'version "instancetype.kubevirt.io/v1alpha2" in scheme "kubevirt.io/client-go/kubevirt/scheme/register.go:44"'),
])
def test_revision_decoding_errors(data: dict[str, Any] | None, message: str) -> None:
    vm = make_vm(instancetype={"name": "small", "revisionName": "r"})
    with pytest.raises(FindError) as err:
        find_spec(vm, "instancetype", Index([_revision("r", data)]))
    assert err.value.message == message


def test_revision_without_a_data_key() -> None:
    cr = _revision("r", None)
    del cr["data"]
    with pytest.raises(FindError) as err:
        find_spec(make_vm(preference={"name": "p", "revisionName": "r"}), "preference", Index([cr]))
    assert err.value.message == "unexpected type in ControllerRevision: <nil>"


def test_status_ref_used_only_for_the_matching_object_name() -> None:
    label = "instancetype.kubevirt.io/object-name"
    status = {"instancetypeRef": {"controllerRevisionRef": {"name": "r"}}}
    index = Index([CL_IT, _revision("r", _data(), {label: "small"})])
    found = find_spec(make_vm(instancetype={"name": "small"}, status=status), "instancetype", index)
    assert found is not None and found.spec["cpu"]["guest"] == 8
    index = Index([CL_IT, _revision("r", _data(), {label: "other"})])
    found = find_spec(make_vm(instancetype={"name": "small"}, status=status), "instancetype", index)
    assert found is not None and found.spec["cpu"]["guest"] == 2


def test_missing_status_ref_revision_does_not_fall_back() -> None:
    status = {"preferenceRef": {"controllerRevisionRef": {"name": "gone"}}}
    with pytest.raises(FindError):
        find_spec(make_vm(preference={"name": "p"}, status=status), "preference", Index([CL_PREF]))


def test_catalog_is_a_lazy_fallback() -> None:
    calls: list[int] = []

    def catalog() -> Iterator[dict[str, Any]]:  # read when iterated
        calls.append(1)
        yield instancetype("from-catalog", cpu=4)

    index = Index([CL_IT], Index(catalog(), unplaced=ANY_NAMESPACE))
    assert find_spec(make_vm(instancetype={"name": "small"}), "instancetype", index) is not None
    assert calls == []
    found = find_spec(make_vm(instancetype={"name": "from-catalog"}), "instancetype", index)
    assert found is not None and found.spec["cpu"]["guest"] == 4
    find_spec(make_vm(instancetype={"name": "from-catalog"}), "instancetype", index)
    assert calls == [1]


def test_a_live_object_is_found_once_per_caches() -> None:
    caches = Caches()
    vm = make_vm(instancetype={"name": "small"})
    first = find_spec(vm, "instancetype", Index([CL_IT]), caches)
    assert first is not None and list(caches.found.values()) == [first]
    # the same matcher and namespace: the remembered object, even from another index
    assert find_spec(vm, "instancetype", Index([instancetype("small", cpu=8)]), caches) is first
    found = find_spec(vm, "instancetype", Index([instancetype("small", cpu=8)]))
    assert found is not None and found.spec["cpu"]["guest"] == 8


def test_items_win_over_the_catalog() -> None:
    index = Index([CL_IT], Index([instancetype("small", cpu=16)], unplaced=ANY_NAMESPACE))
    found = find_spec(make_vm(instancetype={"name": "small"}), "instancetype", index)
    assert found is not None and found.spec["cpu"]["guest"] == 2
