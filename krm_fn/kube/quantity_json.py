"""Kubernetes ``resource.Quantity`` as a JSON value decodes into one (``Quantity.UnmarshalJSON``).

A YAML float becomes the text Go's JSON encoder writes (:func:`go_float_string`). :func:`round_trip` is the
string the API server writes back. :data:`parsed` and the other memos are pure: a fleet holds a few distinct
quantities, each read thousands of times.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final, TypeVar

from krm_fn.kube.quantity import ERR_FORMAT, Quantity, QuantityError

# whitespace ``strings.TrimSpace`` removes that Go's JSON encoder leaves unescaped (tabs, newlines and
# other control characters arrive as ``\t`` escapes, which the Quantity decoder then rejects)
_GO_SPACE: Final = " \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"


def go_float_string(f: float) -> str:
    """How Go's ``encoding/json`` writes a float64 (what a YAML float becomes before Quantity decoding)."""
    if f != f or f in (float("inf"), float("-inf")):
        raise QuantityError(ERR_FORMAT)
    a = abs(f)
    if a != 0 and (a < 1e-6 or a >= 1e21):
        s = repr(f)
        mant, _, exp = s.partition("e")
        sign = exp[0] if exp[:1] in "+-" else "+"
        digits = exp.lstrip("+-").lstrip("0") or "0"
        if len(digits) < 2 and sign == "+":
            digits = digits.rjust(2, "0")
        if mant.endswith(".0"):
            mant = mant[:-2]
        return f"{mant}e{sign}{digits}"
    from decimal import Decimal  # only for a float: importing it costs start-up time

    s = format(Decimal(repr(f)), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s or "0"


def from_json(value: Any) -> Quantity:
    """``Quantity.UnmarshalJSON`` for a decoded JSON/YAML scalar (string, integer or float)."""
    if isinstance(value, bool):
        raise QuantityError(ERR_FORMAT)
    if isinstance(value, int):
        return Quantity.parse(str(value))
    if isinstance(value, float):
        return Quantity.parse(go_float_string(value))
    if isinstance(value, str):
        return Quantity.parse(value.strip(_GO_SPACE))
    raise QuantityError(ERR_FORMAT)


_T = TypeVar("_T")


def scalar_memo(fn: Callable[[Any], _T]) -> Callable[[Any], _T]:
    """``fn`` (a pure function of one JSON value) remembered for string and number arguments, by type and value
    (``1``, ``1.0`` and ``True`` apart): a fleet holds a few distinct quantities, each read thousands of times.
    Other values are passed through; an error is raised each time, never remembered."""
    cached = lru_cache(maxsize=4096, typed=True)(fn)

    def memo(value: Any) -> _T:
        t = type(value)
        return cached(value) if t is str or t is int or t is float else fn(value)

    memo.__doc__ = fn.__doc__
    return memo


parsed: Final = scalar_memo(from_json)  # a fleet's few distinct quantities, each parsed once (immutable values)


@scalar_memo
def round_trip(value: Any) -> str:
    """The string the API server writes back for a quantity field, its canonical form (raises
    :class:`QuantityError`)."""
    return str(from_json(value))


# a string ``Quantity.parse`` keeps as written (its canonical form), decided without parsing: a decimal
# suffix with at most 15 digits not ending in 000, or a binary one whose amount fits the int64 fast path
# and is no multiple of 8 (``Quantity.parse``: precision and ``canonical`` of the int64Amount path)
_PLAIN: Final = re.compile(r"([1-9][0-9]{0,14})([numkMGTPE]|[KMGT]i)?")
_BINARY_MAX_DIGITS: Final = {"Ki": 11, "Mi": 8, "Gi": 5, "Ti": 2}


def is_canonical_text(text: str) -> bool:
    """True only when ``round_trip(text) == text`` (False: unknown, parse it)."""
    m = _PLAIN.fullmatch(text)
    if m is None:
        return False
    digits, suffix = m.groups()
    if not suffix or suffix not in _BINARY_MAX_DIGITS:
        return not digits.endswith("000")
    return len(digits) <= _BINARY_MAX_DIGITS[suffix] and int(digits) & 7 != 0
