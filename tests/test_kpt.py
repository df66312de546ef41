"""kpt, for real: ``kpt fn eval --exec`` and ``kpt fn render --allow-exec`` on the kpt examples (issue 6 part 3).

Every ``examples/kpt-*/`` package holds kpt e2e-harness cases: ``.expected/config.yaml`` (and, for a second
case of the same package, ``.expected/<case>/config.yaml``) with kpt's field names (``testType``, ``exitCode``,
``execPath``, ``fnConfig``, ``args``, ``allowExec``, ``stdErr``), ``diff.patch`` (the expected change, new
files included: ``git add -A``, commit, ``git diff FIRST HEAD``, ``index`` lines shortened) and ``results.yaml``
(the expected ``--results-dir`` file). As kpt's harness does, each case runs twice on a
git-committed temp copy, from the copy's parent directory (so the function's cwd is not the package), and the
diff must be the expected one after *both* runs. ``UPDATE_GOLDEN=1`` rewrites diff.patch/results.yaml and fails.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.builders import line_with, run_fn
from tests.integration_support import (
    EXAMPLES,
    MISSING_TYPE_MESSAGE,
    MISSING_TYPE_VM,
    Golden,
    copy_package,
    git_commit_all,
    git_diff_since,
    git_init_commit,
    git_status,
    normalise_diff,
    require_tool,
    run,
    tool_env,
)

pytestmark = pytest.mark.integration

KPT_PACKAGES = sorted(p for p in EXAMPLES.glob("kpt-*") if (p / "Kptfile").is_file())

BAD_VM = "# references an instancetype that exists nowhere\n" + MISSING_TYPE_VM.removeprefix("---\n")
BAD_VM_MESSAGE = MISSING_TYPE_MESSAGE


@dataclass(frozen=True)
class Case:
    package: Path      # examples/<pkg>
    expected: Path     # examples/<pkg>/.expected[/<case>]

    @property
    def id(self) -> str:
        rel = self.expected.relative_to(self.package / ".expected")
        return self.package.name + ("" if str(rel) == "." else f"/{rel}")


CASES = [Case(pkg, cfg.parent) for pkg in KPT_PACKAGES for cfg in sorted((pkg / ".expected").rglob("config.yaml"))]


def test_kpt_examples_exist() -> None:
    assert {c.id for c in CASES} >= {"kpt-catalog", "kpt-catalog/configmap", "kpt-pipeline"}
    for pkg in KPT_PACKAGES:
        assert (pkg / ".krmignore").read_text().split() == [".expected"], pkg
        assert (pkg / "README.md").is_file(), pkg
        assert not (pkg / ".expected" / "output.yaml").exists(), "kpt examples are checked with kpt, not in-process"


def kpt_command(kpt: str, config: dict[str, Any], pkg: Path, expected_dir: Path, results: Path) -> list[str]:
    """The command kpt's harness builds from config.yaml (pkg relative to the cwd, its parent)."""
    test_type = config.get("testType", "render")
    cmd = [kpt, "fn", test_type, pkg.name, "--results-dir", str(results)]
    if test_type == "render":
        return cmd + (["--allow-exec"] if config.get("allowExec") else [])
    assert test_type == "eval", test_type
    cmd += ["--exec", config["execPath"]]   # a $PATH name: kpt resolves relative exec paths from its cwd
    if config.get("fnConfig"):
        cmd += ["--fn-config", str((expected_dir / config["fnConfig"]).resolve())]
    args = config.get("args") or {}
    if args:
        cmd += ["--"] + [f"{k}={v}" for k, v in args.items()]
    return cmd


def read_results(results: Path) -> str:
    files = sorted(results.iterdir()) if results.exists() else []
    assert len(files) <= 1, files
    return files[0].read_text().strip() if files else ""


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_kpt_harness_case(case: Case, tmp_path: Path) -> None:
    kpt = require_tool("kpt", "needed for the kpt integration tests")
    config = yaml.safe_load((case.expected / "config.yaml").read_text()) or {}
    env = tool_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    pkg = copy_package(case.package, work / case.package.name)
    first = git_init_commit(pkg, env)
    expected_dir = pkg / case.expected.relative_to(case.package)
    golden = Golden()
    for attempt in (1, 2):
        results = tmp_path / f"results-{attempt}"
        proc = run(kpt_command(kpt, config, pkg, expected_dir, results), work, env)
        output = proc.stdout + proc.stderr
        assert proc.returncode == config.get("exitCode", 0), output
        assert "Traceback" not in output
        assert config.get("stdErr", "") in proc.stderr
        if attempt == 1:
            golden.check(case.expected / "results.yaml", read_results(results))
        golden.check(case.expected / "diff.patch", git_diff_since(pkg, env, first), normalise_diff)
        if proc.returncode != 0:
            break
    golden.done()


