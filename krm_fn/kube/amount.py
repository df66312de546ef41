"""Resource amounts as exact integers of nano units, the unit ``resource.Quantity`` rounds to.

:func:`nanos` reads a quantity (a string, or a number as JSON writes one) and :func:`text` prints an amount back.
Sums and comparisons are then plain integer arithmetic.
A memory amount prints in binary units when it is a whole number of them (``1294Mi``), else as Go's canonical
decimal form (``1400245952``, ``100m``); the printed form is the value, not always Go's spelling of it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from krm_fn.kube.quantity import Quantity, QuantityError
from krm_fn.kube.quantity_json import from_json

NANO: Final = 10**9  # nano units per unit
MI: Final = 2**20 * NANO  # one mebibyte, in nano units


def nanos(value: Any) -> int:
    """``value`` in nano units, rounded up as ``ParseQuantity`` rounds, without int64's bounds (a pod's memory in
    nano units exceeds them); :class:`QuantityError` when it does not parse."""
    if isinstance(value, str):
        return _parsed(value)
    return from_json(value).nanos()


@lru_cache(maxsize=4096)
def _parsed(text: str) -> int:
    return Quantity.parse(text).nanos()


def nanos_or_zero(value: Any) -> int:
    """:func:`nanos`, 0 for a missing or malformed value (what Go reads from a map without the key)."""
    if value is None:
        return 0
    try:
        return nanos(value)
    except QuantityError:
        return 0


def units(amount: int) -> int:
    """``Quantity.Value()``: the whole units of ``amount``, rounded up."""
    return -(-amount // NANO)


@lru_cache(maxsize=4096)
def text(amount: int, binary: bool = False) -> str:
    """``amount`` printed as a quantity; ``binary``: in Ki/Mi/Gi... where it is a whole number of them."""
    if amount % NANO:
        return str(Quantity("d", amount, 9, "DecimalSI"))
    whole = amount // NANO
    return str(Quantity.from_int(whole, "BinarySI" if binary and whole % 1024 == 0 else "DecimalSI"))


def is_memory(key: str) -> bool:
    """Whether the resource ``key`` counts bytes that print best in binary units."""
    return key in ("memory", "requests.memory", "limits.memory") or key.startswith(("hugepages-", "requests.hugepages-"))
