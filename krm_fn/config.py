"""functionConfig: load -> default -> validate, reporting every problem at once (kustomize LoadFunctionConfig).

Accepted forms (shared/docs/krm-integration.md §1.6):

* a typed object ``apiVersion: kubevirt-krm.dev/v1alpha1`` of kind ``InstancetypeCatalog`` (generator) or
  ``VirtualMachineRenderer`` (transformer/validator), settings under ``spec``;
* a ``ConfigMap`` with the same settings as flat string keys (dots for nesting, ``true``/``false``,
  comma-separated lists); an optional ``kind`` key picks the kind, otherwise catalog-only keys select
  the catalog generator and anything else the renderer;
* no config at all, or the empty ``ConfigMap function-input`` kpt sends: the renderer with defaults.

Settings are frozen dataclasses loaded generically by :func:`load_dataclass`: field ``snake_name`` is
the key ``snakeName``.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Final, Literal, NamedTuple, Union

from krm_fn.catalog.spec import CatalogSpec, GeneratorSpec, builtin_names, parameter_problem, path_problem
from krm_fn.kubevirt.cluster import SETTING, ClusterConfig
from krm_fn.errors import CONFIG_TYPES, ConfigError, shown, type_name
from krm_fn.kube import kpt_annotations
from krm_fn.kube.api import FN_API_VERSION, FN_GROUP, KIND_CATALOG, KIND_RENDERER
from krm_fn.kube.identity import group_of
from krm_fn.kube.paths import Obj
from krm_fn.render.spec import FallbackCatalogSpec, RendererSpec

Problems = list[tuple[str, str]]

class Config(NamedTuple):
    """A loaded functionConfig (a named tuple: cheaper to define than a dataclass, start-up time)."""

    kind: Literal["InstancetypeCatalog", "VirtualMachineRenderer"]
    spec: Any  # CatalogSpec | RendererSpec
    source: Obj | None  # the functionConfig object as given (None when absent)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


_CATALOG_KEYS = frozenset(camel(f.name) for f in dataclasses.fields(CatalogSpec))  # the generator's own keys


def load(fn_config: Obj | None, *, force_kind: str | None = None) -> Config:
    """Turn a functionConfig object into a :class:`Config`; raise :class:`ConfigError` with all problems."""
    if fn_config is None or fn_config == {}:
        return _default(force_kind, None)
    if not isinstance(fn_config, dict):
        got = type_name(fn_config, CONFIG_TYPES)
        raise ConfigError([("functionConfig", f"must be a mapping, got {got}")])
    meta_problems = metadata_problems(fn_config)
    if meta_problems:
        raise ConfigError(meta_problems)
    api_version = fn_config.get("apiVersion")
    kind = fn_config.get("kind")
    if kind == "ConfigMap" and api_version in ("v1", None):
        return _from_configmap(fn_config, force_kind)
    if not isinstance(api_version, str) or group_of(api_version) != FN_GROUP:
        raise ConfigError([("apiVersion", f"functionConfig {shown(api_version)}/{shown(kind)} is not supported; use "
                                          f"{FN_API_VERSION} {KIND_CATALOG} or {KIND_RENDERER}, or a ConfigMap")])
    if api_version != FN_API_VERSION:
        raise ConfigError([("apiVersion", f"version {shown(api_version)} is not supported; use {FN_API_VERSION}")])
    if kind not in (KIND_CATALOG, KIND_RENDERER):
        raise ConfigError([("kind", f"kind {shown(kind)} is not supported; use {KIND_CATALOG} or {KIND_RENDERER}")])
    problems: Problems = []
    for key in fn_config:
        if key not in ("apiVersion", "kind", "metadata", "spec"):
            problems.append((key, "unknown field"))
    raw_spec = fn_config.get("spec")
    if raw_spec is None:
        raw_spec = {}
    if not isinstance(raw_spec, dict):
        problems.append(("spec", f"must be a mapping, got {type_name(raw_spec, CONFIG_TYPES)}"))
        raw_spec = {}
    spec, spec_problems = load_dataclass(_spec_class(kind), raw_spec, "spec")
    problems += spec_problems
    if problems:
        raise ConfigError(problems)
    effective_kind = kind
    if force_kind is not None and force_kind != kind:
        raise ConfigError([("kind", f"this entry point expects {force_kind}, got {kind}")])
    return Config(effective_kind, spec, fn_config)


def metadata_problems(fn_config: Obj) -> Problems:
    """The functionConfig's ``metadata`` and the annotations we read from it (path, index, package path)."""
    md = fn_config.get("metadata")
    if md is not None and not isinstance(md, dict):
        return [("metadata", f"must be a mapping, got {type_name(md, CONFIG_TYPES)}")]
    return kpt_annotations.problems(fn_config, kpt_annotations.READ)


