"""The resolved catalog: everything ``generate`` and ``render_docs`` need, nothing left to derive.

The values are named tuples, not frozen dataclasses: immutable all the same, and defining them costs a tenth
as much at start-up (the generator is a short-lived process; ``bench/catalog_vs_kustomize.py``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from krm_fn.kube.paths import Obj


class Parameter(NamedTuple):
    name: str
    default: str | None
    description: str


class Series(NamedTuple):
    key: str                    # "cx"
    name: str                   # "cx1" (key + version)
    version: str | None
    klass: str | None           # instancetype.kubevirt.io/class
    display_name: str | None
    description: str | None


class Instancetype(NamedTuple):
    name: str                   # "cx1.large1gi"
    series: Series
    size: str                   # "large1gi"
    cpu: int
    memory: str
    labels: dict[str, str]      # derived + catalog labels (sorted); the version label is added by generate
    annotations: dict[str, str]
    spec: Obj                   # keys sorted recursively; copied into each generated object


class Preference(NamedTuple):
    name: str
    display_name: str | None
    components: tuple[str, ...]  # every component applied, in order (for docs)
    labels: dict[str, str]
    annotations: dict[str, str]
    spec: Obj


class Version(NamedTuple):
    """One entry of the catalog's ``versions``: the catalog with ``patch`` laid on it."""

    name: str                   # "v1.7.0"
    description: str
    label: str | None           # instancetype.kubevirt.io/common-instancetypes-version
    changes: tuple[str, ...]    # what the patch does, for docs ("preferences.windows.10 changed")


class Catalog(NamedTuple):
    name: str
    source: str                 # the file as shown in messages ("catalog/classic.yaml")
    description: str
    parameters: tuple[Parameter, ...]
    series: tuple[Series, ...]
    instancetypes: tuple[Instancetype, ...]  # in catalog order: series order, then size order
    preferences: tuple[Preference, ...]      # in catalog order
    versions: tuple[Version, ...] = ()       # every version the file offers
    version: str | None = None               # the version generated (None: the catalog as written)
    version_label: str | None = None         # put on every object by generate


def deep_merge(base: Obj, over: Obj) -> Obj:
    """A new mapping: ``over`` laid onto ``base``; mappings merge, anything else is replaced (copied)."""
    out: Obj = copy_tree(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy_tree(value)
    return out


def copy_tree(value: Any) -> Any:
    """Deep copy of JSON-like data (dicts, lists, scalars), far cheaper than ``copy.deepcopy``."""
    if isinstance(value, dict):  # leaves are taken as they are, without a call each (most values are leaves)
        return {k: copy_tree(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [copy_tree(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


def sorted_tree(value: Any) -> Any:
    """A copy with mapping keys sorted at every level (the key order of the common-instancetypes bundles)."""
    if isinstance(value, dict):
        return {k: sorted_tree(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_tree(v) for v in value]
    return value
