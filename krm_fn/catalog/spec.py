"""``InstancetypeCatalog.spec``: which catalog to generate and what to select from it.

Loaded by ``krm_fn.config.load_dataclass`` (field ``snake_name`` == config key ``snakeName``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final, Literal

from krm_fn.errors import shown
from krm_fn.kubevirt_versions import KubevirtVersion

BUILTIN_DIR: Final = Path(__file__).resolve().parent / "builtin"
PARAM_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # used with fullmatch
PATH_MAX: Final = 4096  # bytes (Linux PATH_MAX); one name at most NAME_MAX = 255 bytes
NAME_MAX: Final = 255


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
    validate_output: bool = False       # validate every generated object strictly (krm_fn.render.output)


@dataclass(frozen=True, slots=True)
class GeneratorSpec(CatalogSpec):
    """``InstancetypeCatalog.spec``: a catalog's settings and the KubeVirt release the objects are for (its
    builtin version by default; every object checked against its API, ``krm_fn.render.output.release_results``).
    The renderer's ``spec.catalog`` has no such field: the renderer's own ``kubevirtVersion`` decides there."""

    kubevirt_version: KubevirtVersion | None = None  # unset: the table's default release


def builtin_names() -> list[str]:
    try:  # a listing, not Path.glob: compiling the glob pattern costs more than a generator run's config check
        names = os.listdir(BUILTIN_DIR)
    except OSError:
        return []
    return sorted(name[:-len(".yaml")] for name in names if name.endswith(".yaml") and name != ".yaml")


def path_problem(given: str) -> str | None:
    """Why ``given`` cannot name a catalog file inside the package (kustomization) directory, from the text
    alone (:func:`krm_fn.catalog.load.resolve_path` then resolves symlinks); None when it can."""
    if not given:
        return "must not be empty"
    if "\0" in given:
        return "must not contain a NUL character"
    if len(given.encode("utf-8", "surrogatepass")) > PATH_MAX or \
            any(len(part.encode("utf-8", "surrogatepass")) > NAME_MAX for part in given.split("/")):
        return f"is too long for a file name ({PATH_MAX} bytes, {NAME_MAX} per name)"
    pure = PurePosixPath(given.replace("\\", "/"))
    if pure.is_absolute() or os.path.isabs(given) or re.match(r"[A-Za-z]:", given):
        return f"{shown(given)} must be relative to the package (kustomization) directory, not absolute"
    if ".." in pure.parts:
        return f"{shown(given)} must stay inside the package (kustomization) directory; '..' is not allowed"
    return None


def parameter_problem(item: str) -> str | None:
    """Why ``item`` is not a ``name=value`` catalog parameter; None when it is."""
    name, sep, _ = item.partition("=")
    if not sep or not PARAM_NAME.fullmatch(name.strip()):
        return f"must be name=value, got {shown(item)}"
    return None