def _spec_class(kind: str) -> type[Any]:
    if kind == KIND_CATALOG:
        return GeneratorSpec
    return RendererSpec


def _default(force_kind: str | None, source: Obj | None) -> Config:
    kind = KIND_CATALOG if force_kind == KIND_CATALOG else KIND_RENDERER
    return Config(kind, _spec_class(kind)(), source)  # type: ignore[arg-type]


def _from_configmap(cm: Obj, force_kind: str | None) -> Config:
    data = cm.get("data")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError([("data", f"must be a mapping, got {type_name(data, CONFIG_TYPES)}")])
    flat = {str(k): v for k, v in data.items()}
    kind = flat.pop("kind", None) or force_kind
    if kind is None:
        top = {k.split(".")[0] for k in flat}
        # kubevirtVersion belongs to both kinds: a catalog key besides it says the generator
        rest = top - {"kubevirtVersion"}
        kind = KIND_CATALOG if rest and rest <= _CATALOG_KEYS and not rest & {"mode"} else KIND_RENDERER
    if kind not in (KIND_CATALOG, KIND_RENDERER):
        raise ConfigError([("data.kind", f"kind {shown(kind)} is not supported; use {KIND_CATALOG} or {KIND_RENDERER}")])
    if not flat:
        return _default(kind, cm)
    nested, problems = unflatten(flat, "data")
    spec, spec_problems = load_dataclass(_spec_class(kind), nested, "data", flat=True)
    problems += spec_problems
    if problems:
        raise ConfigError(problems)
    return Config(kind, spec, cm)  # type: ignore[arg-type]


def unflatten(flat: dict[str, Any], base: str) -> tuple[Obj, Problems]:
    """``{"a.b": "1"}`` -> ``{"a": {"b": "1"}}``; a key that is both a value and a prefix is a problem."""
    out: Obj = {}
    problems: Problems = []
    for key in sorted(flat):
        parts = key.split(".")
        cur = out
        for i, part in enumerate(parts[:-1]):
            nxt = cur.setdefault(part, {})
            if not isinstance(nxt, dict):
                problems.append((f"{base}.{'.'.join(parts[:i + 1])}", "is both a value and a group of keys"))
                break
            cur = nxt
        else:
            if isinstance(cur.get(parts[-1]), dict):
                problems.append((f"{base}.{key}", "is both a value and a group of keys"))
            else:
                cur[parts[-1]] = flat[key]
    return out, problems


# --- generic dataclass loading -----------------------------------------------------------------

