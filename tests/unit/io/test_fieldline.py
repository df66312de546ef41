"""A field's line in a file read again from its package (krm_fn.io.fieldline): what kpt and kustomize's
legacy plugin hand us names the file and index, not the line (issue 38, point 5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from krm_fn.io.fieldline import field_line, line_in_package

VM = "kind: VirtualMachine\nmetadata:\n  name: {name}\nspec:\n  runStrategy: Allways\n"
TWO = "# two VMs\n" + VM.format(name="a") + "---\n" + VM.format(name="b")


def _package(tmp_path: Path, marker: str = "Kptfile") -> Path:
    (tmp_path / marker).write_text("")
    (tmp_path / "vms.yaml").write_text(TWO)
    return tmp_path


def _line(root: Path, name: str, index: int | None, file: str = "vms.yaml", namespace: str = "") -> int | None:
    cache: dict[tuple[str, str], Any] = {}
    return line_in_package(str(root), file, index, ("VirtualMachine", namespace, name), "spec.runStrategy", cache)


def test_the_document_at_its_index_or_else_the_one_that_is_the_object(tmp_path: Path) -> None:
    root = _package(tmp_path)
    assert _line(root, "a", 0) == 6 and _line(root, "b", 1) == 12
    assert _line(root, "b", 0) == 12  # index 0 is another object: found by its identity
    assert _line(root, "b", None, namespace="apps") == 12  # kustomize may have set the namespace


def test_a_kustomization_root_is_a_package_too(tmp_path: Path) -> None:
    assert _line(_package(tmp_path, "kustomization.yaml"), "a", None) == 6


def test_nothing_outside_a_package_or_not_the_object(tmp_path: Path) -> None:
    (tmp_path / "vms.yaml").write_text(TWO)
    assert _line(tmp_path, "a", 0) is None  # no Kptfile or kustomization: not a package
    (tmp_path / "pkg").mkdir()
    root = _package(tmp_path / "pkg")
    assert _line(root, "a", 0, file="../vms.yaml") is None  # outside the package
    assert _line(root, "c", 0) is None and _line(root, "a", 0, file="gone.yaml") is None
    assert _line(Path("relative"), "a", 0) is None


def test_a_configmap_key_with_dots_is_one_step() -> None:
    text = "kind: ConfigMap\ndata:\n  mode: x\n  catalog.builtin: typo\n"
    assert field_line(text, "data.catalog.builtin") == 3
    assert field_line(text, "data[catalog.builtin]") == 3
    assert field_line("", "a") is None  # no node at all
