"""The layers of docs/architecture.md, as the imports say them (lazy imports inside functions included): each
package imports only what lies below it, so KubeVirt's semantics never learn about kpt, KRM results or the
renderer's modes."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "krm_fn"

# what each part of krm_fn may import (the first part of the module path below krm_fn)
ALLOWED = {
    "kube": {"kube", "errors"},
    "index.py": {"kube"},
    "io": {"io", "kube", "errors"},
    "kubevirt": {"kubevirt", "kube", "index", "errors"},
    "catalog": {"catalog", "io", "kube", "errors", "kubevirt_versions"},
    "render": {"render", "kubevirt", "kube", "index", "results", "errors", "catalog", "kubevirt_versions"},
}


def _imported(path: Path) -> set[str]:
    """The parts of krm_fn a module imports (``krm_fn.kube.api`` -> ``kube``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        for name in names:
            parts = name.split(".")
            if parts[0] == "krm_fn" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_a_layer_imports_only_what_lies_below_it(part: str) -> None:
    root = PACKAGE / part
    modules = [root] if root.suffix == ".py" else sorted(root.rglob("*.py"))
    assert modules
    wrong = {f"{m.relative_to(PACKAGE)} imports krm_fn.{name}"
             for m in modules for name in _imported(m) - ALLOWED[part]}
    assert not wrong, sorted(wrong)


def test_the_check_sees_imports() -> None:
    assert _imported(PACKAGE / "render" / "items.py") >= {"kubevirt", "kube", "results", "render", "index"}


@pytest.mark.parametrize("data", [
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
    "  apiVersion: kubevirt-krm.dev/v1alpha1\n  kind: InstancetypeCatalog\n  metadata: {name: c}\n",
], ids=["empty list", "generator"])
def test_a_run_without_vms_does_not_import_the_engine(data: str) -> None:
    """Start-up time: the engine (``kubevirt/``, the renderer's phases) is imported only when there are items
    to render. A package's __init__ runs before any of its modules, so it must stay empty of imports."""
    code = ("import sys; from krm_fn.process import process; "
            f"out = process({data.encode()!r}); "
            "print(out.exit_code, sorted(m for m in sys.modules if m.startswith(('krm_fn.kubevirt.', 'krm_fn.render.'))"
            " and m not in ('krm_fn.render.spec', 'krm_fn.kubevirt.cluster')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert run.stdout.strip() == "0 []", run.stdout + run.stderr