def load_dataclass(cls: type[Any], raw: Obj, path: str, *, flat: bool = False) -> tuple[Any, Problems]:
    """Build ``cls`` from a mapping keyed by camelCase names; unknown keys and bad values are problems.

    With ``flat`` (ConfigMap data) scalar values arrive as strings and are converted.
    Missing keys keep the dataclass default.
    """
    problems: Problems = []
    hints = typing.get_type_hints(cls)
    fields = {camel(f.name): f for f in dataclasses.fields(cls) if f.metadata.get(SETTING, True)}
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        sub = f"{path}.{key}"
        f = fields.get(str(key))
        if f is None:
            known = ", ".join(sorted(fields))
            problems.append((sub, f"unknown field (known: {known})") if isinstance(key, str) and len(key) <= 80
                            else (path, f"unknown field {shown(key)} (known: {known})"))
            continue
        converted, ok = _convert(hints[f.name], value, sub, problems, flat)
        # a subclass (render_spec.FallbackCatalogSpec) keeps its base's checks
        check = next((FIELD_CHECKS[(c, f.name)] for c in cls.__mro__ if (c, f.name) in FIELD_CHECKS), None)
        if ok and converted is not None and check is not None:
            for where, problem in check(converted):
                problems.append((f"{sub}{where}", problem))
                ok = False
        if ok:
            kwargs[f.name] = converted
    across = next((OBJECT_CHECKS[c] for c in cls.__mro__ if c in OBJECT_CHECKS), None)
    if across is not None:  # on the fields that passed their own checks, reported with the others
        problems += [(f"{path}{where}", problem) for where, problem in across(cls, kwargs)]
    if problems:
        return None, problems
    return cls(**kwargs), problems


def _convert(tp: Any, value: Any, path: str, problems: Problems, flat: bool) -> tuple[Any, bool]:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        non_none = [a for a in args if a is not type(None)]
        if value is None or (flat and value == ""):
            return None, True
        if len(non_none) == 1:
            return _convert(non_none[0], value, path, problems, flat)
        raise TypeError(f"unsupported config field type {tp!r}")  # pragma: no cover - programming error
    if origin is Literal:
        if value in args:
            return value, True
        problems.append((path, f"must be one of {', '.join(map(str, args))}; got {shown(value)}"))
        return None, False
    if origin is tuple:
        if flat and isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, list):
            problems.append((path, f"must be a list of strings, got {type_name(value, CONFIG_TYPES)}"))
            return None, False
        before = len(problems)
        for i, v in enumerate(value):
            if not isinstance(v, str):
                problems.append((f"{path}[{i}]", f"must be a string, got {type_name(v, CONFIG_TYPES)}"))
            elif (problem := _text_problem(v)) is not None:
                problems.append((f"{path}[{i}]", problem))
        return tuple(value), len(problems) == before
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if value is None:
            return tp(), True
        if not isinstance(value, dict):
            problems.append((path, f"must be a mapping, got {type_name(value, CONFIG_TYPES)}"))
            return None, False
        obj, sub_problems = load_dataclass(tp, value, path, flat=flat)
        problems += sub_problems
        return obj, not sub_problems
    if tp is bool:
        if flat and isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true", True
        if isinstance(value, bool):
            return value, True
        problems.append((path, f"must be true or false, got {shown(value)}"))
        return None, False
    if tp is int:
        if flat and isinstance(value, str) and (number := kpt_annotations.atoi(value.strip())) is not None:
            value = number
        if isinstance(value, int) and not isinstance(value, bool):
            if INT64[0] <= value <= INT64[1]:
                return value, True
            problems.append((path, f"must be an integer between {INT64[0]} and {INT64[1]}, got {shown(value)}"))
            return None, False
        problems.append((path, f"must be an integer, got {shown(value)}"))
        return None, False
    if tp is str:
        if not isinstance(value, str):
            problems.append((path, f"must be a string, got {type_name(value, CONFIG_TYPES)} {shown(value)}"))
            return None, False
        problem = _text_problem(value)
        if problem is not None:
            problems.append((path, problem))
            return None, False
        return value, True
    raise TypeError(f"unsupported config field type {tp!r}")  # pragma: no cover - programming error


# integers are int64 (what Argo CD reads a sync wave into); from a ConfigMap (kpt fn eval -- key=value) as Go's
# strconv.Atoi reads them (kpt_annotations.atoi): ASCII digits only, where "٣" and "²" are digits to Python
INT64: Final = kpt_annotations.INT64


def _text_problem(value: str) -> str | None:
    """What no setting may hold: NUL (no file, name, label or quantity can) and lone surrogates (not
    Unicode text: nothing holding one can be written as UTF-8)."""
    if "\0" in value:
        return f"must not contain a NUL character, got {shown(value)}"
    if any("\ud800" <= c <= "\udfff" for c in value):
        return f"must be valid Unicode text (it holds a lone surrogate), got {shown(value)}"
    return None


