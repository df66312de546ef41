"""``revisions`` mode: pin VMs to content-addressed ControllerRevisions, idempotently."""

from __future__ import annotations

import json
from typing import Any

from krm_fn.render import RendererSpec, RevisionsSpec, render
from tests.engine_support import instancetype, make_vm, preference

PER_VM = RendererSpec()
SHARED = RendererSpec(revisions=RevisionsSpec(scope="shared"))


def _render(items: list[Any], spec: RendererSpec = PER_VM, catalog: list[Any] | None = None) -> tuple[list[Any], list[Any]]:
    before = json.dumps(items, sort_keys=True)
    out, results = render(items, spec, lambda: catalog or [])
    assert json.dumps(items, sort_keys=True) == before
    return out, results


def _vm(name: str = "vm", path: str | None = "vms/vm.yaml", pref: bool = True) -> dict[str, Any]:
    vm = make_vm(name=name, instancetype={"name": "it"}, preference={"name": "pref"} if pref else None)
    if path:
        vm["metadata"]["annotations"] = {"internal.config.kubernetes.io/path": path,
                                         "internal.config.kubernetes.io/index": "0"}
    return vm


def test_per_vm_pins_both_matchers() -> None:
    items = [instancetype(), preference(), _vm()]
    out, results = _render(items)
    assert results == []
    vm, crs = out[2], out[3:]
    assert [c["kind"] for c in crs] == ["ControllerRevision", "ControllerRevision"]
    it_cr, pref_cr = crs
    assert vm["spec"]["instancetype"] == {"name": "it", "kind": "VirtualMachineClusterInstancetype",
                                          "revisionName": it_cr["metadata"]["name"]}
    assert vm["spec"]["preference"]["revisionName"] == pref_cr["metadata"]["name"]
    assert vm["spec"]["template"] == items[2]["spec"]["template"]  # nothing else changes
    name = it_cr["metadata"]["name"]
    assert name.startswith("vm-it-v1beta1-") and name.endswith("-1")
    assert it_cr["metadata"]["namespace"] == "ns1" and "ownerReferences" not in it_cr["metadata"]
    assert it_cr["metadata"]["labels"]["instancetype.kubevirt.io/object-version"] == "v1beta1"
    assert it_cr["data"]["spec"] == items[0]["spec"]
    assert it_cr["metadata"]["annotations"] == {"internal.config.kubernetes.io/path": "vms/vm.yaml",
                                                "internal.config.kubernetes.io/index": "1"}


def test_second_render_changes_nothing() -> None:
    out, _ = _render([instancetype(), preference(), _vm()])
    again, results = _render(out)
    assert results == [] and len(again) == len(out) and all(a is b for a, b in zip(again, out))


def test_names_follow_content() -> None:
    first, _ = _render([instancetype(), _vm(pref=False)])
    changed, _ = _render([instancetype(cpu=4), _vm(pref=False)])
    assert first[2]["metadata"]["name"] != changed[2]["metadata"]["name"]


def test_shared_scope_one_revision_per_content() -> None:
    items = [instancetype(), preference()] + [_vm(f"vm{i}", f"vms/vm{i}.yaml") for i in range(3)]
    out, _ = _render(items, SHARED)
    crs = [o for o in out if o["kind"] == "ControllerRevision"]
    assert len(crs) == 2
    assert {o["spec"]["instancetype"]["revisionName"] for o in out[2:5]} == {crs[0]["metadata"]["name"]}
    assert crs[0]["metadata"]["name"].startswith("it-v1beta1-")
    assert crs[0]["metadata"]["annotations"]["internal.config.kubernetes.io/path"] == "vms/controllerrevisions.yaml"


def test_catalog_objects_are_pinned_too() -> None:
    vm = make_vm(instancetype={"name": "u1.small"})
    out, results = _render([vm], catalog=[instancetype("u1.small", cpu=1)])
    assert results == [] and out[1]["data"]["metadata"]["name"] == "u1.small"
    assert "annotations" not in out[1]["metadata"]  # the VM has no file: kpt decides


def test_pin_is_kept_with_a_drift_report_and_repin_moves_it() -> None:
    pinned, _ = _render([instancetype(), _vm(pref=False)])
    vm, cr = pinned[1], pinned[2]
    newer = instancetype(cpu=8)
    out, results = _render([newer, vm, cr])
    assert out[1] is vm
    assert [r.severity for r in results] == ["info"] and "has changed since it was pinned" in results[0].message
    out, results = _render([newer, vm, cr], RendererSpec(revisions=RevisionsSpec(repin=True)))
    assert results == [] and out[1]["spec"]["instancetype"]["revisionName"] != vm["spec"]["instancetype"]["revisionName"]
    assert out[3]["data"]["spec"]["cpu"]["guest"] == 8


def test_empty_revision_name_pins_again() -> None:
    pinned, _ = _render([instancetype(), _vm(pref=False)])
    vm = pinned[1]
    cleared = {**vm, "spec": {**vm["spec"], "instancetype": {**vm["spec"]["instancetype"], "revisionName": ""}}}
    out, _ = _render([instancetype(), cleared, pinned[2]])
    assert out[1]["spec"]["instancetype"]["revisionName"] == vm["spec"]["instancetype"]["revisionName"]


def test_missing_pinned_revision_is_an_error() -> None:
    vm = make_vm(instancetype={"name": "it", "revisionName": "gone"})
    out, results = _render([instancetype(), vm])
    assert out[1] is vm and results[0].severity == "error"
    assert 'controllerrevisions.apps "gone" not found' in results[0].message


def test_revision_without_version_label_warns() -> None:
    pinned, _ = _render([instancetype(), _vm(pref=False)])
    cr = {**pinned[2], "metadata": {**pinned[2]["metadata"], "labels": {}}}
    _, results = _render([instancetype(), pinned[1], cr])
    assert [r.severity for r in results] == ["warning"]


def test_rejected_and_plain_vms_stay() -> None:
    bad = make_vm({"domain": {"devices": {}, "cpu": {"cores": 2}}}, instancetype={"name": "it"})
    plain = make_vm(name="plain")
    out, results = _render([instancetype(), bad, plain])
    assert out[1] is bad and out[2] is plain and len(out) == 3 and len(results) == 1


def test_inferred_matchers_are_pinned() -> None:
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": "c", "namespace": "ns1", "labels": {"instancetype.kubevirt.io/default-instancetype": "it"}}}
    vm = make_vm({"domain": {"devices": {}}, "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": "c"}}]},
                 instancetype={"inferFromVolume": "root"})
    out, results = _render([instancetype(), pvc, vm])
    assert results == []
    assert out[2]["spec"]["instancetype"]["name"] == "it" and "inferFromVolume" not in out[2]["spec"]["instancetype"]


def test_long_names_are_cut_without_collisions() -> None:
    a = _vm("a" * 200 + "x", pref=False)
    b = _vm("a" * 200 + "y", pref=False)
    out, _ = _render([instancetype("i" * 60), {**a, "spec": {**a["spec"], "instancetype": {"name": "i" * 60}}},
                      {**b, "spec": {**b["spec"], "instancetype": {"name": "i" * 60}}}])
    names = [o["metadata"]["name"] for o in out if o["kind"] == "ControllerRevision"]
    assert len(names) == 2 and names[0] != names[1] and all(len(n) <= 253 for n in names)
