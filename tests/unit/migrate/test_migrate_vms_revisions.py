"""spec.flavor VMs and legacy ControllerRevisions (krm_fn.render.migrate.vm, .revision, the walk in __init__)."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest

from krm_fn.kube.api import LABEL_OBJECT_VERSION
from krm_fn.render.migrate.items import migrate
from tests import builders

V1B1 = "instancetype.kubevirt.io/v1beta1"
NS = "legacy"


def vm(name: str = "vm", **spec: Any) -> dict[str, Any]:
    return builders.vm(name, NS, annotations={"config.kubernetes.io/path": "vms.yaml"}, **spec)


def flavor(name: str, *profiles: dict[str, Any], kind: str = "VirtualMachineFlavor") -> dict[str, Any]:
    body: dict[str, Any] = {"profiles": list(profiles)} if profiles else {
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}
    md = {"name": name} if "Cluster" in kind else {"name": name, "namespace": NS}
    return {"apiVersion": "flavor.kubevirt.io/v1alpha1", "kind": kind, "metadata": md, **body}


def prof(name: str, default: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "cpu": {"sockets": 1}, "memory": {"guest": "1Gi"}}
    if default:
        out["default"] = True
    return out


def cr(name: str, data: Any, labels: dict[str, str] | None = None, path: str = "revs.yaml",
       index: int = 0) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, "namespace": NS}
    if labels is not None:
        md["labels"] = labels
    md["annotations"] = {"internal.config.kubernetes.io/path": path, "internal.config.kubernetes.io/index": str(index)}
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": md, "data": data, "revision": 0}


def spec_revision(spec: dict[str, Any], api_version: str = "instancetype.kubevirt.io/v1alpha1") -> dict[str, Any]:
    return {"apiVersion": api_version, "spec": base64.b64encode(json.dumps(spec).encode()).decode()}


def alpha2_pref(name: str = "fedora") -> dict[str, Any]:
    return {"apiVersion": "instancetype.kubevirt.io/v1alpha2", "kind": "VirtualMachineClusterPreference",
            "metadata": {"name": name, "uid": "u-1", "generation": 2},
            "spec": {"cpu": {"preferredCPUTopology": "preferSockets"}}}


def run(items: list[Any], shared: bool = False) -> tuple[list[Any], list[Any]]:
    before = copy.deepcopy(items)
    out, results = migrate(items, shared_revisions=shared)
    assert items == before, "migrate mutated its input"
    again, more = migrate(out, shared_revisions=shared)
    assert all(a is b for a, b in zip(again, out)) and len(again) == len(out), "migrate is not idempotent"
    assert [r for r in more if r.severity != "error"] == []
    return out, results


# --- spec.flavor ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("old", "new"), [
    ("VirtualMachineFlavor", "VirtualMachineInstancetype"), ("virtualmachineflavors", "VirtualMachineInstancetype"),
    ("VirtualMachineClusterFlavor", "VirtualMachineClusterInstancetype"),
    ("virtualmachineclusterflavor", "VirtualMachineClusterInstancetype"), ("", ""),
])
def test_flavor_matcher_becomes_instancetype(old: str, new: str) -> None:
    src = vm(flavor={"kind": old, "name": "small", "revisionName": "r"}, preference={"name": "p"})
    (out,), results = run([src])
    assert list(out["spec"]) == ["instancetype", "preference", "template"]
    assert out["spec"]["instancetype"] == {"kind": new, "name": "small", "revisionName": "r"}
    assert out["spec"]["preference"] is src["spec"]["preference"]
    assert [(r.severity, r.field_path) for r in results] == [("warning", "spec.instancetype")]


def test_absent_kind_stays_absent() -> None:
    (out,), results = run([vm(flavor={"name": "small"})])
    assert out["spec"]["instancetype"] == {"name": "small"}
    assert "kind default VirtualMachineClusterFlavor" in results[0].message


def test_vm_without_flavor_is_the_same_object() -> None:
    src = vm(instancetype={"name": "x"})
    out, results = run([src])
    assert out[0] is src and results == []


@pytest.mark.parametrize(("spec", "path"), [
    ({"flavor": {"name": "a"}, "instancetype": {"name": "b"}}, "spec.flavor"),
    ({"flavor": {"name": "a", "kind": "VirtualMachineInstancePreset"}}, "spec.flavor.kind"),
    ({"flavor": "a"}, "spec.flavor"),
])
def test_vm_errors(spec: dict[str, Any], path: str) -> None:
    src = vm(**spec)
    out, results = migrate([src])
    assert out[0] is src and [(r.severity, r.field_path) for r in results] == [("error", path)]


def test_profile_of_the_default_is_dropped() -> None:
    items = [flavor("f", prof("a"), prof("b", default=True)), vm(flavor={"kind": "VirtualMachineFlavor", "name": "f",
                                                                           "profile": "b"})]
    out, results = run(items)
    assert out[1]["spec"]["instancetype"] == {"kind": "VirtualMachineInstancetype", "name": "f"}
    assert 'profile "b" dropped' in results[-1].message


def test_other_profile_is_an_error() -> None:
    items = [flavor("f", prof("a"), prof("b", default=True)), vm(flavor={"kind": "VirtualMachineFlavor", "name": "f",
                                                                           "profile": "a"})]
    out, results = migrate(items)
    assert out[1] is items[1]
    assert [(r.severity, r.field_path) for r in results][-1] == ("error", "spec.flavor.profile")
    assert 'made from profile "b"' in results[-1].message


def test_profile_of_an_unknown_or_undecided_flavor_is_an_error() -> None:
    src = vm(flavor={"name": "elsewhere", "profile": "a"})
    out, results = migrate([src])
    assert out[0] is src and "not in the input" in results[0].message
    items = [flavor("f", prof("a"), prof("b"), kind="VirtualMachineClusterFlavor"),
             vm(flavor={"name": "f", "profile": "a"})]
    out, results = migrate(items)
    assert out == items and [r.severity for r in results] == ["error", "error"]


def test_profile_with_a_spec_flavor_is_dropped() -> None:
    (_, out), results = run([flavor("f"), vm(flavor={"kind": "VirtualMachineFlavor", "name": "f", "profile": "x"})])
    assert out["spec"]["instancetype"] == {"kind": "VirtualMachineInstancetype", "name": "f"}
    assert "the flavor has a spec" in results[-1].message


def test_flavor_lookup_is_namespaced() -> None:
    other = flavor("f", prof("a"), prof("b", default=True))
    other["metadata"]["namespace"] = "elsewhere"
    _, results = migrate([other, vm(flavor={"kind": "VirtualMachineFlavor", "name": "f", "profile": "b"})])
    assert results[-1].severity == "error" and "not in the input" in results[-1].message


# --- ControllerRevisions ----------------------------------------------------------------------------------
def test_spec_revision_is_replaced_in_place_and_the_vm_repointed() -> None:
    legacy = cr("old", spec_revision({"cpu": {"guest": 2, "model": ""}, "memory": {"guest": "2Gi"}}),
                labels={"team": "db"}, index=4)
    src = vm("db", instancetype={"kind": "VirtualMachineInstancetype", "name": "small", "revisionName": "old"})
    (new_cr, new_vm), results = run([legacy, src])
    name = new_cr["metadata"]["name"]
    assert name.startswith("db-small-v1beta1-") and name.endswith("-1")
    assert new_vm["spec"]["instancetype"]["revisionName"] == name
    assert new_cr["metadata"]["labels"]["team"] == "db"
    assert new_cr["metadata"]["labels"][LABEL_OBJECT_VERSION] == "v1beta1"
    assert new_cr["metadata"]["annotations"] == legacy["metadata"]["annotations"]
    assert new_cr["data"] == {"apiVersion": V1B1, "kind": "VirtualMachineInstancetype",
                              "metadata": {"name": "small", "namespace": NS},
                              "spec": {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}}}
    assert [r.field_path for r in results] == ["metadata.name", "data.spec.cpu.model", "spec.instancetype.revisionName"]
    assert all(r.severity == "warning" for r in results)


def test_json_string_data_and_shared_revision_for_two_vms() -> None:
    legacy = cr("old", json.dumps(alpha2_pref()))
    vms = [vm("a", preference={"name": "fedora", "revisionName": "old"}),
           vm("b", preference={"name": "fedora", "revisionName": "old"})]
    out, results = run([legacy, *vms])
    assert [o["metadata"]["name"][:9] for o in out] == ["a-fedora-", "a", "b", "b-fedora-"]
    assert out[3]["metadata"]["annotations"] == {"internal.config.kubernetes.io/path": "revs.yaml",
                                                 "internal.config.kubernetes.io/index": "1"}
    assert out[0]["data"]["spec"] == {"cpu": {"preferredCPUTopology": "sockets"}}
    assert out[0]["data"]["metadata"] == {"name": "fedora", "uid": "u-1", "generation": 2}
    assert out[0]["metadata"]["labels"]["instancetype.kubevirt.io/object-generation"] == "2"
    # shared scope: one revision for both
    out, _ = run([legacy, *vms], shared=True)
    assert len(out) == 3 and out[0]["metadata"]["name"].startswith("fedora-v1beta1-")
    assert out[1]["spec"]["preference"]["revisionName"] == out[2]["spec"]["preference"]["revisionName"]


def test_replacement_already_in_the_input_removes_the_legacy_revision() -> None:
    legacy = cr("old", alpha2_pref())
    src = vm("a", preference={"name": "fedora", "revisionName": "old"})
    out, _ = migrate([legacy, src])
    migrated_cr, migrated_vm = out
    out, results = migrate([legacy, migrated_cr, src])
    assert [o["metadata"]["name"] for o in out] == [migrated_cr["metadata"]["name"], "a"]
    assert out[0] is migrated_cr and out[1] == migrated_vm
    assert "removed" in results[0].message


def test_v1beta1_data_without_label_keeps_its_name() -> None:
    data = {"apiVersion": V1B1, "kind": "VirtualMachineClusterInstancetype",
            "metadata": {"name": "u1.small", "uid": "u", "generation": 3}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}
    legacy = cr("keep", data, labels={LABEL_OBJECT_VERSION: "v1alpha2", "instancetype.kubevirt.io/object-kind": "X"})
    src = vm(instancetype={"name": "u1.small", "revisionName": "keep"})
    (new_cr, new_vm), results = run([legacy, src])
    assert new_vm is src
    assert new_cr["metadata"]["name"] == "keep" and new_cr["data"] is legacy["data"]
    assert new_cr["metadata"]["labels"] == {
        LABEL_OBJECT_VERSION: "v1beta1", "instancetype.kubevirt.io/object-kind": "X",
        "instancetype.kubevirt.io/object-name": "u1.small", "instancetype.kubevirt.io/object-generation": "3",
        "instancetype.kubevirt.io/object-uid": "u"}
    assert [r.field_path for r in results] == ["metadata.labels"]


@pytest.mark.parametrize(("data", "words"), [
    ({"name": "small", "cpu": {}}, "Object 'Kind' is missing"),
    ({"apiVersion": "instancetype.kubevirt.io/v1alpha3", "kind": "VirtualMachineInstancetype"}, 'no kind "Virtual'),
    (spec_revision({"devices": {}}), "not an instancetype spec"),
    ({"apiVersion": "instancetype.kubevirt.io/v1alpha1", "spec": "!!!"}, "does not decode"),
    ("{not json", "not JSON"),
    (alpha2_pref(), "not an instancetype"),
])
def test_undecodable_revision_is_an_error_on_the_vm(data: Any, words: str) -> None:
    legacy = cr("bad", data, labels={"instancetype.kubevirt.io/object-name": "x"})
    src = vm(instancetype={"name": "x", "revisionName": "bad"})
    out, results = migrate([legacy, src])
    assert out[0] is legacy and out[1] is src
    assert [(r.severity, r.field_path) for r in results] == [("error", "spec.instancetype.revisionName")]
    assert words in results[0].message and 'revisionName to ""' in results[0].message


def test_unreferenced_revisions() -> None:
    legacy = cr("lonely", alpha2_pref())
    spec_rev = cr("lonely2", spec_revision({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}))
    broken = cr("broken", {"apiVersion": "instancetype.kubevirt.io/v1", "kind": "Nope"})
    foreign = cr("sts-7d9f", {"spec": {"template": {}}}, labels={"controller.kubernetes.io/hash": "7d9f"})
    current = cr("ok", {"apiVersion": V1B1, "kind": "VirtualMachinePreference", "spec": {}},
                 labels={LABEL_OBJECT_VERSION: "v1beta1"})
    items = [legacy, spec_rev, broken, foreign, current]
    out, results = migrate(items)
    assert all(a is b for a, b in zip(out, items))
    assert [(r.severity, r.resource_ref.name if r.resource_ref else None) for r in results] == [
        ("warning", "lonely"), ("warning", "lonely2"), ("error", "broken")]


def test_revision_in_another_namespace_is_not_used() -> None:
    legacy = cr("old", alpha2_pref())
    legacy["metadata"]["namespace"] = "other"
    src = vm(preference={"name": "fedora", "revisionName": "old"})
    out, results = migrate([legacy, src])
    assert out[1] is src and [r.severity for r in results] == ["warning"]  # unreferenced legacy revision


def test_flavor_vm_with_legacy_revision() -> None:
    legacy = cr("old", {"apiVersion": "flavor.kubevirt.io/v1alpha1", "kind": "VirtualMachineFlavor",
                        "metadata": {"name": "small", "namespace": NS},
                        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}})
    src = vm(flavor={"kind": "VirtualMachineFlavor", "name": "small", "revisionName": "old"})
    (new_cr, new_vm), results = run([legacy, src])
    assert new_vm["spec"]["instancetype"]["revisionName"] == new_cr["metadata"]["name"]
    assert new_cr["data"]["kind"] == "VirtualMachineInstancetype"
    assert [r.field_path for r in results] == ["metadata.name", "spec.instancetype", "spec.instancetype.revisionName"]


def test_lists_are_walked() -> None:
    src = vm(flavor={"name": "a"})
    wrapper = {"apiVersion": "v1", "kind": "List", "items": [src, {"kind": "ConfigMap"}]}
    (out,), results = run([wrapper])
    assert out is not wrapper and out["items"][1] is wrapper["items"][1]
    assert "instancetype" in out["items"][0]["spec"] and len(results) == 1
    untouched = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "ConfigMap"}]}
    assert migrate([untouched])[0][0] is untouched
