"""A whole instancetype/preference object as the cluster would take it (``krm_fn.kubevirt.webhooks.admission``):
the CRD's structural schema, then the kind's webhook; every object KubeVirt ships passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.catalog.generate import generate

from krm_fn.catalog.load import builtin_names

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.kube.status import DEPRECATED, INVALID, REQUIRED, TYPE_INVALID, Cause
from krm_fn.kubevirt.caches import Caches
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.schema.strict import problems as schema_problems
from krm_fn.kubevirt.webhooks.admission import Decision, covers, decide, decided, refused, served
from krm_fn.render.admission import describe, results
from tests.builders import require_shared

V1BETA1 = "instancetype.kubevirt.io/v1beta1"
TOGETHER = "spec.memory.overcommitPercent and spec.memory.hugepages should not be requested together."  # admitter.go


def obj(kind: str, spec: Any, name: str = "x", **meta: Any) -> dict[str, Any]:
    return {"apiVersion": V1BETA1, "kind": kind, "metadata": {"name": name, **meta}, "spec": spec}


def instancetype(kind: str = "VirtualMachineClusterInstancetype", **memory: Any) -> dict[str, Any]:
    return obj(kind, {"cpu": {"guest": 2}, "memory": {"guest": "2Gi", **memory}})


def test_covers_the_four_kinds_in_every_version_and_serves_only_v1beta1() -> None:
    for kind in ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype", "VirtualMachinePreference",
                 "VirtualMachineClusterPreference"):
        assert covers(obj(kind, {})) and served(obj(kind, {}))
        old = {**obj(kind, {}), "apiVersion": "instancetype.kubevirt.io/v1alpha2"}
        assert covers(old) and not served(old)
        assert decide(old) == Decision("version", f'no matches for kind "{kind}" in version '
                                                  '"instancetype.kubevirt.io/v1alpha2"')
        assert refused(old) is None  # migrate mode's business, not a refusal of a VM's reference
    assert not covers(obj("VirtualMachine", {}))
    assert not covers("not an object")
    assert refused({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "UPPER"}, "x": 1}) is None


def test_the_crd_bounds_refuse_before_the_webhook() -> None:
    """overcommitPercent 150 breaks the CRD's maximum and the webhook's range rule: the API server refuses first,
    in its words (issue 23, item 6). Output checks keep strict.py's own words."""
    it = instancetype(overcommitPercent=150)
    assert schema_problems(it) == [Cause(INVALID, "spec.memory.overcommitPercent", "must be at most 100, got 150")]
    assert decide(it).causes == (Cause(INVALID, "spec.memory.overcommitPercent",
                                       "Invalid value: 150: spec.memory.overcommitPercent in body should be less "
                                       "than or equal to 100"),)
    assert decide(it).stage == "validate"


def test_stage_order_decode_then_validate_then_webhook() -> None:
    it = obj("VirtualMachineClusterInstancetype",
             {"cpu": {}, "memory": {"guest": "2Gi", "overcommitPercent": 150}, "bogus": 1})
    assert decide(it) == Decision(  # unknown fields first: nothing else is looked at
        "decode", 'VirtualMachineClusterInstancetype in version "v1beta1" cannot be handled as a '
                  'VirtualMachineClusterInstancetype: strict decoding error: unknown field "spec.bogus"',
        (Cause(INVALID, "spec.bogus", 'unknown field "spec.bogus"'),),
        lead='VirtualMachineClusterInstancetype in version "v1beta1" cannot be handled as a '
             'VirtualMachineClusterInstancetype: strict decoding error: ')
    del it["spec"]["bogus"]
    assert [(c.field, c.message) for c in decide(it).causes] == [  # then every validation error at once
        ("spec.cpu.guest", "Required value"),
        ("spec.memory.overcommitPercent", "Invalid value: 150: spec.memory.overcommitPercent in body should be "
                                          "less than or equal to 100")]
    it["spec"]["cpu"]["guest"] = 2
    it["spec"]["memory"]["overcommitPercent"] = 10
    it["spec"]["memory"]["hugepages"] = {"pageSize": "1Gi"}
    assert decide(it) == Decision("webhook", TOGETHER, (Cause(INVALID, "spec.memory.overcommitPercent", TOGETHER),))


