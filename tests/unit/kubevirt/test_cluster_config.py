"""A ``KubeVirt`` item among the inputs is the cluster's configuration (issue 36, item 2).

Its feature gates decide the gated rules, its other fields are the ``spec.cluster`` shorthands' fields, and it
passes through unchanged (or is read and not printed when it is local-config).
The messages are those of ``shared/conformance-vms`` cases 242 and 243 (VSOCK), each release's.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.cluster import ClusterConfig, merged
from krm_fn.kubevirt.featuregates import enabled
from krm_fn.kubevirt_versions import RELEASES
from tests import builders

VSOCK_OFF = "VSOCK feature gate is not enabled in kubevirt-config"
MODES = ("validate", "revisions", "expand")


def kubevirt(**configuration: Any) -> Obj:
    return {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
            "spec": {"configuration": configuration}}


def vsock_vm() -> Obj:
    return builders.make_vm({"domain": {"devices": {"autoattachVSOCK": True}, **builders.MEMORY},
                             "volumes": [{"name": "containerdisk",
                                          "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]})


def run(items: list[Obj], mode: str, **spec: Any) -> tuple[Obj, int]:
    return builders.run_krm(items, builders.renderer(mode, catalog=builders.NO_CATALOG, **spec))


@pytest.mark.parametrize("mode", MODES)
def test_a_gate_off_refuses_the_vm_and_on_admits_it(mode: str) -> None:
    off, code = run([kubevirt(developerConfiguration={}), vsock_vm()], mode)
    assert code == 1
    errors = [r for r in builders.problems(off) if r["severity"] == "error"]
    assert [(r["resourceRef"]["kind"], r["field"]["path"]) for r in errors] == \
        [("VirtualMachine", "spec.template.spec.domain.devices.autoattachVSOCK")]
    assert errors[0]["message"] == f'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: ' \
                                   f"{VSOCK_OFF}"
    on, code = run([kubevirt(developerConfiguration={"featureGates": ["VSOCK"]}), vsock_vm()], mode)
    assert code == 0, builders.problems(on)
    assert not [r for r in builders.problems(on) if r["severity"] == "error"]


def test_the_shorthand_turns_a_gate_on_as_the_item_does() -> None:
    _, code = run([vsock_vm()], "validate", cluster={"featureGates": ["VSOCK"]})
    assert code == 0
    _, code = run([vsock_vm()], "validate")
    assert code == 1


def test_the_item_passes_through_unchanged_and_local_config_is_not_printed() -> None:
    item = kubevirt(developerConfiguration={"featureGates": ["VSOCK"]}, evictionStrategy="LiveMigrate")
    out, _ = run([copy.deepcopy(item), vsock_vm()], "revisions")
    assert [i for i in out["items"] if i["kind"] == "KubeVirt"] == [item]
    local = copy.deepcopy(item)
    local["metadata"]["annotations"] = {"config.kubernetes.io/local-config": "true"}
    # standalone: read, and not printed (KRM mode hands local-config items back to kpt, which drops them)
    config = json.dumps(builders.renderer("revisions", catalog=builders.NO_CATALOG))
    stream = builders.run_stream({"cluster.yaml": json.dumps(local), "vm.yaml": json.dumps(vsock_vm())}, config)
    assert stream.exit_code == 0
    printed = [d for d in yaml.safe_load_all(stream.data) if d]
    assert [d["kind"] for d in printed] == ["VirtualMachine"]


def test_a_shorthand_the_item_contradicts_is_an_error_and_the_item_holds() -> None:
    out, code = run([kubevirt(evictionStrategy="LiveMigrate"), vsock_vm()], "validate",
                    cluster={"evictionStrategy": "External", "featureGates": ["VSOCK"]})
    assert code == 1
    assert [(r["resourceRef"]["kind"], r["message"]) for r in builders.problems(out) if r["severity"] == "error"] == [
        ("KubeVirt", "spec.cluster.evictionStrategy is 'External' but the KubeVirt item's "
                     "spec.configuration.evictionStrategy is 'LiveMigrate': keep one (the KubeVirt item's holds)")]


def test_a_second_kubevirt_item_is_an_error() -> None:
    second = kubevirt()
    second["metadata"]["name"] = "other"
    out, code = run([kubevirt(), second], "validate")
    assert code == 1
    assert [r["resourceRef"]["name"] for r in builders.problems(out) if r["severity"] == "error"] == ["other"]


def test_merged_reads_each_field_from_its_place_in_the_configuration() -> None:
    cluster, problems = merged(ClusterConfig(), kubevirt(
        architectureConfiguration={"defaultArchitecture": "arm64"}, machineType="virt",
        network={"defaultNetworkInterface": "masquerade", "permitBridgeInterfaceOnPodNetwork": False},
        evictionStrategy="External", cpuRequest="200m",
        developerConfiguration={"featureGates": ["A", 3], "disabledFeatureGates": ["B"]},
        instancetype={"referencePolicy": "expandAll"}, vmRolloutStrategy="Stage"))
    assert problems == []
    assert (cluster.architecture, cluster.machine_type, cluster.default_network_interface,
            cluster.permit_bridge_interface_on_pod_network, cluster.eviction_strategy, cluster.cpu_request,
            cluster.feature_gates, cluster.disabled_feature_gates, cluster.reference_policy,
            cluster.vm_rollout_strategy) == \
        ("arm64", "virt", "masquerade", False, "External", "200m", ("A",), ("B",), "expandAll", "Stage")


@pytest.mark.parametrize("line", list(RELEASES))
def test_beta_gates_are_on_from_v1_9_unless_disabled(line: str) -> None:
    """PasstBinding is Beta in v1.9 (conformance-vms cases 119, 120): on without the CR listing it."""
    release = RELEASES[line]
    assert enabled(ClusterConfig(), release, "PasstBinding") == release.beta_gates_on
    assert not enabled(ClusterConfig(disabled_feature_gates=("PasstBinding",)), release, "PasstBinding")
    assert enabled(ClusterConfig(feature_gates=("PasstBinding",)), release, "PasstBinding")
    assert not enabled(ClusterConfig(), release, "VSOCK")  # Alpha everywhere


# --- instancetype.referencePolicy (item 4; shared/docs/gitops-field-notes.md section 2) -------------------------
def _vm_with_instancetype() -> tuple[list[Obj], Obj]:
    it = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
          "metadata": {"name": "small"}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}
    return [it], builders.make_vm(instancetype={"name": "small"})


@pytest.mark.parametrize("policy", ("expand", "expandAll"))
def test_revisions_under_an_expanding_policy_is_an_error_on_each_vm(policy: str) -> None:
    objects, vm = _vm_with_instancetype()
    out, code = run([kubevirt(instancetype={"referencePolicy": policy}), *objects, vm], "revisions")
    assert code == 1
    found = [(r["severity"], r["resourceRef"]["kind"], r["field"]["path"]) for r in builders.problems(out)]
    assert found == [("error", "VirtualMachine", "spec.instancetype")]
    message = builders.problems(out)[0]["message"]
    assert f"instancetype.referencePolicy: {policy}" in message and "spec.mode: expand" in message
    assert ("deletes the ControllerRevisions" in message) == (policy == "expandAll")
    # the VM is left as it is: no revision written for it
    assert [i["kind"] for i in out["items"] if i["kind"] == "ControllerRevision"] == []


@pytest.mark.parametrize(("mode", "severities"), [("expand", []), ("validate", ["warning"])])
def test_expand_says_nothing_and_validate_warns_under_expand_all(mode: str, severities: list[str]) -> None:
    objects, vm = _vm_with_instancetype()
    out, code = run([kubevirt(instancetype={"referencePolicy": "expandAll"}), *objects, vm], mode)
    assert code == 0
    assert [r["severity"] for r in builders.problems(out)] == severities


def test_v1_5_honours_the_policy_only_with_its_gate() -> None:
    objects, vm = _vm_with_instancetype()
    policy = {"instancetype": {"referencePolicy": "expandAll"}}
    _, code = run([kubevirt(**policy), *objects, copy.deepcopy(vm)], "revisions", kubevirtVersion="v1.5")
    assert code == 0
    gated = kubevirt(**policy, developerConfiguration={"featureGates": ["InstancetypeReferencePolicy"]})
    _, code = run([gated, *objects, vm], "revisions", kubevirtVersion="v1.5")
    assert code == 1