# --- kpt fn eval: the failing case ----------------------------------------------------------------------------

def test_eval_bad_vm_fails_and_leaves_the_package_unchanged(tmp_path: Path) -> None:
    kpt = require_tool("kpt", "needed for the kpt integration tests")
    env = tool_env(tmp_path)
    pkg = copy_package(EXAMPLES / "kpt-catalog", tmp_path / "kpt-catalog")
    (pkg / "broken.yaml").write_text(BAD_VM)
    git_init_commit(pkg, env)
    results = tmp_path / "results"
    proc = run([kpt, "fn", "eval", "kpt-catalog", "--exec", "kubevirt-krm", "--results-dir", str(results),
                "--", "mode=validate"], tmp_path, env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert BAD_VM_MESSAGE in output, output                               # kpt shows our results and stderr
    assert "error: VirtualMachine apps/broken (broken.yaml) spec.instancetype:" in output
    assert "Traceback" not in output
    assert git_status(pkg, env) == ""                                     # nothing written
    got = yaml.safe_load(read_results(results))
    assert got["exitCode"] == 1
    (item,) = got["items"]
    (result,) = item["results"]
    assert result["severity"] == "error" and BAD_VM_MESSAGE in result["message"]
    assert result["resourceRef"] == {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
                                     "name": "broken", "namespace": "apps"}
    assert result["file"] == {"path": "broken.yaml"}
    assert result["field"]["path"] == "spec.instancetype"


def test_a_config_typo_names_its_field_once(tmp_path: Path) -> None:
    """Issue 38, point 5: kpt prints a result's field beside its message, so the message does not repeat it."""
    kpt = require_tool("kpt", "needed for the kpt integration tests")
    env = tool_env(tmp_path)
    pkg = copy_package(EXAMPLES / "kpt-catalog", tmp_path / "kpt-catalog")
    git_init_commit(pkg, env)
    proc = run([kpt, "fn", "eval", "kpt-catalog", "--exec", "kubevirt-krm", "--", "mdoe=expand"], tmp_path, env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "[error] v1/ConfigMap/function-input data.mdoe: unknown field (known: " in output, output
    assert output.count("data.mdoe") == 2, output  # the result's line and our stderr line, each once
    assert git_status(pkg, env) == ""


# --- kpt fn render: the pipeline -------------------------------------------------------------------------------

@pytest.fixture
def rendered_pipeline(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The kpt-pipeline example, rendered once in place and committed."""
    kpt = require_tool("kpt", "needed for the kpt integration tests")
    env = tool_env(tmp_path)
    pkg = copy_package(EXAMPLES / "kpt-pipeline", tmp_path / "kpt-pipeline")
    git_init_commit(pkg, env)
    proc = run([kpt, "fn", "render", "kpt-pipeline", "--allow-exec"], tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    env["KPT"] = kpt
    git_commit_all(pkg, env, "rendered")
    return pkg, env


def test_render_twice_is_byte_identical(rendered_pipeline: tuple[Path, dict[str, str]]) -> None:
    pkg, env = rendered_pipeline
    src = EXAMPLES / "kpt-pipeline"
    proc = run([env["KPT"], "fn", "render", pkg.name, "--allow-exec"], pkg.parent, env)
    assert proc.returncode == 0, proc.stderr
    assert git_status(pkg, env) == "", "the second render changed the package"
    # the Kptfile and the catalog config are never touched
    for rel in ("Kptfile", "instancetypes/catalog.yaml", ".krmignore"):
        assert (pkg / rel).read_bytes() == (src / rel).read_bytes(), rel
    # what the pipeline produced: the generated catalog objects next to their config, VMs pinned
    generated = list(yaml.safe_load_all((pkg / "instancetypes/virtualmachineclusterinstancetypes.yaml").read_text()))
    assert sorted(o["metadata"]["name"] for o in generated) == ["u1.medium", "u1.small"]
    # user comments survive (kpt restores them through the id annotations)
    db = (pkg / "vms/db.yaml").read_text()
    for comment in ("# The database VM:", "# quoted on purpose: must stay quoted", "# 1 vCPU, 4Gi"):
        assert comment in db
    assert "#cloud-config\n" in db and "packages: [postgresql-server]" in db   # the | block is intact


def test_render_keeps_the_quoting_of_changed_vms(rendered_pipeline: tuple[Path, dict[str, str]]) -> None:
    """kpt restores comments, not scalar styles: a VM the renderer changes (revisionName added) must keep the
    user's quoting and flow style in what did not change (shared/docs/krm-integration.md §3.2)."""
    pkg, _ = rendered_pipeline
    db = (pkg / "vms/db.yaml").read_text()
    web = (pkg / "vms/web.yaml").read_text()
    assert "revisionName:" in db and "revisionName:" in web   # they were changed ...
    assert 'app: "db"' in db                                   # ... and kept the user's text
    assert "tier: 'backend'" in db
    assert "labels: {app: db}" in db
    assert 'runStrategy: "Always"' in web


def test_render_bad_vm_fails_and_leaves_the_package_unchanged(tmp_path: Path) -> None:
    kpt = require_tool("kpt", "needed for the kpt integration tests")
    env = tool_env(tmp_path)
    pkg = copy_package(EXAMPLES / "kpt-pipeline", tmp_path / "kpt-pipeline")
    (pkg / "vms" / "broken.yaml").write_text(BAD_VM)
    git_init_commit(pkg, env)
    proc = run([kpt, "fn", "render", "kpt-pipeline", "--allow-exec"], tmp_path, env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert BAD_VM_MESSAGE in output
    # the field's line in the user's file, read again from the package (kpt gives the file and index only)
    at = line_with(BAD_VM, "  instancetype:")
    assert f"error: VirtualMachine apps/broken (vms/broken.yaml line {at}) spec.instancetype:" in output
    assert "Traceback" not in output
    assert git_status(pkg, env) == "", "a failed render must not write anything"


def test_render_without_allow_exec_is_refused(tmp_path: Path) -> None:
    kpt = require_tool("kpt", "needed for the kpt integration tests")
    env = tool_env(tmp_path)
    pkg = copy_package(EXAMPLES / "kpt-pipeline", tmp_path / "kpt-pipeline")
    git_init_commit(pkg, env)
    proc = run([kpt, "fn", "render", "kpt-pipeline"], tmp_path, env)
    assert proc.returncode != 0
    assert "--allow-exec" in proc.stdout + proc.stderr
    assert git_status(pkg, env) == ""


def test_render_resolves_a_user_catalog_path_from_the_package(tmp_path: Path) -> None:
    """kpt runs the function in kpt's cwd, not the package; a relative ``spec.path`` must still be found in the
    package (kpt passes internal.config.kubernetes.io/package-path on the functionConfig)."""
    kpt = require_tool("kpt", "needed for the kpt integration tests")
    env = tool_env(tmp_path)
    pkg = tmp_path / "pkg"
    (pkg / "catalogs").mkdir(parents=True)
    (pkg / "catalogs" / "mine.yaml").write_text((EXAMPLES.parent / "catalog" / "classic.yaml").read_text())
    (pkg / ".krmignore").write_text("catalogs\n")   # a catalog file is not a KRM resource
    (pkg / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n  annotations:\n"
                                 "    config.kubernetes.io/local-config: \"true\"\npipeline:\n  mutators:\n"
                                 "    - exec: kubevirt-krm\n      configPath: catalog.yaml\n")
    (pkg / "catalog.yaml").write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\n"
                                      "metadata:\n  name: mine\n  annotations:\n"
                                      "    config.kubernetes.io/local-config: \"true\"\n"
                                      "spec:\n  path: catalogs/mine.yaml\n  scope: Cluster\n"
                                      "  include: {series: [m], sizes: [small]}\n")
    proc = run([kpt, "fn", "render", "pkg", "--allow-exec"], tmp_path, env)   # started outside the package
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "name: m.small" in (pkg / "virtualmachineclusterinstancetypes.yaml").read_text()


@pytest.mark.parametrize("pkg", KPT_PACKAGES, ids=[p.name for p in KPT_PACKAGES])
def test_noop_round_trip_of_kpt_source_is_byte_identical(pkg: Path) -> None:
    """What kpt sends (comments, quotes, flow maps, block scalars, every annotation) comes back byte for byte
    from a run that changes nothing, so kpt writes the package back in its own formatting."""
    kpt = require_tool("kpt")
    source = subprocess.run([kpt, "fn", "source", str(pkg)], capture_output=True, check=True, timeout=120).stdout
    assert b"kind: VirtualMachine" in source or b"kind: InstancetypeCatalog" in source
    proc = run_fn(["--validate"], source)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == source
