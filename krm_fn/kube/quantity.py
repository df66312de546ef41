"""Kubernetes ``resource.Quantity`` exactly as apimachinery (v0.34) parses, rounds and prints it.

Two internal representations, as upstream: the fast ``int64Amount`` (``value * 10**scale``, int64) and
the arbitrary precision ``inf.Dec`` (``unscaled * 10**-scale``). Which one a string ends up in decides
its canonical form and the overflow behaviour of :meth:`Quantity.value`, so both are modelled.
A string that is already canonical (fast path) is remembered and printed back verbatim (``"007"``).
:func:`exact` is the amount a text writes before ``ParseQuantity`` rounds it (the catalog's memory sizes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from krm_fn.kube.float32 import f32

if TYPE_CHECKING:
    from fractions import Fraction

Format = Literal["DecimalExponent", "BinarySI", "DecimalSI"]

SPLIT_RE: Final = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT: Final = f"quantities must match the regular expression '{SPLIT_RE}'"
ERR_NUMERIC: Final = "unable to parse numeric part of quantity"
ERR_SUFFIX: Final = "unable to parse quantity's suffix"
# Python reads at most this many digits as one integer (sys.get_int_max_str_digits), a guard against quadratic
# conversions; apimachinery has no such bound, so a longer number is refused in our words, not Go's
MAX_DIGITS: Final = 4300
ERR_DIGITS: Final = f"a quantity of more than {MAX_DIGITS} digits is not read (kubevirt-krm's limit)"

_INT64_MAX: Final = (1 << 63) - 1
_INT64_MIN: Final = -(1 << 63)
_MAX_INT64_FACTORS: Final = 18
_NANO: Final = -9
_DIGITS: Final = frozenset("0123456789")
_SUFFIX_CHARS: Final = frozenset("eEinumkKMGTP")

_DEC_SUFFIXES: Final[dict[str, int]] = {
    "n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
}
_BIN_SUFFIXES: Final[dict[str, int]] = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_BY_EXP: Final = {v: k for k, v in _DEC_SUFFIXES.items()}
_BIN_BY_EXP: Final = {v: k for k, v in _BIN_SUFFIXES.items()}
# the suffixes of whole units, largest last, with what each multiplies by
BINARY_FACTORS: Final = {suffix: 2**exp for suffix, exp in _BIN_SUFFIXES.items()}
DECIMAL_FACTORS: Final = {suffix: 10**exp for suffix, exp in _DEC_SUFFIXES.items() if exp > 0}


class QuantityError(ValueError):
    """A string that ``resource.ParseQuantity`` rejects; ``str(err)`` is apimachinery's message."""


