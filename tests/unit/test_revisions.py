"""ControllerRevisions built the way KubeVirt stores them."""

from __future__ import annotations

from typing import Any
from tests.builders import instancetype, make_vm
from tests.engine_support import build_revision, revision_name


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


def test_content_digest_ignores_key_order_only() -> None:
    from krm_fn.render.revisions import content_digest

    a: dict[str, Any] = {"apiVersion": "x", "kind": "k", "metadata": {"name": "n"},
         "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}
    b = {"spec": {"memory": {"guest": "1Gi"}, "cpu": {"guest": 1}}, "metadata": {"name": "n"},
         "kind": "k", "apiVersion": "x"}
    assert content_digest(a) == content_digest(b) and len(content_digest(a)) == 16
    assert content_digest(a) != content_digest({**a, "spec": {**a["spec"], "cpu": {"guest": 2}}})


def test_pinned_name_is_a_bounded_dns_subdomain() -> None:
    from krm_fn.render.revisions import PinnedContent, pinned_name

    content = PinnedContent.of(instancetype("u1.small"), "VirtualMachineClusterInstancetype")
    assert pinned_name("vm-u1.small", content) == f"vm-u1.small-v1beta1-{content.digest}-1"
    long_a, long_b = pinned_name("a" * 250 + "-x", content), pinned_name("a" * 250 + "-y", content)
    assert len(long_a) == 253 and long_a != long_b and long_a.endswith(f"-v1beta1-{content.digest}-1")


def test_sync_wave_helpers() -> None:
    from krm_fn.kubevirt.revision import is_instancetype_revision
    from krm_fn.render.revisions import build_pinned_revision, with_sync_wave

    cr = build_pinned_revision(make_vm(), instancetype(), "VirtualMachineClusterInstancetype", shared=False)
    assert is_instancetype_revision(cr)
    assert not is_instancetype_revision({"apiVersion": "apps/v1", "kind": "ControllerRevision",
                                         "metadata": {"name": "x"}})
    waved = with_sync_wave(cr, -1)
    assert waved["metadata"]["annotations"] == {"argocd.argoproj.io/sync-wave": "-1"}
    assert "annotations" not in cr["metadata"]
    assert with_sync_wave(waved, -1) is waved
