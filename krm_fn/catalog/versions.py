"""A catalog's ``versions``: each is the catalog as written with a JSON merge patch (RFC 7386) laid on it.

``spec.version`` picks one (unset: the default the KubeVirt release table names for a builtin, else the
catalog as written). A catalog without ``versions`` takes ``spec.version`` as the value of the
``common-instancetypes-version`` label, the meaning the setting always had.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from krm_fn.catalog.check import Checker
from krm_fn.kube.meta import LABEL_VALUE_RULE, is_label_value
from krm_fn.catalog.errors import CatalogError, keypath
from krm_fn.catalog.model import Version, copy_tree
from krm_fn.kube.paths import FieldPath, Obj

VERSION_KEYS = ("description", "label", "patch")


def parse(c: Checker, raw: Any, top: Obj, patchable: Collection[str]) -> dict[str, tuple[Version, Obj]]:
    """The ``versions`` entries, checked: ``name -> (Version, patch)``."""
    out: dict[str, tuple[Version, Obj]] = {}
    for name, entry in (c.named_mapping(raw, ("versions",), "version") or {}).items():
        path: FieldPath = ("versions", name)
        if not name or not is_label_value(name):
            c.add(path, f"a version name must be a valid label value ({LABEL_VALUE_RULE})")
            continue
        m = c.mapping(entry if entry is not None else {}, path, VERSION_KEYS)
        if m is None:
            continue
        description = c.string(m["description"], (*path, "description")) if "description" in m else None
        label = c.label_value(m["label"], (*path, "label")) if "label" in m else None
        patch = c.mapping(m["patch"], (*path, "patch"), patchable) if "patch" in m else {}
        out[name] = (Version(name, description or "", label, _changes(top, patch or {})), patch or {})
    return out


def select(c: Checker, top: Obj, versions: dict[str, tuple[Version, Obj]], wanted: str | None,
           catalog_name: str) -> tuple[Obj, Version | None]:
    """``top`` with the patch of version ``wanted`` applied (``None``: as written)."""
    if wanted is None:
        return top, None
    if wanted not in versions:
        raise CatalogError([("", ("spec", "version"), f"catalog {catalog_name!r} has no version {wanted!r} "
                                                      f"(versions: {', '.join(versions)})")])
    version, patch = versions[wanted]
    return merge_patch(c, top, patch, ("versions", wanted, "patch")), version


def merge_patch(c: Checker, target: Any, patch: Any, path: FieldPath) -> Any:
    """RFC 7386 on plain data, as a new value; removing a key the target does not have is a problem (a typo
    would otherwise change nothing, silently)."""
    if not isinstance(patch, dict):
        return copy_tree(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            if key in out:
                del out[key]
            else:
                c.add((*path, key), f"removes {key!r}, which the catalog does not have")
        else:
            out[key] = merge_patch(c, out.get(key), value, (*path, key))
    return out


def _changes(top: Obj, patch: Obj) -> tuple[str, ...]:
    """What a patch does, two levels deep (``preferences["windows.10"]: changed``), for the docs."""
    out: list[str] = []
    for key, value in patch.items():
        base = top.get(key)
        entries = value.items() if isinstance(value, dict) and isinstance(base, dict) else [(None, value)]
        for name, v in entries:
            where = keypath((key,) if name is None else (key, name))
            had = (base if name is None else base.get(name)) is not None  # type: ignore[union-attr]
            out.append(f"{where}: {'removed' if v is None else 'changed' if had else 'added'}")
    return tuple(out)
