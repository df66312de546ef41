"""Numbers and non-string keys mean what kubectl reads.

kubectl reads YAML with sigs.k8s.io/yaml over go-yaml v2.4.0. The reference here is a transliteration of
go-yaml v2.4.0's ``resolve()`` (resolve.go: the resolve table, then ``strconv.ParseInt(plain, 0, 64)``,
``ParseUint``, the ``yamlStyleFloat`` pattern before ``ParseFloat``, the ``0b``/``-0b`` fallbacks; a scalar
starting with ``.`` goes to ``ParseFloat`` as written) over a model of Go's ``strconv`` (prefix rules of base
0, ``ErrRange`` beyond 64 bits, ``ParseFloat``'s underscores between digits and ``ErrRange`` beyond
float64). It is written independently of :mod:`krm_fn.io.scalars` and follows Go's control flow, so the
two can be compared on every generated token. Key strings follow sigs.k8s.io/yaml's
``convertToJSONableObject`` (yaml.go).
"""

from __future__ import annotations

from collections.abc import Callable
import math
import re
import struct
from typing import Any

import pytest
import yaml

from krm_fn.errors import InputError
from krm_fn.io.loader import load_documents
from tests.io_support import same, tokens

# --- a model of Go's strconv --------------------------------------------------------------------


class GoError(Exception):
    """strconv's ErrSyntax or ErrRange."""


def go_parse_uint(s: str, base: int) -> int:
    """``strconv.ParseUint(s, base, 64)`` (no underscores: resolve.go removed them)."""
    if not s:
        raise GoError("syntax")
    if base == 0:
        base = 10
        if s[0] == "0":
            prefix = s[1:2].lower()
            if len(s) >= 3 and prefix in ("b", "o", "x"):
                base, s = {"b": 2, "o": 8, "x": 16}[prefix], s[2:]
            else:
                base, s = 8, s[1:]
    n = 0
    for c in s:
        if "0" <= c <= "9":
            d = ord(c) - ord("0")
        elif "a" <= c.lower() <= "z":
            d = ord(c.lower()) - ord("a") + 10
        else:
            raise GoError("syntax")
        if d >= base:
            raise GoError("syntax")
        n = n * base + d
    if n > 2**64 - 1:
        raise GoError("range")
    return n


def go_parse_int(s: str, base: int) -> int:
    """``strconv.ParseInt(s, base, 64)``: an optional sign, then ParseUint, then the int64 range."""
    if not s:
        raise GoError("syntax")
    neg = s[0] == "-"
    if s[0] in "+-":
        s = s[1:]
    un = go_parse_uint(s, base)
    if (not neg and un >= 2**63) or (neg and un > 2**63):
        raise GoError("range")
    return -un if neg else un


def _underscore_ok(s: str) -> bool:
    """strconv's underscoreOK for a decimal number: every "_" between two digits."""
    saw = "^"
    for c in s.lstrip("+-"):
        if c.isdigit():
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
    return saw != "_"


_GO_DECIMAL_FLOAT = re.compile(r"[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?")


def go_parse_float(s: str) -> float:
    """``strconv.ParseFloat(s, 64)`` for decimal input (hex floats and inf/nan words are not reachable
    from resolve.go's branches that call it with these scalars)."""
    if not _GO_DECIMAL_FLOAT.fullmatch(s) or not any(c.isdigit() for c in s.split("e")[0].split("E")[0]):
        raise GoError("syntax")
    if "_" in s and not _underscore_ok(s):
        raise GoError("syntax")
    value = float(s.replace("_", ""))
    if math.isinf(value):
        raise GoError("range")
    return value


# --- go-yaml v2.4.0 resolve() for an untagged plain scalar, as decoded into interface{} ----------

_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_HINTS = {**{c: "S" for c in "+-"}, **{c: "D" for c in "0123456789"}, **{c: "M" for c in "yYnNtTfFoO~"}, ".": "."}
_MAP: dict[str, Any] = {
    **dict.fromkeys(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"], True),
    **dict.fromkeys(["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"], False),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], None),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], math.nan),
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], math.inf),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], -math.inf),
}


def go_yaml_v2_resolve(s: str) -> Any:
    hint = _HINTS.get(s[0], "") if s else "N"
    if hint:
        if s in _MAP:
            return _MAP[s]
        if hint == ".":
            try:
                return go_parse_float(s)
            except GoError:
                pass
        elif hint in "DS":
            # a timestamp (YYYY-...) decodes into interface{} as its string in v2: no number can be one
            plain = s.replace("_", "")
            attempts: tuple[Callable[[], Any], ...] = (lambda: go_parse_int(plain, 0), lambda: go_parse_uint(plain, 0))
            for attempt in attempts:
                try:
                    return attempt()
                except GoError:
                    pass
            if _YAML_STYLE_FLOAT.fullmatch(plain):
                try:
                    return go_parse_float(plain)
                except GoError:
                    pass
            if plain.startswith("0b"):
                for attempt in (lambda: go_parse_int(plain[2:], 2), lambda: go_parse_uint(plain[2:], 2)):
                    try:
                        return attempt()
                    except GoError:
                        pass
            elif plain.startswith("-0b"):
                try:
                    return go_parse_int("-" + plain[3:], 2)
                except GoError:
                    pass
    return s


def _plain_tokens() -> list[str]:
    """Generated tokens that libyaml reads as one plain scalar with exactly that text."""
    out = []
    for t in sorted(set(tokens())):
        try:
            events = list(yaml.parse(f"k: {t}\n", Loader=yaml.CSafeLoader))
        except yaml.YAMLError:
            continue
        scalars = [e for e in events if isinstance(e, yaml.ScalarEvent)]
        if len(events) == 8 and len(scalars) == 2 and not scalars[1].style and scalars[1].value == t:
            out.append(t)
    return out


