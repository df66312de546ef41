"""``InstancetypeCatalog.spec``: which catalog to generate and what to select from it.

Loaded by ``krm_fn.config.load_dataclass`` (field ``snake_name`` == config key ``snakeName``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class Selection:
    """Glob patterns (``fnmatch``); an empty tuple selects everything (include) or nothing (exclude).

    ``series`` matches the series key (``cx``) or its versioned name (``cx1``); ``sizes`` matches the size
    name including a hugepages variant suffix (``large1gi``); ``preferences`` matches preference names.
    """

    series: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    preferences: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CatalogSpec:
    builtin: str | None = None          # name of a catalog shipped in the package; default: common-instancetypes
    path: str | None = None             # a user catalog file (or directory), relative to the package/kustomization dir
    include: Selection = field(default_factory=Selection)
    exclude: Selection = field(default_factory=Selection)
    scope: Literal["Cluster", "Namespaced", "Both"] = "Both"
    namespace: str | None = None        # namespace for namespaced objects
    version: str | None = None          # optional version label value
    parameters: tuple[str, ...] = ()    # catalog parameters as ``name=value`` (e.g. ``gpuDeviceName=nvidia.com/X``)
    validate_output: bool = False       # validate every generated object strictly (krm_fn.validate)
