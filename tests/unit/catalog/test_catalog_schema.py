"""``catalog/schema.json`` documents the same format the Python checks enforce."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
import yaml

from krm_fn.catalog.load import builtin_names
from krm_fn.catalog.instancetypes import SERIES_KEYS
from krm_fn.catalog.instancetypes import SPEC_KEYS as INSTANCETYPE_SPEC_KEYS
from krm_fn.catalog.load import BUILTIN_DIR, TOP_KEYS
from krm_fn.catalog.preferences import COMPONENT_KEYS, PREFERENCE_KEYS
from krm_fn.catalog.preferences import SPEC_KEYS as PREFERENCE_SPEC_KEYS

SCHEMA = json.loads((BUILTIN_DIR / "schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_schema_is_valid() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", builtin_names())
def test_builtin_catalogs_validate(name: str) -> None:
    data = yaml.safe_load((BUILTIN_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    assert [e.message for e in VALIDATOR.iter_errors(data)] == []


def test_schema_and_python_know_the_same_keys() -> None:
    defs: dict[str, Any] = SCHEMA["$defs"]
    assert set(SCHEMA["properties"]) == set(TOP_KEYS)
    assert set(defs["series"]["properties"]) == set(SERIES_KEYS)
    assert set(defs["component"]["properties"]) == set(COMPONENT_KEYS)
    assert set(defs["preference"]["properties"]) == set(PREFERENCE_KEYS)
    assert set(defs["series"]["properties"]["spec"]["propertyNames"]["enum"]) == set(INSTANCETYPE_SPEC_KEYS)
    assert set(defs["component"]["properties"]["spec"]["propertyNames"]["enum"]) == set(PREFERENCE_SPEC_KEYS)


@pytest.mark.parametrize("bad", [
    pytest.param({"sizez": {}}, id="unknown key"),
    pytest.param({"series": {"cx": {"sizes": [{"name": "x", "memory": "lots"}]}}}, id="wrong type"),
    pytest.param({"series": {"cx": {"sizes": ["s"], "traits": ["dedicated"]}}}, id="unknown trait"),
    pytest.param({"preferences": {"p": {"spec": {"devicez": {}}}}}, id="unknown spec field"),
    pytest.param({"labels": {"example.com/x": True}}, id="unquoted label value"),
])
def test_schema_rejects_bad_catalogs(bad: dict[str, Any]) -> None:
    assert list(VALIDATOR.iter_errors(bad))
