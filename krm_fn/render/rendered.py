"""One input item as the renderer left it (:meth:`krm_fn.render.rendering.Rendering.item`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from krm_fn.kube.paths import Obj
from krm_fn.results import Result

T = TypeVar("T")


@dataclass(slots=True)
class Rendered(Generic[T]):
    """The output item (an object; ``krm_fn.io.resourcelist.Prewritten`` once written by two processes), its
    results, and the revisions it needs, each with its VM's file (written by ``Rendering.finish``, in order)."""

    item: T
    results: list[Result]
    revisions: list[tuple[Obj, str]]
    # the launcher pod of each VM it holds that KubeVirt would start (krm_fn.capacity.pods.PodUse), when the
    # renderer reports capacity
    pods: list[Any] = field(default_factory=list)
