"""A whole instancetype/preference object as the cluster would take it (``krm_fn.kubevirt.webhooks.admission``):
the CRD's structural schema, then the kind's webhook; every object KubeVirt ships passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.catalog import CatalogSpec, builtin_names, generate
from krm_fn.kubevirt.caches import Caches
from krm_fn.kubevirt.webhooks import Problem
from krm_fn.kubevirt.schema.strict import problems as schema_problems
from krm_fn.kubevirt.webhooks.admission import admit, admitted, covers, refused
from krm_fn.render.admission import describe, results
from tests.conftest import require_shared

V1BETA1 = "instancetype.kubevirt.io/v1beta1"
RANGE_150 = "spec.memory.overcommitPercent '150': must be in range between 0 and 100."  # webhooks/admitter.go


def obj(kind: str, spec: Any, name: str = "x", **meta: Any) -> dict[str, Any]:
    return {"apiVersion": V1BETA1, "kind": kind, "metadata": {"name": name, **meta}, "spec": spec}


def instancetype(kind: str = "VirtualMachineClusterInstancetype", **memory: Any) -> dict[str, Any]:
    return obj(kind, {"cpu": {"guest": 2}, "memory": {"guest": "2Gi", **memory}})


def test_covers_the_four_kinds_in_the_served_version_only() -> None:
    for kind in ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype", "VirtualMachinePreference",
                 "VirtualMachineClusterPreference"):
        assert covers(obj(kind, {}))
        assert not covers({**obj(kind, {}), "apiVersion": "instancetype.kubevirt.io/v1alpha2"})
    assert not covers(obj("VirtualMachine", {}))
    assert not covers("not an object")
    assert refused({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "UPPER"}, "x": 1}) == []


def test_webhook_message_is_kept_where_the_crd_bounds_object_to_the_same_field() -> None:
    """overcommitPercent 150 breaks the CRD's maximum (the schema reports it) and the webhook's range rule: one
    problem, KubeVirt's words."""
    it = instancetype(overcommitPercent=150)
    assert schema_problems(it) == [("spec.memory.overcommitPercent", "must be at most 100, got 150")]
    assert admit(it) == [Problem("error", "spec.memory.overcommitPercent", RANGE_150)]


def test_schema_problems_come_first_then_the_webhook_causes() -> None:
    it = obj("VirtualMachineClusterInstancetype",
             {"cpu": {}, "memory": {"guest": "2Gi", "overcommitPercent": 150}, "bogus": 1})
    assert admit(it) == [  # schema problems in the order of the walk (the object's keys)
        Problem("error", "spec.cpu.guest", "required field is missing", "schema"),
        Problem("error", "spec.bogus", "unknown field", "schema"),
        Problem("error", "spec.memory.overcommitPercent", RANGE_150),
    ]


@pytest.mark.parametrize(("spec", "field"), [
    pytest.param({"memory": {"guest": "1Gi"}}, "spec.cpu", id="no-cpu"),
    pytest.param({"cpu": {}, "memory": {"guest": "1Gi"}}, "spec.cpu.guest", id="no-cpu.guest"),
    pytest.param({"cpu": {"guest": 1}, "memory": {}}, "spec.memory.guest", id="no-memory.guest"),
    pytest.param({"cpu": {"guest": 1}}, "spec.memory", id="no-memory"),
])
def test_crd_required_fields(spec: dict[str, Any], field: str) -> None:
    """Required as the CRD writes them (``required: [guest]``), even where the swagger has a default."""
    assert admit(obj("VirtualMachineInstancetype", spec, namespace="ns")) == [
        Problem("error", field, "required field is missing", "schema")]


def test_an_object_without_spec_is_refused() -> None:
    no_spec = {"apiVersion": V1BETA1, "kind": "VirtualMachineClusterPreference", "metadata": {"name": "p"}}
    assert admit(no_spec) == [Problem("error", "spec", "required field is missing", "schema")]


def test_schema_errors_and_webhook_causes_of_a_preference() -> None:
    pref = obj("VirtualMachinePreference", {"cpu": {"preferredCPUTopology": "bogus", "spreadOptions": {"ratio": "2"}}})
    assert admit(pref) == [
        Problem("error", "spec.cpu.spreadOptions.ratio", "must be of type integer, got string", "schema"),
        Problem("error", "spec.cpu.preferredCPUTopology", "unknown preferredCPUTopology bogus"),
    ]


