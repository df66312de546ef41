"""``render`` in expand / validate mode: the item contract (identity, no mutation, new dicts), results,
the stage each rejection comes from, and kpt annotations."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from krm_fn.kubevirt.cluster import ClusterConfig
from tests.builders import MEMORY, instancetype, make_object, make_vm, preference
from tests.render_support import render
from krm_fn.render.spec import RendererSpec

EXPAND = RendererSpec(mode="expand")


def _render(items: list[dict[str, Any]], spec: RendererSpec = EXPAND) -> tuple[list[Any], list[Any]]:
    before = json.dumps(items, sort_keys=True)
    out, results = render(items, spec, [])
    assert json.dumps(items, sort_keys=True) == before, "render mutated its input"
    return out, results


def test_plain_vm_and_other_items_pass_through_as_the_same_object() -> None:
    items = [make_vm(), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, instancetype()]
    out, results = _render(items)
    assert results == [] and all(a is b for a, b in zip(items, out))


def test_expanded_vm_is_a_new_dict_with_kpt_annotations_kept() -> None:
    vm = make_vm(instancetype={"name": "it"})
    vm["metadata"]["annotations"] = {"config.kubernetes.io/path": "vms/vm.yaml",
                                     "internal.config.kubernetes.io/index": "0", "mine": "x"}
    out, results = _render([instancetype(), vm])
    assert results == []
    expanded = out[1]
    assert expanded is not vm
    assert expanded["metadata"]["annotations"] == vm["metadata"]["annotations"]
    assert "instancetype" not in expanded["spec"]
    assert expanded["spec"]["template"]["spec"]["domain"]["cpu"] == {"sockets": 2, "cores": 1, "threads": 1}


def test_validate_mode_changes_nothing() -> None:
    items = [instancetype(), make_vm(instancetype={"name": "it"})]
    out, results = _render(items, RendererSpec(mode="validate"))
    assert results == [] and all(a is b for a, b in zip(items, out))


def test_rejected_vm_stays_and_gets_an_error_result() -> None:
    vm = make_vm(instancetype={"name": "ghost"})
    vm["metadata"]["annotations"] = {"config.kubernetes.io/path": "vms/vm.yaml"}
    out, results = _render([vm, make_vm(name="ok")])
    assert out[0] is vm and len(results) == 1
    result = results[0].to_obj()
    assert result["severity"] == "error"
    assert result["resourceRef"] == {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "name": "vm",
                                     "namespace": "ns1"}
    assert result["file"] == {"path": "vms/vm.yaml"}
    assert result["field"] == {"path": "spec.instancetype"}
    assert 'virtualmachineclusterinstancetypes.instancetype.kubevirt.io "ghost" not found' in result["message"]


@pytest.mark.parametrize(("items", "stage", "text"), [
    pytest.param([make_vm({"domain": {"devices": {"bogus": 1}}}, instancetype={"name": "it"}), instancetype()],
                 "schema", "spec.template.spec.domain.devices.bogus in body is a forbidden property", id="schema"),
    pytest.param([make_vm(instancetype={"inferFromVolume": "nope"})], "mutate",
                 "unable to find volume nope to infer defaults", id="mutate"),
    pytest.param([make_vm({"domain": {"devices": {}, "cpu": {"cores": 2}}}, instancetype={"name": "it"}),
                  instancetype()], "admit",
                 "VM field(s) spec.template.spec.domain.cpu.cores conflicts with selected instance type", id="admit"),
    pytest.param([make_vm(instancetype={"name": "it"}, preference={"name": "pref"}), instancetype(cpu=3),
                  preference(cpu={"preferredCPUTopology": "spread"})], "admit",
                 "3 vCPUs provided by the instance type are not divisible", id="spread"),
    pytest.param([make_vm(instancetype={"name": "it", "kind": "Flavor"})], "expand",
                 "got unexpected kind in InstancetypeMatcher: Flavor", id="expand"),
])
def test_stages(items: list[dict[str, Any]], stage: str, text: str) -> None:
    out, results = _render(items)
    # the root causes lead (krm_fn.render.hints: find), KubeVirt's verdict follows them
    verdict = next(r for r in results if dict(r.tags)["stage"] != "find")
    assert dict(verdict.tags)["stage"] == stage and text in verdict.message
    assert all(dict(r.tags)["stage"] == "find" for r in results if r is not verdict)  # hints only


def test_schema_error_inside_a_list_names_the_item_in_the_field() -> None:
    devices = {"interfaces": [{"name": "default", "masquerade": {}}, {"name": "b", "bridge": {}, "modle": "virtio"}]}
    _, results = _render([make_vm({"domain": {"devices": devices}}, instancetype={"name": "it"}), instancetype()])
    assert [r.message for r in results] == ["Object is not a valid VirtualMachine: spec.template.spec.domain.devices."
                                            "interfaces.modle in body is a forbidden property"]
    assert results[0].field_path == "spec.template.spec.domain.devices.interfaces[1].modle"


def test_lookup_failures_are_ignored_at_admission() -> None:
    # the preference requirements fail with the preference alone before expand reports the missing instancetype
    pref = preference(requirements={"memory": {"guest": "2Gi"}})
    _, results = _render([make_vm(instancetype={"name": "ghost"}, preference={"name": "pref"}), pref])
    # the root cause leads ("ghost" is not found), KubeVirt's verdict follows from it
    assert [dict(r.tags)["stage"] for r in results] == ["find", "admit"] and results[1].follows
    assert results[1].message.endswith("failure checking preference requirements: insufficient Memory resources "
                                       "of 0 provided by VirtualMachine, preference requires 2Gi")


def test_ignore_policy_clearing_the_matchers_persists_the_vm_as_is() -> None:
    # the VM requests memory of its own: cleared of its instancetype, its VMI must (the VMI webhook's rule)
    template = {"domain": {"devices": {}, **MEMORY},
                "volumes": [{"name": "containerdisk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]}
    vm = make_vm(template, instancetype={"inferFromVolume": "containerdisk", "inferFromVolumeFailurePolicy": "Ignore"})
    out, results = _render([vm])
    assert results == [] and out[0] is not vm
    assert "instancetype" not in out[0]["spec"] and "architecture" not in out[0]["spec"]["template"]["spec"]


def test_preference_values_the_webhook_persists() -> None:
    dvt = [{"metadata": {"name": "dv"}, "spec": {"source": {"blank": {}},  # a source, as CDI requires
                                                 "storage": {"resources": {"requests": {"storage": "1Gi"}}}}}]
    template = {"domain": {"devices": {}}, "volumes": [{"name": "dv", "dataVolume": {"name": "dv"}}]}
    vm = make_vm(template, preference={"name": "pref"}, dataVolumeTemplates=dvt)
    pref = preference(preferredArchitecture="arm64", volumes={"preferredStorageClassName": "fast"})
    out, _ = _render([vm, pref])
    spec = out[0]["spec"]
    assert spec["template"]["spec"]["architecture"] == "arm64"
    assert spec["template"]["spec"]["domain"]["machine"] == {"type": "virt"}
    assert spec["dataVolumeTemplates"][0]["spec"]["storage"]["storageClassName"] == "fast"


def test_list_wrappers() -> None:
    vm = make_vm(instancetype={"name": "it"})
    wrapper = {"apiVersion": "v1", "kind": "List", "items": [instancetype(), vm]}
    out, results = _render([wrapper])
    assert results == [] and out[0] is not wrapper and out[0]["items"][1] is not vm
    untouched = {"apiVersion": "v1", "kind": "List", "items": [instancetype()]}
    out, _ = _render([untouched])
    assert out[0] is untouched


class _Counted:
    """Catalog objects that count how often they are read."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.objects = objects
        self.reads = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        self.reads += 1
        return iter(self.objects)


