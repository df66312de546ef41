"""``preferredSubdomain`` (``preference/apply/subdomain.go``)."""

from __future__ import annotations

from krm_fn.kube.paths import Obj


def apply_subdomain_preferences(pref: Obj, vmi: Obj) -> None:
    if pref.get("preferredSubdomain") is not None and not vmi.get("subdomain"):
        vmi["subdomain"] = pref["preferredSubdomain"]
