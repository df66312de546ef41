"""``preferredTerminationGracePeriodSeconds`` (``preference/apply/termination.go``)."""

from __future__ import annotations

from krm_fn.kube.paths import Obj


def apply_termination_preferences(pref: Obj, vmi: Obj) -> None:
    value = pref.get("preferredTerminationGracePeriodSeconds")
    if value is not None and vmi.get("terminationGracePeriodSeconds") is None:
        vmi["terminationGracePeriodSeconds"] = value
