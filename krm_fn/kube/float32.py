"""Go's ``float32``: a float rounded to the nearest single-precision value. The one place it is computed: the
loader's texts of YAML floats as float32 (:mod:`krm_fn.io.loader`), apimachinery's precision estimate in
``ParseQuantity`` (:mod:`krm_fn.kube.quantity`) and KubeVirt's overcommit arithmetic
(:mod:`krm_fn.kubevirt.apply.memory`)."""

from __future__ import annotations

import struct
from typing import Final

_F32: Final = struct.Struct("<f")


def f32(x: float) -> float:
    """``float32(x)``; ``OverflowError`` when ``x`` rounds beyond the largest float32 (an infinity in Go)."""
    return float(_F32.unpack(_F32.pack(x))[0])
