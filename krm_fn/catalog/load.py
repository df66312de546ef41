"""Catalog sources (builtin or a user file), parameters, and the whole check -> resolve pass.

All problems of one catalog file are collected and raised together as one :class:`CatalogError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from krm_fn.catalog import versions as catalog_versions
from krm_fn.catalog import overrides as catalog_overrides
from krm_fn.catalog import precomputed
from krm_fn.catalog.check import Checker
from krm_fn.catalog.errors import CatalogError
from krm_fn.catalog.instancetypes import build_series, check_ladder
from krm_fn.catalog.labels import own_labels
from krm_fn.catalog.model import Catalog, Instancetype, Parameter, Series, Version
from krm_fn.catalog.preferences import build_preferences
from krm_fn.catalog.spec import BUILTIN_DIR, PARAM_NAME, CatalogSpec, builtin_names, parameter_problem, path_problem
from krm_fn.errors import shown
from krm_fn.kube.paths import FieldPath

TOP_KEYS = ("name", "description", "parameters", "labels", "derivedLabels", "omitFields", "sizes", "series",
            "components", "preferences", "versions")
PATCHABLE_KEYS = TOP_KEYS[1:-1]  # what a version may patch: everything but the name and the versions
DEFAULT_BUILTIN = "common-instancetypes"
_PARAM_REF = re.compile(r"\$\{([^}]*)\}")
__all__ = ["BUILTIN_DIR", "builtin_names", "load_builtin", "load_file", "load_for_spec", "load_text",
           "parse_parameters", "resolve_path"]


def load_builtin(name: str = DEFAULT_BUILTIN, parameters: Mapping[str, str] | None = None,
                 version: str | None = None, kubevirt_version: str | None = None) -> Catalog:
    """A builtin catalog; without ``version``, the one the KubeVirt release ``kubevirt_version`` (default: the
    table's default release) deploys, if it deploys this catalog at all."""
    from krm_fn.kubevirt_versions import default_builtin_version

    if name not in builtin_names():
        raise CatalogError([("", ("spec", "builtin"), f"unknown builtin catalog {shown(name)} "
                                                      f"(available: {', '.join(builtin_names())})")])
    text = (BUILTIN_DIR / f"{name}.yaml").read_text(encoding="utf-8")
    return load_text(text, f"catalog/{name}.yaml", name, parameters, version,
                     default_builtin_version(name, kubevirt_version), precomputed.load(name, text))


def load_file(path: Path, parameters: Mapping[str, str] | None = None, source: str | None = None,
              version: str | None = None) -> Catalog:
    """A catalog file from a trusted place (the ``catalog docs`` CLI); no containment check."""
    shown = source if source is not None else str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError([(shown, (), f"cannot read catalog: {exc.strerror if isinstance(exc, OSError) else exc}")]) \
            from None
    return load_text(text, shown, path.stem, parameters, version)


def load_for_spec(spec: CatalogSpec, base_dir: Path | None, kubevirt_version: str | None = None) -> Catalog:
    """The catalog an ``InstancetypeCatalog`` spec names: ``builtin`` (default) or ``path`` under ``base_dir``."""
    parameters = parse_parameters(spec.parameters)
    if spec.builtin is not None and spec.path is not None:
        raise CatalogError([("", ("spec",), "set either builtin or path, not both")])
    if spec.path is None:
        return load_builtin(spec.builtin or DEFAULT_BUILTIN, parameters, spec.version, kubevirt_version)
    return load_file(resolve_path(spec.path, base_dir), parameters, spec.path, spec.version)


def resolve_path(given: str, base_dir: Path | None) -> Path:
    """``given`` relative to ``base_dir``; absolute paths, ``..`` and symlinks leading outside are refused."""
    def fail(message: str) -> CatalogError:
        return CatalogError([("", ("spec", "path"), message)])

    problem = path_problem(given)
    if problem is not None:
        raise fail(problem)
    if base_dir is None:
        raise fail(f"cannot locate {shown(given)}: no package directory is known for this run")
    try:
        base = base_dir.resolve()
        target = (base / PurePosixPath(given.replace("\\", "/"))).resolve()
        inside = target.is_relative_to(base)
        found = inside and target.is_file()
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name the file system refuses
        raise fail(f"cannot resolve {shown(given)}: {exc.strerror if isinstance(exc, OSError) else exc}") from None
    if not inside:
        raise fail(f"{shown(given)} resolves to a file outside the package directory (through a symlink)")
    if not found:
        raise fail(f"catalog file {shown(given)} not found in the package directory")
    return target


def parse_parameters(items: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    problems: list[tuple[str, FieldPath, str]] = []
    for i, item in enumerate(items):
        name, _, value = item.partition("=")
        name = name.strip()
        problem = parameter_problem(item)
        if problem is not None:
            problems.append(("", ("spec", "parameters", i), problem))
        elif name in out:
            problems.append(("", ("spec", "parameters", i), f"parameter {shown(name)} is given twice"))
        else:
            out[name] = value
    if problems:
        raise CatalogError(problems)
    return out


def _located(text: str, source: str, problems: list[tuple[FieldPath, str]]) -> CatalogError:
    """The problems of the catalog file ``source``, each naming the line of its key in ``text`` (as far as the
    file holds the key path). A version's patched catalog is given no text: its keys are not the file's."""
    from krm_fn.io.fieldline import steps_line

    def where(path: FieldPath) -> str:
        line = steps_line(text, path) if path else None
        return source if line is None else f"{source} line {line + 1}"

    return CatalogError([(where(path), path, message) for path, message in problems])


def load_text(text: str, source: str, default_name: str, parameters: Mapping[str, str] | None = None,
              version: str | None = None, default_version: str | None = None,
              parsed: tuple[Any, list[tuple[FieldPath, str]]] | None = None) -> Catalog:
    """``version``: one of the catalog's ``versions``, or (a catalog without them) the version label value;
    ``default_version``: the version to generate when none is asked for, if the catalog has it; ``parsed``:
    what ``yamlsrc.load(text)`` returns, when it is known already (:mod:`krm_fn.catalog.precomputed`)."""
    if parsed is None:
        from krm_fn.catalog import yamlsrc  # PyYAML's constructor: not needed for a builtin (start-up time)

        parsed = yamlsrc.load(text)
    data, parse_problems = parsed
    if parse_problems:
        raise _located(text, source, parse_problems)
    c = Checker()
    top = c.mapping(data, (), TOP_KEYS)
    if top is None:
        raise _located(text, source, c.problems)
    before = len(c.problems)
    offered = catalog_versions.parse(c, top.get("versions"), top, PATCHABLE_KEYS)
    if len(c.problems) > before:  # a broken version would only cascade
        raise _located(text, source, c.problems)
    chosen: Version | None = None
    label = version  # a catalog without versions: spec.version is the label value
    if "versions" in top:
        wanted = version or (default_version if default_version in offered else None)
        top, chosen = catalog_versions.select(c, top, offered, wanted, str(top.get("name") or default_name))
        label = chosen.label if chosen is not None else None
    source_of_problems = source if chosen is None else f"{source} (version {chosen.name})"
    params = _parameters(c, top.get("parameters"))
    values = _parameter_values(params, parameters or {}, source_of_problems)
    top = {k: (v if k == "parameters" else _substitute(c, v, (k,), values)) for k, v in top.items()}
    if c.problems:  # unresolved ${...} would only cascade into follow-up errors
        raise _located(text if chosen is None else "", source_of_problems, c.problems)

    name = c.string(top["name"], ("name",)) if "name" in top else default_name
    description = c.string(top["description"], ("description",)) if "description" in top else ""
    common_labels = own_labels(c, top.get("labels"), ("labels",)) or {}
    ladder, broken = check_ladder(c, top.get("sizes"))
    series: list[Series] = []
    instancetypes: list[Instancetype] = []
    for key, raw in (c.named_mapping(top.get("series"), ("series",), "series") or {}).items():
        built = build_series(c, key, raw, ladder, broken, common_labels)
        if built is not None:
            series.append(built[0])
            instancetypes.extend(built[1])
    components = c.named_mapping(top.get("components"), ("components",), "component") or {}
    preferences_raw = c.named_mapping(top.get("preferences"), ("preferences",), "preference") or {}
    preferences = build_preferences(c, components, preferences_raw, common_labels)
    overrides = catalog_overrides.parse(c, top.get("derivedLabels"), top.get("omitFields"))
    instancetypes = catalog_overrides.apply(overrides, instancetypes)
    preferences = catalog_overrides.apply(overrides, preferences)
    _unique_names(c, instancetypes)
    if c.problems:
        raise _located(text if chosen is None else "", source_of_problems, c.problems)
    return Catalog(name or default_name, source, description or "", tuple(params.values()), tuple(series),
                   tuple(instancetypes), tuple(preferences), tuple(v for v, _ in offered.values()),
                   chosen.name if chosen is not None else None, label)


def _unique_names(c: Checker, instancetypes: list[Instancetype]) -> None:
    seen: dict[str, str] = {}
    for it in instancetypes:
        if it.name in seen and seen[it.name] != it.series.key:
            c.add(("series", it.series.key), f"instancetype {shown(it.name)} is also generated by series "
                                             f"{shown(seen[it.name])}")
        seen.setdefault(it.name, it.series.key)


def _parameters(c: Checker, raw: Any) -> dict[str, Parameter]:
    out: dict[str, Parameter] = {}
    for name, entry in (c.named_mapping(raw, ("parameters",), "parameter") or {}).items():
        path: FieldPath = ("parameters", name)
        if not PARAM_NAME.fullmatch(name):
            c.add(path, "a parameter name must be letters, digits and '_'")
            continue
        m = c.mapping(entry, path, ("default", "description"))
        if m is None:
            continue
        default = c.string(m["default"], (*path, "default")) if "default" in m else None
        description = c.string(m["description"], (*path, "description")) if "description" in m else None
        out[name] = Parameter(name, default, description or "")
    return out


def _parameter_values(params: dict[str, Parameter], given: Mapping[str, str], source: str) -> dict[str, str]:
    problems: list[tuple[str, FieldPath, str]] = []
    for name in given:
        if name not in params:
            known = ", ".join(params) or "none"
            problems.append(("", ("spec", "parameters"), f"catalog {source} has no parameter {shown(name)} "
                                                         f"(parameters: {known})"))
    values: dict[str, str] = {}
    for name, param in params.items():
        if name in given:
            values[name] = given[name]
        elif param.default is not None:
            values[name] = param.default
        else:
            problems.append((source, ("parameters", name), "has no default; set it with spec.parameters "
                                                           f"({name}=...)"))
    if problems:
        raise CatalogError(problems)
    return values


def _substitute(c: Checker, value: Any, path: FieldPath, values: Mapping[str, str]) -> Any:
    """``${name}`` -> the parameter value, in every string below ``value`` (keys are left alone)."""
    if isinstance(value, str):
        if "${" not in value:
            return value

        def repl(m: re.Match[str]) -> str:
            if m.group(1) in values:
                return values[m.group(1)]
            c.add(path, f"unknown parameter ${{{m.group(1)}}} (parameters: {', '.join(values) or 'none'})")
            return m.group(0)
        return _PARAM_REF.sub(repl, value)
    if isinstance(value, dict):
        return {k: _substitute(c, v, (*path, str(k)), values) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(c, v, (*path, i), values) for i, v in enumerate(value)]
    return value
