"""Fixtures of the reliability suite (every test in this directory is marked ``reliability`` in its module)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import krm_fn.catalog.generate
from krm_fn.kube.paths import copy_json
from tests.reliability.support import checked_process, checked_run


def _cached_builtin(copies: bool) -> Iterator[dict[tuple[str, str | None, str | None], list[Any]]]:
    """``load_builtin_objects`` generating each builtin catalog once while active; ``copies``: each call gets
    its own deep copy, else the cached objects themselves. Yields the cache."""
    original = krm_fn.catalog.generate.load_builtin_objects
    cache: dict[tuple[str, str | None, str | None], list[Any]] = {}

    def cached(name: str = "common-instancetypes", version: str | None = None,
               kubevirt_version: str | None = None) -> list[Any]:
        key = (name, version, kubevirt_version)
        if key not in cache:
            cache[key] = original(*key)
        objects: list[Any] = copy_json(cache[key]) if copies else cache[key]
        return objects

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(krm_fn.catalog.generate, "load_builtin_objects", cached)
        yield cache


@pytest.fixture(scope="module")
def fast_builtin_catalog() -> Iterator[None]:
    """The builtin catalogs generated once per module instead of once per ``process`` call (~90 ms each).

    Every call still gets its own deep copy, so a renderer that mutated them would be caught exactly as before.
    """
    yield from (None for _ in _cached_builtin(copies=True))


@pytest.fixture(scope="module")
def shared_builtin_catalog() -> Iterator[None]:
    """The builtin catalogs generated once per module and handed out *without* a copy (the layout fuzzer
    renders ~40,000 small lists: the copies were most of its time). Mutation is still caught: the cached
    objects are compared with a fresh load when the module is done."""
    original = krm_fn.catalog.generate.load_builtin_objects
    for cache in _cached_builtin(copies=False):
        yield
    for key, objects in cache.items():
        assert objects == original(*key), f"the builtin catalog {key} was changed by a run"


@pytest.fixture
def validated_process() -> Callable[..., Any]:
    """``process`` that fails the test when any object it generated or changed is not strictly valid."""
    return checked_process


@pytest.fixture
def validated_run() -> Callable[..., Any]:
    """``run`` (parsed input) with the same strict check on every generated or changed object."""
    return checked_run
