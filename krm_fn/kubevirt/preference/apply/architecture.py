"""``preferredArchitecture`` (``preference/apply/architecture.go``)."""

from __future__ import annotations

from krm_fn.kube.paths import Obj


def apply_architecture_preferences(pref: Obj, vmi: Obj) -> None:
    arch = pref.get("preferredArchitecture")
    if arch and not vmi.get("architecture"):
        vmi["architecture"] = arch