@pytest.mark.parametrize(("spec", "field"), [
    pytest.param({"memory": {"guest": "1Gi"}}, "spec.cpu", id="no-cpu"),
    pytest.param({"cpu": {}, "memory": {"guest": "1Gi"}}, "spec.cpu.guest", id="no-cpu.guest"),
    pytest.param({"cpu": {"guest": 1}, "memory": {}}, "spec.memory.guest", id="no-memory.guest"),
    pytest.param({"cpu": {"guest": 1}}, "spec.memory", id="no-memory"),
])
def test_crd_required_fields(spec: dict[str, Any], field: str) -> None:
    """Required as the CRD writes them (``required: [guest]``), even where the swagger has a default."""
    assert decide(obj("VirtualMachineInstancetype", spec, namespace="ns")).causes == (
        Cause(REQUIRED, field, "Required value"),)


def test_an_object_without_spec_is_refused() -> None:
    no_spec = {"apiVersion": V1BETA1, "kind": "VirtualMachineClusterPreference", "metadata": {"name": "p"}}
    assert decide(no_spec).causes == (Cause(REQUIRED, "spec", "Required value"),)
    assert decide({**no_spec, "spec": None}) == decide(no_spec)  # a null is dropped first (item 3)


def test_schema_errors_stop_a_preference_before_its_webhook() -> None:
    pref = obj("VirtualMachinePreference", {"cpu": {"preferredCPUTopology": "bogus", "spreadOptions": {"ratio": "2"}}})
    assert decide(pref).causes == (
        Cause(TYPE_INVALID, "spec.cpu.spreadOptions.ratio",
              'Invalid value: "string": spec.cpu.spreadOptions.ratio in body must be of type integer: "string"'),)
    pref["spec"]["cpu"]["spreadOptions"]["ratio"] = 2
    assert decide(pref).causes == (Cause(INVALID, "spec.cpu.preferredCPUTopology", "unknown preferredCPUTopology bogus"),)


def test_warnings_only_for_an_admitted_object() -> None:
    pref = obj("VirtualMachineClusterPreference", {"cpu": {"preferredCPUTopology": "preferAny"}})
    assert [p.type for p in decide(pref).warnings] == [DEPRECATED]
    assert refused(pref) is None
    broken = obj("VirtualMachineClusterPreference", {"cpu": {"preferredCPUTopology": "preferAny"}, "x": 1})
    assert decide(broken).warnings == () and decide(broken).stage == "decode"


def test_messages_as_kubectl_shows_them() -> None:
    it = instancetype(overcommitPercent=10, hugepages={"pageSize": "2Mi"})
    assert describe(decide(it), it) == (
        'admission webhook "virtualmachineclusterinstancetype-validator.instancetype.kubevirt.io" denied the '
        f"request: {TOGETHER}")
    missing = obj("VirtualMachinePreference", [], name="p", namespace="ns")
    assert describe(decide(missing), missing) == (
        'VirtualMachinePreference.instancetype.kubevirt.io "p" is invalid: spec: Invalid value: "array": spec in body '
        'must be of type object: "array"')
    warned = obj("VirtualMachinePreference", {"cpu": {"preferredCPUTopology": "preferCores"}})
    assert decide(warned).warnings[0].message == (
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


def test_cache_computes_each_object_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.kubevirt.webhooks import admission

    calls: list[int] = []
    real = admission.decide

    def counting(obj: dict[str, Any], tag: str = DEFAULT_TAG) -> Decision:
        calls.append(id(obj))
        return real(obj, tag)

    monkeypatch.setattr(admission, "decide", counting)
    cache = Caches().admission
    it, other = instancetype(overcommitPercent=150), instancetype()
    assert refused(it, cache) == decided(it, cache) == real(it)
    assert refused(other, cache) is None and decided(other, cache).allowed
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
    refusals = {f"{o['kind']}/{o['metadata']['name']}": decide(o) for o in objects if refused(o)}
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
    assert {f"{o['kind']}/{o['metadata']['name']}": decide(o) for o in objects if refused(o)} == {}
