"""The yaml-rs fast lanes must read every input exactly as the libyaml loader does, or step aside.

Three lanes, one corpus (:func:`krm_fn.io.loader.load_documents` is the reference), tests parametrized by lane
where they ask the same of each:

* ``entries`` (``fastload.load_resource_list``): the entries of a ResourceList in kpt's layout; values, types
  and item spans;
* ``stream`` (``fastload.load_stream``): plain ``---``-separated streams, the standalone mode's documents; values,
  types and spans (empty documents hold no object and are left out by both readers' users);
* ``plain`` (``fastload.load_plain``): a whole document standing alone, a generator's config file or the
  emitter's read-back batch, so that a generator run does not import PyYAML (start-up time).

Where a test expects a lane to *apply*, it also counts the entries or documents the lane handed to the loader,
so a lane that quietly always steps aside fails.
"""

from __future__ import annotations

import functools
import math
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from krm_fn.errors import InputError
from krm_fn.io import fastload, subset, verify
from krm_fn.io.emitter import Emitter
from krm_fn.io.inputs import read_documents
from krm_fn.io.loader import load_documents
from krm_fn.io.resourcelist import parse_resource_list
from tests.builders import REPO, bench_module, shared_dir
from tests.emitted import dump
from tests.randomised import count
from tests.io_support import number_tokens, tokens, same

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


def stream(docs: list[str]) -> str:
    return "".join(d if d.endswith("\n") else d + "\n" for d in docs[:1]) + "".join(
        "---\n" + (d if d.endswith("\n") else d + "\n") for d in docs[1:])


def agree_entries(text: str) -> bool:
    """Assert the entries lane reads ``text`` as the loader does, or steps aside; True when it applied."""
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
    agree_batch(text)
    return True


def agree_batch(text: str) -> None:
    """Assert ``fastload.load_entries`` (verify's read-back batch) reads each entry of ``text``'s items, given as a
    text of its own, as the loader reads that text alone, or hands it over; with and without its key check (an
    entry it reads without the check is the loader's value wherever its keys are strings)."""
    region = text[text.index("items:\n") + len("items:\n"):]
    end = re.search(r"\n[^-#\s]", region)
    chunks = re.split(r"(?<=\n)(?=- )", region[:end.start() + 1] if end else region)
    for keys in (True, False):
        lazy = fastload.load_entries(chunks, keys)
        if lazy is None:
            continue
        got = list(lazy)
        assert len(got) == len(chunks)
        for chunk, value in zip(chunks, got):
            if value is None or not keys and not fastload.keys_are_strings(value):
                continue
            docs = load_documents(chunk)
            assert len(docs) == 1 and len(docs[0].value) == 1 and same(docs[0].value[0], value), chunk


def agree_stream(text: str) -> bool:
    """Assert the stream lane reads ``text`` as the loader does, or steps aside; True when it applied."""
    fast = fastload.load_stream(text)
    try:
        exact = [d for d in load_documents(text) if d.value is not None]
    except InputError:
        assert fast is None, "the lane accepted input the loader rejects"
        return False
    if fast is None:
        return False
    assert len(fast) == len(exact)
    for i, (w, g) in enumerate(zip(exact, fast)):
        assert same(w.value, g.value), f"document {i}: {w.value!r} != {g.value!r}"
        assert (w.start, w.end, w.column) == (g.start, g.end, g.column), f"document {i} span"
    return True


def agree_plain(text: str) -> bool:
    """Assert the plain lane reads ``text`` as the loader does, or steps aside; True when it applied."""
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


@dataclass(frozen=True)
class Lane:
    """One fast lane: how documents become its input, the check that it reads it as the loader does, its reader,
    and the fastload function it hands one entry or document to the loader with (counted by :class:`Count`)."""

    name: str
    agree: Callable[[str], bool]
    join: Callable[[list[str]], str]
    read: Callable[[str], Any]
    exact: str


ENTRIES = Lane("entries", agree_entries, resource_list, fastload.load_resource_list, "_exact_item")
STREAM = Lane("stream", agree_stream, stream, fastload.load_stream, "_exact_documents")
PLAIN = Lane("plain", agree_plain, lambda docs: "".join(d + "\n" for d in docs[:1]), fastload.load_plain, "")


