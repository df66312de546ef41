"""kubectl kustomize with the legacy exec plugin laid out by ``kubevirt-krm install-plugin`` (real tool)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from krm_fn.catalog import CatalogSpec, generate
from tests.conftest import REPO, run_fn

pytestmark = pytest.mark.integration
KUBECTL = shutil.which("kubectl")


@pytest.fixture(scope="module")
def plugin_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("plugins")
    proc = run_fn(["install-plugin", str(home)])
    assert proc.returncode == 0, proc.stderr
    return home


def kustomize(directory: Path, plugin_home: Path) -> subprocess.CompletedProcess[str]:
    if KUBECTL is None:
        if os.environ.get("CI") == "true":
            pytest.fail("kubectl is required in CI")
        pytest.skip("kubectl not installed")
    env = {**os.environ, "KUSTOMIZE_PLUGIN_HOME": str(plugin_home)}
    return subprocess.run([KUBECTL, "kustomize", "--enable-alpha-plugins", str(directory)], capture_output=True,
                          text=True, env=env, timeout=300)


def test_install_plugin_layout(plugin_home: Path) -> None:
    for kind in ("InstancetypeCatalog", "VirtualMachineRenderer"):
        exe = plugin_home / "kubevirt-krm.dev" / "v1alpha1" / kind.lower() / kind
        assert exe.exists() and os.access(exe, os.X_OK)


def test_repo_kustomization_builds_the_default_catalog(plugin_home: Path) -> None:
    proc = kustomize(REPO, plugin_home)
    assert proc.returncode == 0, proc.stderr
    got = sorted(yaml.safe_load_all(proc.stdout), key=lambda o: (o["kind"], o["metadata"]["name"]))
    expected = sorted(generate(CatalogSpec(), None), key=lambda o: (o["kind"], o["metadata"]["name"]))
    assert len(got) == 244
    assert got == expected


def test_plugin_failure_shows_our_message(plugin_home: Path, tmp_path: Path) -> None:
    (tmp_path / "kustomization.yaml").write_text("generators:\n- gen.yaml\n")
    (tmp_path / "gen.yaml").write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\n"
                                       "metadata:\n  name: bad\nspec:\n  scope: Galaxy\n")
    proc = kustomize(tmp_path, plugin_home)
    assert proc.returncode != 0
    assert "spec.scope: must be one of Cluster, Namespaced, Both" in proc.stderr
    assert "Traceback" not in proc.stderr
