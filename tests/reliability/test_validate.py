"""``krm_fn.kubevirt.schema.strict`` and ``krm_fn.render.output``: strict validation of what we emit (schema, metadata, ControllerRevision), and its speed."""

from __future__ import annotations

import time
from typing import Any

import pytest

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.kube.paths import copy_json
from krm_fn.render.revisions import build_pinned_revision
from krm_fn.kube.meta import is_dns_subdomain
from krm_fn.kube.status import INVALID, REQUIRED, TYPE_INVALID, Cause
from krm_fn.kubevirt.schema.strict import covers, problems, validate_object
from krm_fn.render.output import output_results
from tests.builders import vm

pytestmark = pytest.mark.reliability


def instancetype(name: str = "it", kind: str = "VirtualMachineInstancetype") -> dict[str, Any]:
    md: dict[str, Any] = {"name": name}
    if kind == "VirtualMachineInstancetype":
        md["namespace"] = "ns"
    return {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": kind, "metadata": md,
            "spec": {"cpu": {"guest": 2}, "memory": {"guest": "4Gi"}}}


def with_(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = copy_json(obj)
    cur: Any = out
    steps = path.split(".")
    for step in steps[:-1]:
        cur = cur[int(step)] if isinstance(cur, list) else cur.setdefault(step, {})
    cur[steps[-1]] = value
    return out


def test_valid_objects_have_no_problems() -> None:
    assert validate_object(vm(instancetype={"name": "u1.medium"}, runStrategy="Always")) == []
    assert validate_object(instancetype()) == []
    cr = build_pinned_revision(vm(), instancetype(), "VirtualMachineInstancetype", False)
    assert covers(cr) and validate_object(cr) == []


def test_every_builtin_catalog_object_is_valid() -> None:
    for builtin in ("common-instancetypes", "classic"):
        for scope_ns in (None, "team-a"):
            for obj in generate(CatalogSpec(builtin=builtin, namespace=scope_ns), None):
                assert validate_object(obj) == [], (obj["kind"], obj["metadata"]["name"])


@pytest.mark.parametrize(("obj", "expected"), [
    pytest.param(with_(vm(), "spec.template.spec.domain.cpu", {"sockets": "two"}),
                 ["spec.template.spec.domain.cpu.sockets: must be of type integer, got string"], id="wrong-type"),
    pytest.param(vm(instancetype=[]), ["spec.instancetype: must be of type object, got array"], id="matcher-list"),
    pytest.param(with_(vm(), "spec.template.spec.domain.devices.bogus", 1),
                 ["spec.template.spec.domain.devices.bogus: unknown field"], id="unknown-field"),
    pytest.param(with_(vm(), "metadata.bogus", 1), ["metadata.bogus: unknown field"], id="unknown-metadata-field"),
    pytest.param(with_(vm(), "status", {"bogus": 1}), ["status.bogus: unknown field"], id="unknown-status-field"),
    pytest.param(with_(vm(), "extra", 1), ["extra: unknown field"], id="unknown-top-level"),
    pytest.param({k: v for k, v in vm().items() if k != "spec"}, ["spec: required field is missing"], id="required"),
    pytest.param(with_(vm(), "spec.template.spec.domain.memory", {"guest": "lots"}),
                 ["spec.template.spec.domain.memory.guest: invalid quantity 'lots'"], id="quantity"),
    pytest.param(with_(vm(), "spec.template.spec.domain.cpu", {"cores": 1 << 63}),
                 ["spec.template.spec.domain.cpu.cores: 9223372036854775808 is out of the int64 range"], id="int64"),
    pytest.param(with_(vm(), "spec.template.spec.domain.devices.disks", [{"name": "a", "bootOrder": 1 << 31}]),
                 ["spec.template.spec.domain.devices.disks[0].bootOrder: 2147483648 is out of the int32 range"],
                 id="int32"),
    pytest.param(with_(vm(), "spec.template.spec.domain.devices.disks", [{"name": "a"}, {"disk": {}}]),
                 ["spec.template.spec.domain.devices.disks[1].name: required field is missing"], id="list-path"),
    pytest.param(with_(vm(), "spec.template.spec.domain.cpu", None),
                 ["spec.template.spec.domain.cpu: must be of type object, got null"], id="null"),
    pytest.param(with_(vm(), "metadata.name", "My_VM"), ['metadata.name: Invalid value: "My_VM": a lowercase RFC 1123 subdomain'],
                 id="name"),
    pytest.param(with_(vm(), "metadata.name", "a" * 254), ["metadata.name: "], id="name-too-long"),
    pytest.param(with_(vm(), "metadata.namespace", "a.b"), ['metadata.namespace: Invalid value: "a.b": a lowercase RFC 1123 label'],
                 id="namespace"),
    pytest.param(with_(instancetype(kind="VirtualMachineClusterInstancetype"), "metadata.namespace", "ns"),
                 ["metadata.namespace: Forbidden: not allowed on this type"], id="cluster-scoped-namespace"),
    pytest.param(with_(vm(), "metadata.labels", {"a/b/c": "x"}), ['metadata.labels: Invalid value: "a/b/c": a qualified name must consist'],
                 id="label-key"),
    pytest.param(with_(vm(), "metadata.labels", {"a": "x" * 64}), ["metadata.labels: Invalid value: \"xxxx"],
                 id="label-value"),
    pytest.param(with_(vm(), "metadata.annotations", {"a": 1}),
                 ["metadata.annotations.a: must be of type string, got integer"], id="annotation-value"),
    pytest.param(with_(vm(), "metadata.deletionTimestamp", "yesterday"),
                 ["metadata.deletionTimestamp: 'yesterday' is not an RFC 3339 date-time"], id="timestamp"),
    pytest.param(with_(instancetype(), "spec.cpu", {"guest": "2"}),
                 ["spec.cpu.guest: must be of type integer, got string"], id="instancetype"),
    pytest.param({k: v for k, v in instancetype().items() if k != "spec"}, ["spec: required field is missing"],
                 id="instancetype-spec-required"),
    pytest.param(with_(instancetype(), "spec.cpu", {}), ["spec.cpu.guest: required field is missing"],
                 id="instancetype-guest-required"),
])
def test_problems_name_the_field(obj: dict[str, Any], expected: list[str]) -> None:
    found = validate_object(obj)
    assert len(found) == len(expected), found
    for message, prefix in zip(found, expected):
        assert message.startswith(prefix), found


def test_controller_revision_is_checked_strictly() -> None:
    cr = build_pinned_revision(vm(), instancetype(), "VirtualMachineInstancetype", False)
    assert problems(with_(cr, "data.spec.cpu.guest", "two")) == [
        Cause(TYPE_INVALID, "data.spec.cpu.guest", "must be of type integer, got string")]
    assert problems(with_(cr, "data.spec.bogus", 1)) == [Cause(INVALID, "data.spec.bogus", "unknown field")]
    assert problems(with_(cr, "data.kind", "VirtualMachine"))[0].field == "data.kind"
    assert problems(with_(cr, "data.apiVersion", "v1"))[0].field == "data.apiVersion"
    assert problems(with_(cr, "bogus", 1)) == [Cause(INVALID, "bogus", "unknown field")]
    assert problems(with_(cr, "revision", "0")) == [
        Cause(TYPE_INVALID, "revision", "must be of type integer, got string")]
    assert problems({k: v for k, v in cr.items() if k != "revision"}) == [
        Cause(REQUIRED, "revision", "required field is missing")]
    assert problems(with_(cr, "metadata.name", "Upper-Case"))[0].field == "metadata.name"
    # apimachinery reports the map, not the key (issue 23, item 7)
    assert problems(with_(cr, "metadata.labels", {"instancetype.kubevirt.io/object-name": "x" * 64}))[0].field == \
        "metadata.labels"


def test_other_kinds_are_not_checked() -> None:
    assert validate_object({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "UPPER"}, "x": 1}) == []
    assert validate_object({"apiVersion": "kubevirt.io/v2", "kind": "VirtualMachine", "bogus": 1}) == []
    assert not covers({"apiVersion": "apps/v1", "kind": "Deployment"})
    assert validate_object("not a dict") == ["must be an object, got string"]


