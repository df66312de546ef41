"""Build the ResourceList kpt would send for a package directory (``kpt fn source`` in Python).

Each document of each ``*.yaml``/``*.yml`` file (sorted by path, dot-dirs and ``.expected`` skipped) gets the
path/index annotations kpt adds; the function config file is left out and returned separately.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import load_documents

FN_CONFIG = "fn-config.yaml"


def package_files(pkg: Path) -> list[Path]:
    return sorted(p for p in pkg.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml") or p.name == "Kptfile"
                  if not any(part.startswith(".") for part in p.relative_to(pkg).parts) and p.name != FN_CONFIG)


def annotate(obj: dict[str, Any], path: str, index: int) -> dict[str, Any]:
    md = dict(obj.get("metadata") or {})
    ann = dict(md.get("annotations") or {})
    ann.update({
        "config.kubernetes.io/index": str(index), "config.kubernetes.io/path": path,
        "internal.config.kubernetes.io/index": str(index), "internal.config.kubernetes.io/path": path,
    })
    md["annotations"] = ann
    return {**obj, "metadata": md}


def source(pkg: Path, fn_config: dict[str, Any] | None = None) -> str:
    items: list[Any] = []
    for f in package_files(pkg):
        rel = f.relative_to(pkg).as_posix()
        docs = [d.value for d in load_documents(f.read_text(encoding="utf-8")) if d.value is not None]
        items += [annotate(doc, rel, i) for i, doc in enumerate(docs)]
    rl: dict[str, Any] = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    if fn_config is not None:
        rl["functionConfig"] = fn_config
    e = Emitter()
    e.document(rl)
    return e.text()


def fn_config(pkg: Path) -> dict[str, Any] | None:
    f = pkg / FN_CONFIG
    if not f.exists():
        return None
    value = load_documents(f.read_text(encoding="utf-8"))[0].value
    assert isinstance(value, dict)
    return value
