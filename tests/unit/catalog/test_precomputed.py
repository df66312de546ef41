"""The builtin catalogs' stored parse (krm_fn/catalog/precomputed.py) is a fresh parse of today's YAML, and
is used only for exactly the text it was made from."""

from __future__ import annotations

from pathlib import Path

import pytest

from krm_fn.catalog import precomputed, yamlsrc

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.catalog.load import load_for_spec
from krm_fn.catalog.spec import BUILTIN_DIR, builtin_names
from krm_fn.io.verify import same

NAMES = builtin_names()


def source(name: str) -> str:
    return (BUILTIN_DIR / f"{name}.yaml").read_text(encoding="utf-8")


def test_every_builtin_has_a_stored_parse() -> None:
    assert NAMES == ["classic", "common-instancetypes"]
    assert sorted(p.stem for p in precomputed.PARSED_DIR.glob("*.json")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_stored_parse_is_fresh(name: str) -> None:
    stored = (precomputed.PARSED_DIR / f"{name}.json").read_text(encoding="utf-8")
    assert stored == precomputed.build(source(name)), "stale: run python tools/gen_parsed_catalogs.py"


@pytest.mark.parametrize("name", NAMES)
def test_stored_parse_equals_pyyaml(name: str) -> None:
    text = source(name)
    got = precomputed.load(name, text)
    want, problems = yamlsrc.load(text)
    assert got is not None and problems == [] and got[1] == []
    assert same(got[0], want)  # types (1, 1.0, True differ) and key order too
    assert got[0] == want


@pytest.mark.parametrize("name", NAMES)
def test_other_text_is_parsed_afresh(name: str) -> None:
    text = source(name)
    assert precomputed.load(name, text + "# edited\n") is None
    assert precomputed.load(name, text.replace("\n", "\n ", 1)) is None


def test_nothing_stored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(precomputed, "PARSED_DIR", tmp_path)
    assert precomputed.load("common-instancetypes", source("common-instancetypes")) is None
    (tmp_path / "common-instancetypes.json").write_text("{not json")
    assert precomputed.load("common-instancetypes", source("common-instancetypes")) is None
    (tmp_path / "common-instancetypes.json").write_text('["source", "data"]')
    assert precomputed.load("common-instancetypes", source("common-instancetypes")) is None


def test_build_refuses_a_catalog_with_problems() -> None:
    with pytest.raises(ValueError, match="problems"):
        precomputed.build("name: x\nname: y\n")
    # an int key would come back a string, a timestamp has no JSON form; quoted, both are fine
    for bad, good in (("{1: a}", "{'1': a}"), ("2020-01-01", "'2020-01-01'")):
        assert precomputed.build(f"name: x\ndescription: {good}\n")
        with pytest.raises(ValueError, match="JSON"):
            precomputed.build(f"name: x\ndescription: {bad}\n")


@pytest.mark.parametrize("name", NAMES)
def test_generation_is_the_same_without_it(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    versions = [None, *(v.name for v in load_for_spec(CatalogSpec(builtin=name), None, None).versions)]
    with_stored = [generate(CatalogSpec(builtin=name, version=v), None) for v in versions]
    monkeypatch.setattr(precomputed, "load", lambda name, text: None)
    assert [generate(CatalogSpec(builtin=name, version=v), None) for v in versions] == with_stored
