"""A catalog's ``versions``: each is the catalog as written with a JSON merge patch (RFC 7386) laid on it.

``spec.version`` picks one (unset: the default the KubeVirt release table names for a builtin, else the
catalog as written). A version with ``from`` is that other version with its own patch laid on top (a chain of
releases, each written as what changed since the next one). A catalog without ``versions`` takes
``spec.version`` as the value of the ``common-instancetypes-version`` label, the meaning the setting always had.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from krm_fn.catalog.check import Checker
from krm_fn.kube.meta import LABEL_VALUE_RULE, is_label_value
from krm_fn.catalog.errors import CatalogError, keypath
from krm_fn.catalog.model import Version, copy_tree
from krm_fn.kube.paths import FieldPath, Obj

VERSION_KEYS = ("description", "label", "from", "patch")
# name -> (the version, the (version name, patch) of its ``from`` chain, base first, its own last)
Offered = dict[str, tuple[Version, list[tuple[str, Obj]]]]


def parse(c: Checker, raw: Any, top: Obj, patchable: Collection[str]) -> Offered:
    """The ``versions`` entries, checked: ``name -> (Version, patches)``, the patches of its ``from`` chain
    (base first) ending with its own."""
    out: dict[str, tuple[Version, Obj]] = {}
    bases: dict[str, str] = {}
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
        if "from" in m and (base := c.string(m["from"], (*path, "from"))) is not None:
            bases[name] = base
        out[name] = (Version(name, description or "", label, _changes(top, patch or {})), patch or {})
    return _flatten(c, out, bases)


def _flatten(c: Checker, versions: dict[str, tuple[Version, Obj]],
             bases: dict[str, str]) -> Offered:
    """Each version with the patches of its ``from`` chain, base first (laid on one after the other, so each
    keeps RFC 7386's meaning); ``changes`` stay the version's own, after the base it starts from."""
    out: Offered = {}
    for name, (own, patch) in versions.items():
        chain = [name]
        while chain[-1] in bases:
            step = bases[chain[-1]]
            if step not in versions:
                c.add(("versions", chain[-1], "from"), f"no version {step!r} to start from")
                break
            if step in chain:
                c.add(("versions", name, "from"), f"versions start from each other: {' -> '.join([*chain, step])}")
                break
            chain.append(step)
        changes = (f"from {bases[name]}", *own.changes) if name in bases else own.changes
        out[name] = (own._replace(changes=changes), [(step, versions[step][1]) for step in reversed(chain)])
    return out


def select(c: Checker, top: Obj, versions: Offered, wanted: str | None,
           catalog_name: str) -> tuple[Obj, Version | None]:
    """``top`` with the patch of version ``wanted`` applied (``None``: as written)."""
    if wanted is None:
        return top, None
    if wanted not in versions:
        raise CatalogError([("", ("spec", "version"), f"catalog {catalog_name!r} has no version {wanted!r} "
                                                      f"(versions: {', '.join(versions)})")])
    version, patches = versions[wanted]
    for name, patch in patches:
        top = merge_patch(c, top, patch, ("versions", name, "patch"))
    return top, version


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
