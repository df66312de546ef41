"""Objects that carry a VM (issue 25, ``krm_fn.render.carriers``): a VirtualMachinePool's template, a
VirtualMachineTemplate and an OpenShift Template, through the stream core as a user runs them.

Expected values come from the same VM given as a plain VirtualMachine (what KubeVirt would say of each VM the
carrier makes) or from the inputs the test writes, never from the output under test alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.io.loader import load_documents
from krm_fn.process import Output
from tests.builders import names_its_field, run_stream
from krm_fn.results import FileRef, Result

CONFIG = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\n"
          "spec:\n  mode: {mode}\n{extra}")

SPEC = """\
      runStrategy: Always
      instancetype:
        name: {instancetype}
      preference:
        name: fedora
      template:
        spec:
          domain:
            devices: {{}}
          volumes:
            - name: rootdisk
              containerDisk:
                image: quay.io/containerdisks/fedora:41
"""


def pool(instancetype: str = "u1.small", version: str = "v1beta1", name: str = "web") -> str:
    return (f"apiVersion: pool.kubevirt.io/{version}\nkind: VirtualMachinePool\nmetadata:\n  name: {name}\n"
            f"  namespace: apps\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: web\n"
            f"  virtualMachineTemplate:\n    metadata:\n      labels:\n        app: web\n    spec:\n"
            + SPEC.format(instancetype=instancetype))


def vm(name: str = "web", instancetype: str = "u1.small") -> str:
    """The VM the pool controller makes of ``pool()``'s template (named after the pool, its namespace)."""
    return (f"apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: {name}\n  namespace: apps\n"
            f"  labels:\n    app: web\nspec:\n" + "\n".join(line[2:] for line in
                                                          SPEC.format(instancetype=instancetype).splitlines()) + "\n")


VM_TEMPLATE_HEAD = """\
apiVersion: template.kubevirt.io/v1alpha1
kind: VirtualMachineTemplate
metadata:
  name: fedora
  namespace: apps
spec:
  parameters:
    - name: NAME
      required: true
    - name: INSTANCETYPE
      value: {instancetype}
  virtualMachine:
    metadata:
      name: ${{NAME}}
      labels:
        app: web
    spec:
"""


def vm_template(instancetype: str) -> str:
    """A VirtualMachineTemplate of the pool's VM, its instancetype a parameter (``instancetype`` its value)."""
    return VM_TEMPLATE_HEAD.format(instancetype=instancetype) + SPEC.format(instancetype="${INSTANCETYPE}")


OPENSHIFT_TEMPLATE = """\
apiVersion: template.openshift.io/v1
kind: Template
metadata: {{name: rhel, namespace: apps}}
parameters:
  - name: NAME
    generate: expression
    from: "rhel-[a-z]{{8}}"
  - name: CORES
    value: "{cores}"
objects:
  - apiVersion: v1
    kind: Secret
    metadata:
      name: ${{NAME}}-key
  - apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      name: ${{NAME}}
    spec:
      runStrategy: Halted
      instancetype:
        name: u1.small
      template:
        metadata:
          annotations:
            undeclared: ${{NOT_A_PARAMETER}}
        spec:
          domain:
            cpu:
              cores: ${{{{CORES}}}}
            devices: {{}}
"""


def run(files: dict[str, str], mode: str = "validate", extra: str = "") -> Output:
    return run_stream(files, CONFIG.format(mode=mode, extra=extra))


def docs(out: Output) -> list[Any]:
    return [d.value for d in load_documents(out.data.decode())]


def about(out: Output, kind: str) -> list[Result]:
    return [r for r in out.results if r.resource_ref is not None and r.resource_ref.kind == kind]


