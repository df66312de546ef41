"""The layers of docs/architecture.md, as the imports say them (lazy imports inside functions included): each
package imports only what lies below it, so KubeVirt's semantics never learn about kpt, KRM results or the
renderer's modes."""

from __future__ import annotations

import ast
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