def lanes(*which: Lane) -> pytest.MarkDecorator:
    """``which`` as the ``lane`` parameter, with the lanes' names as test ids."""
    return pytest.mark.parametrize("lane", [pytest.param(lane, id=lane.name) for lane in which])


class Count:
    """Entries or documents ``lane`` handed to the loader."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, lane: Lane) -> None:
        self.exact = 0
        real = getattr(fastload, lane.exact)

        def counting(*args: Any, **kw: Any) -> Any:
            self.exact += 1
            return real(*args, **kw)

        monkeypatch.setattr(fastload, lane.exact, counting)


# --- each lane applies where it should ---------------------------------------------------------------

@pytest.mark.parametrize(("lane", "synthetic"), [
    pytest.param(ENTRIES, lambda: bench_module("synth").resource_list(300), id="entries-fleet"),
    pytest.param(STREAM, lambda: bench_module("synth").manifests(200), id="stream-manifests"),
])
def test_synthetic_input_takes_the_lane_without_a_single_fallback(monkeypatch: pytest.MonkeyPatch, lane: Lane,
                                                                  synthetic: Callable[[], str]) -> None:
    text = synthetic()
    count = Count(monkeypatch, lane)
    assert lane.agree(text)
    assert count.exact == 0


def test_a_read_back_batch_takes_the_lane_entry_by_entry_and_only_in_kpts_layout() -> None:
    docs = ["kind: A\nv: 1", "kind: B\nv: yes", "kind: C\nv: x"]
    chunks = re.split(r"(?<=\n)(?=- )", entries(docs))
    assert list(fastload.load_entries(chunks) or ()) == [{"kind": "A", "v": 1}, None, {"kind": "C", "v": "x"}]
    assert verify.read_entries(chunks) == [{"kind": "A", "v": 1}, {"kind": "B", "v": True}, {"kind": "C", "v": "x"}]
    # a line at column 0 that starts no entry, two entries in one text, a text without its line break: the loader's
    for broken in (["- a: 1\nb: 2\n"], ["- a: 1\n- b: 2\n"], ["- a: 1"], ["- a: 1\n", "  b: 2\n"]):
        assert fastload.load_entries(broken) is None, broken
        assert verify.read_entries(broken) == [verify._read_entry(entry) for entry in broken]


def test_synthetic_manifests_read_through_the_stream_reader_as_the_loader_reads_them() -> None:
    text = bench_module("synth").manifests(200)
    assert read_documents(text, fast=True)[0][0].value == load_documents(text)[0].value


def test_entries_with_risky_tokens_go_to_the_loader_and_the_rest_stay_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    count = Count(monkeypatch, ENTRIES)
    docs = ["kind: A\nv: 1", "kind: B\nv: yes", "kind: C\nv: 0777", "kind: D\nv: &a [1]\nw: *a", "kind: E\nv: x"]
    assert agree_entries(resource_list(docs))
    assert count.exact == 3


def test_a_generator_config_takes_the_lane() -> None:
    config = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: c\nspec:\n"
              "  builtin: common-instancetypes\n  version: main\n  include:\n    series:\n    - u1\n    - 'cx*'\n")
    assert agree_plain(config)
    assert fastload.load_plain(config.replace("series:\n    - u1\n    - 'cx*'", "series: [u1, 'cx*']")) is None


def test_a_generator_resource_list_takes_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
            "  apiVersion: kubevirt-krm.dev/v1alpha1\n  kind: InstancetypeCatalog\n  metadata:\n    name: c\n")
    assert agree_plain(text)
    want = parse_resource_list(text, fast=False)

    def refuse(text: str, **_: Any) -> Any:
        raise AssertionError("the loader was asked")

    monkeypatch.setattr("krm_fn.io.loader.load_documents", refuse)
    got = parse_resource_list(text)
    assert (got.items, got.function_config, got.results, got._read.api_version, got._read.extra) == \
        (want.items, want.function_config, want.results, want._read.api_version, want._read.extra)
    with pytest.raises(AssertionError, match="loader"):  # items: the entry lane or the loader, for their spans
        parse_resource_list(text.replace("items: []\n", "items: [{kind: A}]\n"))


# --- reading: every token means what the loader says ------------------------------------------------


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


@lanes(ENTRIES, STREAM)
@pytest.mark.parametrize("place", list(PLACES))
def test_tokens_in_every_place_read_as_the_loader_reads_them(lane: Lane, place: str) -> None:
    docs = [PLACES[place].format(t=t) for t in tokens()]
    docs = [d for d in docs if _valid(d)]
    assert len(docs) > 1000
    # in a stream a token at column 0 can be a document marker or a directive: then the loader reads it all
    assert lane.agree(lane.join(docs)) or lane is STREAM
    assert lane.agree(lane.join([d for d in docs if not d.startswith(("---", "...", "%"))]))


def test_plain_lane_tokens_in_every_place() -> None:
    applied = [agree_plain(PLACES[place].format(t=t) + "\n") for place in PLACES for t in tokens()]
    assert sum(applied) > len(applied) // 3


def test_plain_lane_tokens_as_sequence_entries() -> None:  # the shape of the emitter's read-back batch
    applied = [agree_plain(f"- {t}\n- {t}: 0\n") for t in tokens()]
    assert sum(applied) > len(applied) // 3


def test_number_tokens_cover_every_kind_of_value_the_loader_gives() -> None:
    """The generated numbers reach every branch of go-yaml's resolve: ints (int64 and uint64 range),
    floats (finite, infinite, NaN), and strings that only look like numbers."""
    values = [load_documents(f"k: {t}\n")[0].value["k"] for t in number_tokens()]
    kinds = {type(v).__name__ for v in values}
    assert kinds == {"int", "float", "str"}
    ints = [v for v in values if type(v) is int]
    floats = [v for v in values if type(v) is float]
    assert max(ints) > 2**63 - 1 and min(ints) == -(2**63)
    assert any(math.isinf(f) for f in floats) and any(math.isnan(f) for f in floats)
    assert "0xFFFFFFFFFFFFFFFFFFFF" in values and "1e400" in values  # kept as strings, as kubectl does


# --- every scalar form, in every position, before every kind of neighbour --------------------------

BLOCK_HEADERS = [
    style + order
    for style in "|>"
    for order in ["", "-", "+", "1", "2", "9"] + [c + i for c in "-+" for i in "129"] + [i + c for c in "-+" for i in "129"]
]
# continuation lines are written relative to the parent's indentation (placing adds it)
BLOCK_BODIES = [
    "", "\n", "\n\n", "  \n", "     \n", "  x\n", "  x\n\n", "  x\n  \n", "  x\n     \n\n", "   x\n  y\n", "  x\n   y\n",
    "\n  x\n", "  \n  x\n", "     \n  x\n", "  x\n  # not a comment\n", "  x\n# comment\n", "  # c\n", "# c\n",
    "  x\n\n  y\n\n\n", "          deep\n", "  - x\n  k: v\n",
]
QUOTED = [
    "''", '""', "'x'", '"x"', "'it''s'", '"a\\"b"', "' lead'", "'trail '", '" both "', "'#x'", '"# x"', "'a: b'",
    "'multi\n  line'", '"multi\n  line"', "'blank\n\n  line'", '"blank\n\n\n  lines"', "'  \n  x'",
    '"esc\\\n  aped"', '"trail \n  space"', "'#\n  # not a comment'", '"x\n  # not a comment\n  y"',
    '"\\t\\x41\\u00e9\\U0001F600\\N\\_\\L\\P"', "'x\n\n'", '"\n  x"',
]
PLAIN_MULTI = [
    "a\n  b", "1\n  2", "yes\n  no", "a\n\n  b", "a\n  # comment", "a\n  b # comment", "a#b\n  c#d",
    "0777\n  8", "- x\n  y", "a\n   \n  b", "x\n  'q'\n  \"d\"",
]
EMPTY = ["", " ", " # c", "~", "null", "''", '""', "[]", "{}", "[ ]", "{ }", "[a, ]", "{a: }", "{a}", "[a: b]",
         "{a: , b: }", "[[], {}]", "[null, ~, '']"]
# (template, parent indentation): where {s} goes
SLOTS = [
    ("k: {s}", 0), ("k:\n  j: {s}", 2), ("k:\n- {s}", 0), ("k:\n  - {s}", 2), ("k:\n- - {s}", 2), ("k:\n- j: {s}", 2),
    ("k:\n  - j: {s}", 4), ("k:\n  j:\n    m: {s}", 4),
]
FLOW_SLOTS = [("l: [{s}]", 0), ("l: [a, {s}, b]", 0), ("m: {{j: {s}}}", 0), ("m: {{j: {s}, o: p}}", 0)]
AFTER = ["", "\nz: 1", "\nk2:\n  z: 1", "\n# trailing comment"]


def _placed(template: str, parent: int, scalar: str) -> str:
    lines = scalar.split("\n")
    shifted = [lines[0]] + [(" " * parent + line) if line else line for line in lines[1:]]
    return template.format(s="\n".join(shifted))


def _scalar_forms() -> Iterator[tuple[str, bool]]:
    """(scalar text, block-only?) for every scalar style."""
    for header in BLOCK_HEADERS:
        for comment in ("", " # c"):
            for body in BLOCK_BODIES:
                yield header + comment + "\n" + body.rstrip("\n"), True
    for scalar in QUOTED + PLAIN_MULTI + EMPTY:
        yield scalar, False


@functools.cache
def scalar_docs() -> list[str]:
    """Every scalar form in every slot, each document one the loader reads (made on first use, not at import)."""
    docs = []
    for scalar, block_only in _scalar_forms():
        for template, parent in SLOTS + ([] if block_only else FLOW_SLOTS):
            for after in AFTER:
                doc = "kind: X\n" + _placed(template, parent, scalar) + after
                if _valid(doc):
                    docs.append(doc)
    return docs


def test_scalar_forms_in_every_position_read_as_the_loader_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = scalar_docs()
    assert len(docs) > 5000
    count = Count(monkeypatch, ENTRIES)
    # each form before an ordinary entry, and before an entry whose first key needs the loader ("n")
    for follower in ("v: 1", "n: 1"):
        count.exact = 0
        assert agree_entries(resource_list([d for doc in docs for d in (doc, follower)]))
        assert count.exact < len(docs) * (1.5 if follower == "n: 1" else 0.5)  # most: the lane's own work


@pytest.mark.parametrize("tail", ["", TAIL], ids=["end of input", "before functionConfig"])
@pytest.mark.parametrize("newline", ["\n", ""], ids=["newline", "no final newline"])
def test_scalar_forms_in_the_last_entry_read_as_the_loader_reads_them(tail: str, newline: str) -> None:
    """The last entry's chunk ends where the list ends: at functionConfig, or at the end of the input,
    with or without a final line break."""
    applied = 0
    for scalar, _ in _scalar_forms():
        for template, parent in SLOTS[:3]:
            doc = "kind: X\n" + _placed(template, parent, scalar)
            if not _valid(doc):
                continue
            text = resource_list(["kind: A"], tail="").rstrip("\n") + "\n" + entries([doc])
            text = text.rstrip("\n") + newline if not tail else text + tail
            applied += agree_entries(text)
    assert applied > 500


def test_scalar_forms_in_every_position_standing_alone() -> None:
    applied = [agree_plain(doc + "\n") for doc in scalar_docs()]
    assert sum(applied) > len(applied) // 3


# --- every class of risk is needed: without it, its examples are read differently ------------------

CLASS_EXAMPLES = {
    "bool": ["v: yes", "v: [n]", "y: 1"],
    "underscore": ["v: _1", "v: ._5", "v: 1e4_00", "v: 0_x1", "v: 1_000_000_000_000_000_000_000"],
    "radix": ["v: 0777", "v: 0xFFFFFFFFFFFFFFFFFFFF", "v: 0o7777777777777777777777777", "v: 0b" + "1" * 70],
    "long digits": ["v: 18446744073709551616", "v: -9223372036854775809"],
    "big exponent": ["v: 1e400", "v: -2e308", "v: .1e400"],
    "inf nan": ["v: .iNf", "v: -.inF", "v: .nAn"],
    "empty block": ["v: |", "v: >\n\n", "l:\n- |+2", "v: | # comment\n\n", "v: >+1"],
    # (anchors, aliases, merge and explicit keys read the same in both; they are the loader's for splicing)
    "node": ["v: !custom x", "v: ! 1", "v: !!set {a}"],
}


@pytest.mark.parametrize("name", list(subset.TOKENS))
def test_each_risk_class_is_needed_by_the_entries_lane(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    examples = CLASS_EXAMPLES[name]
    count = Count(monkeypatch, ENTRIES)
    for example in examples:  # with every class, the lane hands the entry over and agrees
        count.exact = 0
        agree_entries(resource_list(["kind: A", "kind: X\n" + example]))
        assert count.exact == 1, example
    monkeypatch.setattr(fastload, "_RISK", fastload.risk_patterns({k: v for k, v in subset.TOKENS.items() if k != name}))
    for example in examples:  # without this one, every example is read differently (or accepted wrongly)
        with pytest.raises(AssertionError):
            agree_entries(resource_list(["kind: A", "kind: X\n" + example]))


@pytest.mark.parametrize("name", list(subset.TOKENS))
def test_each_risk_class_is_needed_by_the_stream_lane(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    examples = [e for e in CLASS_EXAMPLES[name] if not e.startswith("l:\n- ")]
    for example in examples:  # with every class, the lane agrees (or steps aside where the loader refuses)
        agree_stream(stream(["kind: A", "kind: X\n" + example, "kind: B"]))
        agree_stream(stream(["kind: A", "kind: X\n" + example]))
    monkeypatch.setattr(fastload, "_RISK", fastload.risk_patterns({k: v for k, v in subset.TOKENS.items()
                                                                    if k != name}))
    failed = 0
    for example in examples:  # without this one, the examples are read differently (or accepted wrongly)
        try:
            agree_stream(stream(["kind: A", "kind: X\n" + example]))
        except AssertionError:
            failed += 1
    assert failed


@pytest.mark.parametrize("name", list(subset.TOKENS))
def test_every_risk_class_steps_the_plain_lane_aside(name: str) -> None:
    for example in CLASS_EXAMPLES[name]:
        text = "kind: X\n" + example + "\n"
        assert fastload.load_plain(text) is None, example


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


@pytest.mark.parametrize(("lane", "allowance"), [pytest.param(ENTRIES, 0, id="entries"),
                                                pytest.param(STREAM, 1, id="stream")])
def test_string_styles_read_as_the_loader_reads_them(monkeypatch: pytest.MonkeyPatch, lane: Lane,
                                                     allowance: int) -> None:
    docs = [d for d in STRINGS if _valid(d)]
    assert len(docs) == len(STRINGS)
    count = Count(monkeypatch, lane)
    assert lane.agree(lane.join(docs))
    assert count.exact - allowance < len(docs) // 2  # most of them are the lane's own work


def test_string_styles_standing_alone() -> None:
    assert sum(agree_plain(doc + "\n") for doc in STRINGS) > len(STRINGS) // 2


def test_the_one_pattern_scan_finds_what_the_per_place_scans_find() -> None:
    one, per_place = fastload.risk_pattern(subset.TOKENS), fastload.risk_patterns(subset.TOKENS)
    texts = [PLACES[place].format(t=t) for place in PLACES for t in tokens()] + scalar_docs() + STRINGS
    found = [bool(one.search(text)) for text in texts]
    assert found == [any(p.search(text) for p in per_place) for text in texts]
    assert 0 < sum(found) < len(found)


# --- random documents: emitted and handwritten -------------------------------------------------------

@st.composite
def _documents(draw: st.DrawFn) -> str:
    scalar = st.one_of(st.text(max_size=30), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(),
                       st.sampled_from(["yes", "0777", "1_0", "~", "on", "1e3", "a: b", "- x", "#", "'", '"']))
    key = st.text(min_size=1, max_size=12)

    def nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        # a named function: as a two-line lambda, hypothesis warned (under xdist) that it ignores its argument
        return st.one_of(st.lists(inner, max_size=4), st.dictionaries(key, inner, max_size=4))

    value = st.recursive(scalar, nested, max_leaves=20)
    obj = draw(st.dictionaries(key, value, min_size=1, max_size=6))
    return dump(obj).rstrip("\n")


@settings(max_examples=count(40, 150), deadline=None)
@given(st.lists(_documents(), min_size=1, max_size=5))
def test_emitted_documents_read_as_the_loader_reads_them(docs: list[str]) -> None:
    agree_entries(resource_list(docs))


SCALAR_POOL = sorted(set(tokens())) + [form for form, _ in _scalar_forms()]
KEY_POOL = ["a", "b", "kind", "j", "x1", "'q'", '"d"', "1", "yes", "a b", "k.e/y", '"a: b"', "0x1F", "-k", "1e400"]


@st.composite
def _handwritten_documents(draw: st.DrawFn, indent: int = 0, depth: int = 3) -> str:
    """A block mapping as a person might write it: any scalar form, nested maps and sequences (compact or
    indented, any indentation step), comment lines at any column, blank lines."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 9)) == 0:
            lines.append(" " * draw(st.integers(0, indent + 4)) + "# c")
        if draw(st.integers(0, 19)) == 0:
            lines.append("")
        key = draw(st.sampled_from(KEY_POOL))
        shape = draw(st.sampled_from(["scalar", "scalar", "map", "seq"] if depth else ["scalar"]))
        if shape == "map":
            lines += [" " * indent + key + ":", draw(_handwritten_documents(indent + draw(st.sampled_from([1, 2, 4])),
                                                                            depth - 1))]
        elif shape == "seq":
            at = indent + draw(st.sampled_from([0, 2]))
            lines.append(" " * indent + key + ":")
            for _ in range(draw(st.integers(1, 3))):
                if draw(st.booleans()):
                    lines.append(" " * at + "- " + _placed("{s}", at, draw(st.sampled_from(SCALAR_POOL))))
                else:
                    lines.append(" " * at + "- " + draw(_handwritten_documents(at + 2, depth - 1)).lstrip(" "))
        else:
            lines.append(" " * indent + key + ": " + _placed("{s}", indent, draw(st.sampled_from(SCALAR_POOL))))
    return "\n".join(lines)


