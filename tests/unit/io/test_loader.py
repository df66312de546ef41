"""The event-driven loader: structure, safety limits and source spans."""

from __future__ import annotations

from krm_fn.io import document

import pytest

from krm_fn.errors import InputError
from krm_fn.io.loader import load_documents


def test_nested_structures_and_key_order() -> None:
    doc = load_documents("b: 1\na:\n  - x\n  - {c: [1, 2], d: null}\n")[0].value
    assert doc == {"b": 1, "a": ["x", {"c": [1, 2], "d": None}]}
    assert list(doc) == ["b", "a"]


def test_multiple_documents() -> None:
    docs = load_documents("a: 1\n---\nb: 2\n---\n")
    assert [d.value for d in docs] == [{"a": 1}, {"b": 2}, None]


def test_aliases_are_expanded_as_independent_copies() -> None:
    doc = load_documents("base: &b {x: [1]}\nother: *b\n")[0].value
    assert doc["other"] == {"x": [1]}
    assert doc["other"] is not doc["base"] and doc["other"]["x"] is not doc["base"]["x"]


def test_merge_keys() -> None:
    doc = load_documents("base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  b: 3\n")[0].value
    assert doc["m"] == {"a": 1, "b": 3}


def test_quoted_merge_key_is_an_ordinary_key() -> None:
    assert load_documents("'<<': 1\n")[0].value == {"<<": 1}


def test_non_string_keys_become_strings() -> None:
    assert load_documents("1: a\ntrue: b\n")[0].value == {"1": "a", "true": "b"}


@pytest.mark.parametrize(("text", "message"), [
    ("a: 1\na: 2\n", "duplicate mapping key 'a'"),
    ("a: !!python/object:os.system x\n", "unsupported YAML tag"),
    ("a: !!python/name:os.system\n", "unsupported YAML tag"),
    ("a: !custom x\n", "unsupported YAML tag"),
    ("a: !!set {x}\n", "unsupported YAML tag"),
    ("a: !!int abc\n", "is not a valid int"),
    ("a: *nothing\n", "unknown alias"),
    ("a: [\n", "malformed YAML"),
    ("? [a]\n: b\n", "must be a scalar"),
    ("a: &x [*x]\n", "recursive alias"),
])
def test_bad_documents_are_one_line_input_errors(text: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        load_documents(text)
    assert message in err.value.message
    assert "\n" not in err.value.message


def test_deep_nesting_is_refused_without_crashing() -> None:
    with pytest.raises(InputError, match="nested deeper"):
        load_documents("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="nested deeper"):
        load_documents("".join(" " * i + "- \n" for i in range(5000)))


def test_billion_laughs_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    with pytest.raises(InputError, match="excessive aliasing"):
        load_documents("\n".join(lines) + "\n")


def test_alias_budget_allows_normal_reuse() -> None:
    assert document.MAX_ALIAS_NODES >= 100_000
    doc = load_documents("a: &a {x: 1}\nb: [*a, *a, *a]\n")[0].value
    assert doc["b"] == [{"x": 1}] * 3


def test_item_spans_are_recorded() -> None:
    text = "kind: ResourceList\nitems:\n- a: 1\n  b: |\n    x\n- # c\n  d: 2\n"
    doc = load_documents(text, track="items")[0]
    spans = sorted(doc.spans.values())
    assert [text[s:e] for s, e, _ in spans] == ["a: 1\n  b: |\n    x\n", "d: 2\n"]