PLAIN_TOKENS = _plain_tokens()


def test_every_generated_token_reads_as_go_yaml_v2_resolves_it() -> None:
    assert len(PLAIN_TOKENS) > 1500
    wrong = []
    for t in PLAIN_TOKENS:
        got = load_documents(f"k: {t}\n")[0].value["k"]
        want = go_yaml_v2_resolve(t)
        if not same(got, want):
            wrong.append((t[:40], got, want))
    assert wrong == []


# Worked examples, each following resolve.go by hand (the comment says which branch decides).
EXAMPLES = [
    ("0xFFFFFFFFFFFFFFFFFFFF", "0xFFFFFFFFFFFFFFFFFFFF"),  # ParseInt/ParseUint: ErrRange; not yamlStyleFloat
    ("0xFFFFFFFFFFFFFFFF", 2**64 - 1),  # ParseUint
    ("-0x8000000000000000", -(2**63)),  # ParseInt
    ("-0x8000000000000001", "-0x8000000000000001"),  # ParseInt: ErrRange; ParseUint: no sign
    ("0o" + "7" * 22, "0o" + "7" * 22),  # 66 bits: ErrRange
    ("0b" + "1" * 64, 2**64 - 1),  # ParseUint (base 0 reads 0b)
    ("0b" + "1" * 65, "0b" + "1" * 65),  # ErrRange, and the 0b fallback too
    ("18446744073709551616", 18446744073709551616.0),  # beyond uint64: yamlStyleFloat, ParseFloat
    ("+9223372036854775808", 9223372036854775808.0),  # ParseInt: ErrRange; ParseUint: sign; float
    ("08", 8.0),  # not octal (8 >= 8): yamlStyleFloat
    ("0o8", "0o8"),
    ("0x", "0x"),  # len < 3: octal "x", syntax error
    ("1e400", "1e400"),  # ParseFloat: ErrRange
    ("-1e400", "-1e400"),
    (".1e400", ".1e400"),  # "." branch: ParseFloat: ErrRange
    ("1e-400", 0.0),  # underflow is no error in Go
    ("1.7976931348623157e308", 1.7976931348623157e308),
    ("1.7976931348623159e308", "1.7976931348623159e308"),  # rounds beyond float64: ErrRange
    (".5_5", 0.55),  # "." branch: ParseFloat takes "_" between digits
    ("._5", "._5"),
    ("1:20", "1:20"),  # no sexagesimal in go-yaml
    ("-.nan", "-.nan"),
    (".iNf", ".iNf"),
]


@pytest.mark.parametrize(("text", "expected"), EXAMPLES, ids=[t[:30] for t, _ in EXAMPLES])
def test_worked_examples(text: str, expected: Any) -> None:
    assert same(load_documents(f"k: {text}\n")[0].value["k"], expected)
    assert same(go_yaml_v2_resolve(text), expected)  # the oracle agrees with the hand derivation


# --- keys: sigs.k8s.io/yaml turns them into JSON object keys ------------------------------------

def go_format_float32_g(f: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 32)``, by search: the fewest significant digits that read back as
    the same float32, then Go's %g layout for shortest output (ftoa.go: exponent form when the decimal
    exponent is below -4 or at least 6, the "eprec" Go uses for shortest output)."""
    single = struct.unpack("<f", struct.pack("<f", f))[0]
    for digits in range(1, 10):
        text = f"{single:.{digits - 1}e}"
        try:
            if struct.unpack("<f", struct.pack("<f", float(text)))[0] == single:
                break
        except OverflowError:  # beyond float32 even after rounding
            continue
    mantissa, exp_text = text.split("e")
    exp = int(exp_text)
    if exp < -4 or exp >= 6:
        return f"{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return f"{float(text):.{max(digits - 1 - exp, 0)}f}"


@pytest.mark.parametrize(("key", "expected"), [
    ("1", "1"), ("0x1F", "31"), ("-5", "-5"), ("9223372036854775807", "9223372036854775807"),
    ("true", "true"), ("yes", "true"), ("off", "false"),
    ("1e3", "1000"), ("1.5", "1.5"), ("0.1", "0.1"), ("1e6", "1e+06"), ("123456789.0", "1.2345679e+08"),
    ("1e-5", "1e-05"), ("0.0001", "0.0001"), ("-0.0", "-0"), ("3.14159265358979", "3.1415927"),
    (".inf", ".inf"), ("-.inf", "-.inf"), (".nan", ".nan"), ("1e39", ".inf"), ("18446744073709551616", "1.8446744e+19"),
])
def test_non_string_keys_become_the_strings_kubectl_makes(key: str, expected: str) -> None:
    assert list(load_documents(f"{key}: v\n")[0].value) == [expected]


def test_float_key_formatting_matches_the_go_model() -> None:
    for f in [1000.0, 1e6, 123456.0, 1234567.0, 0.1, 1.1, 1e-5, 0.0001, 0.00012345, 2.5e-7, 100.0, 16777217.0,
              3.4028235e38, 1.5e-45, 65536.5, 999999.0, 9999999.0]:
        assert list(load_documents(f"{f!r}: v\n")[0].value) == [go_format_float32_g(f)], f


@pytest.mark.parametrize("text", ["~: v\n", "null: v\n", "? \n: v\n", "18446744073709551615: v\n", "9223372036854775808: v\n"])
def test_keys_kubectl_cannot_read_are_refused(text: str) -> None:
    """sigs.k8s.io/yaml: "Unsupported map key of type" for a null key and for a uint64 key."""
    with pytest.raises(InputError, match="kubectl cannot read it") as err:
        load_documents(text)
    assert "line 1" in err.value.message