@settings(max_examples=count(60, 250), deadline=None, database=None)
@given(st.lists(_handwritten_documents(), min_size=1, max_size=4), st.sampled_from(["", "\n", TAIL]))
def test_handwritten_layouts_read_by_the_entries_lane_as_by_the_loader(docs: list[str], tail: str) -> None:
    docs = [d for d in ("kind: X\n" + doc for doc in docs) if _valid(d)]
    text = resource_list(docs, tail="") if docs else HEAD + "items: []\n"
    agree_entries(text.rstrip("\n") + tail if tail != TAIL else text + tail)


@settings(max_examples=count(50, 200), deadline=None, database=None)
@given(st.lists(_handwritten_documents(), min_size=1, max_size=4), st.sampled_from(["", "# end\n", "---\n"]))
def test_handwritten_layouts_read_by_the_stream_lane_as_by_the_loader(docs: list[str], tail: str) -> None:
    docs = [d for d in ("kind: X\n" + doc for doc in docs) if _valid(d)]
    assume(docs)
    agree_stream(stream(docs) + tail)


@settings(max_examples=count(60, 250), deadline=None, database=None)
@given(_handwritten_documents())
def test_handwritten_layouts_read_by_the_plain_lane_as_by_the_loader(doc: str) -> None:
    agree_plain("kind: X\n" + doc + "\n")