def test_dns_subdomain() -> None:
    assert is_dns_subdomain("a") and is_dns_subdomain("u1.medium") and is_dns_subdomain("a-b.c-d")
    for bad in ("", "A", "-a", "a-", "a..b", ".a", "a_b", "a" * 254):
        assert not is_dns_subdomain(bad), bad
    assert is_dns_subdomain("a" * 253)


def test_output_results_only_look_at_changed_or_generated_objects() -> None:
    bad_input = with_(vm(), "spec.template.spec.domain.cpu", {"sockets": "two"})
    valid = vm()
    changed = with_(valid, "metadata.labels", {"a": "-"})
    generated = with_(instancetype(), "spec.cpu.guest", "x")
    results = output_results([bad_input, valid], [bad_input, changed, generated])
    assert [(r.resource_ref.kind if r.resource_ref else None, r.field_path) for r in results] == [
        ("VirtualMachine", "metadata.labels"), ("VirtualMachineInstancetype", "spec.cpu.guest")]
    assert all(r.severity == "error" and ("stage", "output") in r.tags for r in results)
    assert results[0].summary().startswith("error: VirtualMachine ns/vm metadata.labels: output is not a valid")
    wrapped = {"apiVersion": "v1", "kind": "List", "items": [bad_input, changed]}
    assert [r.field_path for r in output_results([bad_input], [wrapped])] == ["metadata.labels"]


def test_validation_is_fast_enough_for_10k_objects() -> None:
    """~30 us per object (a full VM, a ControllerRevision, instancetypes/preferences); < 1 s for 10k."""
    catalog = generate(CatalogSpec(namespace="ns"), None)
    big_vm = with_(vm(instancetype={"name": "u1.medium", "kind": "VirtualMachineClusterInstancetype"}),
                   "spec.template.spec.domain.devices", {
                       "disks": [{"name": f"d{i}", "disk": {"bus": "virtio"}} for i in range(4)],
                       "interfaces": [{"name": "default", "masquerade": {}}]})
    big_vm["spec"]["template"]["spec"]["volumes"] = [
        {"name": f"d{i}", "containerDisk": {"image": "quay.io/containerdisks/fedora:latest"}} for i in range(4)]
    objects = (catalog + [big_vm, build_pinned_revision(big_vm, catalog[0], catalog[0]["kind"], False)]) * 40
    objects = objects[:10_000]
    start = time.perf_counter()
    for obj in objects:
        assert not validate_object(obj)
    elapsed = time.perf_counter() - start
    per_object = elapsed / len(objects) * 1e6
    print(f"\nvalidate_object: {per_object:.1f} us/object over {len(objects)} objects")
    assert elapsed < 5.0, f"{per_object:.1f} us/object"


def test_missing_or_null_metadata_is_one_problem() -> None:
    cr = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "revision": 0}
    assert validate_object(cr) == ["metadata: required field is missing"]
    assert validate_object({**cr, "metadata": None}) == ["metadata: must be of type object, got null"]
    assert validate_object({k: v for k, v in vm().items() if k != "metadata"}) == ["metadata: required field is missing"]
    assert validate_object({**vm(), "metadata": {}}) == [
        "metadata.name: Required value: name or generateName is required"]
