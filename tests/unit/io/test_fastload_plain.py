"""``fastload.load_plain``: a whole document read by yaml-rs must mean what the libyaml loader reads, or the
lane must step aside (None). It reads a generator's config file and the emitter's read-back batch, so that a
generator run does not import PyYAML (start-up time). Same corpus as tests/unit/io/test_fastload.py, with
each document standing alone instead of as a ``- `` entry."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krm_fn.errors import InputError
from krm_fn.io import fastload, verify
from krm_fn.io.emitter import Emitter
from krm_fn.io.inputs import read_documents
from krm_fn.io.loader import load_documents
from tests.randomised import count
from tests.unit.io.test_fastload import (CLASS_EXAMPLES, PLACES, SCALAR_DOCS, STRINGS, _handwritten_documents,
                                         _tokens, _yaml_files, same)

_NOT_APPLIED: Any = object()


def agree(text: str) -> bool:
    """Assert the lane reads ``text`` as the loader does, or steps aside; True when it applied."""
    fast = fastload.load_plain(text)
    try:
        docs = load_documents(text)
    except InputError:
        assert fast is None, "the lane accepted a text the loader rejects"
        return False
    if fast is None:
        return False
    assert len(docs) == 1 and same(docs[0].value, fast), text
    assert fastload.load_values(text) == [docs[0].value]
    return True


def test_the_one_pattern_scan_finds_what_the_per_place_scans_find() -> None:
    one, per_place = fastload.risk_pattern(fastload.TOKENS), fastload.risk_patterns(fastload.TOKENS)
    texts = [PLACES[place].format(t=t) for place in PLACES for t in _tokens()] + SCALAR_DOCS + STRINGS
    found = [bool(one.search(text)) for text in texts]
    assert found == [any(p.search(text) for p in per_place) for text in texts]
    assert 0 < sum(found) < len(found)


def test_tokens_in_every_place() -> None:
    applied = [agree(PLACES[place].format(t=t) + "\n") for place in PLACES for t in _tokens()]
    assert sum(applied) > len(applied) // 3


def test_tokens_as_sequence_entries() -> None:  # the shape of the emitter's read-back batch
    applied = [agree(f"- {t}\n- {t}: 0\n") for t in _tokens()]
    assert sum(applied) > len(applied) // 3


def test_scalar_forms_in_every_position() -> None:
    applied = [agree(doc + "\n") for doc in SCALAR_DOCS]
    assert sum(applied) > len(applied) // 3


def test_string_styles() -> None:
    assert sum(agree(doc + "\n") for doc in STRINGS) > len(STRINGS) // 2


@pytest.mark.parametrize("name", list(fastload.TOKENS))
def test_every_risk_class_steps_aside(name: str) -> None:
    for example in CLASS_EXAMPLES[name]:
        text = "kind: X\n" + example + "\n"
        assert fastload.load_plain(text) is None, example


@pytest.mark.parametrize("text", [
    "k: [a, +:]\n", "k: {a: [b]}\n", "k: [ ]\n", "k: [[]]\n", "kind: X", "kind: X\r\n", "# c\nkind: X\n", "---\nkind: X\n", "kind: X\n...\n", "%YAML 1.1\n---\nk: v\n",
    "k: 1\nk: 2\n", "1: a\n", "k: {1: a}\n", "k:\tv\n", "\ufeffk: v\n", "just a scalar\n", "", "\n",
])
def test_other_texts_are_left_to_the_loader(text: str) -> None:
    assert fastload.load_plain(text) is None
    try:
        want = [d.value for d in load_documents(text)]
    except InputError:
        with pytest.raises(InputError):
            fastload.load_values(text)
        return
    assert fastload.load_values(text) == want


@settings(max_examples=count(60, 250), deadline=None, database=None)
@given(_handwritten_documents())
def test_handwritten_layouts(doc: str) -> None:
    agree("kind: X\n" + doc + "\n")


def test_real_files() -> None:
    applied = 0
    for f in _yaml_files():
        for doc in re.split(r"(?m)^---[ \t]*\n", f.read_text(encoding="utf-8")):
            if doc.strip():
                applied += agree(doc if doc.endswith("\n") else doc + "\n")
    assert applied > 50


def test_a_generator_config_takes_the_lane() -> None:
    config = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: c\nspec:\n"
              "  builtin: common-instancetypes\n  version: main\n  include:\n    series:\n    - u1\n    - 'cx*'\n")
    assert agree(config)
    assert fastload.load_plain(config.replace("series:\n    - u1\n    - 'cx*'", "series: [u1, 'cx*']")) is None


@pytest.mark.parametrize("text", ["k: []\n", "k: {}\n", "k: []y\n", "k: {}x\n", "k: [] # c\n", "k: a[]b\n",
                                  "k: '[]'\n", "k:\n- []\n- {}\n", "[]: x\n", "k: []\nj: {}\n", "k: [], j\n"])
def test_empty_flow_collections(text: str) -> None:
    agree(text)


def test_a_generator_resource_list_takes_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.io.resourcelist import parse_resource_list

    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
            "  apiVersion: kubevirt-krm.dev/v1alpha1\n  kind: InstancetypeCatalog\n  metadata:\n    name: c\n")
    assert agree(text)
    want = parse_resource_list(text, fast=False)

    def refuse(text: str, **_: Any) -> Any:
        raise AssertionError("the loader was asked")

    monkeypatch.setattr("krm_fn.io.loader.load_documents", refuse)
    got = parse_resource_list(text)
    assert (got.items, got.function_config, got.results, got.api_version, got.extra) == \
        (want.items, want.function_config, want.results, want.api_version, want.extra)
    with pytest.raises(AssertionError, match="loader"):  # items: the entry lane or the loader, for their spans
        parse_resource_list(text.replace("items: []\n", "items: [{kind: A}]\n"))


def test_no_text_is_no_documents() -> None:
    assert read_documents("") == ([], False) and load_documents("") == []


# --- the emitter's read-back: block scalars' content is not scanned -----------------------------------

def test_blanked_keeps_lines_that_are_not_content() -> None:
    assert verify._blanked("|-\n  *a* b\n\n  c\n", "  ") == "|-\n  x\n\n  x\n"
    assert verify._blanked("|-\n  a\n*b\n", "  ") == "|-\n  x\n*b\n"


def test_block_scalars_read_back_without_the_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    e = Emitter()
    e.mapping({"description": "Compute.\n\n*CX* is the abbreviation of & !tag --- ... 0777 yes\n", "n": "on"}, "")
    owed = e.take_owed()

    def refuse(text: str, **_: Any) -> Any:
        raise AssertionError("the loader was asked")

    monkeypatch.setattr("krm_fn.io.loader.load_documents", refuse)
    verify.check_emitted(owed)


@settings(max_examples=count(100, 300), deadline=None, database=None)
@given(st.lists(st.text(alphabet="ab *&!%#|>-:.'\"\n\t0y", max_size=40), min_size=1, max_size=4))
def test_emitted_block_scalars_read_by_the_lane_as_by_the_loader(values: list[str]) -> None:
    """The blanked scan lets block scalars with any content through the lane: each batch must still read
    as the loader reads it (and as what was emitted)."""
    e = Emitter()
    e.mapping({f"k{i}": v + "\n" for i, v in enumerate(values)}, "")
    owed = e.take_owed()
    verify.check_emitted(owed)
    for position, text, value in owed:
        if position != "b":
            continue
        for probe, scan in ((f"- {text[0]}", f"- {verify._blanked(text[0], '  ')}"),
                            (f"- v: {text[1]}", f"- v: {verify._blanked(text[1], '    ')}")):
            fast = fastload.load_plain(probe, scan=scan)
            if fast is not None:
                assert same(fast, load_documents(probe)[0].value), probe


def test_a_generator_run_does_not_import_pyyaml(tmp_path: Any) -> None:
    config = tmp_path / "catalog.yaml"
    config.write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: c\n")
    code = ("import sys, io; from krm_fn.cli import main; "
            f"code = main([{str(config)!r}]); "
            "sys.stderr.write(repr((code, sorted(m for m in sys.modules if m == 'yaml' or m.startswith('yaml.')))))")
    run = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         check=True)
    assert run.stderr == "(0, [])" and run.stdout.count("\nkind: ") > 200
