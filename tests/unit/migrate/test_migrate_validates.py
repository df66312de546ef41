"""``mode: migrate`` checks what it emits like every other mode (krm_fn.render.output), and hostile metadata
(``labels: 1``) on what it would rewrite is an error for that object, never a crash.

Expected verdicts come from the KubeVirt OpenAPI schema (``cpu.guest`` is an integer, ``memory.guest`` a
quantity, ``metadata.labels`` a map of strings), not from our output."""

from __future__ import annotations

import base64
import json
from typing import Any

from krm_fn.render.migrate.items import migrate
from krm_fn.process import process
from tests import builders
from tests.builders import REPO, run_fn

NS = "legacy"
V1B1 = "instancetype.kubevirt.io/v1beta1"


def vm(**spec: Any) -> dict[str, Any]:
    return builders.vm(namespace=NS, **spec)


def cr(name: str, data: Any, **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": name, "namespace": NS, **metadata}, "data": data, "revision": 0}


def spec_revision(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "instancetype.kubevirt.io/v1alpha1",
            "spec": base64.b64encode(json.dumps(spec).encode()).decode()}


def alpha2_instancetype(spec: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "instancetype.kubevirt.io/v1alpha2", "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "small", "namespace": NS, **metadata}, "spec": spec}


def errors(results: list[Any]) -> list[tuple[str, str | None, str]]:
    return [(r.resource_ref.kind, r.field_path, r.message) for r in results if r.severity == "error"]


def test_a_legacy_revision_that_is_not_valid_v1beta1_is_an_error_and_nothing_changes() -> None:
    for data in (spec_revision({"cpu": {"guest": "x"}, "memory": {"guest": "1Gi"}}),
                 alpha2_instancetype({"cpu": {"guest": "x"}, "memory": {"guest": "1Gi"}})):
        legacy = cr("old", data)
        src = vm(instancetype={"kind": "VirtualMachineInstancetype", "name": "small", "revisionName": "old"})
        out, results = migrate([legacy, src])
        assert out[0] is legacy and out[1] is src and len(out) == 2
        [(kind, path, message)] = errors(results)
        assert (kind, path) == ("VirtualMachine", "spec.instancetype.revisionName")
        assert "ControllerRevision old" in message and "data.spec.cpu.guest: must be of type integer" in message


def test_a_malformed_quantity_in_a_revision_is_an_error_not_a_crash() -> None:
    legacy = cr("old", spec_revision({"cpu": {"guest": 2}, "memory": {"guest": "2x"}}))
    src = vm(instancetype={"kind": "VirtualMachineInstancetype", "name": "small", "revisionName": "old"})
    out, results = migrate([legacy, src])
    assert out == [legacy, src]
    [(_, _, message)] = errors(results)
    assert "data.spec.memory.guest: invalid quantity '2x'" in message


def test_v1beta1_data_relabelled_is_validated() -> None:
    """A v1beta1 revision only gets its label (same name), but what is emitted must still decode."""
    data = {"apiVersion": V1B1, "kind": "VirtualMachineClusterInstancetype", "metadata": {"name": "u1"},
            "spec": {"cpu": {"guest": 1}, "memory": {"guest": "12x8Mi"}}}
    _, results = migrate([cr("keep", data)])
    [(kind, path, message)] = errors(results)
    assert (kind, path) == ("ControllerRevision", "data.spec.memory.guest") and "invalid quantity" in message


def test_a_migrated_object_that_is_not_valid_is_an_error_with_its_field_path() -> None:
    _, results = migrate([alpha2_instancetype({"cpu": {"guest": 1}, "memory": {"guest": "12x8Mi"}})])
    [(kind, path, message)] = errors(results)
    assert (kind, path) == ("VirtualMachineInstancetype", "spec.memory.guest")
    assert message.startswith("output is not a valid VirtualMachineInstancetype: invalid quantity '12x8Mi'")


def test_malformed_metadata_on_what_migrate_rewrites_is_an_error_and_it_stays() -> None:
    legacy = cr("old", alpha2_instancetype({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}), labels=1)
    src = vm(instancetype={"kind": "VirtualMachineInstancetype", "name": "small", "revisionName": "old"})
    bad_type = alpha2_instancetype({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}, labels={"a": 1})
    bad_vm = {**vm(flavor={"name": "f"}), "metadata": {"name": "v2", "namespace": NS, "annotations": "x"}}
    out, results = migrate([legacy, src, bad_type, bad_vm])
    assert out == [legacy, src, bad_type, bad_vm] and all(a is b for a, b in zip(out, [legacy, src, bad_type, bad_vm]))
    found = errors(results)
    assert [(k, p) for k, p, _ in found] == [("VirtualMachine", "spec.instancetype.revisionName"),
                                             ("VirtualMachineInstancetype", "metadata.labels"),
                                             ("VirtualMachine", "metadata.annotations")]
    assert "ControllerRevision old: metadata.labels must be a map of strings" in found[0][2]
    assert [r for r in results if r.severity == "warning"] == [], "warnings about rewrites that did not happen"


def test_malformed_metadata_on_what_migrate_does_not_touch_is_left_alone() -> None:
    untouched = {"apiVersion": V1B1, "kind": "VirtualMachineInstancetype",
                 "metadata": {"name": "x", "namespace": NS, "labels": 1},
                 "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}
    out, results = migrate([untouched])
    assert out[0] is untouched and results == []


def test_validate_output_reports_a_migrated_object_once() -> None:
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
          "items": [alpha2_instancetype({"cpu": {"guest": 1}, "memory": {"guest": "12x8Mi"}})],
          "functionConfig": {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
                             "metadata": {"name": "m"}, "spec": {"mode": "migrate", "validateOutput": True}}}
    out = process(json.dumps(rl).encode())
    assert out.exit_code == 1 and len(errors(out.results)) == 1


def test_console_script_migrate_of_an_undecodable_revision_exits_1() -> None:
    """The issue's reproduction: mode: migrate wrote a v1beta1 revision with cpu.guest: "x" and exited 0."""
    example = REPO / "examples" / "migrate-revisions"
    revisions = (example / "revisions.yaml").read_text()
    good = base64.b64encode(json.dumps({"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}},
                                       separators=(",", ":")).encode()).decode()
    assert good in revisions
    bad = base64.b64encode(json.dumps({"cpu": {"guest": "x"}, "memory": {"guest": "2Gi"}}).encode()).decode()
    proc = run_fn([str(example / "fn-config.yaml"), str(example / "vms.yaml"), "-"],
                  revisions.replace(good, bad))
    err = proc.stderr.decode()
    assert proc.returncode == 1 and proc.stdout == b"" and "Traceback" not in err, err
    errors = [line for line in err.splitlines() if not line.startswith("kubevirt-krm: warning: ")]  # migrate's
    assert len(errors) == 1 and "data.spec.cpu.guest: must be of type integer" in err
