"""The YAML we read as text (krm_fn/io/subset.py) checked against libyaml, and its subsets against each other.

Each character class is compared with what PyYAML's libyaml reader does with every BMP character.
The line scan's subset, the yaml-rs lane's and a copied span's are each derived from these classes.
So a text in the line scan's subset is also one the copy trusts and the lane reads at all.
"""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from krm_fn.io import fastload, linescan, scalars, subset

_BMP = [chr(c) for c in range(0x10000)]


def _refused(c: str) -> bool:
    """Whether libyaml's reader refuses ``c`` in a single-quoted scalar (where only ``'`` means something)."""
    try:
        yaml.load(f"k: 'a{c}b'\n", Loader=yaml.CSafeLoader)
    except (yaml.reader.ReaderError, UnicodeEncodeError):  # a surrogate does not even encode
        return True
    except yaml.YAMLError:
        return False
    return False


def _a_break(c: str) -> bool:
    """Whether libyaml reads ``c`` as a line break: inside a literal block scalar, ``b`` then starts a line."""
    try:
        return bool(yaml.load(f"k: |\n  a{c}b\n", Loader=yaml.CSafeLoader) != {"k": f"a{c}b\n"})
    except yaml.YAMLError:
        return True


def test_non_printable_is_what_libyaml_refuses() -> None:
    pattern = re.compile(f"[{subset.NON_PRINTABLE}]")
    assert [c for c in _BMP if _refused(c)] == [c for c in _BMP if pattern.match(c)]


def test_other_breaks_are_the_line_breaks_libyaml_reads_besides_lf() -> None:
    assert [c for c in _BMP if not _refused(c) and _a_break(c)] == sorted("\n" + subset.OTHER_BREAKS)


@pytest.mark.parametrize("c", sorted(set(map(chr, range(0x21, 0x7F))) - set(subset.INDICATORS)))
def test_a_plain_scalar_may_start_with_any_other_printable_ascii(c: str) -> None:
    assert yaml.load(f"k: {c}x", Loader=yaml.CSafeLoader) == {"k": f"{c}x"}
    assert subset.LINE.fullmatch(f"k: {c}x\n") is not None


@pytest.mark.parametrize("c", list(subset.INDICATORS))
def test_no_reader_of_text_takes_a_plain_scalar_starting_with_an_indicator(c: str) -> None:
    match = subset.LINE.fullmatch(f"k: {c}x\n")
    assert match is None or match["val"] != f"{c}x"
    assert not scalars.plain_ok(f"{c}x")


def test_an_alias_is_the_node_token_the_copy_looks_for() -> None:
    node = re.compile(subset.TOKENS["node"][1])
    for before in subset.ALIAS_BEFORE:
        assert node.match("*a") and subset.hazard(f"k:{before}*a\n", 0, 6)
    assert not subset.hazard("k: a*b\n", 0, 7)


_LINE_TEXT = st.lists(st.sampled_from(["k: v\n", "- k: v\n", "k:\n", "  k: 'q'\n", '- "s"\n', "k: {a: b}\n",
                                       "k: |\n", "  x\n", "\n", "- k: []\n"]), max_size=12).map("".join)


@given(_LINE_TEXT, st.sampled_from(["", "*", "\t", *subset.OTHER_BREAKS]))
def test_a_text_in_the_line_subset_is_one_the_copy_trusts(text: str, extra: str) -> None:
    text += f"k: a{extra}\n"
    lines = text.split("\n")[:-1]
    in_subset = linescan.scannable(text) and all(subset.LINE.fullmatch(line + "\n") for line in lines if line)
    assert in_subset == (extra in ("", "*"))
    if in_subset:
        assert not subset.hazard(text, 0, len(text))
        assert not fastload.bad_text(text)