def test_catalog_fallback_and_laziness() -> None:
    catalog = _Counted([instancetype("from-catalog", cpu=4)])
    out, results = render([make_vm()], EXPAND, catalog)
    assert catalog.reads == 0 and results == []
    out, results = render([make_vm(instancetype={"name": "from-catalog"})], EXPAND, catalog)
    assert catalog.reads == 1 and results == []
    assert out[0]["spec"]["template"]["spec"]["domain"]["cpu"]["sockets"] == 4


def test_cluster_config_drives_the_defaults() -> None:
    spec = RendererSpec(mode="expand", cluster=ClusterConfig(architecture="arm64",
                                                             default_network_interface="masquerade"))
    out, _ = render([make_vm(instancetype={"name": "it"}), instancetype()], spec, [])
    tspec = out[0]["spec"]["template"]["spec"]
    assert tspec["architecture"] == "arm64" and tspec["domain"]["machine"] == {"type": "virt"}
    assert tspec["domain"]["devices"]["interfaces"] == [{"masquerade": {}, "name": "default"}]


def test_network_default_error_after_conflicts_at_admission() -> None:
    spec = RendererSpec(mode="expand", cluster=ClusterConfig(default_network_interface="slirp"))
    _, results = render([make_vm(instancetype={"name": "it"}), instancetype()], spec, [])
    assert dict(results[0].tags)["stage"] == "admit"
    assert results[0].message.endswith("slirp interface is deprecated as of v1.3")
    _, results = render([make_vm({"domain": {"devices": {}, "cpu": {"cores": 1}}}, instancetype={"name": "it"}),
                         instancetype()], spec, [])
    assert "conflicts with selected instance type" in results[0].message


def test_namespaced_objects_follow_the_vm_namespace() -> None:
    it = make_object("VirtualMachineInstancetype", "it", {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}},
                     namespace="ns1")
    out, results = _render([it, make_vm(instancetype={"name": "it", "kind": "VirtualMachineInstancetype"}),
                            make_vm(name="b", namespace="ns2",
                                    instancetype={"name": "it", "kind": "VirtualMachineInstancetype"})])
    assert [dict(r.tags)["stage"] for r in results] == ["find", "expand"]  # the root cause (its hint) leads
    assert all(r.resource_ref is not None and r.resource_ref.namespace == "ns2" for r in results)
    assert 'exists in namespace "ns1"' in results[0].message