@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_a_pool_with_a_bad_reference_fails_as_its_vm_does_with_its_file_and_field(version: str) -> None:
    first = pool("u1.medium", version, "ok")
    out = run({"pools.yaml": first + "---\n" + pool("u1.nosuch", version)})
    line = first.count("\n") + 2  # the second document's first line
    as_vm = run({"vms.yaml": vm(instancetype="u1.nosuch")})
    assert out.exit_code == as_vm.exit_code == 1
    assert out.data == b""  # stream modes write nothing on error
    expected = [(r.message, r.severity, f"spec.virtualMachineTemplate.{r.field_path}") for r in as_vm.results]
    assert [(r.message, r.severity, r.field_path) for r in out.results] == expected
    assert all(r.resource_ref is not None and (r.resource_ref.kind, r.resource_ref.name, r.resource_ref.namespace)
               == ("VirtualMachinePool", "web", "apps") for r in out.results)
    # each result names the line of its field in the second document
    assert {(r.file.path, r.file.index) for r in out.results if r.file} == {("pools.yaml", 1)}
    text = first + "---\n" + pool("u1.nosuch", version)
    assert all(r.file and r.file.line and r.file.line >= line and names_its_field(text, r) for r in out.results)
    at = next(r.file.line for r in out.results if r.file and r.field_path == "spec.virtualMachineTemplate.spec.instancetype")
    assert any(r.summary().startswith(f"error: VirtualMachinePool apps/web (pools.yaml line {at}) spec.virtualMachineTemplate."
                                      "spec.instancetype: ") and
               'virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u1.nosuch" not found' in r.message
               for r in out.results)


@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_a_pool_is_written_back_unchanged_in_validate_mode(version: str) -> None:
    text = pool(version=version)
    out = run({"pools.yaml": text}, "validate")
    assert out.exit_code == 0 and out.results == []
    assert out.data.decode() == text


def test_expand_mode_writes_the_expanded_spec_into_the_template() -> None:
    out = run({"pools.yaml": pool()}, "expand")
    as_vm = run({"vms.yaml": vm()}, "expand")
    assert out.exit_code == as_vm.exit_code == 0
    expanded = docs(as_vm)[0]
    [written] = docs(out)
    template = written["spec"]["virtualMachineTemplate"]
    assert template["spec"] == expanded["spec"]
    assert "instancetype" not in template["spec"] and template["metadata"] == {"labels": {"app": "web"}}
    assert written["spec"]["replicas"] == 3 and written["metadata"] == {"name": "web", "namespace": "apps"}


def test_revisions_mode_pins_the_template_once_for_every_replica() -> None:
    out = run({"pools.yaml": pool()}, "revisions")
    as_vm = run({"vms.yaml": vm()}, "revisions")
    assert out.exit_code == 0 and out.results == []
    written, *revisions = docs(out)
    pinned_vm, *vm_revisions = docs(as_vm)
    assert written["spec"]["virtualMachineTemplate"]["spec"] == pinned_vm["spec"]  # the same pins, named after the pool
    assert revisions == vm_revisions and len(revisions) == 2
    assert {r["metadata"]["namespace"] for r in revisions} == {"apps"}
    again = run({"out.yaml": out.data.decode()}, "revisions")  # rendering the output again changes nothing
    assert again.exit_code == 0 and again.data == out.data


def test_a_pool_revision_is_written_next_to_the_pool_under_kpt() -> None:
    from krm_fn.process import process
    from tests.kpt_source import annotate

    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
          "items": [annotate(load_documents(pool())[0].value, "pools/web.yaml", 0)],
          "functionConfig": load_documents(CONFIG.format(mode="revisions", extra=""))[0].value}
    from krm_fn.io.emitter import Emitter

    e = Emitter()
    e.document(rl)
    out = process(e.text().encode())
    items = load_documents(out.data.decode())[0].value["items"]
    assert [i["kind"] for i in items] == ["VirtualMachinePool", "ControllerRevision", "ControllerRevision"]
    assert {i["metadata"]["annotations"]["internal.config.kubernetes.io/path"] for i in items} == {"pools/web.yaml"}


