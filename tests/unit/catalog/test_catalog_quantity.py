"""Memory quantities: parse, scale, canonical form."""

from __future__ import annotations

from fractions import Fraction

import pytest

from krm_fn.catalog.quantity import canonical, parse, scale


@pytest.mark.parametrize(("text", "value"), [
    ("512Mi", 512 * 2**20), ("1.5Gi", 3 * 2**29), ("512M", 512 * 10**6), ("1k", 1000), ("100", 100),
    ("lots", None), ("-1Gi", None), ("1e3", None), ("1.Gi", None), ("", None),
])
def test_parse(text: str, value: int | None) -> None:
    assert parse(text) == (Fraction(value) if value is not None else None)


@pytest.mark.parametrize(("text", "factor", "expected"), [
    ("2Gi", 4, "8Gi"), ("512Mi", 2, "1Gi"), ("1.5Gi", 3, "4608Mi"), ("2G", 8, "16G"), ("250M", 4, "1G"),
    ("1Ki", 3, "3Ki"),
])
def test_scale(text: str, factor: int, expected: str) -> None:
    assert scale(text, factor) == expected


def test_canonical_bytes() -> None:
    assert canonical(Fraction(1023), binary=True) == "1023"
    with pytest.raises(ValueError):
        canonical(Fraction(1, 2), binary=True)
