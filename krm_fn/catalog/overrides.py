"""Two catalog-wide settings for reproducing older upstream releases, whose objects predate fields and labels
the catalog as written derives: ``derivedLabels`` (a derived label left out, ``false``, or given a fixed value)
and ``omitFields`` (spec fields, as dotted paths, left out of every generated object, with a mapping they leave empty).

Labels are derived from the full spec first, so an older release's ``instancetype.kubevirt.io/arch`` label
survives when ``omitFields`` drops the ``preferredArchitecture`` it was derived from.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

from krm_fn.catalog.check import Checker
from krm_fn.catalog.labels import DERIVED_LABELS
from krm_fn.catalog.model import Instancetype, Preference, copy_tree
from krm_fn.kube.paths import Obj


class Overrides(NamedTuple):
    labels: dict[str, str | None]        # derived label -> fixed value (None: left out)
    omit: tuple[tuple[str, ...], ...]    # spec paths left out


def parse(c: Checker, labels_raw: Any, omit_raw: Any) -> Overrides:
    labels: dict[str, str | None] = {}
    for key, value in (c.named_mapping(labels_raw, ("derivedLabels",), "label") or {}).items():
        path = ("derivedLabels", key)
        if key not in DERIVED_LABELS:
            c.add(path, "not a derived label (hand-written labels go in `labels`)")
        elif value is False:
            labels[key] = None
        elif (fixed := c.label_value(value, path)) is not None:
            labels[key] = fixed
    omit: list[tuple[str, ...]] = []
    given = c.string_list(omit_raw, ("omitFields",)) if omit_raw is not None else None
    for i, dotted in enumerate(given or []):
        if not dotted or any(not part for part in dotted.split(".")):
            c.add(("omitFields", i), "must be a dotted spec path such as devices.preferredVideoType")
        else:
            omit.append(tuple(dotted.split(".")))
    return Overrides(labels, tuple(omit))


T = TypeVar("T", Instancetype, Preference)


def apply(overrides: Overrides, objects: list[T]) -> list[T]:
    """``objects`` with the overrides applied (new values; the inputs are not changed)."""
    if not overrides.labels and not overrides.omit:
        return objects
    return [o._replace(labels=_labels(overrides, o.labels), spec=_without(overrides.omit, o.spec)) for o in objects]


def _labels(overrides: Overrides, labels: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in labels.items():
        if key not in overrides.labels:
            out[key] = value
        elif (fixed := overrides.labels[key]) is not None:
            out[key] = fixed
    return out


def _without(paths: tuple[tuple[str, ...], ...], spec: Obj) -> Obj:
    out: Obj = copy_tree(spec)
    for path in paths:
        _remove(out, path)
    return out


def _remove(tree: Obj, path: tuple[str, ...]) -> None:
    """``path`` removed from ``tree``, and each mapping on the way that it leaves empty."""
    head = path[0]
    if len(path) == 1:
        tree.pop(head, None)
    elif isinstance(child := tree.get(head), dict):
        _remove(child, path[1:])
        if not child:
            del tree[head]
