"""The CI recipes (issue 38, point 2), each run for real on an example repository: the pre-commit hook through
``pre-commit run`` (which clones this checkout and installs the hook), the GitHub Actions composite action's
script and the GitLab CI job's script. A pull request that edits a VM without re-rendering fails each one, and
the repository as rendered passes.

The hook environments are installed from ``$KUBEVIRT_KRM_WHEELHOUSE`` with no index (no network at test time):
``.ci/run`` fills it at install time."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.builders import REPO, REVISIONS_RENDERER, run_fn, web_vm_text
from tests.integration_support import require_tool

pytestmark = pytest.mark.integration

ARGS = ["render.yaml", "vms/", "--output", "rendered/vms.yaml"]


@pytest.fixture()
def wheelhouse() -> Path:
    found = os.environ.get("KUBEVIRT_KRM_WHEELHOUSE")
    if not found or not Path(found).is_dir():
        reason = "$KUBEVIRT_KRM_WHEELHOUSE names no directory of wheels (.ci/run makes one)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true, so this is an error, not a skip)")
        pytest.skip(reason)
    return Path(found)


def _env(tmp_path: Path, wheelhouse: Path) -> dict[str, str]:
    return {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse), "TMPDIR": str(tmp_path),
            "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@x",
            "GIT_COMMITTER_NAME": "ci", "GIT_COMMITTER_EMAIL": "ci@x"}


def _repository(root: Path) -> Path:
    """A GitOps repository: a renderer config, a source VM, and its render committed."""
    (root / "vms").mkdir(parents=True)
    (root / "rendered").mkdir()
    (root / "render.yaml").write_text(yaml.safe_dump(REVISIONS_RENDERER), encoding="utf-8")
    (root / "vms" / "web.yaml").write_text(web_vm_text("u1.medium"), encoding="utf-8")
    assert run_fn(ARGS, cwd=root).returncode == 0
    return root


def _git(root: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def test_the_pre_commit_hook_gates_the_render(tmp_path: Path, wheelhouse: Path) -> None:
    tool = require_tool("pre-commit", "the pre-commit hook test")
    env = _env(tmp_path, wheelhouse)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    root = _repository(tmp_path / "repo")
    config = {"repos": [{"repo": str(REPO), "rev": head.strip(),
                         "hooks": [{"id": "kubevirt-krm-check", "args": ARGS}]}]}
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(root, env, "init", "-q")
    _git(root, env, "add", ".")
    run = [tool, "run", "--all-files", "--color", "never"]
    first = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stdout + first.stderr
    (root / "vms" / "web.yaml").write_text(web_vm_text("u1.large"), encoding="utf-8")  # edited, not re-rendered
    failed = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert failed.returncode == 1 and "rendered/vms.yaml is not what the render gives" in failed.stdout, failed.stdout


def test_pre_commit_try_repo_checks_the_declared_renders(tmp_path: Path, wheelhouse: Path) -> None:
    """``pre-commit try-repo`` runs a hook with no arguments: the check finds the render the config declares
    (its kubevirt-krm.dev/output and inputs annotations)."""
    tool = require_tool("pre-commit", "the pre-commit hook test")
    env = _env(tmp_path, wheelhouse)
    root = _repository(tmp_path / "repo")
    config = yaml.safe_load((root / "render.yaml").read_text(encoding="utf-8"))
    config["metadata"].setdefault("annotations", {}).update(
        {"kubevirt-krm.dev/output": "rendered/vms.yaml", "kubevirt-krm.dev/inputs": "vms/"})
    (root / "render.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(root, env, "init", "-q")
    _git(root, env, "add", ".")
    run = [tool, "try-repo", str(REPO), "kubevirt-krm-check", "--all-files", "--color", "never"]
    first = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stdout + first.stderr
    (root / "vms" / "web.yaml").write_text(web_vm_text("u1.large"), encoding="utf-8")  # edited, not re-rendered
    _git(root, env, "add", ".")
    failed = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert failed.returncode == 1 and "rendered/vms.yaml is not what the render gives" in failed.stdout, failed.stdout


def _script(lines: str, root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", lines], cwd=root, env=env, capture_output=True, text=True, timeout=600)


def test_the_github_action_gates_the_render(tmp_path: Path, wheelhouse: Path) -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    step = action["runs"]["steps"][0]
    assert action["runs"]["using"] == "composite" and step["shell"] == "bash"
    root = _repository(tmp_path / "repo")
    env = {**_env(tmp_path, wheelhouse), "RUNNER_TEMP": str(tmp_path), "KUBEVIRT_KRM_ARGS": " ".join(ARGS),
           "KUBEVIRT_KRM_PACKAGE": str(REPO)}
    assert step["env"]["KUBEVIRT_KRM_ARGS"] == "${{ inputs.args }}"
    passed = _script(step["run"], root, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    (root / "vms" / "web.yaml").write_text(web_vm_text("u1.large"), encoding="utf-8")
    failed = _script(step["run"], root, env)
    assert failed.returncode == 1 and "+    name: u1.large" in failed.stdout, failed.stderr


def test_the_gitlab_job_gates_the_render(tmp_path: Path, wheelhouse: Path) -> None:
    job = yaml.safe_load((REPO / ".gitlab" / "kubevirt-krm-check.yml").read_text(encoding="utf-8"))["kubevirt-krm-check"]
    root = _repository(tmp_path / "repo")
    env = {**_env(tmp_path, wheelhouse), **job["variables"], "KUBEVIRT_KRM_PACKAGE": str(REPO)}
    assert env["KUBEVIRT_KRM_ARGS"].split() == ARGS  # the job's default arguments are this repository's layout
    lines = "\n".join(job["script"])
    passed = _script(lines, root, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    (root / "vms" / "web.yaml").write_text(web_vm_text("u1.large"), encoding="utf-8")
    failed = _script(lines, root, env)
    assert failed.returncode == 1 and "is not what the render gives" in failed.stderr, failed.stderr
