"""The ``InstancetypeCatalog`` generator and the renderer's lookup catalog: a :class:`CatalogSpec` -> objects
(plain dicts). Nothing is loaded or parsed at import time; the heavy modules are imported on first use."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from krm_fn.catalog.spec import CatalogSpec

if TYPE_CHECKING:
    from krm_fn.catalog.model import Catalog
    from krm_fn.kube.paths import Obj



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