def _wrap64(v: int) -> int:
    """Two's complement int64 wrap-around (Go integer overflow)."""
    return ((v + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def _big_int64(v: int) -> int:
    """Go ``big.Int.Int64()``: the low 64 bits of ``|v|`` as int64, negated when ``v < 0``."""
    low = _wrap64(abs(v) & ((1 << 64) - 1))
    return _wrap64(-low) if v < 0 else low


def _go_div(a: int, b: int) -> tuple[int, int]:
    """Go's truncated integer division and remainder."""
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q, a - q * b


def _interpret(suffix: str) -> tuple[int, int, Format] | None:
    exp = _DEC_SUFFIXES.get(suffix)
    if exp is not None:
        return 10, exp, "DecimalSI"
    exp = _BIN_SUFFIXES.get(suffix)
    if exp is not None:
        return 2, exp, "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        body = suffix[1:]
        digits = body[1:] if body[:1] in ("+", "-") else body
        if digits and all(c in _DIGITS for c in digits) and len(digits) <= MAX_DIGITS:
            value = int(body)
            if _INT64_MIN <= value <= _INT64_MAX:
                return 10, value, "DecimalExponent"
    return None


def _digits_end(text: str, i: int) -> int:
    """Where the run of ASCII digits from ``i`` ends."""
    end = len(text)
    while i < end and text[i] in _DIGITS:
        i += 1
    return i


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: (positive, value, numerator, denominator, suffix); raises on bad shape."""
    positive = True
    pos = 0
    end = len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] != "-"
        pos += 1
    while True:  # strip leading zeros
        if pos >= end:
            return positive, "0", "0", "", ""
        if text[pos] != "0":
            break
        pos += 1
    i = _digits_end(text, pos)
    num = text[pos:i]
    if i >= end:
        return positive, text, num, "", ""
    pos = i
    if not num:
        num = "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        i = _digits_end(text, pos)
        denom = text[pos:i]
        if i >= end:
            return positive, text, num, denom, ""
        pos = i
    value = text[:pos]
    suffix_start = pos
    i = pos
    while i < end and text[i] in _SUFFIX_CHARS:
        i += 1
    if i >= end:
        return positive, value, num, denom, text[suffix_start:]
    pos = i
    if text[pos] in "+-":
        pos += 1
    if _digits_end(text, pos) >= end:
        return positive, value, num, denom, text[suffix_start:]
    raise QuantityError(ERR_FORMAT)


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    """``removeInt64Factors`` / ``removeBigIntFactors`` (same result for the values they see)."""
    times = 0
    negative = value < 0
    v = -value if negative else value
    while v >= base and v % base == 0:
        times += 1
        v //= base
    return (-v if negative else v), times


def _dec_round_up(unscaled: int, scale: int, new_scale: int) -> tuple[int, int]:
    """``inf.Dec.Round(x, new_scale, RoundUp)``: away from zero; the result has exactly ``new_scale``."""
    if new_scale >= scale:
        return unscaled * 10 ** (new_scale - scale), new_scale
    div = 10 ** (scale - new_scale)
    q, r = divmod(abs(unscaled), div)
    if r:
        q += 1
    return (-q if unscaled < 0 else q), new_scale


class Quantity:
    """An immutable parsed quantity. ``str(q)`` is ``Quantity.String()`` (what the API server writes back)."""

    __slots__ = ("_kind", "_a", "_scale", "format", "_s")

    def __init__(self, kind: str, a: int, scale: int, fmt: Format, s: str = "") -> None:
        # kind "i": int64Amount, amount = a * 10**scale; kind "d": inf.Dec, amount = a * 10**-scale
        self._kind = kind
        self._a = a
        self._scale = scale
        self.format: Format = fmt
        self._s = s

    # --- construction ------------------------------------------------------------------------
    @staticmethod
    def from_int(value: int, fmt: Format) -> Quantity:
        """``resource.NewQuantity(value, format)``."""
        return Quantity("i", value, 0, fmt)

    @staticmethod
    def parse(text: str) -> Quantity:
        """``resource.ParseQuantity``."""
        if not text:
            raise QuantityError(ERR_FORMAT)
        if text == "0":
            return Quantity("i", 0, 0, "DecimalSI", text)
        positive, value, num, denom, suf = _scan(text)
        interp = _interpret(suf)
        if interp is None:
            raise QuantityError(ERR_SUFFIX)
        base, exponent, fmt = interp
        precision = 0
        scale = 0
        mantissa = 1
        if fmt == "BinarySI":
            if exponent >= 0 and not denom:
                mantissa = 1 << exponent
                precision = 15 - len(num) - int(f32(exponent * 3 / 10)) - 1
            else:
                precision = -1
        else:
            scale = exponent
            precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
        if precision >= 0:
            scale -= len(denom)
            if scale >= _NANO:
                shifted = num + denom
                ivalue = int(shifted)
                if ivalue > _INT64_MAX:
                    raise QuantityError(ERR_NUMERIC)
                result = ivalue * mantissa
                if _INT64_MIN <= result <= _INT64_MAX:
                    if not positive:
                        result = -result
                    if fmt == "BinarySI":
                        canonical = exponent % 10 == 0 and (ivalue & 0x07) != 0
                    else:
                        canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                    return Quantity("i", result, scale, fmt, text if canonical else "")
        # slow path: arbitrary precision
        unscaled, dscale = _written(value, base, exponent)
        sign = -1 if unscaled < 0 else (1 if unscaled else 0)
        unscaled = abs(unscaled)
        if unscaled != 0:
            unscaled, dscale = _dec_round_up(unscaled, dscale, -_NANO)
        if fmt == "BinarySI" and _cmp_dec(unscaled, dscale, _INT64_MAX, 0) > 0:
            unscaled, dscale = _INT64_MAX, 0
        if fmt == "BinarySI" and _cmp_dec(unscaled, dscale, 1, 0) < 0 and unscaled > 0:
            fmt = "DecimalSI"
        if sign < 0:
            unscaled = -unscaled
        return Quantity("d", unscaled, dscale, fmt)

    # --- accessors ---------------------------------------------------------------------------
    def _as_dec(self) -> tuple[int, int]:
        if self._kind == "d":
            return self._a, self._scale
        if self._scale >= 0:
            return self._a * 10 ** self._scale, 0
        return self._a, -self._scale

    def is_zero(self) -> bool:
        return self._a == 0

    def scaled_value(self, scale: int) -> int:
        """``ScaledValue``: the amount in units of ``10**scale``, rounded up, int64 overflow as in Go."""
        if self._kind == "i":
            if self._scale < scale:
                return _negative_scale(self._a, scale - self._scale)[0]
            r = self._a * 10 ** (self._scale - scale)
            return r if _INT64_MIN <= r <= _INT64_MAX else 0
        unscaled, dscale = self._a, self._scale
        dif = dscale - (-scale)
        if dif == 0:
            return _big_int64(unscaled)
        if dif < 0:
            return _wrap64(_big_int64(unscaled) * 10 ** (-dif))
        if unscaled < _INT64_MAX and dif < 19:
            u = _big_int64(unscaled)
            q, m = _go_div(u, 10**dif)
            return q + 1 if m else q
        q, m = divmod(unscaled, 10**dif)  # Euclidean (divisor > 0)
        return _big_int64(q) + 1 if m else _big_int64(q)

    def nanos(self) -> int:
        """The amount in nano units, exactly (a parsed quantity is rounded to them already), without int64's
        bounds."""
        a, scale = self._as_dec()
        if scale <= 9:
            exact_nanos: int = a * 10 ** (9 - scale)
            return exact_nanos
        whole: int = -(-a // 10 ** (scale - 9))
        return whole

    def value(self) -> int:
        """``Value()``: integer value rounded up."""
        return self.scaled_value(0)

    def cmp(self, other: Quantity) -> int:
        a, sa = self._as_dec()
        b, sb = other._as_dec()
        return _cmp_dec(a, sa, b, sb)

    def cmp_int(self, value: int) -> int:
        a, sa = self._as_dec()
        return _cmp_dec(a, sa, value, 0)

    # --- formatting --------------------------------------------------------------------------
    def __str__(self) -> str:
        if self._s:
            return self._s
        number, suffix = self._canonicalize()
        return number + suffix

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r}, {self.format})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.cmp(other) == 0

    def __hash__(self) -> int:
        a, s = self._as_dec()
        while s > 0 and a % 10 == 0:
            a //= 10
            s -= 1
        return hash((a, s))

    def _canonicalize(self) -> tuple[str, str]:
        if self.is_zero():
            return "0", ""
        fmt = self.format
        rounded: tuple[str, int, int] | None = None
        if fmt == "BinarySI":
            if self.cmp_int(-1024) > 0 and self.cmp_int(1024) < 0:
                fmt = "DecimalSI"
            else:
                rounded, exact = self._as_scale0()
                if not exact:
                    fmt = "DecimalSI"
        if fmt in ("DecimalExponent", "DecimalSI"):
            number, exponent = self._canonical_bytes()
            if fmt == "DecimalExponent":
                return number, _exp_suffix(exponent)
            return number, _DEC_BY_EXP.get(exponent, "")
        assert rounded is not None
        number, exponent = _base1024(rounded)
        return number, _BIN_BY_EXP.get(exponent * 10, "")

    def _as_scale0(self) -> tuple[tuple[str, int, int], bool]:
        if self._kind == "i":
            if self._scale >= 0:
                return ("i", self._a, self._scale), True
            v, exact = _negative_scale(self._a, -self._scale)
            return ("i", v, 0), exact
        u, s = _dec_round_up(self._a, self._scale, 0)
        return ("d", u, s), _cmp_dec(u, s, self._a, self._scale) == 0

    def _canonical_bytes(self) -> tuple[str, int]:
        if self._kind == "i":
            amount, times = _remove_factors(self._a, 10)
            exponent = self._scale + times
            r = _go_mod(exponent, 3)
            if r in (1, -2):
                if _INT64_MIN <= amount * 10 <= _INT64_MAX:
                    return str(amount * 10), exponent - 1
                return _dec_canonical(*self._as_dec())
            if r in (2, -1):
                if _INT64_MIN <= amount * 100 <= _INT64_MAX:
                    return str(amount * 100), exponent - 2
                return _dec_canonical(*self._as_dec())
            return str(amount), exponent
        return _dec_canonical(self._a, self._scale)


def _go_mod(a: int, b: int) -> int:
    return _go_div(a, b)[1]


def _dec_canonical(unscaled: int, scale: int) -> tuple[str, int]:
    exponent = -scale
    amount = unscaled
    if amount != 0:
        amount, times = _remove_factors(amount, 10)
        exponent += times
    while _go_mod(exponent, 3) != 0:
        amount *= 10
        exponent -= 1
    return str(amount), exponent


def _base1024(rounded: tuple[str, int, int]) -> tuple[str, int]:
    kind, a, scale = rounded
    if kind == "i":
        value = a * 10**scale
        if not _INT64_MIN <= value <= _INT64_MAX:
            u, _ = _dec_round_up(value, 0, 0)
            amount, exp = _remove_factors(u, 1024)
            return str(amount), exp
        amount, exp = _remove_factors(value, 1024)
        return str(amount), exp
    u, _ = _dec_round_up(a, scale, 0)
    amount, exp = _remove_factors(u, 1024)
    return str(amount), exp


def _exp_suffix(exponent: int) -> str:
    return "" if exponent == 0 else "e" + str(exponent)


def _negative_scale(base: int, scale: int) -> tuple[int, bool]:
    """``negativeScaleInt64``: divide by ``10**scale`` rounding away from zero; (result, exact)."""
    if scale == 0:
        return base, True
    value = base
    fraction = False
    for _ in range(scale):
        if not fraction and _go_mod(value, 10) != 0:
            fraction = True
        value = _go_div(value, 10)[0]
        if value == 0:
            if fraction:
                return (1 if base > 0 else -1), False
            return 0, True
    if fraction:
        value = value + 1 if base > 0 else value - 1
    return value, not fraction


def _cmp_dec(a: int, sa: int, b: int, sb: int) -> int:
    if sa < sb:
        a *= 10 ** (sb - sa)
    elif sb < sa:
        b *= 10 ** (sa - sb)
    return (a > b) - (a < b)


def exact(text: str) -> int | Fraction:
    """The amount ``text`` writes, exactly (``Quantity.parse`` rounds it up to nano units and caps a binary one
    at int64): an int for a whole number, else a fraction; :class:`QuantityError` where ``Quantity.parse`` raises
    one."""
    if not text:
        raise QuantityError(ERR_FORMAT)
    _, value, _, _, suffix = _scan(text)
    interp = _interpret(suffix)
    if interp is None:
        raise QuantityError(ERR_SUFFIX)
    base, exponent, _ = interp
    unscaled, scale = _written(value, base, exponent)
    if scale <= 0:
        whole: int = unscaled * 10 ** -scale
        return whole
    divisor: int = 10 ** scale
    if unscaled % divisor == 0:
        return unscaled // divisor
    from fractions import Fraction  # only for a part of a unit: importing it costs ~2 ms of start-up

    return Fraction(unscaled, divisor)


def _written(value: str, base: int, exponent: int) -> tuple[int, int]:
    """The amount the numeric part ``value`` with a suffix of ``base**exponent`` writes: ``(unscaled, scale)``
    for ``unscaled * 10**-scale``."""
    unscaled, scale = _parse_dec(value)
    if base == 10:
        return unscaled, scale - exponent
    return unscaled << exponent, scale


def _parse_dec(value: str) -> tuple[int, int]:
    """``inf.Dec.SetString`` for the numeric part the scanner returned (sign, digits, optional point)."""
    sign = 1
    body = value
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if "." in body:
        whole, frac = body.split(".", 1)
    else:
        whole, frac = body, ""
    digits = (whole + frac) or "0"
    if not all(c in _DIGITS for c in digits):
        raise QuantityError(ERR_NUMERIC)
    if len(digits) > MAX_DIGITS:
        raise QuantityError(ERR_DIGITS)
    return sign * int(digits), len(frac)
