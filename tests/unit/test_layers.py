"""The layers of docs/architecture.md, as the imports say them (lazy imports inside functions included): each
package imports only what lies below it, so KubeVirt's semantics never learn about kpt, KRM results or the
renderer's modes."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from tests.builders import REPO


PACKAGE = REPO / "krm_fn"

# what each part of krm_fn may import (the first part of the module path below krm_fn)
ALLOWED = {
    "kube": {"kube", "errors"},
    "errors.py": {"kube"},  # lower than drawn: kube/ and io/ word their messages with it; it uses kube.paths
    "index.py": {"kube"},
    "io": {"io", "kube", "errors"},
    "kubevirt": {"kubevirt", "kube", "index", "errors", "kubevirt_versions"},
    "kubevirt_versions.py": {"errors"},
    "results.py": {"kube", "errors", "io", "catalog"},  # the core's results name files, lines and catalog keys
    "catalog": {"catalog", "io", "kube", "errors", "kubevirt_versions"},
    "render": {"render", "capacity", "kubevirt", "kube", "index", "results", "errors", "catalog",
               "kubevirt_versions"},
    "capacity": {"capacity", "kubevirt", "kube", "index", "results", "errors", "kubevirt_versions"},
    "config.py": {"catalog", "render", "kubevirt", "kube", "errors", "kubevirt_versions"},
    # the core: what a run is; it drives the renderer's phases, never the engine below them
    "stream.py": {"io", "kube", "results", "errors"},
    "workers.py": {"io", "render"},  # types and values of what the child sends back
    "process.py": {"workers", "stream", "config", "catalog", "render", "io", "kube", "results", "errors",
                   "kubevirt_versions"},
    # on the core: the same inputs rendered through it for two releases, compared (upgrade-report)
    "upgrade": {"upgrade", "process", "config", "render", "catalog", "index", "io", "kube", "results", "errors",
                "kubevirt_versions"},
    # the edge: argv, env, files; everything goes through the core
    "cli": {"cli", "process", "workers", "stream", "config", "catalog", "io", "kube", "results", "errors",
               "kubevirt_versions", "upgrade", "capacity"},
    "__main__.py": {"cli"},
    "__init__.py": set(),
}


def _imported(path: Path) -> set[str]:
    """The parts of krm_fn a module imports (``krm_fn.kube.api`` -> ``kube``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "krm_fn":
            # from krm_fn import stream (a module); a name of the package itself (__version__) imports nothing
            names = [f"krm_fn.{a.name}" for a in node.names
                     if (PACKAGE / a.name).is_dir() or (PACKAGE / f"{a.name}.py").is_file()]
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
    assert _imported(PACKAGE / "process.py") >= {"stream", "render", "catalog"}  # from krm_fn import stream


def test_every_module_has_a_layer() -> None:
    parts = {p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir() and any(p.rglob("*.py"))}
    assert parts == set(ALLOWED)


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


def _module_imports(path: Path) -> set[str]:
    """The krm_fn modules ``path`` imports, lazy and type-only imports included (``from krm_fn.kube import api``
    names the module ``krm_fn.kube.api``, not the package)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:  # a module of the package, else a name the package defines
                module = f"{node.module}.{a.name}"
                found.add(module if _is_module(module) else node.module)
    return {name for name in found if name.startswith("krm_fn.")}


def _is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (a path that comes back to its start), or ``[]``."""
    done: set[str] = set()
    for start in sorted(graph):
        stack, path = [(start, iter(sorted(graph[start])))], [start]
        while stack:
            node, rest = stack[-1]
            nxt = next(rest, None)
            if nxt is None:
                stack.pop()
                path.pop()
                done.add(node)
            elif nxt in path:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in done:
                stack.append((nxt, iter(sorted(graph[nxt]))))
                path.append(nxt)
    return []


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle, counting the imports made only for type checking: each module can be read after the
    modules it names."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: (_module_imports(p) & modules.keys()) - {name} for name, p in modules.items()}
    assert _cycle(graph) == []
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


# the one pair drawn in the house that uses each other: kube/ words its messages with errors.py
_SIDE_BY_SIDE = {("kube", "errors.py")}


def _house() -> list[str]:
    """The parts of krm_fn as docs/architecture.md's house lists them, from the edge down."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("## Layers", 1)[1].split("```", 2)[1]
    return [line.split()[0].rstrip("/") for line in block.strip("\n").splitlines() if line.strip()]


def test_the_house_of_the_architecture_matches_the_imports() -> None:
    """Every part is drawn once, and each imports only the parts drawn below it."""
    house = _house()
    assert sorted(house) == sorted(p.removesuffix("/") for p in ALLOWED if p not in ("__main__.py", "__init__.py"))
    below = {part: set(house[i + 1:]) for i, part in enumerate(house)}
    above = {f"{part} imports {name}" for part in house
             for name in _imported_by_part(part) - {part.removesuffix(".py")}
             if _part_named(name) not in below[part] and (part, _part_named(name)) not in _SIDE_BY_SIDE}
    assert not above, sorted(above)


def _imported_by_part(part: str) -> set[str]:
    root = PACKAGE / part
    return set().union(*(_imported(m) for m in ([root] if root.suffix == ".py" else root.rglob("*.py"))))


def _part_named(name: str) -> str:
    """The house's name of a part of krm_fn (``kube`` -> ``kube``, ``process`` -> ``process.py``)."""
    return name if (PACKAGE / name).is_dir() else f"{name}.py"