# --- real files: examples and the conformance inputs -------------------------------------------------

# --- real files: examples and the conformance inputs -------------------------------------------------

def _yaml_files() -> list[Path]:
    files = sorted((REPO / "examples").rglob("*.yaml"))
    cases = shared_dir() / "conformance"
    if cases.is_dir():
        files += sorted(cases.rglob("*.yaml"))
    return files


def test_real_files_read_by_the_entries_lane_as_by_the_loader() -> None:
    docs: list[str] = []
    for f in _yaml_files():
        for doc in re.split(r"(?m)^---[ \t]*\n", f.read_text(encoding="utf-8")):
            if doc.strip() and _valid(doc) and isinstance(load_documents(doc)[0].value, dict):
                docs.append(doc)
    assert len(docs) > 50
    assert agree_entries(resource_list(docs))


def test_real_files_read_by_the_stream_lane_as_by_the_loader() -> None:
    applied = 0
    for f in _yaml_files():
        text = f.read_text(encoding="utf-8")
        applied += agree_stream(text)
    assert applied > 20


def test_real_files_read_by_the_plain_lane_as_by_the_loader() -> None:
    applied = 0
    for f in _yaml_files():
        for doc in re.split(r"(?m)^---[ \t]*\n", f.read_text(encoding="utf-8")):
            if doc.strip():
                applied += agree_plain(doc if doc.endswith("\n") else doc + "\n")
    assert applied > 50


