"""``resource.Quantity`` parity: the shared vector table (one test per vector) plus the float32 overcommit
arithmetic and the JSON number forms."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
import yaml

from krm_fn.kube.quantity import ERR_DIGITS, ERR_SUFFIX, Quantity, QuantityError, exact
from krm_fn.kube.quantity_json import from_json, go_float_string
from krm_fn.kubevirt.apply.memory import overcommit_request
from krm_fn.kube.quantity_json import round_trip as canonical
from tests.engine_support import conformance_dir


def _vectors() -> list[Any]:
    path = conformance_dir() / "quantities.yaml"
    if not path.is_file():
        return [pytest.param(None, marks=pytest.mark.skip(reason="shared/conformance/quantities.yaml not found"))]
    with open(path, encoding="utf-8") as f:
        table = yaml.safe_load(f)
    return [pytest.param(v, id=f"{i:03d}:{v['input']!r}") for i, v in enumerate(table)]


@pytest.mark.parametrize("vector", _vectors())
def test_parse_vector(vector: dict[str, Any]) -> None:
    try:
        q = Quantity.parse(vector["input"])
        got = {"canonical": str(q), "format": q.format, "value": q.value(), "milliValue": q.scaled_value(-3),
               "error": None}
    except QuantityError as err:
        got = {"canonical": None, "format": None, "value": None, "milliValue": None, "error": str(err)}
    want = {k: vector[k] for k in ("canonical", "format", "value", "milliValue", "error")}
    assert got == want


@pytest.mark.parametrize("vector", _vectors())
def test_exact_is_the_amount_parse_rounds(vector: dict[str, Any]) -> None:
    """``exact`` (the catalog's reading) takes what ``Quantity.parse`` takes, and its amount rounded up is
    ``Value()`` for every amount the catalog can write (not negative, far from int64's bounds)."""
    if vector["error"] is not None:
        with pytest.raises(QuantityError):
            exact(vector["input"])
        return
    amount = Fraction(exact(vector["input"]))
    if 0 <= amount < 2**62:
        assert math.ceil(amount) == vector["value"]
    try:
        via_json: tuple[str | None, str | None] = (str(from_json(vector["input"])), None)
    except QuantityError as err:
        via_json = (None, str(err))
    assert via_json == (vector["viaJSONCanonical"], vector["viaJSONError"])


@pytest.mark.parametrize(("guest", "percent", "expected"), [
    pytest.param("128Mi", 15, "114085072", id="128Mi 15% float32 (exact would be 114085068)"),
    pytest.param("128Mi", 80, "26843544", id="128Mi 80%"),
    pytest.param("512M", 15, "435200k", id="DecimalSI keeps its format"),
    pytest.param("2Gi", 10, "1932735232", id="2Gi 10% not a 1024 multiple"),
    pytest.param("1Gi", 33, "719406976", id="1Gi 33%"),
    pytest.param("1Gi", 50, "512Mi", id="1Gi 50% canonical binary"),
    pytest.param("1Gi", 10, "966367616", id="1Gi 10%"),
    pytest.param("16Gi", 99, "167772Ki", id="16Gi 99%"),
    pytest.param("1Gi", 100, "0", id="100% gives a zero request"),
    pytest.param("1e9", 50, "500e6", id="DecimalExponent keeps its format"),
])
def test_overcommit_request(guest: str, percent: int, expected: str) -> None:
    assert str(overcommit_request(Quantity.parse(guest), percent)) == expected


@pytest.mark.parametrize(("value", "text"), [
    pytest.param(2147483648, "2147483648", id="YAML int stays decimal"),
    pytest.param(1.5, "1500m", id="float"),
    pytest.param(1e9, "1G", id="integral float via Go JSON"),
    pytest.param(" 2Gi ", "2Gi", id="JSON decoding trims spaces"),
    pytest.param("0.5Gi", "512Mi", id="binary fraction"),
])
def test_canonical_from_json(value: Any, text: str) -> None:
    assert canonical(value) == text


@pytest.mark.parametrize(("value", "text"), [(1e9, "1000000000"), (1.5, "1.5"), (1e21, "1e+21"), (1.5e-7, "1.5e-7")])
def test_go_float_string(value: float, text: str) -> None:
    assert go_float_string(value) == text


@pytest.mark.parametrize("value", [True, None, "1 Gi", "abc", [1]])
def test_rejected_json_values(value: Any) -> None:
    with pytest.raises(QuantityError):
        from_json(value)


@pytest.mark.parametrize("value", [True, None, "1 Gi", "abc", [1]])
def test_rejected_json_values_stay_rejected_once_their_neighbours_are_remembered(value: Any) -> None:
    # canonical() remembers each scalar's answer: True is not 1 (nor 1.0) there, and an error is never remembered;
    # "1" for 1 and 1.0: apimachinery pkg/api/resource/quantity.go (ParseQuantity("1.0").String() is "1")
    assert canonical(1) == "1" and canonical(1.0) == "1"
    for _ in range(2):
        with pytest.raises(QuantityError):
            canonical(value)


def test_compare_and_zero() -> None:
    assert Quantity.parse("1Gi").cmp(Quantity.parse("1024Mi")) == 0
    assert Quantity.parse("1G").cmp(Quantity.parse("1Gi")) < 0
    assert Quantity.parse("0Mi").is_zero()
    assert Quantity.parse("1Gi") == Quantity.parse("1073741824")


@pytest.mark.parametrize(("text", "message"), [
    ("1" + "0" * 4300 + "1", ERR_DIGITS), ("0." + "1" * 4301 + "Gi", ERR_DIGITS),
    ("1e" + "9" * 4301, ERR_SUFFIX)])  # Go's words: the exponent does not fit an int64
def test_a_number_longer_than_python_reads_is_refused_in_words_not_a_traceback(text: str, message: str) -> None:
    """Python converts at most 4300 digits to an int (a guard against quadratic work); such a number is refused
    with our limit named (apimachinery itself has no bound), an exponent as Go refuses it."""
    with pytest.raises(QuantityError) as err:
        Quantity.parse(text)
    assert str(err.value) == message


def test_the_longest_number_python_reads_is_still_read() -> None:
    assert Quantity.parse("1" * 4300).format == "DecimalSI"
