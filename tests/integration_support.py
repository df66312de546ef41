"""Helpers for the real-tool integration tests (kpt, kubectl kustomize, the Argo CD CMP script).

The kpt tests reimplement kpt's e2e harness loop (kpt's ``pkg/test/runner``; shared/docs/krm-integration.md
§4.3): copy a package to a temp dir, ``git init`` + commit, run the command, then compare the exit code, the
``git diff`` against the first commit (``.expected/diff.patch``) and the ``--results-dir`` file
(``.expected/results.yaml``). Tools are never fetched: a missing tool skips the test with the reason, except
with ``CI=true``, where it fails.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest
from tests.builders import REPO


EXAMPLES = REPO / "examples"
UPDATE = bool(os.environ.get("UPDATE_GOLDEN"))
TIMEOUT = 300


def require_tool(name: str, why: str = "") -> str:
    """Absolute path of ``name`` on PATH; skip when absent (fail when ``CI=true``)."""
    exe = shutil.which(name)
    if exe is None:
        reason = f"{name} is not installed{': ' + why if why else ''}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true, so this is an error, not a skip)")
        pytest.skip(reason)
    return exe


def fn_bin_dir(tmp: Path) -> Path:
    """A directory to put first on PATH so that ``kubevirt-krm`` resolves to this checkout's function.

    The installed console script when there is one (what users run); otherwise a wrapper that runs
    ``python -m krm_fn`` with this interpreter."""
    bin_dir = tmp / "fn-bin"
    wrapper = bin_dir / "kubevirt-krm"
    if wrapper.exists() or wrapper.is_symlink():
        return bin_dir
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = shutil.which("kubevirt-krm")
    if exe is not None:
        wrapper.symlink_to(Path(exe).resolve())
    else:
        wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={REPO} exec {sys.executable} -m krm_fn \"$@\"\n")
        wrapper.chmod(0o755)
    return bin_dir


def tool_env(tmp: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a tool run: no leaked kustomize plugin variables, git isolated from the user's
    configuration, ``kubevirt-krm`` first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KUSTOMIZE_PLUGIN", "GIT_", "ARGOCD_", "PARAM_"))}
    env.update({
        "PATH": f"{fn_bin_dir(tmp)}{os.pathsep}{env.get('PATH', '')}",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "none", "GIT_AUTHOR_EMAIL": "none",
        "GIT_COMMITTER_NAME": "none", "GIT_COMMITTER_EMAIL": "none",
        "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    })
    env.update(extra or {})
    return env


def run(cmd: Sequence[str], cwd: Path, env: Mapping[str, str], stdin: str | None = None,
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), cwd=cwd, env=dict(env), input=stdin, capture_output=True, text=True,
                          timeout=TIMEOUT)


# --- packages under git ------------------------------------------------------------------------

def copy_package(src: Path, dst: Path) -> Path:
    """A copy of ``src`` at ``dst`` (symlinks kept as links, like ``cp -r``)."""
    shutil.copytree(src, dst, symlinks=True)
    return dst


def git(pkg: Path, env: Mapping[str, str], *args: str) -> str:
    git_exe = require_tool("git")
    proc = run([git_exe, "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", *args], pkg, env)
    assert proc.returncode == 0, f"git {' '.join(args)} failed: {proc.stderr}"
    return proc.stdout


def git_init_commit(pkg: Path, env: Mapping[str, str]) -> str:
    """``git init`` + add everything + commit; returns the commit id."""
    git(pkg, env, "init", "-q", "-b", "main")
    return git_commit_all(pkg, env, "first")


def git_commit_all(pkg: Path, env: Mapping[str, str], message: str) -> str:
    git(pkg, env, "add", "--all")
    git(pkg, env, "commit", "-q", "--allow-empty", "-m", message)
    return git(pkg, env, "rev-parse", "HEAD").strip()


def git_diff_since(pkg: Path, env: Mapping[str, str], commit: str) -> str:
    """kpt's harness diff: commit the work tree, then ``git diff FIRST HEAD`` (trimmed)."""
    git_commit_all(pkg, env, "after")
    return git(pkg, env, "diff", "--no-color", "--no-ext-diff", commit, "HEAD").strip()


def git_status(pkg: Path, env: Mapping[str, str]) -> str:
    return git(pkg, env, "status", "--porcelain", "--untracked-files=all")


_INDEX_LINE = re.compile(r"^index [0-9a-f]+\.\.[0-9a-f]+( \d+)?$", re.M)


def normalise_diff(diff: str) -> str:
    """Drop the ``index abc..def`` header lines (blob ids abbreviated to a repo-dependent length)."""
    return _INDEX_LINE.sub("index", diff.strip())


def clear_exec_bits(root: Path) -> None:
    """What Argo CD does to repo files for a CMP (``preserveFileMode: false``)."""
    for p in [root, *root.rglob("*")]:
        if p.is_symlink():
            continue
        mode = p.stat().st_mode
        if p.is_file():
            p.chmod(mode & ~(stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))


def _strip(text: str) -> str:
    return text.strip()


class Golden:
    """Expected files. ``UPDATE_GOLDEN=1`` rewrites them, and ``done()`` then fails, so a regeneration can
    never pass silently (the project's golden convention)."""

    def __init__(self) -> None:
        self.rewritten: list[Path] = []

    def check(self, path: Path, actual: str, normalise: Callable[[str], str] = _strip) -> None:
        if UPDATE:
            if path not in self.rewritten:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(actual.strip() + "\n" if actual.strip() else "")
                self.rewritten.append(path)
            return
        assert path.exists(), f"{path} is missing (run with UPDATE_GOLDEN=1 to create it)"
        assert normalise(actual) == normalise(path.read_text()), (
            f"{path.relative_to(REPO)} differs from the actual output:\n{actual}")

    def done(self) -> None:
        if self.rewritten:
            names = ", ".join(str(p.relative_to(REPO)) for p in self.rewritten)
            pytest.fail(f"rewrote {names}; review and rerun without UPDATE_GOLDEN")


# A VM whose instancetype exists nowhere: every integration path must fail on it with KubeVirt's not-found text.
MISSING_TYPE_VM = """\
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: broken
  namespace: apps
spec:
  runStrategy: Always
  instancetype:
    name: u1.nonexistent
  template:
    spec:
      domain:
        devices: {}
"""
MISSING_TYPE_MESSAGE = 'virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u1.nonexistent" not found'
MISSING_TYPE_STDERR = ("kubevirt-krm: error: VirtualMachine apps/broken spec.instancetype: "
                       "unable to expand VirtualMachine: " + MISSING_TYPE_MESSAGE)
