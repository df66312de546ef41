"""Everything we emit is strictly valid: every example package and every conformance input, rendered in every
mode, with each generated or changed object validated (``krm_fn.render.output``; unknown fields are errors). Also the
``spec.validateOutput`` option itself: a problem is an error result (resourceRef, field path) and exit 1."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from krm_fn.io.loader import load_documents
from krm_fn.kubevirt_versions import DEFAULT, RELEASES
from krm_fn.process import Options, process
from tests.builders import REPO, run_fn
from tests.engine_support import case_dirs, load_case
from tests.kpt_source import FN_CONFIG, annotate
from tests.reliability.support import checked_process, invalid_emitted, parse, renderer, resource_list

pytestmark = pytest.mark.reliability

FN_API = "kubevirt-krm.dev/v1alpha1"
CASES = case_dirs()


def _objects(path: Path) -> list[Any]:
    try:
        return [d.value for d in load_documents(path.read_text(encoding="utf-8")) if d.value is not None]
    except Exception:  # noqa: BLE001 - not a Kubernetes YAML file (templates, kustomize plugin configs ...)
        return []


def _is_object(value: Any) -> bool:
    md = value.get("metadata") if isinstance(value, dict) else None
    return isinstance(md, dict) and bool(md.get("name")) and bool(value.get("apiVersion")) and bool(value.get("kind"))


def example_runs() -> list[tuple[Path, Path]]:
    """(package dir, functionConfig file) for every functionConfig of ours under ``examples/``."""
    runs = []
    for f in sorted((REPO / "examples").rglob("*.yaml")):
        rel = f.relative_to(REPO / "examples")
        if any(part.startswith(".") for part in rel.parts):
            continue
        if any(isinstance(o, dict) and o.get("apiVersion") == FN_API for o in _objects(f)):
            runs.append((f.parent, f))
    return runs


RUNS = example_runs()


def _package(pkg: Path, config_file: Path) -> tuple[list[Any], dict[str, Any]]:
    items = []
    for f in sorted(p for p in pkg.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()):
        rel = f.relative_to(pkg).as_posix()
        if f == config_file or f.name == FN_CONFIG or any(part.startswith(".") for part in Path(rel).parts):
            continue
        items += [annotate(o, rel, i) for i, o in enumerate(_objects(f)) if _is_object(o)]
    configs = [o for o in _objects(config_file) if isinstance(o, dict) and o.get("apiVersion") == FN_API]
    return items, configs[0]


def test_examples_are_found() -> None:
    assert len(RUNS) >= 5, RUNS


@pytest.mark.parametrize(("pkg", "config_file"), RUNS,
                         ids=[str(c.relative_to(REPO / "examples")) for _, c in RUNS])
def test_example_outputs_are_valid(pkg: Path, config_file: Path) -> None:
    items, config = _package(pkg, config_file)
    out = checked_process(resource_list(items, config), Options(base_dir=pkg))  # the test-suite check
    if config.get("kind") == "VirtualMachineRenderer":  # and the user-facing option
        spec = {**(config.get("spec") or {}), "validateOutput": True}
        strict = process(resource_list(items, {**config, "spec": spec}), Options(base_dir=pkg))
        assert not [r.summary() for r in strict.results if ("stage", "output") in r.tags]
        assert strict.exit_code == out.exit_code


# each case for the default release and one older release in turn (each older one on a quarter of the cases: the
# suite's time; the releases' own answers are tests/test_conformance_releases.py), validated against its API
OLDER = list(RELEASES)[:list(RELEASES).index(DEFAULT)]
CASE_RELEASES = [(path, OLDER[i % len(OLDER)]) for i, path in enumerate(CASES)]


@pytest.mark.parametrize(("path", "older"), CASE_RELEASES, ids=[p.name for p, _ in CASE_RELEASES])
def test_conformance_outputs_are_valid(path: Path, older: str) -> None:
    case = load_case(path)
    items = case.items
    for version, mode, extra in ((DEFAULT, "revisions", {}), (DEFAULT, "revisions", {"revisions": {"scope": "shared"}}),
                                 (DEFAULT, "expand", {}), (older, "expand", {}), (older, "revisions", {})):
        config = renderer(mode, catalog={"builtin": "none"}, validateOutput=True, kubevirtVersion=version, **extra)
        assert process(resource_list([], config)).exit_code == 0  # the config is valid
        data = resource_list(items, config)
        out = process(data)
        assert not [r.summary() for r in out.results if ("stage", "output") in r.tags], (version, mode)
        problems = invalid_emitted(parse(data)["items"], parse(out.data)["items"], RELEASES[version].tag)
        assert not problems, f"{version} {mode}: " + "\n".join(problems)


# --- spec.validateOutput -----------------------------------------------------------------------------
VM = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "web", "namespace": "prod"},
      "spec": {"runStrategy": "Halted", "instancetype": {"name": "u1.medium"},
               "template": {"spec": {"domain": {"devices": {}}}}}}
# validateOutput guards against our own defects (valid input always renders to valid output, which the tests
# above prove), so the defect is injected: revision names the API server would reject.
BAD_REVISION_NAMES = "import krm_fn.render.revisions as r; r.pinned_name = lambda *args: 'Bad_Name'"


@pytest.fixture
def bad_revision_names(monkeypatch: pytest.MonkeyPatch) -> None:
    import krm_fn.render.revisions

    monkeypatch.setattr(krm_fn.render.revisions, "pinned_name", lambda *args: "Bad_Name")


def test_validate_output_reports_error_results_and_exit_1(bad_revision_names: None) -> None:
    data = resource_list([VM], renderer("revisions", validateOutput=True))
    out = process(data)
    assert out.exit_code == 1
    found = sorted((r.resource_ref.kind if r.resource_ref else "", r.field_path or "") for r in out.results
                   if ("stage", "output") in r.tags)
    assert found == [("ControllerRevision", "metadata.name")]
    results = parse(out.data)["results"]
    assert all(r["severity"] == "error" and r["field"]["path"] == "metadata.name" for r in results)


def test_validate_output_is_off_by_default_and_unchanged_input_is_not_judged(bad_revision_names: None) -> None:
    assert process(resource_list([VM], renderer("revisions"))).exit_code == 0
    validate_only = resource_list([VM], renderer("validate", validateOutput=True))
    assert process(validate_only).exit_code == 0  # nothing emitted or changed: nothing to validate


def test_validate_output_on_the_command_line(tmp_path: Path) -> None:
    """Stream mode: the error lines on stderr, nothing on stdout."""
    import sys

    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\n"
                   "spec:\n  validateOutput: true\n")
    vm = resource_list([VM]).decode().split("items:\n", 1)[1]
    stream = "\n".join(line[2:] for line in vm.splitlines()) + "\n"
    patched = [sys.executable, "-c", BAD_REVISION_NAMES + "; from krm_fn.cli.main import main; raise SystemExit(main())"]
    proc = subprocess.run(patched + [str(cfg), "-"], input=stream.encode(), capture_output=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and "metadata.name: output is not a valid" in lines[0], lines
    assert run_fn([str(cfg), "-"], stream).returncode == 0  # the real engine: valid output


def test_validate_output_on_the_generator() -> None:
    # a user catalog whose preference would be invalid is not possible through the catalog checks, so an
    # existing item with an invalid annotation key is merged into a generated object (upsert keeps annotations)
    existing = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
                "metadata": {"name": "u1.medium", "annotations": {"bad key!": "x"}},
                "spec": {"cpu": {"guest": 1}, "memory": {"guest": "4Gi"}}}
    config = {"apiVersion": FN_API, "kind": "InstancetypeCatalog", "metadata": {"name": "c"},
              "spec": {"include": {"series": ["u1"], "sizes": ["medium"]}, "scope": "Cluster",
                       "validateOutput": True}}
    out = process(resource_list([existing], config))
    assert out.exit_code == 1
    assert [(r.resource_ref.name if r.resource_ref else "", r.field_path) for r in out.results] == [
        ("u1.medium", "metadata.annotations")]  # apimachinery reports the map (issue 23, item 7)
