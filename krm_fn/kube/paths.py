"""Field paths over plain JSON-like dicts (Kubernetes objects stay dicts from parse to emit).

Modelled on kopf's ``dicts.py``: tiny pure helpers with documented edge cases.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeAlias

from krm_fn.kube.api import WRAPPER_KINDS

Obj: TypeAlias = dict[str, Any]
FieldPath: TypeAlias = tuple[str | int, ...]


def get(obj: Any, path: FieldPath, default: Any = None) -> Any:
    """Value at ``path`` or ``default`` when any step is missing or not a container of the right type.

    ``None`` values count as missing (JSON ``null`` == absent for pointer fields).
    """
    cur = obj
    for step in path:
        if isinstance(step, int):
            if not isinstance(cur, list) or not -len(cur) <= step < len(cur):
                return default
            cur = cur[step]
        else:
            if not isinstance(cur, dict):
                return default
            cur = cur.get(step)
        if cur is None:
            return default
    return cur


def get2(obj: Any, a: str, b: str) -> Any:
    """``get(obj, (a, b))`` (two mapping steps, no default) without the generic loop: for hot paths."""
    if isinstance(obj, dict):
        cur = obj.get(a)
        if isinstance(cur, dict):
            return cur.get(b)
    return None


def get3(obj: Any, a: str, b: str, c: str) -> Any:
    """``get(obj, (a, b, c))`` (three mapping steps, no default) without the generic loop."""
    if isinstance(obj, dict):
        cur = obj.get(a)
        if isinstance(cur, dict):
            cur = cur.get(b)
            if isinstance(cur, dict):
                return cur.get(c)
    return None


def as_map(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else an empty one (Go's zero value of a struct)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else an empty one (Go's nil slice)."""
    return value if isinstance(value, list) else []


def ensure_map(obj: Obj, path: tuple[str, ...]) -> Obj:
    """The dict at ``path``, creating empty dicts for missing (or ``None``) steps.

    Raises ``TypeError`` when a step exists but is not a dict.
    """
    cur = obj
    for step in path:
        nxt = cur.get(step)
        if nxt is None:
            nxt = cur[step] = {}
        elif not isinstance(nxt, dict):
            raise TypeError(f"{dotted(path)}: expected a mapping at {step!r}, got {type(nxt).__name__}")
        cur = nxt
    return cur


def dotted(path: FieldPath) -> str:
    """``("spec", "volumes", 0, "name")`` -> ``"spec.volumes[0].name"`` (kpt/kyaml field path syntax)."""
    out: list[str] = []
    for step in path:
        if isinstance(step, int):
            out.append(f"[{step}]")
        else:
            out.append(("." if out else "") + step)
    return "".join(out)


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars); ~10x faster than ``copy.deepcopy``.

    Other objects are shared, not copied (JSON data holds none).
    """
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def wrapped_items(item: Any) -> list[Any] | None:
    """The items of a ``List``/``ResourceList`` wrapper (``None`` for anything else, a wrapper whose items are
    not a list too)."""
    if isinstance(item, dict) and item.get("kind") in WRAPPER_KINDS:
        inner = item.get("items")
        if isinstance(inner, list):
            return inner
    return None


def iter_objects(items: Iterable[Any]) -> Iterable[Obj]:
    """The objects of ``items``: mappings, wrappers looked through (recursively)."""
    for item in items:
        if isinstance(item, dict):
            inner = wrapped_items(item)
            if inner is None:
                yield item
            else:
                yield from iter_objects(inner)