# --- checks beyond the type, per setting (dataclass, field) -----------------------------------------
# Each returns (sub-path, message) pairs. Settings of type str not listed here accept any text (globs).

Check = Callable[[Any], list[tuple[str, str]]]


def _one(problem: str | None) -> list[tuple[str, str]]:
    return [] if problem is None else [("", problem)]


def _builtin(value: str) -> list[tuple[str, str]]:
    names = builtin_names()
    if value in names or value == "none":  # none: the renderer looks types up nowhere
        return []
    return _one(f"unknown builtin catalog {shown(value)} (available: {', '.join(names)}; or none)")


def _namespace(value: str) -> list[tuple[str, str]]:
    from krm_fn.kube.meta import is_dns_label

    return [] if is_dns_label(value) else _one(f"{shown(value)} is not a valid namespace name (a DNS-1123 label)")


def _label_value(value: str) -> list[tuple[str, str]]:
    from krm_fn.kube.meta import is_label_value, not_a_label_value

    return [] if value and is_label_value(value) else _one(not_a_label_value(value))


def _parameters(values: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(f"[{i}]", p) for i, v in enumerate(values) if (p := parameter_problem(v)) is not None]


def _architecture(value: str) -> list[tuple[str, str]]:
    from krm_fn.kubevirt.defaults import MACHINE_TYPES

    return [] if value in MACHINE_TYPES else _one(f"must be one of {', '.join(MACHINE_TYPES)}; got {shown(value)}")


_MACHINE_TYPE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,252}")


def _machine_type(value: str) -> list[tuple[str, str]]:
    if value == "" or _MACHINE_TYPE.fullmatch(value):  # "": not configured
        return []
    return _one(f"{shown(value)} is not a machine type (letters, digits, '.', '_', '-', like q35 or pc-q35-rhel9.4.0)")


def _cpu_request(value: str) -> list[tuple[str, str]]:
    from krm_fn.kube.quantity import Quantity

    try:
        negative = Quantity.parse(value).cmp_int(0) < 0
    except ValueError as err:  # QuantityError, or more digits than int() reads
        return _one(f"must be a quantity like 100m, got {shown(value)}: {err}")
    return _one(f"must not be negative, got {shown(value)}") if negative else []


FIELD_CHECKS: Final[dict[tuple[type, str], Check]] = {
    (CatalogSpec, "builtin"): _builtin,
    (CatalogSpec, "path"): lambda value: _one(path_problem(value)),
    (CatalogSpec, "namespace"): _namespace,
    (CatalogSpec, "version"): _label_value,
    (CatalogSpec, "parameters"): _parameters,
    (RendererSpec, "template_parameters"): _parameters,  # NAME=value, as virttemplatectl process -p takes them
    (ClusterConfig, "architecture"): _architecture,
    (ClusterConfig, "machine_type"): _machine_type,
    (ClusterConfig, "cpu_request"): _cpu_request,
}


def _catalog_source(cls: type, values: dict[str, Any]) -> list[tuple[str, str]]:
    """Settings of one catalog that exclude each other: checked with the others, not when the catalog is read."""
    builtin = values.get("builtin")
    if builtin is not None and values.get("path") is not None:
        return _one("set either builtin or path, not both")
    if builtin != "none":
        return []
    if not issubclass(cls, FallbackCatalogSpec):
        return [(".builtin", "none is only for a VirtualMachineRenderer's spec.catalog (look types up nowhere); "
                             f"a generator needs a catalog (available: {', '.join(builtin_names())})")]
    return []


# checks across the fields of one object (those that passed their own checks, by field name), by dataclass
# (subclasses included); each returns (sub-path, message) pairs
OBJECT_CHECKS: Final[dict[type, Callable[[type, dict[str, Any]], list[tuple[str, str]]]]] = {
    CatalogSpec: _catalog_source,
}
