"""The renderer's three phases in one process, for tests that call the engine on a list of objects (production
drives the phases itself: ``krm_fn.process``, one or two processes)."""

from __future__ import annotations

from collections.abc import Iterable

from krm_fn.kube.paths import Obj
from krm_fn.render.rendering import Rendering
from krm_fn.render.spec import RendererSpec
from krm_fn.results import Result


def render(items: list[Obj], spec: RendererSpec,
           catalog_objects: Iterable[Obj] = ()) -> tuple[list[Obj], list[Result]]:
    """Every VirtualMachine in ``items`` rendered (input order); other items pass through untouched.
    ``catalog_objects``: where references missing from the items are looked up."""
    rendering = Rendering(items, spec, catalog_objects)
    return rendering.finish(rendering.every_item())