@pytest.mark.parametrize("mode", ["validate", "expand", "revisions"])
def test_a_vm_template_is_checked_with_its_values_and_written_back_unchanged(mode: str) -> None:
    text = vm_template("u1.medium")
    out = run({"t.yaml": text}, mode, "  templateParameters: [NAME=web]\n")
    assert out.exit_code == 0 and out.results == []
    assert out.data.decode() == text
    bad = run({"t.yaml": text}, mode, "  templateParameters: [NAME=web, INSTANCETYPE=u1.nosuch]\n")
    as_vm = run({"vms.yaml": vm(instancetype="u1.nosuch")}, mode)
    assert bad.exit_code == as_vm.exit_code == 1
    assert [(r.message, r.field_path) for r in bad.results] == \
        [(r.message, f"spec.virtualMachine.{r.field_path}") for r in as_vm.results]
    assert {(r.resource_ref.kind if r.resource_ref else None, r.file.path if r.file else None, r.file.index if r.file
             else None) for r in bad.results} == {("VirtualMachineTemplate", "t.yaml", 0)}
    assert all(names_its_field(text, r) for r in bad.results)  # each at the line of its field


def test_a_template_value_is_used_unless_the_config_gives_one() -> None:
    text = vm_template("u1.nosuch")
    assert run({"t.yaml": text}, extra="  templateParameters: [NAME=web]\n").exit_code == 1
    fixed = run({"t.yaml": text}, extra="  templateParameters: [NAME=web, INSTANCETYPE=u1.small]\n")
    assert fixed.exit_code == 0 and fixed.results == []
    spaced = run({"t.yaml": text}, extra="  templateParameters: [NAME=web, ' INSTANCETYPE =u1.small']\n")
    assert spaced.exit_code == 0 and spaced.results == []  # the name as the config check reads it, stripped


def test_parameters_without_a_value_are_named_in_an_info_result() -> None:
    out = run({"t.yaml": vm_template("u1.nosuch")})  # NAME has no value: nothing is checked
    assert out.exit_code == 0
    [info] = out.results
    assert info.severity == "info" and info.field_path == "spec.virtualMachine"
    assert "parameter NAME has no value" in info.message and info.file is not None
    assert (info.file.path, info.file.index) == ("t.yaml", 0) and names_its_field(vm_template("u1.nosuch"), info)
    two = run({"t.yaml": vm_template("")})  # an empty value is no value
    assert "parameters INSTANCETYPE, NAME have no value" in two.results[0].message


def test_an_openshift_template_checks_each_vm_among_its_objects() -> None:
    text = OPENSHIFT_TEMPLATE.format(cores=2)
    unset = run({"t.yaml": text})
    assert [(r.severity, r.field_path) for r in unset.results] == [("info", "objects[1]")]
    assert "parameter NAME has no value" in unset.results[0].message
    # ${{CORES}} is the number 2, which conflicts with the instancetype's CPUs, as for a VM that says cores: 2
    out = run({"t.yaml": text}, "revisions", "  templateParameters: [NAME=rhel-a]\n")
    plain = ("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: rhel-a\n  namespace: apps\n"
             "spec:\n  runStrategy: Halted\n  instancetype:\n    name: u1.small\n  template:\n    metadata:\n      annotations:\n"
             "        undeclared: ${NOT_A_PARAMETER}\n    spec:\n      domain:\n        cpu:\n          cores: 2\n"
             "        devices: {}\n")
    as_vm = run({"vms.yaml": plain}, "revisions")
    assert out.exit_code == as_vm.exit_code == 1
    assert [(r.message, r.field_path) for r in out.results] == \
        [(r.message, f"objects[1].{r.field_path}") for r in as_vm.results]
    assert "cores" in str(out.results[0].field_path)
    fine = run({"t.yaml": OPENSHIFT_TEMPLATE.format(cores="")}, "expand", "  templateParameters: [NAME=rhel-a]\n")
    assert [r.field_path for r in fine.results] == ["objects[1]"]  # CORES has no value now
    no_cpu = text.replace("            cpu:\n              cores: ${{CORES}}\n", "")
    assert no_cpu != text
    ok = run({"t.yaml": no_cpu}, "expand", "  templateParameters: [NAME=rhel-a]\n")
    assert ok.exit_code == 0 and ok.results == [] and ok.data.decode() == no_cpu


def test_template_parameters_must_be_name_value() -> None:
    out = run({"t.yaml": vm_template("u1.small")}, extra="  templateParameters: [A=1, nope]\n")
    assert out.exit_code == 1 and out.data == b""
    assert [(r.field_path, r.message) for r in out.results] == \
        [("spec.templateParameters[1]", "must be name=value, got 'nope'")]


