"""A VM the VM webhooks store whose VMI the VMI create webhook refuses (issue 37, point 1): rendered as any stored
VM, with that webhook's cause as an error when the VM runs and a warning when it does not, in every mode.

The words are those of ``shared/conformance-vms`` case 271 (an arm64 VM with a watchdog).
"""

from __future__ import annotations

import pytest

from tests.builders import MEMORY, NO_CATALOG, make_vm, problems, renderer, run_krm

CAUSE = ('stored, but its VMI would be refused: admission webhook "virtualmachineinstances-create-validator.kubevirt.io"'
         " denied the request: Arm64 not support Watchdog device")


def _arm_vm(run_strategy: str) -> dict[str, object]:
    spec = {"architecture": "arm64",
            "domain": {"devices": {"watchdog": {"name": "w", "i6300esb": {}}}, **MEMORY},
            "volumes": [{"name": "containerdisk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]}
    vm = make_vm(spec)
    vm["spec"]["runStrategy"] = run_strategy
    return vm


@pytest.mark.parametrize("mode", ["validate", "revisions", "expand"])
@pytest.mark.parametrize(("run_strategy", "severity", "code"), [("Always", "error", 1), ("Halted", "warning", 0)])
def test_a_refused_vmi_is_an_error_when_the_vm_runs_and_a_warning_when_not(
        mode: str, run_strategy: str, severity: str, code: int) -> None:
    vm = _arm_vm(run_strategy)
    out, got = run_krm([vm], renderer(mode, catalog=NO_CATALOG, cluster={"featureGates": ["MultiArchitecture"]}))
    assert got == code
    assert [(r["severity"], r["message"], r["field"]["path"]) for r in problems(out)] == [
        (severity, CAUSE, "spec.template.spec.domain.devices.watchdog")]
    assert [i for i in out["items"] if i["kind"] == "VirtualMachine"] == [vm]  # stored: rendered as written


def test_an_unknown_binding_plugin_keeps_the_launcher_pod_from_being_created() -> None:
    """``shared/conformance-vms`` case 146: the interface names a binding plugin the KubeVirt CR does not configure;
    configured, the pod is created."""
    spec = {"domain": {"devices": {"interfaces": [{"name": "default", "binding": {"name": "mine"}}]}, **MEMORY},
            "networks": [{"name": "default", "pod": {}}],
            "volumes": [{"name": "containerdisk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]}
    out, code = run_krm([make_vm(spec)], renderer("validate", catalog=NO_CATALOG))
    assert code == 1 and [(r["message"], r["field"]["path"]) for r in problems(out)] == [
        ("stored, but its launcher pod would not be created: failed to render launch manifest: couldn't find "
         "configuration for network binding: mine", "spec.template.spec.domain.devices.interfaces[0].binding.name")]
    kubevirt = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
                "spec": {"configuration": {"network": {"binding": {"mine": {"sidecarImage": "registry/mine:1"}}}}}}
    out, code = run_krm([kubevirt, make_vm(spec)], renderer("validate", catalog=NO_CATALOG))
    assert code == 0 and problems(out) == []


@pytest.mark.parametrize(("spec", "field"), [
    ({"domain": []}, "spec.domain"),
    ({"domain": {"devices": {}, "resources": {"requests": {"memory": "abc"}}}}, "spec.domain.resources.requests.memory"),
    ("x", "spec")])
def test_a_malformed_vmi_is_one_error_at_its_field_and_the_others_go_on(spec: object, field: str) -> None:
    """A VirtualMachineInstance the release's schema refuses: one result naming it, exit 1, no internal error;
    the VM beside it is still rendered and judged."""
    vmi = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance", "metadata": {"name": "bad", "namespace": "ns1"},
           "spec": spec}
    out, code = run_krm([vmi, _arm_vm("Always")], renderer("validate", catalog=NO_CATALOG,
                                                             cluster={"featureGates": ["MultiArchitecture"]}))
    assert code == 1
    bad = [r for r in problems(out) if r["resourceRef"]["kind"] == "VirtualMachineInstance"]
    assert [(r["field"]["path"], r["message"].startswith("Object is not a valid VirtualMachineInstance: ")) for r in bad] \
        == [(field, True)]
    assert [r["message"] for r in problems(out) if r["resourceRef"]["kind"] == "VirtualMachine"] == [CAUSE]
    assert [i for i in out["items"] if i["kind"] == "VirtualMachineInstance"] == [vmi]
