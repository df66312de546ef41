"""The yaml-rs fast lane must read every ResourceList exactly as the libyaml loader does, or step aside.

Each test builds ResourceLists in kpt's layout and compares the lane's result (values, types, item spans)
with :func:`krm_fn.io.loader.load_documents`, the reference. Where a test expects the lane to *apply*, it
also counts the entries it handed to the loader, so a lane that quietly always steps aside fails.
"""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krm_fn.errors import InputError
from krm_fn.io import fastload
from krm_fn.io.emitter import dump
from krm_fn.io.loader import load_documents
from krm_fn.io.resourcelist import parse_resource_list
from tests.conftest import REPO, bench_module, shared_dir

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
TAIL = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: fn\n"


def entries(docs: list[str]) -> str:
    """Documents as ``- `` entries at column 0, the way kpt nests them in ``items:``."""
    out = []
    for doc in docs:
        lines = doc.rstrip("\n").split("\n")
        out.append("- " + lines[0] + "\n" + "".join(("  " + ln if ln.strip() else ln) + "\n" for ln in lines[1:]))
    return "".join(out)


def resource_list(docs: list[str], tail: str = TAIL) -> str:
    return HEAD + "items:\n" + entries(docs) + tail


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down (1 != 1.0 != True here), NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


class Count:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.exact = 0
        real = fastload._exact_item

        def counting(chunk: str) -> Any:
            self.exact += 1
            return real(chunk)

        monkeypatch.setattr(fastload, "_exact_item", counting)


def agree(text: str) -> bool:
    """Assert the lane agrees with the loader on ``text``; True when the lane applied."""
    fast = fastload.load_resource_list(text)
    try:
        exact = load_documents(text, track="items")
    except InputError:
        assert fast is None, "the lane accepted input the loader rejects"
        return False
    if fast is None:
        return False
    assert len(exact) == 1
    want, got = exact[0].value, fast.value
    assert list(want) == list(got)
    for key in want:
        if key != "items":
            assert same(want[key], got[key]), key
    assert len(want["items"]) == len(got["items"])
    for i, (w, g) in enumerate(zip(want["items"], got["items"])):
        assert same(w, g), f"item {i}: {w!r} != {g!r}"
        assert exact[0].spans[id(w)] == fast.spans[id(g)], f"item {i} span"
    return True


# --- the lane applies where it should -------------------------------------------------------------

def test_synthetic_fleet_takes_the_lane_without_a_single_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    count = Count(monkeypatch)
    assert agree(bench_module("synth").resource_list(300))
    assert count.exact == 0


def test_entries_with_risky_tokens_go_to_the_loader_and_the_rest_stay_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    count = Count(monkeypatch)
    docs = ["kind: A\nv: 1", "kind: B\nv: yes", "kind: C\nv: 0777", "kind: D\nv: &a [1]\nw: *a", "kind: E\nv: x"]
    assert agree(resource_list(docs))
    assert count.exact == 3


# --- reading: every token means what the loader says ------------------------------------------------

def _tokens() -> Iterator[str]:
    alphabet = "019+-._:eExXoObBaf"
    for n in range(1, 4):
        for t in itertools.product(alphabet, repeat=n):
            yield "".join(t)
    yield from [
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "oN",
        "true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "null", "Null", "NULL", "nULL", "~", "",
        ".inf", ".Inf", ".INF", "+.inf", "-.inf", "-.Inf", ".nan", ".NaN", ".NAN", "inf", "nan", "Infinity",
        "0x1F", "0X1F", "0xAbC", "0o17", "0O17", "0b11", "0B11", "1e3", "1E3", "1e+3", "1e-3", "1.5e3", "1.",
        "+1", "+0", "-0", "0.0", "-0.0", "00", "08", "09", "0777", "-012", "1_000", "_1", "1__0", "0x_1F",
        "1:20", "190:20:30.15", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5",
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        "-9223372036854775808", "-9223372036854775809", "1e400", "123456789012345678901234567890",
        "0.1e-400", "1.7976931348623157e308", "4.9e-324", "30Gi", "1.5Gi", "500m", "2", "10.0.0.1", "v1",
        "=", "<<", "a b", "yes no", "on off", "- x", "x -", "1 2",
    ]


def _valid(doc: str) -> bool:
    try:
        load_documents(doc)
    except InputError:
        return False
    return True


PLACES = {
    "value": "k: {t}",
    "key": "{t}: v",
    "entry": "k:\n- {t}",
    "next line": "k:\n  {t}",
    "flow sequence": "k: [a, {t}]",
    "flow mapping": "k: {{a: {t}}}",
    "flow key": "k: {{{t}: a}}",
    "json-like": 'k: {{"a":{t}}}',
    "first key": "{t}: v\nkind: X",
}


@pytest.mark.parametrize("place", list(PLACES))
def test_tokens_in_every_place_read_as_the_loader_reads_them(place: str) -> None:
    docs = [PLACES[place].format(t=t) for t in _tokens()]
    docs = [d for d in docs if _valid(d)]
    assert len(docs) > 1000
    assert agree(resource_list(docs))


