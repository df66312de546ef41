"""Compact catalog -> instancetype families and preferences (issue 5).

Public API (nothing is loaded or parsed at import time; the heavy modules are imported on first use):

* :func:`generate` -- the ``InstancetypeCatalog`` generator: ``CatalogSpec`` -> objects (plain dicts).
* :func:`load_builtin_objects` -- every object of a builtin catalog (one version) in both scopes.
* :func:`fallback_objects` -- the renderer's lookup catalog (``VirtualMachineRenderer.spec.catalog``);
  :class:`FallbackObjects`: the same, loaded when first iterated (what the core hands the renderer).
* :func:`load_catalog_file` -- the resolved :class:`~krm_fn.catalog.model.Catalog`.
* :func:`render_docs` -- the Markdown reference of a catalog (``kubevirt-krm catalog docs``).
* :class:`CatalogError` -- every problem of a catalog, each with file and key path.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from krm_fn.catalog.errors import CatalogError
from krm_fn.catalog.spec import CatalogSpec, Selection

if TYPE_CHECKING:
    from krm_fn.catalog.model import Catalog
    from krm_fn.kube.paths import Obj

__all__ = ["CatalogError", "CatalogSpec", "Selection", "generate", "load_builtin_objects", "fallback_objects",
           "FallbackObjects", "load_catalog_file", "render_docs", "render_readme", "builtin_names"]


def generate(spec: CatalogSpec, base_dir: Path | None, kubevirt_version: str | None = None) -> list[Obj]:
    """Objects for ``spec`` sorted by (kind, name); ``spec.path`` is resolved under ``base_dir``. A builtin
    without ``spec.version`` is the version the KubeVirt release ``kubevirt_version`` deploys
    (``krm_fn.kubevirt_versions``; default: the table's default release)."""
    from krm_fn.catalog.select import check_spec, objects
    from krm_fn.catalog.load import load_for_spec

    check_spec(spec)
    return objects(load_for_spec(spec, base_dir, kubevirt_version), spec)


def load_builtin_objects(name: str = "common-instancetypes", version: str | None = None,
                         kubevirt_version: str | None = None) -> list[Obj]:
    """Every instancetype and preference of a builtin catalog, cluster and namespaced kinds, no namespace."""
    return generate(CatalogSpec(builtin=name, version=version), None, kubevirt_version)


def fallback_objects(spec: CatalogSpec | None, base_dir: Path | None, kubevirt_version: str | None) -> list[Obj]:
    """Where the renderer looks up instancetypes/preferences missing from its input: a builtin (every object,
    both scopes; ``version`` as for :func:`generate`), ``builtin: none`` (nowhere), or a catalog file."""
    if spec is None:
        return load_builtin_objects(kubevirt_version=kubevirt_version)
    if spec.builtin == "none":
        return []
    if spec.path is None:
        return load_builtin_objects(spec.builtin or "common-instancetypes", spec.version, kubevirt_version)
    return generate(spec, base_dir, kubevirt_version)


class FallbackObjects:
    """:func:`fallback_objects` as an iterable value: the catalog is loaded when the objects are first iterated
    (the renderer's index reads them only when a reference is missing from the items), then kept."""

    __slots__ = ("spec", "base_dir", "kubevirt_version", "_objects")

    def __init__(self, spec: CatalogSpec | None, base_dir: Path | None, kubevirt_version: str | None) -> None:
        self.spec = spec
        self.base_dir = base_dir
        self.kubevirt_version = kubevirt_version
        self._objects: list[Obj] | None = None

    def __iter__(self) -> Iterator[Obj]:
        if self._objects is None:
            self._objects = fallback_objects(self.spec, self.base_dir, self.kubevirt_version)
        return iter(self._objects)


def load_catalog_file(path: Path, parameters: tuple[str, ...] = ()) -> Catalog:
    """A catalog file given on the command line (trusted: no containment check)."""
    from krm_fn.catalog.load import load_file, parse_parameters

    return load_file(path, parse_parameters(parameters))


def builtin_names() -> list[str]:
    from krm_fn.catalog.load import builtin_names as names

    return names()


def render_docs(spec_or_catalog: CatalogSpec | Catalog, base_dir: Path | None = None) -> str:
    """Markdown reference: series tables (name, vCPUs, memory, traits) and preferences with requirements.

    Given a :class:`CatalogSpec`, its include/exclude selection is applied.
    """
    from krm_fn.catalog.docs import render

    return render(spec_or_catalog, base_dir)


def render_readme() -> str:
    """``catalog/README.md``: the format overview plus :func:`render_docs` of every builtin catalog."""
    from krm_fn.catalog.docs import render_readme as readme

    return readme()
