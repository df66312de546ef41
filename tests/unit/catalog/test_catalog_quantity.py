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


@pytest.mark.parametrize("number", ["0", "1", "007", "1.5", "0.25", "2.0", "0.001", "9" * 30, "1." + "5" * 30])
@pytest.mark.parametrize("suffix", ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "k", "M", "G", "T", "P", "E"])
def test_parse_is_the_exact_fraction(number: str, suffix: str) -> None:
    """Whole numbers of bytes are ints (no fractions import at start-up): the same exact value either way."""
    factors = {"": 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
               "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
    got = parse(number + suffix)
    assert got == Fraction(number) * factors[suffix]
    assert type(got) is (int if Fraction(got).denominator == 1 else Fraction)
    if got is not None and got.denominator == 1:
        assert canonical(got, binary="i" in suffix) == canonical(Fraction(got), binary="i" in suffix)
