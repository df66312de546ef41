"""The renderer's lookup catalog is a value the core hands down (``krm_fn.catalog.generate.FallbackObjects``): loaded when
a reference is not among the items, once per run, and never when every reference is."""

from __future__ import annotations

from typing import Any

import pytest

import krm_fn.catalog.generate
from krm_fn.catalog.generate import FallbackObjects
from krm_fn.catalog.spec import CatalogSpec
from tests.builders import instancetype, make_vm, renderer, run_krm


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Every load of a builtin catalog, by its arguments."""
    calls: list[tuple[Any, ...]] = []
    real = krm_fn.catalog.generate.load_builtin_objects

    def counting(*args: Any) -> list[Any]:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(krm_fn.catalog.generate, "load_builtin_objects", counting)
    return calls


def test_the_objects_are_loaded_when_first_read_and_once(loads: list[tuple[Any, ...]]) -> None:
    objects = FallbackObjects(CatalogSpec(builtin="classic"), None, None)
    assert loads == []
    first = list(objects)
    assert loads == [("classic", None, None)] and first
    assert list(objects) == first and len(loads) == 1


def _run(vms: list[Any]) -> int:
    items = [instancetype("local"), *vms]
    return run_krm(items, renderer("expand"))[1]


def test_a_run_loads_the_catalog_only_for_a_reference_the_items_lack(loads: list[tuple[Any, ...]]) -> None:
    assert _run([make_vm(name=f"vm-{i}", instancetype={"name": "local"}) for i in range(3)]) == 0
    assert loads == []
    assert _run([make_vm(name=f"vm-{i}", instancetype={"name": "u1.medium"}) for i in range(3)]) == 0
    assert len(loads) == 1
