"""Legacy instancetype/preference objects and flavor profiles -> v1beta1 (krm_fn.render.migrate.objects, .flavor)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from krm_fn.render.migrate.items import deprecation_infos, migrate
from krm_fn.render.migrate.flavor import choose_profile, convert_flavor, profile_spec
from krm_fn.render.migrate.objects import convert_object

V1B1 = "instancetype.kubevirt.io/v1beta1"


def obj(api_version: str, kind: str, spec: Any, name: str = "x", **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, **metadata}, "spec": spec}


# --- v1alpha1 / v1alpha2 / flavor spec form -------------------------------------------------------------
@pytest.mark.parametrize("api_version", ["instancetype.kubevirt.io/v1alpha1", "instancetype.kubevirt.io/v1alpha2"])
@pytest.mark.parametrize("kind", ["VirtualMachineInstancetype", "VirtualMachineClusterInstancetype",
                                  "VirtualMachinePreference", "VirtualMachineClusterPreference"])
def test_alpha_objects_become_v1beta1_keeping_metadata(api_version: str, kind: str) -> None:
    spec = {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}} if "Instancetype" in kind else {"devices": {}}
    src = obj(api_version, kind, spec, labels={"a": "b"}, annotations={"config.kubernetes.io/path": "f.yaml"})
    before = copy.deepcopy(src)
    new, results = convert_object(src)
    assert src == before
    assert new == {**src, "apiVersion": V1B1}
    assert new["spec"] is src["spec"]  # nothing to change inside: shared, never mutated
    assert [(r.severity, r.field_path) for r in results] == [("warning", "apiVersion")]
    assert f"{api_version} {kind} rewritten as {V1B1} {kind}" == results[0].message
    assert results[0].file is not None and results[0].file.path == "f.yaml"


def test_flavor_spec_form_and_flavor_preferences_are_renamed() -> None:
    flavor = obj("flavor.kubevirt.io/v1alpha1", "VirtualMachineClusterFlavor", {"cpu": {"guest": 4},
                                                                               "memory": {"guest": "8Gi"}})
    new, results = convert_object(flavor)
    assert (new["apiVersion"], new["kind"]) == (V1B1, "VirtualMachineClusterInstancetype")
    assert "VirtualMachineClusterFlavor rewritten as" in results[0].message
    pref = obj("flavor.kubevirt.io/v1alpha1", "VirtualMachinePreference",
               {"cpu": {"preferredCPUTopology": "preferThreads"}})
    new, results = convert_object(pref)
    assert (new["apiVersion"], new["kind"], new["spec"]) == (V1B1, "VirtualMachinePreference",
                                                          {"cpu": {"preferredCPUTopology": "threads"}})
    assert [r.field_path for r in results] == ["apiVersion", "spec.cpu.preferredCPUTopology"]


def test_zero_values_that_meant_unset_are_dropped() -> None:
    src = obj("instancetype.kubevirt.io/v1alpha2", "VirtualMachineInstancetype", {
        "cpu": {"guest": 2, "model": "", "dedicatedCPUPlacement": False, "isolateEmulatorThread": False,
                "numa": {"guestMappingPassthrough": {}}},
        "memory": {"guest": "1Gi"}})
    new, results = convert_object(src)
    assert new["spec"] == {"cpu": {"guest": 2, "numa": {"guestMappingPassthrough": {}}}, "memory": {"guest": "1Gi"}}
    assert [r.field_path for r in results][1:] == ["spec.cpu.model", "spec.cpu.dedicatedCPUPlacement",
                                                   "spec.cpu.isolateEmulatorThread"]
    assert 'spec.cpu.model: "" removed' in results[1].message
    # set values are kept
    kept = obj("instancetype.kubevirt.io/v1alpha2", "VirtualMachineInstancetype",
               {"cpu": {"guest": 2, "model": "Haswell", "dedicatedCPUPlacement": True}, "memory": {"guest": "1Gi"}})
    assert convert_object(kept)[0]["spec"] == kept["spec"]


def test_empty_alpha_topology_is_dropped_and_an_empty_cpu_goes() -> None:
    src = obj("instancetype.kubevirt.io/v1alpha1", "VirtualMachinePreference", {"cpu": {"preferredCPUTopology": ""}})
    new, results = convert_object(src)
    assert new["spec"] == {}
    assert results[1].field_path == "spec.cpu.preferredCPUTopology"


@pytest.mark.parametrize(("old", "new"), [("preferSockets", "sockets"), ("preferCores", "cores"),
                                          ("preferThreads", "threads"), ("preferSpread", "spread"),
                                          ("preferAny", "any")])
def test_deprecated_topology_in_v1beta1(old: str, new: str) -> None:
    src = obj(V1B1, "VirtualMachineClusterPreference", {"cpu": {"preferredCPUTopology": old, "spreadOptions": {}}})
    out, results = convert_object(src)
    assert out["spec"]["cpu"] == {"preferredCPUTopology": new, "spreadOptions": {}}
    assert [r.message for r in results] == [f"spec.cpu.preferredCPUTopology: deprecated value {old} rewritten as {new}"]
    infos = deprecation_infos([src])
    assert [(i.severity, i.field_path) for i in infos] == [("info", "spec.cpu.preferredCPUTopology")]
    assert infos[0].message.startswith(f"deprecated value {old}, use {new}")
    assert deprecation_infos([out]) == []


@pytest.mark.parametrize("item", [
    obj(V1B1, "VirtualMachineClusterPreference", {"cpu": {"preferredCPUTopology": "cores"}}),
    obj(V1B1, "VirtualMachineInstancetype", {"cpu": {"guest": 1, "model": ""}, "memory": {"guest": "1Gi"}}),
    obj("v1", "ConfigMap", None),
    obj("instancetype.kubevirt.io/v1alpha3", "VirtualMachineInstancetype", {}),
    obj("example.com/v1", "VirtualMachineFlavor", {}),
])
def test_current_and_foreign_objects_are_returned_as_is(item: dict[str, Any]) -> None:
    out, results = migrate([item])
    assert out[0] is item and results == []


# --- flavor profiles ----------------------------------------------------------------------------------
def flavor(*profiles: dict[str, Any], kind: str = "VirtualMachineFlavor") -> dict[str, Any]:
    return {"apiVersion": "flavor.kubevirt.io/v1alpha1", "kind": kind,
            "metadata": {"name": "f", "namespace": "ns", "labels": {"l": "v"}}, "profiles": list(profiles)}


def p(name: str, **body: Any) -> dict[str, Any]:
    return {"name": name, **body}


MEM = {"memory": {"guest": "1Gi"}}


def test_profile_choice() -> None:
    assert choose_profile(flavor(p("a"))).name == "a"
    assert choose_profile(flavor(p("a"), p("b", default=True), p("c"))).reason == "the default profile of 3"
    first = choose_profile(flavor(p("a", default=True), p("b", default=True)))
    assert first.name == "a" and "first of 2 marked default" in first.reason
    none = choose_profile(flavor(p("a"), p("b")))
    assert none.profile is None and '("a", "b")' in none.reason and "default: true" in none.reason
    assert choose_profile(flavor()).profile is None


def test_single_v1_cpu_profile_becomes_the_spec() -> None:
    src = flavor(p("only", cpu={"sockets": 2, "cores": 2, "threads": 1, "model": "host-passthrough",
                               "dedicatedCpuPlacement": True, "isolateEmulatorThread": False, "maxSockets": 8,
                               "numa": {"guestMappingPassthrough": {}}}, **MEM))
    before = copy.deepcopy(src)
    new, results = convert_flavor(src)
    assert src == before
    assert list(new) == ["apiVersion", "kind", "metadata", "spec"]
    assert (new["apiVersion"], new["kind"], new["metadata"]) == (V1B1, "VirtualMachineInstancetype", src["metadata"])
    assert new["spec"] == {"cpu": {"guest": 4, "model": "host-passthrough", "dedicatedCPUPlacement": True,
                                   "maxSockets": 8, "numa": {"guestMappingPassthrough": {}}},
                           "memory": {"guest": "1Gi"}}
    assert [r.severity for r in results] == ["warning", "warning"]
    assert 'spec from profile "only" (the only profile)' in results[0].message
    assert "sockets: 2, cores: 2, threads: 1 is not kept" in results[1].message
    assert results[1].field_path == "profiles[name=only].cpu"


def test_sockets_only_profile_has_no_topology_warning_and_cluster_kind() -> None:
    new, results = convert_flavor(flavor(p("s", cpu={"sockets": 3}, **MEM), kind="VirtualMachineClusterFlavor"))
    assert new["kind"] == "VirtualMachineClusterInstancetype" and new["spec"]["cpu"] == {"guest": 3}
    assert len(results) == 1


def test_instancetype_form_profile_is_copied() -> None:
    body = {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}, "gpus": [{"name": "g", "deviceName": "d"}]}
    new, _ = convert_flavor(flavor(p("a"), p("b", default=True, **body)))
    assert new["spec"] == body


@pytest.mark.parametrize(("body", "path", "words"), [
    ({"cpu": {"sockets": 1, "features": [{"name": "x"}]}, **MEM}, "profiles[name=a].cpu.features",
     "preferredCPUFeatures"),
    ({"cpu": {"sockets": 1, "pinning": 1}, **MEM}, "profiles[name=a].cpu.pinning", "no v1beta1 instancetype"),
    ({"cpu": {"model": "x"}, **MEM}, "profiles[name=a].cpu", "requires cpu.guest"),
    ({"cpu": {"sockets": -1}, **MEM}, "profiles[name=a].cpu.sockets", "non-negative"),
    (MEM, "profiles[name=a]", "sets no cpu"),
    ({"cpu": {"sockets": 1}}, "profiles[name=a].memory", "memory.guest"),
    ({"cpu": {"sockets": 1}, "clock": {}, **MEM}, "profiles[name=a].clock", "no v1beta1 instancetype"),
])
def test_profile_errors_leave_the_flavor(body: dict[str, Any], path: str, words: str) -> None:
    src = flavor(p("a", **body))
    new, results = convert_flavor(src)
    assert new is src
    assert [(r.severity, r.field_path) for r in results] == [("error", path)]
    assert words in results[0].message


def test_no_default_among_several_is_an_error() -> None:
    src = flavor(p("a", cpu={"sockets": 1}, **MEM), p("b", cpu={"sockets": 2}, **MEM))
    out, results = migrate([src])
    assert out[0] is src
    assert [(r.severity, r.field_path) for r in results] == [("error", "profiles")]


def test_profiles_and_spec_together_is_an_error() -> None:
    src = {**flavor(p("a", cpu={"sockets": 1}, **MEM)), "spec": {}}
    new, results = convert_flavor(src)
    assert new is src and results[0].severity == "error"


def test_profile_spec_keeps_the_body_order() -> None:
    spec, errors, warnings = profile_spec(p("a", memory={"guest": "1Gi"}, cpu={"guest": 1}))
    assert list(spec) == ["memory", "cpu"] and errors == [] and warnings == []
