"""Scalar semantics shared by the loader and the emitter.

*Reading*: a plain (unquoted, untagged) scalar means what kubectl reads (sigs.k8s.io/yaml over go-yaml v2,
YAML 1.1): ``yes/no/on/off/y/n`` are booleans, ``0777`` is octal, ``1_000`` is 1000, ``1e3`` is a float,
timestamps stay strings. Quoted and block scalars are always strings. :func:`resolve_plain` follows go-yaml
v2.4.0's ``resolve.go`` step by step, including what falls through to a string there: an integer beyond
uint64 written with a base prefix (``0xFFFFFFFFFFFFFFFFFFFF``: ``ParseInt``/``ParseUint`` fail and
``yamlStyleFloat`` does not match), and a float beyond float64 (``1e400``: ``strconv.ParseFloat`` returns
ErrRange, which ``resolve`` treats as "not a float").

*Writing*: a string is written plain only when *every* YAML reader we meet (go-yaml v2 in kubectl,
go-yaml v3 in kpt/kustomize, YAML 1.1 readers such as PyYAML) reads it back as the same string;
otherwise it is double-quoted. Multi-line strings use literal block style when YAML allows it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from krm_fn.io.subset import BOM, INDICATORS, NON_PRINTABLE

_TRUE = ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")
_FALSE = ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")
_NULL = ("", "~", "null", "Null", "NULL")
_INF = (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")
_NINF = ("-.inf", "-.Inf", "-.INF")
_NAN = (".nan", ".NaN", ".NAN")

MISSING: Any = object()

#: plain scalars with a fixed non-string meaning (go-yaml v2 resolve table)
SPECIAL_PLAIN: dict[str, Any] = {
    **{s: True for s in _TRUE},
    **{s: False for s in _FALSE},
    **{s: None for s in _NULL},
    **{s: math.inf for s in _INF},
    **{s: -math.inf for s in _NINF},
    **{s: math.nan for s in _NAN},
}

NUMERIC_START = frozenset("+-.0123456789")  # what a plain scalar that may resolve to a number starts with
# go-yaml v2.4.0 ``yamlStyleFloat``: the float syntax tried for a scalar starting with a digit or a sign
_GO_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# a scalar starting with "." goes to ``strconv.ParseFloat`` as written: Go's decimal float syntax, which
# allows "_" between two digits
_GO_DOT_FLOAT = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?")
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def _go_parse_int(s: str) -> int | None:
    """``strconv.ParseInt(s, 0, 64)`` then ``ParseUint`` (underscores already removed), or None."""
    body = s
    sign = 1
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body:
        return None
    base = 10
    digits = body
    low = body[:2].lower()
    if low == "0x":
        base, digits = 16, body[2:]
    elif low == "0o":
        base, digits = 8, body[2:]
    elif low == "0b":
        base, digits = 2, body[2:]
    elif body[0] == "0" and len(body) > 1:
        base, digits = 8, body[1:]
    if not digits or not digits.isascii() or not digits.isalnum():
        return None
    try:
        value = sign * int(digits, base)
    except ValueError:
        return None
    if _INT64_MIN <= value <= _INT64_MAX:
        return value
    if s[0] not in "+-" and value <= _UINT64_MAX:  # strconv.ParseUint takes no sign
        return value
    return None


def resolve_plain(s: str) -> Any:
    """The value kubectl reads for the plain scalar ``s``."""
    special = SPECIAL_PLAIN.get(s, MISSING)
    if special is not MISSING:
        return special
    if s[0] not in NUMERIC_START:
        return s
    if s[0] == ".":
        return _go_float(s.replace("_", ""), s) if _GO_DOT_FLOAT.fullmatch(s) else s
    plain = s.replace("_", "")
    if plain:
        as_int = _go_parse_int(plain)
        if as_int is not None:
            return as_int
        if _GO_FLOAT.fullmatch(plain):
            return _go_float(plain, s)
    return s


def _go_float(digits: str, s: str) -> Any:
    """``strconv.ParseFloat(digits, 64)`` as resolve.go uses it: out of range (ErrRange) is no float, and
    the scalar stays the string ``s``. Underflow is no error in Go: it gives 0, as Python does."""
    value = float(digits)
    return s if math.isinf(value) else value


# --- writing -------------------------------------------------------------------------------------

# Strings other YAML readers (YAML 1.1 / 1.2, PyYAML, go-yaml v3) read as non-strings.
_OTHER_READERS = re.compile(
    r"""(?x)
    [-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?   # any number-ish (1.2 core, 1.1 float)
    | [-+]?0[bBoOxX][0-9a-fA-F_]+                           # prefixed ints
    | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?      # YAML 1.1 sexagesimal
    | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
      (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?       # timestamps
    | [-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)
    | [=<~]|<<
    """
)
# Characters that may not start a plain scalar, and sequences that may not appear in one.
_BAD_START = frozenset(INDICATORS + " \t")
_BAD_INSIDE = re.compile(r": |:$| #|[\t\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|\s$")
_NON_PRINTABLE = re.compile(f"[{NON_PRINTABLE}{BOM}]")
_JSON_UNSAFE_FOR_YAML = re.compile(r"[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def plain_ok(s: str) -> bool:
    """True when ``s`` can be written as a plain scalar and every reader gets the same string back."""
    if not s or s[0] in _BAD_START:
        return False
    if s[0] in NUMERIC_START or s in SPECIAL_PLAIN or s[0] in "=<~":
        if resolve_plain(s) is not s or _OTHER_READERS.fullmatch(s):
            return False
    elif resolve_plain(s) is not s:
        return False
    return _BAD_INSIDE.search(s) is None and "\n" not in s and "\r" not in s


def double_quoted(s: str) -> str:
    """A YAML double-quoted scalar (JSON escapes are valid YAML escapes; YAML breaks/non-printables escaped)."""
    out = json.dumps(s, ensure_ascii=False)
    if _JSON_UNSAFE_FOR_YAML.search(out):
        out = _JSON_UNSAFE_FOR_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out


def literal_ok(s: str) -> bool:
    """Whether a multi-line string can be a literal block scalar (libyaml's rules: printable text,
    no trailing spaces before a line break, no CR / unicode line separators)."""
    if _NON_PRINTABLE.search(s) or "\r" in s or "\u2028" in s or "\u2029" in s or "\x85" in s:
        return False
    if " \n" in s or "\t\n" in s:
        return False
    return not s.endswith((" ", "\t"))


def format_float(f: float) -> str:
    if math.isnan(f):
        return ".nan"
    if math.isinf(f):
        return ".inf" if f > 0 else "-.inf"
    r = repr(f)
    if "e" in r and "." not in r:
        mantissa, exp = r.split("e")
        r = f"{mantissa}.0e{exp}"
    return r
