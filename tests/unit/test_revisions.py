"""ControllerRevisions built the way KubeVirt stores them."""

from __future__ import annotations

from krm_fn.revisions import build_revision, revision_name
from tests.engine_support import instancetype, make_vm


def test_revision_layout() -> None:
    it = instancetype("u1.small", cpu=1, memory="2Gi")
    it["metadata"].update({"uid": "abc", "generation": 3, "labels": {"l": "v"}, "annotations": {"a": "b"},
                           "resourceVersion": "7", "finalizers": ["f"]})
    vm = make_vm(name="vm1")
    vm["metadata"]["uid"] = "vm-uid"
    cr = build_revision(vm, it, "VirtualMachineClusterInstancetype")
    assert cr["metadata"] == {
        "name": "vm1-u1.small-v1beta1-abc-3",
        "namespace": "ns1",
        "labels": {
            "instancetype.kubevirt.io/object-generation": "3",
            "instancetype.kubevirt.io/object-kind": "VirtualMachineClusterInstancetype",
            "instancetype.kubevirt.io/object-name": "u1.small",
            "instancetype.kubevirt.io/object-uid": "abc",
            "instancetype.kubevirt.io/object-version": "v1beta1",
        },
        "ownerReferences": [{"apiVersion": "kubevirt.io/v1", "blockOwnerDeletion": True, "controller": True,
                             "kind": "VirtualMachine", "name": "vm1", "uid": "vm-uid"}],
    }
    assert cr["data"] == {
        "apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
        "metadata": {"name": "u1.small", "uid": "abc", "generation": 3, "resourceVersion": "7"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}},
    }
    assert cr["revision"] == 0 and cr["kind"] == "ControllerRevision" and cr["apiVersion"] == "apps/v1"


def test_no_owner_reference_without_a_vm_uid_and_go_round_trip_of_data() -> None:
    pref = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterPreference",
            "metadata": {"name": "p", "uid": "u", "generation": 1},
            "spec": {"features": {"preferredApic": {"enabled": True, "endOfInterrupt": False}}}}
    cr = build_revision(make_vm(), pref, "VirtualMachineClusterPreference")
    assert "ownerReferences" not in cr["metadata"]
    assert cr["data"]["spec"] == {"features": {"preferredApic": {"enabled": True}}}


def test_revision_name() -> None:
    assert revision_name("vm", "it", "uid", 2) == "vm-it-v1beta1-uid-2"