def test_warnings_only_for_an_admitted_object() -> None:
    pref = obj("VirtualMachineClusterPreference", {"cpu": {"preferredCPUTopology": "preferAny"}})
    assert [p.severity for p in admit(pref)] == ["warning"]
    assert refused(pref) == []
    broken = obj("VirtualMachineClusterPreference", {"cpu": {"preferredCPUTopology": "preferAny"}, "x": 1})
    assert [p.severity for p in admit(broken)] == ["error"]


def test_messages_as_kubectl_shows_them() -> None:
    it = instancetype(overcommitPercent=150)
    assert describe(admit(it)[0], it) == (
        'admission webhook "virtualmachineclusterinstancetype-validator.instancetype.kubevirt.io" denied the '
        f"request: {RANGE_150}")
    missing = obj("VirtualMachinePreference", None, name="p", namespace="ns")
    assert [describe(p, missing) for p in admit(missing)] == [
        'VirtualMachinePreference.instancetype.kubevirt.io "p" is invalid: spec: must be of type object, got null']
    warned = obj("VirtualMachinePreference", {"cpu": {"preferredCPUTopology": "preferCores"}})
    assert describe(admit(warned)[0], warned) == (
        "PreferredCPUTopology preferCores is deprecated for removal in a future release, please use cores instead")


def test_results_look_into_lists_and_name_each_object() -> None:
    bad = instancetype(overcommitPercent=150)
    good = instancetype()
    warned = obj("VirtualMachineClusterPreference", {"cpu": {"preferredCPUTopology": "preferCores"}}, name="w")
    vm = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm"}, "spec": "junk"}
    found = results([{"apiVersion": "v1", "kind": "List", "items": [bad, good]}, warned, vm, "junk"])
    assert [(r.severity, r.resource_ref.name if r.resource_ref else None, r.field_path) for r in found] == [
        ("error", "x", "spec.memory.overcommitPercent"),
        ("warning", "w", "spec.cpu.preferredCPUTopology"),
    ]


def test_memo_computes_each_object_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.kubevirt.webhooks import admission

    calls: list[int] = []
    real = admission.admit

    def counting(obj: dict[str, Any]) -> list[Problem]:
        calls.append(id(obj))
        return real(obj)

    monkeypatch.setattr(admission, "admit", counting)
    cache = Caches().admission
    it, other = instancetype(overcommitPercent=150), instancetype()
    assert refused(it, cache) == admitted(it, cache) == [Problem("error", "spec.memory.overcommitPercent", RANGE_150)]
    assert refused(other, cache) == [] and admitted(other, cache) == []
    assert calls == [id(it), id(other)]
    refused(it)  # without a cache: computed again
    assert calls == [id(it), id(other), id(it)]


# --- everything KubeVirt and common-instancetypes ship is admitted --------------------------------------------
def _builtin_versions() -> list[tuple[str, str | None]]:
    """Every builtin catalog with every version it offers (None: a catalog without versions)."""
    from krm_fn.catalog.spec import BUILTIN_DIR

    out: list[tuple[str, str | None]] = []
    for name in builtin_names():
        offered = (yaml.safe_load((BUILTIN_DIR / f"{name}.yaml").read_text()) or {}).get("versions") or {}
        out += [(name, version) for version in offered] or [(name, None)]
    return out


# krm_fn.process._generate does not admit a builtin's output again on every run: this test is what lets it skip
@pytest.mark.parametrize(("builtin", "version"), _builtin_versions())
@pytest.mark.parametrize("namespace", [None, "team-a"])
def test_every_builtin_catalog_object_is_admitted(builtin: str, version: str | None, namespace: str | None) -> None:
    objects = generate(CatalogSpec(builtin=builtin, namespace=namespace, version=version), None)
    assert objects
    refusals = {f"{o['kind']}/{o['metadata']['name']}": admit(o) for o in objects if refused(o)}
    assert not refusals
    assert all(covers(o) for o in objects)


def _documents(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.mark.parametrize("bundle", ["kubevirt-operator-bundle", "common-instancetypes"])
def test_every_upstream_reference_object_is_admitted(bundle: str) -> None:
    """What virt-operator deploys and what common-instancetypes publishes (``shared/reference``)."""
    directory = require_shared(f"reference/{bundle}")
    objects = [o for path in sorted(directory.glob("*.yaml")) for o in _documents(path) if covers(o)]
    assert len(objects) > 100
    assert {f"{o['kind']}/{o['metadata']['name']}": admit(o) for o in objects if refused(o)} == {}
