"""A text read as the stream modes read their inputs (``krm_fn.io.resourcelist.parse_sources``), for tests that
have the text rather than files: each part of a :class:`~krm_fn.io.inputs.Joined` text is one input."""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

from krm_fn.io.inputs import Joined, Skipped, Source
from krm_fn.io.resourcelist import ResourceList, parse_sources

NAME = "stdin"  # what messages call a single input
NOTHING_SKIPPED = Skipped(frozenset(), frozenset())


def parse_stream(text: str) -> ResourceList:
    """``text`` as a stream of documents (``List`` objects and ResourceLists unwrapped), on the libyaml loader."""
    parts = [text[start:end] for start, end in text.parts] if isinstance(text, Joined) else [text]
    sources = [Source(NAME if len(parts) == 1 else f"part{i}", part.encode()) for i, part in enumerate(parts)]
    return parse_sources(sources, NOTHING_SKIPPED, fast=False)


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
    if isinstance(a, float) and math.copysign(1.0, a) != math.copysign(1.0, b):
        return False  # -0.0 == 0.0 in Python, but they are different values
    return bool(a == b)


def tokens() -> Iterator[str]:
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
    yield from number_tokens()


def number_tokens() -> Iterator[str]:
    """Numbers of every shape go-yaml v2's resolve.go tells apart: every radix and its prefix spellings,
    lengths around the int64/uint64 limits, exponents around the float64 limits, leading dots, signs,
    underscores, YAML 1.1 sexagesimal, the .inf/.nan spellings."""
    signs = ("", "+", "-")
    radixes = [("", "9"), ("", "1"), ("0", "7"), ("0x", "F"), ("0x", "f"), ("0X", "F"), ("0o", "7"), ("0O", "7"),
               ("0b", "1"), ("0B", "1")]
    for sign, (prefix, digit) in itertools.product(signs, radixes):
        for n in (1, 2, 15, 16, 17, 18, 19, 20, 21, 22, 23, 63, 64, 65, 70, 400):
            yield sign + prefix + digit * n
            yield sign + prefix + "1" + "0" * (n - 1)
    for sign, v in itertools.product(signs, (2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**64 + 1)):
        yield from (f"{sign}{v}", f"{sign}0x{v:x}", f"{sign}0X{v:X}", f"{sign}0o{v:o}", f"{sign}0{v:o}", f"{sign}0b{v:b}")
    mantissas = ("1", "1.", "1.5", ".5", "0.5", "00.5", "12345678901234567890.5", "0.000000000000000000001")
    exponents = ("", "e3", "E3", "e+3", "e-3", "e99", "e308", "e309", "e400", "e-400", "e0400", "e-0400", "e+0009",
                 "e", "e+", "E-")
    for sign, m, e in itertools.product(signs, mantissas, exponents):
        yield sign + m + e
    yield from ("1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "2e308", "-2e308",
                "4.9e-324", "2e-324", "1e-400", "179769313486231570000000000000000000000000000000000000000000" + "0" * 250)
    yield from (".5_5", "._5", ".5e1_0", ".5_", "..5", ".5.5", ".e5", ".5e", "._", "._1e400", ".1_0e4_00")
    for sign, word in itertools.product(signs, ("inf", "Inf", "INF", "iNf", "nan", "NaN", "NAN", "nAn")):
        yield from (f"{sign}.{word}", f"{sign}{word}")
    yield from ("Infinity", "-Infinity", "+Infinity")
    yield from ("1:20", "-1:20", "+1:20", "190:20:30", "190:20:30.15", "1:60", "1:2:3:4", "0:0", "1_0:20")
    yield from ("1_0", "0x_F", "0b_1", "0o_7", "0_7", "_1", "1_", "1__0", "1_0.5", "1_0e1_0", "1e4_00", "-_1",
                "+1_0", "0x_", "0b_", "0_x1", "1_000_000_000_000_000_000_000")


_keys = st.sampled_from(["a", "b", "spec", "name", "on", "x.y", "metadata", "status", "items"])


_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5),
                     st.sampled_from(["", "yes", "0777", "multi\nline\n", "v", "1e3", "a: b", "- x"]))


_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(_keys, inner, max_size=4)), max_leaves=12)


_docs = st.dictionaries(_keys, _values, min_size=1, max_size=5)


@st.composite
def edited_documents(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    old = draw(_docs)
    new = copy.deepcopy(old)

    def mutate(node: dict[str, Any]) -> None:
        for key in list(node):
            choice = draw(st.integers(0, 5))
            if choice == 0:
                del node[key]
            elif choice == 1:
                node[key] = draw(_values)
            elif choice == 2 and isinstance(node[key], dict):
                mutate(node[key])
        if draw(st.booleans()):
            node[draw(_keys)] = draw(_values)

    mutate(new)
    return old, new
