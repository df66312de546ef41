"""Tricky scalars, both directions.

Reading: a plain scalar means what kubectl reads. kubectl decodes YAML with sigs.k8s.io/yaml over
go-yaml v2 (YAML 1.1): the expectations below follow go-yaml v2's ``resolve.go`` (its resolve table,
``strconv.ParseInt(s, 0, 64)`` after removing ``_``, the ``yamlStyleFloat`` pattern) and its decoder,
which keeps timestamps as strings when decoding into ``interface{}``. Quoted scalars are strings.

Writing: every string must come back as the same string from our loader, from PyYAML (a YAML 1.1
reader) and, in tests/test_tools.py, from kustomize (go-yaml v3).
"""

from __future__ import annotations

import math

import pytest
import yaml

from krm_fn.io.loader import load_documents
from krm_fn.io.scalars import plain_ok
from tests.emitted import dump

# plain scalar -> value kubectl reads (go-yaml v2 resolve)
PLAIN = [
    ("yes", True), ("Yes", True), ("YES", True), ("y", True), ("Y", True), ("on", True), ("ON", True),
    ("true", True), ("True", True), ("no", False), ("n", False), ("N", False), ("off", False),
    ("Off", False), ("false", False), ("FALSE", False),
    ("~", None), ("null", None), ("Null", None), ("NULL", None),
    ("0", 0), ("12", 12), ("+12", 12), ("-12", -12), ("0777", 0o777), ("012345", 0o12345),
    ("0o17", 15), ("0x1F", 31), ("-0x1F", -31), ("0b101", 5), ("1_000", 1000), ("1__0", 10),
    ("9223372036854775807", 2**63 - 1), ("9223372036854775808", 2**63),
    ("1e3", 1000.0), ("1.5e3", 1500.0), ("1.", 1.0), (".5", 0.5), ("-1.25", -1.25), ("09", 9.0),
    (".inf", math.inf), ("-.Inf", -math.inf), ("+.INF", math.inf),
    # strings
    ("2001-12-14", "2001-12-14"), ("2001-12-14T21:59:43.10-05:00", "2001-12-14T21:59:43.10-05:00"),
    ("1:20", "1:20"), ("abc", "abc"), ("yes please", "yes please"), ("_1", "_1"), ("0x", "0x"),
    ("1.2.3", "1.2.3"), ("v1", "v1"), ("1-2", "1-2"), ("e3", "e3"), ("0xZZ", "0xZZ"),
    ("0.0.0.0/0", "0.0.0.0/0"), ("ON_", "ON_"),
]


@pytest.mark.parametrize(("text", "expected"), PLAIN, ids=[t for t, _ in PLAIN])
def test_plain_scalar_means_what_kubectl_reads(text: str, expected: object) -> None:
    value = load_documents(f"k: {text}\n")[0].value["k"]
    assert type(value) is type(expected) and value == expected


@pytest.mark.parametrize("quoted", ["'yes'", '"on"', "'0777'", '"1e3"', "'~'", '"null"', "''", "|\n  yes\n"])
def test_quoted_and_block_scalars_are_strings(quoted: str) -> None:
    value = load_documents(f"k: {quoted}\n")[0].value["k"]
    assert isinstance(value, str)


def test_nan_is_a_float() -> None:
    assert math.isnan(load_documents("k: .nan\n")[0].value["k"])


STRINGS = [t for t, _ in PLAIN] + [
    "", " ", "  leading", "trailing ", "a: b", "a #b", "#comment", "- item", "-x", "?", "? x", ":x", "[a]",
    "{a: 1}", "*alias", "&anchor", "!tag", "%percent", "@at", "`tick", "'single'", '"double"', "|", ">",
    "=", "<<", "a,b", "x:", "tab\tinside", "\ttab", "unicode é ü 日本", "emoji 🎉", "nul\x00byte", "bell\x07",
    "del\x7f", "nel\x85x", "ls\u2028x", "bom\ufeffx", "back\\slash", 'quote"inside', "100%", "1:20:30",
    "2001-1-2", "0.5Gi", "1Gi", "500m", "+", ".", "..", "0o", "0b", "0b2", "1e", "1e+", "12e3", "-.5",
    "Y2K", "NO_PROXY", "nO", "oN", "tRUE", "NaN", "Inf", ".Nan", "~x", "x~",
]
MULTILINE = [
    "line1\nline2", "line1\nline2\n", "line1\nline2\n\n", "\nleading newline", "  indented first\nsecond\n",
    "#cloud-config\npassword: x   # not a comment\n", "trailing space \nnext\n", "a\r\nb\n", "tab\tin\nblock\n",
    "\n", "\n\n", "x\n\n\ny", "- a\n- b\n", "key: 'v'\n  nested: \"q\"\n",
]


@pytest.mark.parametrize("s", STRINGS + MULTILINE, ids=[repr(s)[:40] for s in STRINGS + MULTILINE])
def test_emitted_strings_read_back_identically(s: str) -> None:
    text = dump({"key": s, "list": [s], s: "as key"})
    ours = load_documents(text)[0].value
    assert ours == {"key": s, "list": [s], s: "as key"}, text
    pyyaml = yaml.load(text, Loader=yaml.CSafeLoader)  # an independent YAML 1.1 reader
    assert pyyaml == ours, text


@pytest.mark.parametrize("s", ["yes", "on", "1_000", "2001-12-14", "0777", "1e3", "~", "", "1:20", "=", "<<"])
def test_strings_that_other_readers_would_retype_are_quoted(s: str) -> None:
    assert not plain_ok(s)
    assert dump({"k": s}) == f'k: "{s}"\n'


def test_multiline_strings_use_literal_blocks() -> None:
    assert dump({"userData": "#cloud-config\nhostname: a\n"}) == "userData: |\n  #cloud-config\n  hostname: a\n"
    assert dump({"userData": "a\nb"}) == "userData: |-\n  a\n  b\n"
    assert dump({"k": ["x\ny\n"]}) == "k:\n- |\n  x\n  y\n"


@pytest.mark.parametrize(("value", "text"), [
    (1, "1"), (-5, "-5"), (1.5, "1.5"), (1e16, "1.0e+16"), (math.inf, ".inf"), (True, "true"), (None, "null"),
])
def test_non_strings_are_written_plain(value: object, text: str) -> None:
    assert dump({"k": value}) == f"k: {text}\n"
    assert load_documents(dump({"k": value}))[0].value["k"] == value
