"""Selection (include/exclude, scope, namespace, version label) and the objects a selection generates."""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

from krm_fn.kube.meta import is_dns_label, is_label_value, not_a_label_value
from krm_fn.catalog.errors import CatalogError
from krm_fn.catalog.model import Catalog, Instancetype, Preference, copy_tree
from krm_fn.catalog.spec import CatalogSpec, Selection
from krm_fn.errors import shown
from krm_fn.kube import api
from krm_fn.kube.paths import FieldPath, Obj

_INSTANCETYPE_KINDS = {"Cluster": (api.KIND_CLUSTER_INSTANCETYPE,), "Namespaced": (api.KIND_INSTANCETYPE,),
                       "Both": (api.KIND_CLUSTER_INSTANCETYPE, api.KIND_INSTANCETYPE)}
_PREFERENCE_KINDS = {"Cluster": (api.KIND_CLUSTER_PREFERENCE,), "Namespaced": (api.KIND_PREFERENCE,),
                     "Both": (api.KIND_CLUSTER_PREFERENCE, api.KIND_PREFERENCE)}


def check_spec(spec: CatalogSpec) -> None:
    problems: list[tuple[str, FieldPath, str]] = []
    if spec.namespace is not None and not is_dns_label(spec.namespace):
        problems.append(("", ("spec", "namespace"), f"{shown(spec.namespace)} is not a valid namespace name"))
    if spec.version is not None and (not spec.version or not is_label_value(spec.version)):
        problems.append(("", ("spec", "version"), not_a_label_value(spec.version)))
    if problems:
        raise CatalogError(problems)


def select(catalog: Catalog, spec: CatalogSpec) -> tuple[list[Instancetype], list[Preference]]:
    """The instancetypes and preferences the include/exclude globs keep; an include glob that matches
    nothing in the catalog is an error (a typo would otherwise silently generate nothing)."""
    inc, exc = spec.include, spec.exclude
    problems: list[tuple[str, FieldPath, str]] = []
    _unmatched(problems, ("spec", "include", "series"), inc.series,
               [n for s in catalog.series for n in (s.key, s.name)], catalog)
    _unmatched(problems, ("spec", "include", "sizes"), inc.sizes, [it.size for it in catalog.instancetypes], catalog)
    _unmatched(problems, ("spec", "include", "preferences"), inc.preferences,
               [p.name for p in catalog.preferences], catalog)
    if problems:
        raise CatalogError(problems)
    instancetypes = [it for it in catalog.instancetypes
                     if _keep((it.series.key, it.series.name), inc.series, exc.series)
                     and _keep((it.size,), inc.sizes, exc.sizes)]
    preferences = [p for p in catalog.preferences if _keep((p.name,), inc.preferences, exc.preferences)]
    return instancetypes, preferences


def objects(catalog: Catalog, spec: CatalogSpec) -> list[Obj]:
    """Objects sorted by (kind, name): cluster instancetypes, cluster preferences, instancetypes, preferences."""
    check_spec(spec)
    instancetypes, preferences = select(catalog, spec)
    label = catalog.version_label  # the chosen version's label, or spec.version for a catalog without versions
    extra = {api.LABEL_COMMON_INSTANCETYPES_VERSION: label} if label else {}
    out: list[tuple[str, str, Obj]] = []
    for kind in _INSTANCETYPE_KINDS[spec.scope]:
        for it in instancetypes:
            out.append((kind, it.name, _object(kind, it.name, spec.namespace, it.labels, extra, it.annotations,
                                               it.spec)))
    for kind in _PREFERENCE_KINDS[spec.scope]:
        for p in preferences:
            out.append((kind, p.name, _object(kind, p.name, spec.namespace, p.labels, extra, p.annotations, p.spec)))
    out.sort(key=lambda t: (t[0], t[1]))
    return [obj for _, _, obj in out]


def _object(kind: str, name: str, namespace: str | None, labels: dict[str, str], extra: dict[str, str],
            annotations: dict[str, str], spec: Obj) -> Obj:
    metadata: Obj = {"name": name}
    if namespace is not None and kind not in api.CLUSTER_SCOPED_KINDS:
        metadata["namespace"] = namespace
    all_labels = dict(sorted({**labels, **extra}.items())) if extra else dict(labels)
    if all_labels:
        metadata["labels"] = all_labels
    if annotations:
        metadata["annotations"] = dict(annotations)
    return {"apiVersion": api.INSTANCETYPE_API_VERSION, "kind": kind, "metadata": metadata, "spec": copy_tree(spec)}


def _keep(names: tuple[str, ...], include: Sequence[str], exclude: Sequence[str]) -> bool:
    if include and not any(fnmatchcase(n, pat) for n in names for pat in include):
        return False
    return not any(fnmatchcase(n, pat) for n in names for pat in exclude)


def _unmatched(problems: list[tuple[str, FieldPath, str]], path: FieldPath, patterns: Sequence[str],
               names: list[str], catalog: Catalog) -> None:
    for i, pattern in enumerate(patterns):
        if not any(fnmatchcase(n, pattern) for n in names):
            problems.append(("", (*path, i), f"{shown(pattern)} matches nothing in catalog {shown(catalog.name)}"))


__all__ = ["objects", "select", "check_spec", "Selection"]
