"""``mode: migrate`` / ``migrate: true`` in the renderer, and the migrate examples: their migrated output renders
and validates cleanly with the current semantics (migrate off)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from krm_fn.config import load
from krm_fn.index import iter_objects
from krm_fn.io.resourcelist import parse_resource_list
from krm_fn.kube.api import LABEL_OBJECT_VERSION
from krm_fn.process import Options, process, run
from tests.builders import REPO
from tests.render_support import render
from krm_fn.render.spec import RendererSpec
from tests.kpt_source import fn_config, source

V1B1 = "instancetype.kubevirt.io/v1beta1"
LEGACY_API_VERSIONS = {"instancetype.kubevirt.io/v1alpha1", "instancetype.kubevirt.io/v1alpha2",
                       "flavor.kubevirt.io/v1alpha1"}  # the legacy versions of docs/migrate.md


def objects() -> list[dict[str, Any]]:
    return [
        {"apiVersion": "instancetype.kubevirt.io/v1alpha2", "kind": "VirtualMachineClusterInstancetype",
         "metadata": {"name": "small"}, "spec": {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}}},
        {"apiVersion": V1B1, "kind": "VirtualMachineClusterPreference", "metadata": {"name": "cores"},
         "spec": {"cpu": {"preferredCPUTopology": "preferCores"}}},
        {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm", "namespace": "ns"},
         "spec": {"flavor": {"name": "small"}, "preference": {"name": "cores"}, "runStrategy": "Halted",
                  "template": {"spec": {"domain": {"devices": {}}}}}},
    ]


NO_CATALOG: list[dict[str, Any]] = []


def spec(**kw: Any) -> RendererSpec:
    base = load({"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
                 "metadata": {"name": "r"}, "spec": {"catalog": {"builtin": "none"}}}).spec
    assert isinstance(base, RendererSpec)
    return dataclasses.replace(base, **kw)


def test_config_accepts_mode_migrate_and_the_step() -> None:
    cfg = load({"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
                "metadata": {"name": "r"}, "spec": {"mode": "migrate", "migrate": True}})
    assert (cfg.spec.mode, cfg.spec.migrate) == ("migrate", True)
    cfg = load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "r"},
                "data": {"mode": "expand", "migrate": "true"}})
    assert (cfg.spec.mode, cfg.spec.migrate) == ("expand", True)
    assert RendererSpec().migrate is False


def test_mode_migrate_only_migrates() -> None:
    items = objects()
    out, results = render(items, spec(mode="migrate"), NO_CATALOG)
    assert [o["apiVersion"] for o in out] == [V1B1, V1B1, "kubevirt.io/v1"]
    assert out[1]["spec"]["cpu"]["preferredCPUTopology"] == "cores"
    assert "flavor" not in out[2]["spec"] and "template" in out[2]["spec"]  # not expanded, not pinned
    assert {r.severity for r in results} == {"warning"}


def test_without_migrate_deprecated_values_are_info_and_still_work() -> None:
    items = objects()[:2] + [{**objects()[2], "spec": {**objects()[2]["spec"], "instancetype": {"name": "small"}}}]
    del items[2]["spec"]["flavor"]
    items[0] = {**items[0], "apiVersion": V1B1}
    for mode in ("expand", "validate", "revisions"):
        out, results = render(items, spec(mode=mode), NO_CATALOG)
        assert [(r.severity, r.field_path) for r in results][0] == ("info", "spec.cpu.preferredCPUTopology")
        assert not [r for r in results if r.severity == "error"], results
        if mode == "expand":
            assert out[2]["spec"]["template"]["spec"]["domain"]["cpu"] == {"sockets": 1, "cores": 2, "threads": 1}
        if mode == "validate":
            assert all(a is b for a, b in zip(out, items))


def test_migrate_step_runs_first() -> None:
    out, results = render(objects(), spec(mode="revisions", migrate=True), NO_CATALOG)
    vm = out[2]
    assert vm["spec"]["instancetype"]["revisionName"].startswith("vm-small-v1beta1-")
    assert [o["kind"] for o in out[3:]] == ["ControllerRevision", "ControllerRevision"]
    assert not [r for r in results if r.severity in ("error", "info")]
    out, _ = render(objects(), spec(mode="expand", migrate=True), NO_CATALOG)
    assert out[2]["spec"]["template"]["spec"]["domain"]["cpu"] == {"sockets": 1, "cores": 2, "threads": 1}


def test_validate_with_migrate_reports_but_changes_nothing() -> None:
    items = objects()
    out, results = render(items, spec(mode="validate", migrate=True), NO_CATALOG)
    assert len(out) == len(items) and all(a is b for a, b in zip(out, items))
    assert [r.severity for r in results] and not [r for r in results if r.severity == "error"]


# --- the examples -------------------------------------------------------------------------------------
MIGRATE_EXAMPLES = sorted(p for p in (REPO / "examples").glob("migrate-*") if (p / "fn-config.yaml").exists())
CLEAN = [p for p in MIGRATE_EXAMPLES if p.name != "migrate-errors"]


def migrated(pkg: Path) -> tuple[str, list[dict[str, Any]]]:
    out = process(source(pkg, fn_config(pkg)).encode(), Options(base_dir=pkg))
    text = out.data.decode()
    return text, parse_resource_list(text).items


def test_examples_found() -> None:
    assert {p.name for p in MIGRATE_EXAMPLES} >= {
        "migrate-flavor-one-profile", "migrate-flavor-default-profile", "migrate-cluster-flavor", "migrate-v1alpha1",
        "migrate-v1alpha2", "migrate-flavor-vm", "migrate-revisions", "migrate-errors", "migrate-then-pin"}


@pytest.mark.parametrize("pkg", CLEAN, ids=[p.name for p in CLEAN])
@pytest.mark.parametrize("mode", ["expand", "validate"])
def test_migrated_example_renders_cleanly(pkg: Path, mode: str) -> None:
    """The migrated package, rendered as a current-only package would be: no errors, nothing legacy left."""
    _, items = migrated(pkg)
    for obj in iter_objects(items):
        assert obj.get("apiVersion") not in LEGACY_API_VERSIONS, obj
        assert "flavor" not in (obj.get("spec") or {}), obj
        if obj.get("kind") == "ControllerRevision":
            assert (obj["metadata"].get("labels") or {}).get(LABEL_OBJECT_VERSION) == "v1beta1", obj
    config = fn_config(pkg)
    assert config is not None
    config = {**config, "spec": {**config["spec"], "mode": mode, "migrate": False}}
    rl = parse_resource_list(source_of(items, config))
    out, results = run(rl, Options(base_dir=pkg))
    assert [r for r in results if r.severity == "error"] == [], [r.summary() for r in results]
    assert [r for r in results if "deprecated" in r.message] == []
    vms = [o for o in iter_objects(out) if o.get("kind") == "VirtualMachine"]
    assert vms
    if mode == "expand":  # every VM expanded: its matchers are gone
        assert all("instancetype" not in vm["spec"] and "preference" not in vm["spec"] for vm in vms)


def source_of(items: list[dict[str, Any]], config: dict[str, Any]) -> str:
    from krm_fn.io.emitter import Emitter

    e = Emitter()
    e.document({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items,
                "functionConfig": config})
    return e.text()


def test_error_example_leaves_what_needs_a_decision() -> None:
    pkg = REPO / "examples" / "migrate-errors"
    out = process(source(pkg, fn_config(pkg)).encode(), Options(base_dir=pkg))
    assert out.exit_code == 1
    errors = [r for r in out.results if r.severity == "error"]
    assert {(r.resource_ref.kind, r.field_path) for r in errors if r.resource_ref} == {
        ("VirtualMachineClusterFlavor", "profiles"), ("VirtualMachine", "spec.flavor.profile"),
        ("VirtualMachine", "spec.instancetype.revisionName")}
    items = parse_resource_list(out.data.decode()).items
    original = parse_resource_list(source(pkg, fn_config(pkg))).items
    assert items == original
