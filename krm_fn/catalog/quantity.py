"""The catalog's memory sizes: which quantities it takes (non-negative, whole units or a decimal point, a binary
or decimal suffix of bytes), read, compared, multiplied and written in their shortest form. The quantity itself
is apimachinery's, read by :mod:`krm_fn.kube.quantity` (:func:`~krm_fn.kube.quantity.exact`: the catalog
computes with the amount as written)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from krm_fn.errors import shown
from krm_fn.kube.quantity import BINARY_FACTORS, DECIMAL_FACTORS, exact

if TYPE_CHECKING:
    from fractions import Fraction

# at most 30 digits each side: a memory size, never a number int() would refuse to read
_RE = re.compile(r"[0-9]{1,30}(?:\.[0-9]{1,30})?(?:Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?")


def parse(text: str) -> int | Fraction | None:
    """Bytes, exact (an int for a whole number of bytes, else a fraction), or ``None`` when ``text`` is not a
    (non-negative, memory-style) quantity."""
    return exact(text) if _RE.fullmatch(text) else None


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
    units = BINARY_FACTORS if binary else DECIMAL_FACTORS
    for suffix, factor in reversed(units.items()):
        if value % factor == 0 and value >= factor:
            return f"{value // factor}{suffix}"
    return str(value.numerator)
