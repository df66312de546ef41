"""``revisions`` mode: pin VMs to content-addressed ControllerRevisions, idempotently."""

from __future__ import annotations

import json
from typing import Any

from tests.builders import instancetype, make_vm, preference
from tests.render_support import render
from krm_fn.render.spec import RendererSpec, RevisionsSpec

PER_VM = RendererSpec()
SHARED = RendererSpec(revisions=RevisionsSpec(scope="shared"))


def _render(items: list[Any], spec: RendererSpec = PER_VM, catalog: list[Any] | None = None) -> tuple[list[Any], list[Any]]:
    before = json.dumps(items, sort_keys=True)
    out, results = render(items, spec, catalog or [])
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


def test_vms_without_a_namespace_get_revisions_without_one() -> None:
    for spec in (PER_VM, SHARED):
        vm = make_vm(namespace=None, instancetype={"name": "it"}, preference={"name": "pref"})
        out, results = _render([instancetype(), preference(), vm], spec)
        crs = [o for o in out if o["kind"] == "ControllerRevision"]
        assert results == [] and len(crs) == 2
        assert all("namespace" not in cr["metadata"] for cr in crs)
        again, _ = _render(out, spec)
        assert all(a is b for a, b in zip(again, out)) and len(again) == len(out)


def test_shared_scope_one_revision_per_namespace() -> None:
    vms = [make_vm(name=f"vm{i}", namespace=ns, instancetype={"name": "it"})
           for i, ns in enumerate(["a", "a", "b", "b", "b"])]
    out, _ = _render([instancetype(), *vms], SHARED)
    crs = [o for o in out if o["kind"] == "ControllerRevision"]
    assert sorted(cr["metadata"]["namespace"] for cr in crs) == ["a", "b"]
    assert len({cr["metadata"]["name"] for cr in crs}) == 1  # same content, same name, one per namespace
    for vm in out[1:6]:
        assert vm["spec"]["instancetype"]["revisionName"] == crs[0]["metadata"]["name"]


def test_no_namespace_is_the_default_namespace_for_shared_revisions() -> None:
    """One rule for "no namespace" (issue 15): an object without one lands in ``default`` (kubectl, kustomize's
    resource ids, our lookups). A VM without a namespace and one in ``default`` need the same revision: it is
    written once, as the first of them has it (two copies would be one object twice to kustomize)."""
    for order in (["", "default"], ["default", ""]):
        vms = [make_vm(name=f"vm{i}", namespace=ns or None, instancetype={"name": "it"}) for i, ns in enumerate(order)]
        out, results = _render([instancetype(), *vms], SHARED)
        crs = [o for o in out if o["kind"] == "ControllerRevision"]
        assert results == [] and len(crs) == 1
        assert crs[0]["metadata"].get("namespace") == (order[0] or None)
        assert {vm["spec"]["instancetype"]["revisionName"] for vm in out[1:3]} == {crs[0]["metadata"]["name"]}
        again, _ = _render(out, SHARED)
        assert all(a is b for a, b in zip(again, out)) and len(again) == len(out)


def test_namespaced_and_cluster_kinds_of_one_name_get_different_revisions() -> None:
    ns_it = {**instancetype(cpu=4), "kind": "VirtualMachineInstancetype"}
    ns_it["metadata"] = {**ns_it["metadata"], "namespace": "ns1"}
    a = make_vm(name="a", instancetype={"name": "it"})
    b = make_vm(name="b", instancetype={"name": "it", "kind": "VirtualMachineInstancetype"})
    out, results = _render([instancetype(), ns_it, a, b], SHARED)
    crs = [o for o in out if o["kind"] == "ControllerRevision"]
    assert results == [] and len({cr["metadata"]["name"] for cr in crs}) == 2
    assert {cr["data"]["kind"] for cr in crs} == {"VirtualMachineClusterInstancetype", "VirtualMachineInstancetype"}


def test_missing_pin_is_reported_as_such_in_revisions_and_validate_modes() -> None:
    vm = make_vm(instancetype={"name": "it", "revisionName": "gone"}, preference={"name": "pref"})
    for spec in (PER_VM, RendererSpec(mode="validate")):
        out, results = _render([instancetype(), preference(requirements={"memory": {"guest": "1Gi"}}), vm], spec)
        assert out[2] is vm and [r.severity for r in results] == ["error"]
        assert results[0].message.startswith(
            'controllerrevisions.apps "gone" not found: spec.instancetype.revisionName')
        assert results[0].field_path == "spec.instancetype.revisionName"
    out, results = _render([instancetype(), preference(), vm], RendererSpec(revisions=RevisionsSpec(repin=True)))
    assert results == [] and out[2]["spec"]["instancetype"]["revisionName"] != "gone"  # repin recovers


def test_sync_wave_is_opt_in_and_idempotent() -> None:
    plain, _ = _render([instancetype(), _vm(pref=False)])
    assert "argocd.argoproj.io/sync-wave" not in plain[2]["metadata"]["annotations"]
    waved = RendererSpec(revisions=RevisionsSpec(sync_wave=-1))
    out, _ = _render([instancetype(), _vm(pref=False)], waved)
    assert out[2]["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "-1"
    assert out[2]["metadata"]["name"] == plain[2]["metadata"]["name"]  # annotations are not content
    again, _ = _render(out, waved)
    assert all(a is b for a, b in zip(again, out))
    # switched on later: the revisions already in the items get it too, nothing else changes
    later, _ = _render(plain, waved)
    assert later[1] is plain[1] and later[2] is not plain[2]
    assert later[2]["metadata"]["annotations"] == {**plain[2]["metadata"]["annotations"],
                                                   "argocd.argoproj.io/sync-wave": "-1"}
    # validate and expand never change a revision
    for mode in ("validate", "expand"):
        spec = RendererSpec(mode=mode, revisions=RevisionsSpec(sync_wave=-1))
        out, _ = _render(plain, spec)
        assert out[2] is plain[2]


def test_sync_wave_config_keys() -> None:
    from krm_fn.config import load

    typed = load({"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
                  "metadata": {"name": "r"}, "spec": {"revisions": {"syncWave": -1}}})
    assert typed.spec.revisions.sync_wave == -1
    flat = load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "r"},
                 "data": {"revisions.syncWave": "-1", "revisions.scope": "shared"}})
    assert flat.spec.revisions.sync_wave == -1 and flat.spec.revisions.scope == "shared"
