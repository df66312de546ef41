"""Preference ``annotations`` (``preference/apply/annotations.go``): only keys the target lacks; never a
conflict (the VM's and the instancetype's values win)."""

from __future__ import annotations

from krm_fn.kube.paths import Obj


def apply_annotation_preferences(pref: Obj, meta: Obj) -> None:
    wanted = pref.get("annotations")
    if not wanted:
        return
    target = meta.get("annotations")
    if target is None:
        target = meta["annotations"] = {}
    for key, value in wanted.items():
        if key not in target:
            target[key] = value
