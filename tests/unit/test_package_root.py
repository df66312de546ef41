"""Catalog files are read only from inside the package root, symlinks resolved, whatever the package-path
annotation says (krm_fn.kube.package_root, krm_fn.catalog.load.resolve_path).

The root is decided at the edge (krm_fn/cli): the cwd in KRM mode (kustomize runs a KRM function in the
kustomization directory), ``$KUSTOMIZE_PLUGIN_CONFIG_ROOT`` for the kustomize legacy plugin, the config file's
directory in standalone mode. kpt runs exec functions in its own cwd and names the package with an absolute
``internal.config.kubernetes.io/package-path``: in KRM mode only, an absolute path to a directory holding a
``Kptfile`` is the root. Anywhere else the annotation may only name a directory inside the root.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from krm_fn.io.resourcelist import parse_resource_list
from krm_fn.kube.api import ANN_PACKAGE_PATH
from krm_fn.process import Options, run
from tests.builders import REPO, run_fn
from tests.reliability.support import assert_one_line_failure

CATALOG = (REPO / "catalog" / "classic.yaml").read_text()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """root/ (the package root) with sub/cat.yaml; outside/cat.yaml next to it; kpt/ a kpt package elsewhere;
    symlinks from inside the root to outside."""
    for d in ("root/sub", "outside", "kpt"):
        (tmp_path / d).mkdir(parents=True)
    for d in ("root/sub", "outside", "kpt"):
        (tmp_path / d / "cat.yaml").write_text(CATALOG)
    (tmp_path / "root" / "cat.yaml").write_text(CATALOG)
    (tmp_path / "kpt" / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: kpt}\n")
    (tmp_path / "root" / "sub" / "to-outside").symlink_to(tmp_path / "outside")
    (tmp_path / "root" / "sub" / "up").symlink_to("../..")
    (tmp_path / "root" / "linked.yaml").symlink_to(tmp_path / "outside" / "cat.yaml")
    (tmp_path / "kpt" / "linked.yaml").symlink_to(tmp_path / "outside" / "cat.yaml")
    return tmp_path


def config(package: str | None, path: str = "cat.yaml") -> dict[str, Any]:
    md: dict[str, Any] = {"name": "c"}
    if package is not None:
        md["annotations"] = {ANN_PACKAGE_PATH: package}
    return {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "InstancetypeCatalog", "metadata": md,
            "spec": {"path": path, "scope": "Cluster", "include": {"series": ["m"], "sizes": ["small"]},
                     "exclude": {"preferences": ["*"]}}}


def generate(fn_config: dict[str, Any], root: Path, kpt: bool) -> tuple[list[Any], list[str]]:
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [], "functionConfig": fn_config}
    items, results = run(parse_resource_list(json.dumps(rl)), Options(base_dir=root, kpt=kpt))
    return list(items), [r.summary() for r in results if r.severity == "error"]


@pytest.mark.parametrize("kpt", [True, False], ids=["krm", "stream"])
@pytest.mark.parametrize(("package", "path"), [
    (None, "cat.yaml"), ("sub", "cat.yaml"), ("./sub/", "cat.yaml"), ("{root}/sub", "cat.yaml"), ("{root}", "cat.yaml"),
])
def test_inside_the_root(tree: Path, kpt: bool, package: str | None, path: str) -> None:
    given = package.format(root=tree / "root") if package else None
    items, errors = generate(config(given, path), tree / "root", kpt)
    assert errors == [] and [i["metadata"]["name"] for i in items] == ["m.small"]


@pytest.mark.parametrize("kpt", [True, False], ids=["krm", "stream"])
@pytest.mark.parametrize(("package", "message"), [
    ("..", "is outside the package root"),
    ("../outside", "is outside the package root"),
    ("sub/../../outside", "is outside the package root"),
    ("{tmp}/outside", "is outside the package root"),
    ("sub/to-outside", "is outside the package root"),   # a symlink leading out
    ("sub/up", "is outside the package root"),           # a symlink to ../..
    ("/", "is outside the package root"),
    ("sub/cat.yaml", "is not a directory"),
    ("missing", "is not a directory"),
])
def test_the_annotation_cannot_leave_the_root(tree: Path, kpt: bool, package: str, message: str) -> None:
    items, errors = generate(config(package.format(tmp=tree)), tree / "root", kpt)
    assert len(errors) == 1 and message in errors[0], errors
    assert f"metadata.annotations.{ANN_PACKAGE_PATH}:" in errors[0] and items == []


def test_kpt_names_its_package_with_an_absolute_path(tree: Path) -> None:
    """kpt fn render runs the function in kpt's cwd: the package (a Kptfile) is the root in KRM mode only."""
    items, errors = generate(config(str(tree / "kpt")), tree / "root", kpt=True)
    assert errors == [] and [i["metadata"]["name"] for i in items] == ["m.small"]
    _, errors = generate(config(str(tree / "kpt")), tree / "root", kpt=False)
    assert len(errors) == 1 and "is outside the package root" in errors[0]


@pytest.mark.parametrize(("package", "path", "message"), [
    ("{tmp}/kpt", "linked.yaml", "resolves to a file outside the package directory"),
    ("{tmp}/kpt", "../outside/cat.yaml", "'..' is not allowed"),
    ("{tmp}/kpt", "{tmp}/outside/cat.yaml", "not absolute"),
    (None, "linked.yaml", "resolves to a file outside the package directory"),
    ("sub", "../cat.yaml", "'..' is not allowed"),
    ("sub", "to-outside/cat.yaml", "resolves to a file outside the package directory"),
])
def test_catalog_paths_stay_in_the_package(tree: Path, package: str | None, path: str, message: str) -> None:
    given = package.format(tmp=tree) if package else None
    _, errors = generate(config(given, path.format(tmp=tree)), tree / "root", kpt=True)
    assert len(errors) == 1 and message in errors[0], errors


def test_standalone_root_is_the_config_files_directory(tree: Path) -> None:
    cfg = tree / "root" / "cfg.yaml"
    cfg.write_text(json.dumps(config("../outside")))
    assert_one_line_failure(run_fn([str(cfg)], b"", cwd=tree / "outside"), "is outside the package root")
    cfg.write_text(json.dumps(config("sub")))
    proc = run_fn([str(cfg)], b"", cwd=tree / "outside")
    assert proc.returncode == 0 and b"name: m.small" in proc.stdout, proc.stderr


def test_legacy_plugin_root_is_the_kustomize_plugin_config_root(tree: Path) -> None:
    env = {"KUSTOMIZE_PLUGIN_CONFIG_STRING": json.dumps(config("../outside")),
           "KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(tree / "root")}
    assert_one_line_failure(run_fn([], b"", env=env, cwd=tree), "is outside the package root")
    env["KUSTOMIZE_PLUGIN_CONFIG_STRING"] = json.dumps(config(str(tree / "kpt")))  # no kpt in this mode
    assert_one_line_failure(run_fn([], b"", env=env, cwd=tree), "is outside the package root")


def test_krm_mode_root_is_the_cwd(tree: Path) -> None:
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [],
          "functionConfig": config("../outside")}
    proc = run_fn([], json.dumps(rl), cwd=tree / "root")
    assert proc.returncode == 1 and b"is outside the package root" in proc.stderr
    rl["functionConfig"] = config(str(tree / "kpt"))
    proc = run_fn([], json.dumps(rl), cwd=tree / "root")
    assert proc.returncode == 0 and b"name: m.small" in proc.stdout, proc.stderr