@pytest.mark.parametrize("kind", ["VirtualMachineInstanceReplicaSet", "VirtualMachineInstancePreset"])
def test_replica_sets_and_presets_pass_through_unchanged(kind: str) -> None:
    # they cannot use instancetypes (README, "What is rendered"); the packaged schema does not have them
    text = (f"apiVersion: kubevirt.io/v1\nkind: {kind}\nmetadata:\n  name: x\n  namespace: apps\nspec:\n"
            f"  selector:\n    matchLabels:\n      a: b\n")
    for mode in ("validate", "expand", "revisions"):
        out = run({"x.yaml": text}, mode)
        assert out.exit_code == 0 and out.results == [] and out.data.decode() == text


def test_validate_output_checks_a_changed_pool_through_its_template_vm() -> None:
    from krm_fn.render.output import output_results

    given = load_documents(pool())[0].value
    changed = {**given, "spec": {**given["spec"], "virtualMachineTemplate": {
        **given["spec"]["virtualMachineTemplate"],
        "spec": {**given["spec"]["virtualMachineTemplate"]["spec"], "runStrategy": 5}}}}
    as_vm = output_results([], [load_documents(vm().replace("runStrategy: Always", "runStrategy: 5"))[0].value])
    assert as_vm  # the plain VM's problem, which the pool must get too
    results = output_results([given], [changed])
    assert [(r.message, r.field_path) for r in results] == \
        [(r.message, f"spec.virtualMachineTemplate.{r.field_path}") for r in as_vm]
    assert {r.resource_ref.kind if r.resource_ref else None for r in results} == {"VirtualMachinePool"}
    assert output_results([changed], [changed]) == []  # an unchanged object is not checked


POOL_VALIDATOR = 'admission webhook "virtualmachinepool-validator.kubevirt.io" denied the request: '


@pytest.mark.parametrize(("change", "message", "field"), [
    (("  selector:\n    matchLabels:\n      app: web\n", "  selector:\n    matchLabels:\n      app: db\n"),
     "selector does not match labels.", "spec.selector"),
    (("  replicas: 3\n", "  replicas: 3\n  maxUnavailable: 0\n"), "maxUnavailable must be greater than 0",
     "spec.maxUnavailable"),
    (("  replicas: 3\n", "  replicas: 3\n  maxUnavailable: 120%\n"),
     "maxUnavailable percentage value 120 must be between 1 and 100", "spec.maxUnavailable"),
    (("  replicas: 3\n", "  replicas: 3\n  maxUnavailable: half\n"), "maxUnavailable percentage must end with %",
     "spec.maxUnavailable"),
])
def test_the_pool_webhook_refuses_its_own_fields(change: tuple[str, str], message: str, field: str) -> None:
    """``vmpool-admitter.go``: the selector matches the template's labels; maxUnavailable is positive or 1-100%."""
    text = pool("u1.medium").replace(*change)
    out = run({"pools.yaml": text}, "validate")
    assert out.exit_code == 1
    assert [(r.message, r.field_path) for r in about(out, "VirtualMachinePool")] == [(POOL_VALIDATOR + message, field)]


def test_the_pool_webhook_words_its_template_s_vm_rules_with_the_pool_s_paths() -> None:
    """The template's VM spec is judged as the VM's; the pool webhook names it and the paths under its template
    (KubeVirt's own functional test: 'spec.virtualMachineTemplate.spec.template.spec.domain.devices.disks[1].Name
    'testdisk' not found')."""
    disk = "          domain:\n            devices: {}\n"
    bad = "          domain:\n            devices:\n              disks:\n              - name: testdisk\n"
    out = run({"pools.yaml": pool("u1.medium").replace(disk, bad)}, "validate")
    assert out.exit_code == 1
    messages = [(r.message, r.field_path) for r in about(out, "VirtualMachinePool")]
    assert (POOL_VALIDATOR + "spec.virtualMachineTemplate.spec.template.spec.domain.devices.disks[0].Name 'testdisk' "
            "not found.", "spec.virtualMachineTemplate.spec.template.spec.domain.devices.disks[0].name") in messages