STRINGS = [
    'k: "esc \\0 \\a \\b \\t \\n \\v \\f \\r \\e \\  \\" \\/ \\\\ \\N \\_ \\L \\P \\x41 \\u00e9 \\U0001F600"',
    'k: "line\\\n  continued"',
    'k: "multi\n  line\n\n  folded  "',
    "k: 'single ''quoted''\n  multi\n\n  line'",
    "k: plain\n  multi line\n\n  plain",
    "k: |\n  literal\n   more\n\n  end\n",
    "k: |-\n  strip\n\n",
    "k: |+\n  keep\n\n\nother: 1",
    "k: >\n  folded\n  text\n\n   more indented\n  back\n",
    "k: >-\n  a\n  b\n",
    "k: >+\n  a\n\n",
    "k: |2\n    two extra\n  base\n",
    "k: |1-\n  x\n",
    "k: |\n  # not a comment\n  x: y\n  - z\n",
    "k: ''\nj: \"\"\nl:\nm: ~",
    "k: ünïcödé ✓ 😀 中文",
    "k: \"ünïcödé\"\nj: '😀'",
    "k: a#b\nj: a #comment\nl: 'x' # c",
    "k: [a, [b, {c: d}], {e: [f]}, '', \"\"]",
    "k: {a: 1, b: [2, 3], 'c': \"d\"}",
    "k:\n  - a\n  -   b\n  - - c\n    - d\n  - e: f\n    g: h",
    "k: http://example.com/a?b=c&d=e#f",
    "k: 'a: b'",
    "k: -x\nj: :x\nl: ?x\nm: x-\nn: x:y",
    "k: 100%\nj: 'a%b'",
    "k: " + "x" * 5000,
    "# head comment\nk: v\n# trailing comment",
    "k: v\n\n\n\nj: w",
    "k: v   \nj: w\t",
    "k:\tv",
    "empty: {}\nlist: []\nnested: {a: {}}",
]


def test_string_styles_read_as_the_loader_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = [d for d in STRINGS if _valid(d)]
    assert len(docs) == len(STRINGS)
    count = Count(monkeypatch)
    assert agree(resource_list(docs))
    assert count.exact < len(docs) // 2  # most of them are the lane's own work


@st.composite
def _documents(draw: st.DrawFn) -> str:
    scalar = st.one_of(st.text(max_size=30), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(),
                       st.sampled_from(["yes", "0777", "1_0", "~", "on", "1e3", "a: b", "- x", "#", "'", '"']))
    key = st.text(min_size=1, max_size=12)
    value = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(key, inner, max_size=4)), max_leaves=20)
    obj = draw(st.dictionaries(key, value, min_size=1, max_size=6))
    return dump(obj).rstrip("\n")


@settings(max_examples=150, deadline=None)
@given(st.lists(_documents(), min_size=1, max_size=5))
def test_emitted_documents_read_as_the_loader_reads_them(docs: list[str]) -> None:
    agree(resource_list(docs))


# --- real files: examples and the conformance inputs -------------------------------------------------

def _yaml_files() -> list[Path]:
    files = sorted((REPO / "examples").rglob("*.yaml"))
    cases = shared_dir() / "conformance"
    if cases.is_dir():
        files += sorted(cases.rglob("*.yaml"))
    return files


def test_real_files_read_as_the_loader_reads_them() -> None:
    docs: list[str] = []
    for f in _yaml_files():
        for doc in re.split(r"(?m)^---[ \t]*\n", f.read_text(encoding="utf-8")):
            if doc.strip() and _valid(doc) and isinstance(load_documents(doc)[0].value, dict):
                docs.append(doc)
    assert len(docs) > 50
    assert agree(resource_list(docs))


# --- layout and failure ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    HEAD + "items: []\n" + TAIL,
    HEAD + "items:\n  - a: 1\n",  # indented entries
    HEAD + "items:\n-\n  a: 1\n",  # content on the next line
    HEAD + "metadata:\n  name: x\nitems:\n- a: 1\n",
    TAIL + "items:\n- a: 1\n",
    HEAD + "items:\n- a: 1\n\r\n",
    HEAD + "items:\n- a: \"x\u2028y\"\n",
    HEAD + "items:\n- a: 1\n---\nitems:\n- b: 2\n",
])
def test_other_layouts_are_left_to_the_loader_and_agree(text: str) -> None:
    assert not agree(text)


@pytest.mark.parametrize("entry", ["- # head comment\n  a: 1\n", "- {a: 1}\n", "- [a]\n", "- 'x'\n", "- |\n  x\n"])
def test_entries_in_other_forms_are_read_by_the_loader_in_place(monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    count = Count(monkeypatch)
    assert agree(HEAD + "items:\n- a: 1\n" + entry + "- b: 2\n" + TAIL)
    assert count.exact == 1


@pytest.mark.parametrize("text", [
    HEAD + "items:\n- a: 1\n  a: 2\n",
    HEAD + "items:\n- a: \"open\n- b: 2\n",
    HEAD + "items:\n- a: 1\n   b: 2\n",
    HEAD + "items:\n- a: *nowhere\n",
    HEAD + "items:\n- a: !!python/object x\n",
    HEAD + "items:\n- a: 1\n" + TAIL + "items: []\n",
])
def test_bad_input_gets_the_loaders_error(text: str) -> None:
    with pytest.raises(InputError) as exact:
        load_documents(text, track="items")
    with pytest.raises(InputError) as through_lane:
        parse_resource_list(text)
    assert str(through_lane.value) == str(exact.value)


@pytest.mark.parametrize("body", [
    "'- a:\\n  ' + '- ' * 100_000 + 'x\\n'",  # yaml-rs overflows its stack on this (a segfault)
    "'- a:\\n' + ''.join(' ' * (i + 4) + 'b:\\n' for i in range(2000))",
])
def test_nesting_deep_enough_to_crash_yaml_rs_is_refused_cleanly(body: str) -> None:
    code = (
        "from krm_fn.io.resourcelist import parse_resource_list\n"
        "from krm_fn.errors import InputError\n"
        f"text = 'items:\\n' + {body}\n"
        "try:\n    parse_resource_list(text)\nexcept InputError as e:\n    print('refused:', e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert "refused: document nested deeper than 1000 levels" in proc.stdout