# --- layout and failure ---------------------------------------------------------------------------

OTHER_LAYOUTS = [
    *[pytest.param(ENTRIES, text, id=f"entries-{i}") for i, text in enumerate([
        HEAD + "items: []\n" + TAIL,
        HEAD + "items:\n  - a: 1\n",  # indented entries
        HEAD + "items:\n-\n  a: 1\n",  # content on the next line
        HEAD + "metadata:\n  name: x\nitems:\n- a: 1\n",
        TAIL + "items:\n- a: 1\n",
        HEAD + "items:\n- a: 1\n\r\n",
        HEAD + "items:\n- a: \"x\u2028y\"\n",
        HEAD + "items:\n- a: 1\n---\nitems:\n- b: 2\n",
    ])],
    *[pytest.param(STREAM, text, id=f"stream-{i}") for i, text in enumerate([
        "kind: A\n--- # marker comment\nkind: B\n",
        "kind: A\n--- {kind: B}\n",
        "kind: A\n...\n---\nkind: B\n",
        "%YAML 1.1\n---\nkind: A\n",
        "kind: A\n---\n---\nkind: B\n",
        "kind: A\n---\nkind: B\r\n",
        "kind: A\n---\nk:\n" + " " * 256 + "x: 1\n",
    ])],
]


@pytest.mark.parametrize(("lane", "text"), OTHER_LAYOUTS)
def test_other_layouts_are_left_to_the_loader_and_agree(lane: Lane, text: str) -> None:
    assert lane.read(text) is None
    assert not lane.agree(text)


