"""The ``classic`` builtin: the flavors proposal's 17 names and 4 preferences, valid v1beta1 objects."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.kube.paths import Obj

NAMES = ["c.large", "c.medium", "c.small", "c.xlarge", "c.xsmall", "g.medium", "g.xlarge", "g.xsmall",
         "m.large", "m.medium", "m.small", "m.xlarge", "m.xsmall", "r.large", "r.medium", "r.xlarge", "r.xsmall"]


def by_name(objs: list[Obj], kind: str) -> dict[str, Obj]:
    return {o["metadata"]["name"]: o for o in objs if o["kind"] == kind}


def test_exactly_the_proposal_names(classic_objects: list[Obj]) -> None:
    for kind in ("VirtualMachineClusterInstancetype", "VirtualMachineInstancetype"):
        assert sorted(by_name(classic_objects, kind)) == NAMES
    for kind in ("VirtualMachineClusterPreference", "VirtualMachinePreference"):
        assert sorted(by_name(classic_objects, kind)) == [
            "linux.cirros", "linux.fedora", "linux.rhel9", "windows.windows10"]


def test_m_xsmall_is_the_proposal_flavor(classic_objects: list[Obj]) -> None:
    spec = by_name(classic_objects, "VirtualMachineClusterInstancetype")["m.xsmall"]["spec"]
    assert spec == {"cpu": {"guest": 1}, "memory": {"guest": "512M"}}


@pytest.mark.parametrize(("family", "per_vcpu"), [("c", 2), ("m", 4), ("r", 8), ("g", 4)])
def test_family_ratios(classic_objects: list[Obj], family: str, per_vcpu: int) -> None:
    """Every size but xsmall has ``per_vcpu`` G of memory per vCPU."""
    for name, obj in by_name(classic_objects, "VirtualMachineClusterInstancetype").items():
        if name.startswith(family + ".") and not name.endswith(".xsmall"):
            spec = obj["spec"]
            assert spec["memory"]["guest"] == f"{spec['cpu']['guest'] * per_vcpu}G", name


def test_g_has_a_gpu_with_a_configurable_device_name() -> None:
    default = by_name(generate(CatalogSpec(builtin="classic"), None), "VirtualMachineClusterInstancetype")
    custom = by_name(generate(CatalogSpec(builtin="classic", parameters=("gpuDeviceName=nvidia.com/GA102GL_A10",)),
                              None), "VirtualMachineClusterInstancetype")
    for name in ("g.xsmall", "g.medium", "g.xlarge"):
        assert default[name]["spec"]["gpus"] == [{"deviceName": "nvidia.com/TU104GL_Tesla_T4", "name": "gpu1"}]
        assert custom[name]["spec"]["gpus"] == [{"deviceName": "nvidia.com/GA102GL_A10", "name": "gpu1"}]
        assert custom[name]["metadata"]["labels"]["instancetype.kubevirt.io/gpus"] == "true"
    assert all("gpus" not in o["spec"] for n, o in default.items() if not n.startswith("g."))


def test_cirros_preference(classic_objects: list[Obj]) -> None:
    spec = by_name(classic_objects, "VirtualMachineClusterPreference")["linux.cirros"]["spec"]
    assert spec["devices"] == {"preferredCdromBus": "virtio", "preferredDiskBus": "virtio", "preferredRng": {}}


def test_windows10_is_the_proposal_windows_preference(classic_objects: list[Obj]) -> None:
    spec = by_name(classic_objects, "VirtualMachineClusterPreference")["windows.windows10"]["spec"]
    assert spec == {
        "annotations": {"vm.kubevirt.io/os": "windows"},
        "clock": {"preferredClockOffset": {"utc": {}},
                  "preferredTimer": {"hpet": {"present": False}, "hyperv": {}, "pit": {"tickPolicy": "delay"},
                                     "rtc": {"tickPolicy": "catchup"}}},
        "cpu": {"preferredCPUTopology": "sockets"},
        "devices": {"preferredDiskBus": "sata", "preferredInterfaceModel": "e1000", "preferredTPM": {}},
        "features": {"preferredAcpi": {}, "preferredApic": {},
                     "preferredHyperv": {"relaxed": {}, "spinlocks": {"spinlocks": 8191}, "vapic": {}},
                     "preferredSmm": {}},
        "firmware": {"preferredEfi": {"secureBoot": True}},
    }


# --- validation against the KubeVirt OpenAPI (kubeconform -strict style) ---------------------------------

def strict_definitions(shared: Path) -> dict[str, Any]:
    """The swagger definitions with ``additionalProperties: false`` on every object that lists properties."""
    definitions: dict[str, Any] = copy.deepcopy(json.loads((shared / "schemas" / "kubevirt-swagger.json")
                                           .read_text(encoding="utf-8"))["definitions"])
    for definition in definitions.values():
        if definition.get("type") == "object" and "properties" in definition:
            definition.setdefault("additionalProperties", False)
    return definitions


def schema_errors(obj: Obj, definitions: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft4Validator({"$ref": f"#/definitions/v1beta1.{obj['kind']}",
                                            "definitions": definitions})
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)]


@pytest.mark.parametrize("builtin", ["classic", "common-instancetypes"])
def test_objects_validate_against_the_kubevirt_schema(shared: Path, builtin: str) -> None:
    definitions = strict_definitions(shared)
    for obj in generate(CatalogSpec(builtin=builtin, namespace="vms"), None):
        assert schema_errors(obj, definitions) == [], obj["metadata"]["name"]


def test_the_schema_check_is_strict(shared: Path, classic_objects: list[Obj]) -> None:
    obj = copy.deepcopy(classic_objects[0])
    obj["spec"]["cpu"]["cores"] = 2
    obj["spec"]["memory"]["guest"] = {"x": 1}
    errors = schema_errors(obj, strict_definitions(shared))
    assert len(errors) == 2, errors
