"""The packaged schema: up to date with the shared swagger, the validator's messages, the Go round trip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from krm_fn.kubevirt.schema.roundtrip import encode_object, encode_shared
from krm_fn.kubevirt.schema.validation import SchemaError, schema_errors, validate_vm
from tests.builders import make_vm, require_shared

REPO = Path(__file__).resolve().parents[2]


def test_packaged_schema_is_up_to_date() -> None:
    swagger = require_shared("schemas/kubevirt-swagger.json")
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
                 ["spec.template.spec.volumes.emptyDisk.capacity in body is required"],
                 id="required inside a list: no index in the message"),
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


# go-openapi (virt-api's validator) builds a node's validators once, with the path the node was reached by, and
# renames only the top validator of each list item: every message from inside an item carries the list's path
# without the index (issue 15: ``interfaces.modle``, ``volumes.containerDisk.imagePullPolicy``, found by running
# KubeVirt's validator). The result's field keeps the precise place, indexes included.
DEVICES = "spec.template.spec.domain.devices"
_PULL = "in body should be one of [Always IfNotPresent Never]"


@pytest.mark.parametrize(("template_spec", "expected"), [
    pytest.param({"domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}},
                                                        {"name": "b", "bridge": {}, "modle": "virtio"}]}}},
                 [(f"{DEVICES}.interfaces.modle in body is a forbidden property", f"{DEVICES}.interfaces[1].modle")],
                 id="forbidden property"),
    pytest.param({"domain": {"devices": {}}, "volumes": [{"name": "r", "containerDisk": {
        "image": "x", "imagePullPolicy": "Sometimes"}}]},
                 [(f"spec.template.spec.volumes.containerDisk.imagePullPolicy {_PULL}",
                   "spec.template.spec.volumes[0].containerDisk.imagePullPolicy")], id="enum"),
    pytest.param({"domain": {"devices": {"disks": [{"name": "d", "bootOrder": "1"}]}}},
                 [(f'{DEVICES}.disks.bootOrder in body must be of type integer: "string"',
                   f"{DEVICES}.disks[0].bootOrder")], id="type"),
    pytest.param({"domain": {"devices": {}}, "volumes": [{"name": "e", "emptyDisk": {}}]},
                 [("spec.template.spec.volumes.emptyDisk.capacity in body is required",
                   "spec.template.spec.volumes[0].emptyDisk.capacity")], id="required: the missing field"),
    pytest.param({"domain": {"devices": {}}, "volumes": ["rootdisk"]},
                 [('spec.template.spec.volumes in body must be of type object: "string"', "spec.template.spec.volumes[0]")],
                 id="an item of the wrong type: the list's own path"),
    pytest.param({"domain": {"devices": {"interfaces": [{"name": "a", "bridge": {},
                                                         "ports": [{"port": 80}, {"port": 81, "bogus": 1}]}]}}},
                 [(f"{DEVICES}.interfaces.ports.bogus in body is a forbidden property",
                   f"{DEVICES}.interfaces[0].ports[1].bogus")], id="a list in a list: neither index"),
    pytest.param({"domain": {"devices": {"interfaces": [{"name": "a", "bridge": {}, "modle": "x"},
                                                        {"name": "b", "bridge": {}, "modle": "y"}]}}},
                 [(f"{DEVICES}.interfaces.modle in body is a forbidden property", f"{DEVICES}.interfaces[0].modle")],
                 id="the same message twice is kept once (go-openapi Result.AddErrors), first place"),
])
def test_messages_inside_lists(template_spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert schema_errors(make_vm(template_spec)) == [SchemaError(m, f) for m, f in expected]


# go-openapi runs every validator that applies to a value (type, format, items, enum, object), and its type
# validator judges a value that is neither a string nor a list against the format first (validate/type.go).
@pytest.mark.parametrize(("template_spec", "expected"), [
    pytest.param({"domain": {"devices": {}}, "dnsPolicy": 5},
                 ['spec.template.spec.dnsPolicy in body must be of type string: "number"',
                  "spec.template.spec.dnsPolicy in body should be one of [ClusterFirst ClusterFirstWithHostNet "
                  "Default None]"], id="wrong type for an enum: both"),
    pytest.param({"domain": {"devices": {}}, "dnsPolicy": None},
                 ['spec.template.spec.dnsPolicy in body must be of type string: "null"',
                  "spec.template.spec.dnsPolicy in body should be one of [ClusterFirst ClusterFirstWithHostNet "
                  "Default None]"], id="null for an enum: both"),
    pytest.param({"domain": {"devices": {"disks": [{"name": "d", "bootOrder": True}]}}},
                 [f'{DEVICES}.disks.bootOrder in body must be of type int32: ""'], id="a boolean for an int32"),
    pytest.param({"domain": {"devices": {}, "memory": {"guest": {"size": "1Gi"}}}},
                 ['spec.template.spec.domain.memory.guest in body must be of type string,integer,number: "object"',
                  "spec.template.spec.domain.memory.guest.size in body is a forbidden property"],
                 id="a map for a quantity: virt-api closes every definition"),
    pytest.param({"domain": {"devices": {"id": "x", "$schema": "y"}}}, [],
                 id="id and $schema are never forbidden properties"),
])
def test_every_applicable_check_runs(template_spec: dict[str, Any], expected: list[str]) -> None:
    assert validate_vm(make_vm(template_spec)) == expected


# The API server decodes a JSON number beyond int64 as a float; go-openapi takes a float for an integer only
# up to 2^53 (swag.IsFloat64AJSONInteger). Within int64 the format is not a range (bootOrder is a Go uint).
@pytest.mark.parametrize(("value", "ok"), [
    (2**31, True), (2**63 - 1, True), (-(2**63), True), (2.0**53, True),
    (2**63, False), (-(2**63) - 1, False), (10**30, False), (1e30, False), (2.0**53 + 2, False), (1.5, False),
])
def test_integers_beyond_what_the_api_server_decodes_as_integers(value: float, ok: bool) -> None:
    vm = make_vm({"domain": {"devices": {"disks": [{"name": "d", "bootOrder": value}]}}})
    errors = validate_vm(vm)
    assert errors == ([] if ok else ['spec.template.spec.domain.devices.disks.bootOrder in body must be of type '
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
    # apimachinery pkg/api/resource/quantity.go (CanonicalizeBytes, as vendored by KubeVirt v1.5.3): 2048Mi is
    # written 2Gi, 1 and 1k as they are
    pytest.param({"domain": {"devices": {}, "resources": {"requests": {"cpu": "1", "memory": "2048Mi", "x": "1k"}}}},
                 {"domain": {"devices": {}, "resources": {"requests": {"cpu": "1", "memory": "2Gi", "x": "1k"}}}},
                 id="quantity map: canonical values around a changed one, in their order"),
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


def test_shared_round_trip_keeps_a_quantity_map_it_does_not_change() -> None:
    requests = {"cpu": "1", "memory": "2Gi"}
    vm = make_vm({"domain": {"devices": {}, "resources": {"requests": requests}}})
    assert encode_shared(vm, "v1.VirtualMachine")["spec"]["template"]["spec"]["domain"]["resources"]["requests"] \
        is requests
    changed = {"cpu": "1", "memory": "2048Mi"}
    vm = make_vm({"domain": {"devices": {}, "resources": {"requests": changed}}})
    out = encode_shared(vm, "v1.VirtualMachine")["spec"]["template"]["spec"]["domain"]["resources"]["requests"]
    assert out == {"cpu": "1", "memory": "2Gi"} and list(out) == ["cpu", "memory"] and out is not changed
    assert changed == {"cpu": "1", "memory": "2048Mi"}


def test_round_trip_returns_new_containers() -> None:
    vm = make_vm()
    out = encode_object(vm, "v1.VirtualMachine")
    assert out["spec"]["template"]["spec"]["volumes"] is not vm["spec"]["template"]["spec"]["volumes"]
    assert vm == make_vm()