@pytest.mark.parametrize("entry", ["- # head comment\n  a: 1\n", "- {a: 1}\n", "- [a]\n", "- 'x'\n", "- |\n  x\n"])
def test_entries_in_other_forms_are_read_by_the_loader_in_place(monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    count = Count(monkeypatch, ENTRIES)
    assert agree_entries(HEAD + "items:\n- a: 1\n" + entry + "- b: 2\n" + TAIL)
    assert count.exact == 1


@pytest.mark.parametrize("text", [
    "# license\n# header\n\napiVersion: v1\nkind: A\n# trailing\n---\n# only a comment\n---\nkind: B\n",
    "---\nkind: A\n---\n",
    "kind: A\n---\n\n---\nkind: B\n",
    "kind: A\n---\n  kind: B\n",  # an indented document: the loader's
    "kind: A\n---\n{kind: B}\n",
    "kind: A\n---\n'kind': B\n",
])
def test_comments_and_empty_documents_read_as_the_loader_reads_them(text: str) -> None:
    assert agree_stream(text)


@pytest.mark.parametrize("text", [
    "k: [a, +:]\n", "k: {a: [b]}\n", "k: [ ]\n", "k: [[]]\n", "kind: X", "kind: X\r\n", "# c\nkind: X\n", "---\nkind: X\n", "kind: X\n...\n", "%YAML 1.1\n---\nk: v\n",
    "k: 1\nk: 2\n", "1: a\n", "k: {1: a}\n", "k:\tv\n", "\ufeffk: v\n", "just a scalar\n", "", "\n",
])
def test_other_texts_are_left_to_the_loader_by_the_plain_lane(text: str) -> None:
    assert fastload.load_plain(text) is None
    try:
        want = [d.value for d in load_documents(text)]
    except InputError:
        with pytest.raises(InputError):
            fastload.load_values(text)
        return
    assert fastload.load_values(text) == want


@pytest.mark.parametrize("text", ["k: []\n", "k: {}\n", "k: []y\n", "k: {}x\n", "k: [] # c\n", "k: a[]b\n",
                                  "k: '[]'\n", "k:\n- []\n- {}\n", "[]: x\n", "k: []\nj: {}\n", "k: [], j\n"])
def test_empty_flow_collections(text: str) -> None:
    agree_plain(text)


def test_no_text_is_no_documents() -> None:
    assert read_documents("") == ([], False) and load_documents("") == []


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


@pytest.mark.parametrize("text", [
    "kind: A\n---\nkind: B\nkind: C\n",
    "kind: A\n---\nk: \"open\n---\nkind: B\n",
    "kind: A\n---\nk: *nowhere\n",
    "kind: A\n---\nk: !!python/object x\n",
    "kind: A\n---\nk: 1\n   b: 2\n",
])
def test_bad_input_gets_the_loaders_error_with_the_files_line(text: str) -> None:
    with pytest.raises(InputError) as exact:
        load_documents(text)
    with pytest.raises(InputError) as through_lane:
        read_documents(text, fast=True)
    assert through_lane.value.message == exact.value.message
    assert re.search(r"line [3-9]", exact.value.message)


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


# --- the emitter's read-back: block scalars' content is not scanned -----------------------------------

# --- the emitter's read-back: block scalars' content is not scanned -----------------------------------

def test_blanked_keeps_lines_that_are_not_content() -> None:
    assert verify.blanked("|-\n  *a* b\n\n  c\n", "  ") == "|-\n  x\n\n  x\n"
    assert verify.blanked("|-\n  a\n*b\n", "  ") == "|-\n  x\n*b\n"


def test_block_scalars_read_back_without_the_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    e = Emitter()
    e.mapping({"description": "Compute.\n\n*CX* is the abbreviation of & !tag --- ... 0777 yes\n", "n": "on"}, "")
    owed = e.take_owed()

    def refuse(text: str, **_: Any) -> Any:
        raise AssertionError("the loader was asked")

    monkeypatch.setattr("krm_fn.io.loader.load_documents", refuse)
    verify.check_emitted(owed)


@settings(max_examples=count(100, 300), deadline=None, database=None)
@given(st.lists(st.text(alphabet="ab *&!%#|>-:.'\"\n\t0y[]{},", max_size=40), min_size=1, max_size=4))
def test_emitted_block_scalars_read_by_the_lane_as_by_the_loader(values: list[str]) -> None:
    """The blanked scan lets block scalars with any content through the lane, flow-like text included
    (cloud-init's ``runcmd: - [systemctl, ...]``): each batch must still read as the loader reads it (and as
    what was emitted)."""
    e = Emitter()
    e.mapping({f"k{i}": v + "\n" for i, v in enumerate(values)}, "")
    e.sequence([v + "\n" for v in values], "")  # the other place a block scalar is written
    owed = e.take_owed()
    verify.check_emitted(owed)
    for position, text, value in owed:
        if position not in ("be", "bm"):
            continue
        probe, scan = verify.block_probe(position, text)
        fast = fastload.load_plain(probe, scan=scan)
        if fast is not None:
            assert same(fast, load_documents(probe)[0].value), probe


def test_a_generator_run_does_not_import_pyyaml(tmp_path: Any) -> None:
    config = tmp_path / "catalog.yaml"
    config.write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: c\n")
    code = ("import sys, io; from krm_fn.cli.main import main; "
            f"code = main([{str(config)!r}]); "
            "sys.stderr.write(repr((code, sorted(m for m in sys.modules if m == 'yaml' or m.startswith('yaml.')))))")
    run = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         check=True)
    assert run.stderr == "(0, [])" and run.stdout.count("\nkind: ") > 200
