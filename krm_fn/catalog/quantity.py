"""Kubernetes resource quantities, just enough for memory sizes: parse, compare, multiply, format."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from krm_fn.errors import shown

if TYPE_CHECKING:
    from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
# at most 30 digits each side: a memory size, never a number int() would refuse to read
_RE = re.compile(r"([0-9]{1,30}(?:\.[0-9]{1,30})?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?")


def parse(text: str) -> int | Fraction | None:
    """Bytes, exact (an int for a whole number of bytes, else a fraction), or ``None`` when ``text`` is not a
    (non-negative, memory-style) quantity."""
    m = _RE.fullmatch(text)
    if not m:
        return None
    number, suffix = m.groups()
    factor = _BINARY.get(suffix or "") or _DECIMAL.get(suffix or "") or 1
    whole, _, decimals = number.partition(".")
    scaled = int(whole + decimals) * factor
    divisor: int = 10 ** len(decimals)
    if scaled % divisor == 0:  # a whole number of bytes (1.5Gi too)
        return scaled // divisor
    from fractions import Fraction  # only for a part of a byte: importing it costs ~2 ms of start-up

    return Fraction(scaled, divisor)


def bytes_of(text: str) -> int | Fraction:
    """Like :func:`parse` for a quantity already known to be valid; ``ValueError`` otherwise."""
    value = parse(text)
    if value is None:
        raise ValueError(f"not a quantity: {shown(text)}")
    return value


def is_binary(text: str) -> bool:
    return text.endswith("i")


def scale(text: str, factor: int) -> str:
    """``scale("2Gi", 4) == "8Gi"``; the result is canonical in the same family (binary or decimal)."""
    return canonical(bytes_of(text) * factor, binary=is_binary(text))


def canonical(value: int | Fraction, *, binary: bool) -> str:
    """The shortest exact form with the largest suffix of one family: ``2**31`` -> ``2Gi``, ``1536Mi`` stays."""
    if value.denominator != 1:
        raise ValueError(f"{value} bytes is not a whole number of bytes")
    units = _BINARY if binary else _DECIMAL
    for suffix, factor in reversed(units.items()):
        if value % factor == 0 and value >= factor:
            return f"{value // factor}{suffix}"
    return str(value.numerator)
