"""The packaged schema: up to date with the shared swagger, the validator's messages, the Go round trip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from krm_fn.kubevirt.schema import encode_object, validate_vm
from tests.engine_support import make_vm, shared_dir

REPO = Path(__file__).resolve().parents[2]


def test_packaged_schema_is_up_to_date() -> None:
    swagger = shared_dir() / "schemas" / "kubevirt-swagger.json"
    if not swagger.is_file():
        pytest.skip("shared/schemas/kubevirt-swagger.json not found")
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "gen_schema.py"), str(swagger),
                           str(REPO / "krm_fn" / "kubevirt" / "schema" / "kubevirt.json"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _with(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    vm = make_vm()
    cur = vm
    for step in path[:-1]:
        cur = cur.setdefault(step, {})
    cur[path[-1]] = value
    return vm


@pytest.mark.parametrize(("vm", "errors"), [
    pytest.param(make_vm(), [], id="valid"),
    pytest.param(_with(("spec", "template", "spec", "domain", "devices", "networkInterfaceMultiQueue"), True),
                 ["spec.template.spec.domain.devices.networkInterfaceMultiQueue in body is a forbidden property"],
                 id="unknown field is forbidden"),
    pytest.param(_with(("spec", "running"), "yes"), ['spec.running in body must be of type boolean: "string"'],
                 id="wrong scalar type"),
    pytest.param(_with(("spec", "template", "spec", "domain", "cpu", "cores"), 1.5),
                 ['spec.template.spec.domain.cpu.cores in body must be of type int64: "double"'],
                 id="fraction for an integer"),
    pytest.param(_with(("spec", "template", "spec", "dnsPolicy"), "Sometimes"),
                 ["spec.template.spec.dnsPolicy in body should be one of [ClusterFirst ClusterFirstWithHostNet "
                  "Default None]"], id="enum"),
    pytest.param(_with(("spec", "template", "spec", "volumes"), [{"name": "v", "emptyDisk": {}}]),
                 ["spec.template.spec.volumes.0.emptyDisk.capacity in body is required"],
                 id="required, array index path"),
    pytest.param(_with(("spec", "template", "spec", "volumes"), [{"containerDisk": {"image": "x"}}]), [],
                 id="required with a default is not enforced (volume name)"),
    pytest.param(_with(("spec", "template", "spec", "domain", "devices", "disks"), [{"disk": {}}]), [],
                 id="required with a default is not enforced (disk name)"),
    pytest.param(_with(("spec", "template", "spec", "domain", "memory", "guest"), "2 Gi"),
                 ["spec.template.spec.domain.memory.guest: quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"], id="bad quantity"),
    pytest.param(_with(("status", "somethingNew"), 1), [], id="unknown status fields are allowed"),
    pytest.param(_with(("extra",), 1), [".extra in body is a forbidden property"], id="unknown top-level key"),
    pytest.param(_with(("metadata", "whatever"), 1), [], id="metadata is not validated"),
])
def test_validate_vm(vm: dict[str, Any], errors: list[str]) -> None:
    assert validate_vm(vm) == errors


# The API server decodes a JSON number beyond int64 as a float; go-openapi takes a float for an integer only
# up to 2^53 (swag.IsFloat64AJSONInteger). Within int64 the format is not a range (bootOrder is a Go uint).
@pytest.mark.parametrize(("value", "ok"), [
    (2**31, True), (2**63 - 1, True), (-(2**63), True), (2.0**53, True),
    (2**63, False), (-(2**63) - 1, False), (10**30, False), (1e30, False), (2.0**53 + 2, False), (1.5, False),
])
def test_integers_beyond_what_the_api_server_decodes_as_integers(value: float, ok: bool) -> None:
    vm = make_vm({"domain": {"devices": {"disks": [{"name": "d", "bootOrder": value}]}}})
    errors = validate_vm(vm)
    assert errors == ([] if ok else ['spec.template.spec.domain.devices.disks.0.bootOrder in body must be of type '
                                     'int32: "double"'])


def test_spec_is_required() -> None:
    assert validate_vm({"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine"}) == [
        "spec in body is required", 'spec in body must be of type object: "null"']


@pytest.mark.parametrize(("template_spec", "expected"), [
    pytest.param({"domain": {"devices": {}, "features": {"kvm": {"hidden": False}}}},
                 {"domain": {"devices": {}, "features": {"acpi": {}, "kvm": {}}, "resources": {}}},
                 id="omitempty false dropped, acpi struct always written"),
    pytest.param({"domain": {"devices": {"autoattachMemBalloon": False}, "cpu": {"cores": 0}}},
                 {"domain": {"devices": {"autoattachMemBalloon": False}, "cpu": {}, "resources": {}}},
                 id="pointer false kept, uint32 zero dropped"),
    pytest.param({"domain": {"devices": {}, "memory": {"guest": "2048Mi"}}},
                 {"domain": {"devices": {}, "memory": {"guest": "2Gi"}, "resources": {}}},
                 id="quantity canonical"),
    pytest.param({"domain": {"devices": {}, "machine": {}}},
                 {"domain": {"devices": {}, "machine": {"type": ""}, "resources": {}}},
                 id="non-omitempty string written as empty"),
    pytest.param({"domain": {"devices": {"disks": []}}, "nodeSelector": {}, "unknown": 1},
                 {"domain": {"devices": {}, "resources": {}}}, id="empty slices and maps dropped, unknown fields gone"),
    pytest.param({"domain": {"devices": {}}, "volumes": [{"name": "h", "hostDisk": {"path": "/p", "type": "Disk"}}]},
                 {"domain": {"devices": {}, "resources": {}},
                  "volumes": [{"name": "h", "hostDisk": {"path": "/p", "type": "Disk", "capacity": "0"}}]},
                 id="non-pointer quantity written as 0"),
])
def test_go_round_trip(template_spec: dict[str, Any], expected: dict[str, Any]) -> None:
    out = encode_object(make_vm(template_spec), "v1.VirtualMachine")
    assert out["spec"]["template"] == {"metadata": {}, "spec": expected}
    assert out["status"] == {}


def test_round_trip_of_a_condition_writes_null_times() -> None:
    vm = make_vm(status={"conditions": [{"type": "Ready", "status": "True"}]})
    out = encode_object(vm, "v1.VirtualMachine")
    assert out["status"]["conditions"] == [{"type": "Ready", "status": "True", "lastProbeTime": None,
                                            "lastTransitionTime": None}]


def test_round_trip_returns_new_containers() -> None:
    vm = make_vm()
    out = encode_object(vm, "v1.VirtualMachine")
    assert out["spec"]["template"]["spec"]["volumes"] is not vm["spec"]["template"]["spec"]["volumes"]
    assert vm == make_vm()
