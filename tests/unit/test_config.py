"""functionConfig loading: every accepted form, every problem reported at once with its path."""

from __future__ import annotations

import pytest

from krm_fn.catalog.spec import CatalogSpec, GeneratorSpec
from krm_fn.config import load, unflatten
from krm_fn.errors import ConfigError

TYPED = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "metadata": {"name": "x"}}


def test_no_config_and_empty_function_input_mean_renderer_defaults() -> None:
    assert load(None).kind == "VirtualMachineRenderer"
    empty_cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"}, "data": {}}
    assert load(empty_cm).kind == "VirtualMachineRenderer"
    assert load({**empty_cm, "data": None}).kind == "VirtualMachineRenderer"


def test_typed_catalog_config() -> None:
    cfg = load({**TYPED, "kind": "InstancetypeCatalog",
                "spec": {"builtin": "classic", "scope": "Cluster", "include": {"series": ["c*"]}}})
    assert cfg.kind == "InstancetypeCatalog"
    assert isinstance(cfg.spec, CatalogSpec)
    assert (cfg.spec.builtin, cfg.spec.scope, cfg.spec.include.series) == ("classic", "Cluster", ("c*",))


def test_config_carrying_kustomize_function_annotations() -> None:
    cfg = load({**TYPED, "kind": "InstancetypeCatalog", "metadata": {"name": "x", "annotations": {
        "config.kubernetes.io/function": "exec:\n  path: kubevirt-krm\n", "config.kubernetes.io/local-config": "true"}}})
    assert cfg.kind == "InstancetypeCatalog"


def test_configmap_flat_keys_select_the_catalog() -> None:
    cfg = load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"},
                "data": {"builtin": "common-instancetypes", "scope": "Cluster", "include.series": "u1, cx1"}})
    assert cfg.kind == "InstancetypeCatalog"
    assert cfg.spec.include.series == ("u1", "cx1") and cfg.spec.scope == "Cluster"


def test_configmap_explicit_kind() -> None:
    cfg = load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},
                "data": {"kind": "InstancetypeCatalog"}})
    assert cfg.kind == "InstancetypeCatalog" and cfg.spec == GeneratorSpec()  # a catalog's settings, kubevirtVersion


@pytest.mark.parametrize(("data", "kind"), [
    ({"kubevirtVersion": "v1.8"}, "VirtualMachineRenderer"),
    ({"kubevirtVersion": "v1.8", "builtin": "classic"}, "InstancetypeCatalog"),
])
def test_configmap_kubevirt_version_belongs_to_both_kinds(data: dict[str, str], kind: str) -> None:
    """``kubevirtVersion`` alone keeps meaning the renderer; with a catalog key it is the generator's."""
    cfg = load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": data})
    assert cfg.kind == kind and cfg.spec.kubevirt_version == "v1.8"


def test_all_problems_are_reported_at_once_with_paths() -> None:
    with pytest.raises(ConfigError) as err:
        load({**TYPED, "kind": "InstancetypeCatalog", "extra": 1,
              "spec": {"scope": "Galaxy", "include": {"series": "u1", "colour": ["x"]}, "builtin": 3}})
    paths = sorted(p for p, _ in err.value.problems)
    assert paths == ["extra", "spec.builtin", "spec.include.colour", "spec.include.series", "spec.scope"]


@pytest.mark.parametrize(("obj", "path", "fragment"), [
    ({"apiVersion": "example.com/v1", "kind": "Thing"}, "apiVersion", "is not supported"),
    ({"apiVersion": "kubevirt-krm.dev/v9", "kind": "InstancetypeCatalog"}, "apiVersion", "version"),
    ({**TYPED, "kind": "Nope"}, "kind", "kind 'Nope' is not supported"),
    ({**TYPED, "kind": "InstancetypeCatalog", "spec": []}, "spec", "must be a mapping"),
    ({"apiVersion": "v1", "kind": "ConfigMap", "data": {"kind": "Zap"}}, "data.kind", "not supported"),
    ({"apiVersion": "v1", "kind": "ConfigMap", "data": {"builtin": "x", "builtin.y": "z"}}, "data.builtin",
     "both a value and a group"),
])
def test_bad_configs(obj: dict[str, object], path: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        load(obj)
    assert any(p == path and fragment in m for p, m in err.value.problems), err.value.problems


def test_unflatten() -> None:
    assert unflatten({"a.b": "1", "a.c": "2", "d": "3"}, "data") == ({"a": {"b": "1", "c": "2"}, "d": "3"}, [])
