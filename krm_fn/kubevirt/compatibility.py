"""Revisions stored by older KubeVirt (``pkg/instancetype/compatibility/compatibility.go`` of v1.5 and v1.6,
``Release.alpha_revisions_decoded``): a ``v1alpha1``/``v1alpha2`` object, or the ``v1alpha1`` spec revision
(``{apiVersion, spec: <base64 JSON>}``), converted to ``v1beta1``. From v1.7 neither decodes (``find``'s errors).

The conversion keeps every JSON key; what changes is meaning: a few instancetype CPU fields were values in the
alphas and are pointers in ``v1beta1``, so an alpha zero value (``model: ""``) was *unset* and converts to an
absent field (:data:`POINTERISED_CPU`). ``render/migrate`` rewrites such objects offline with the same rule.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Final

from krm_fn.kube.api import ALPHA_API_VERSIONS, Family
from krm_fn.kube.paths import Obj

# v1alpha value fields that became pointers in v1beta1: (key under spec.cpu, the zero value v1alpha omitted)
POINTERISED_CPU: Final = (("model", ""), ("dedicatedCPUPlacement", False), ("isolateEmulatorThread", False))


def zero_values(cpu: Obj, family: Family) -> list[str]:
    """The keys of an alpha instancetype's ``spec.cpu`` holding a zero value that meant unset."""
    if family != "instancetype":
        return []
    return [key for key, zero in POINTERISED_CPU
            if key in cpu and cpu[key] == zero and type(cpu[key]) is type(zero)]


def converted_spec(spec: Obj, family: Family) -> Obj:
    """An alpha spec as ``v1beta1`` (``spec`` itself when nothing changes)."""
    cpu = spec.get("cpu")
    unset = zero_values(cpu, family) if isinstance(cpu, dict) else []
    if not unset:
        return spec
    return {**spec, "cpu": {k: v for k, v in spec["cpu"].items() if k not in unset}}


def is_spec_revision(data: Obj) -> bool:
    """The v1alpha1 spec revision's form: exactly ``apiVersion`` and a string ``spec``."""
    return set(data) == {"apiVersion", "spec"} and isinstance(data["spec"], str)


def alpha_spec(data: Obj, family: Family) -> Obj | None:
    """The ``v1beta1`` spec an alpha revision's ``data`` holds (None when it is no alpha revision); a spec
    revision whose spec does not decode is ``{}``, as a failed alpha decode falls through upstream."""
    spec: Any
    if is_spec_revision(data):
        try:
            spec = json.loads(base64.b64decode(str(data["spec"]), validate=True))
        except (binascii.Error, ValueError):
            spec = {}
    elif data.get("apiVersion") in ALPHA_API_VERSIONS:
        spec = data.get("spec")
    else:
        return None
    return converted_spec(spec, family) if isinstance(spec, dict) else {}
