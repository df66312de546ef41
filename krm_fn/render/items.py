"""One input item through the renderer's mode: a VirtualMachine through KubeVirt's stages
(:func:`krm_fn.kubevirt.pipeline.vm_stages`), then pinned (``revisions``), replaced by its expansion (``expand``)
or left as it is (``validate``); a VM KubeVirt would refuse stays unchanged with an error result. Other items
pass through (a revision of ours gets its Argo CD sync wave; ``List`` wrappers are looked into).

A VM's matchers are looked up once (:func:`krm_fn.kubevirt.find.find_matches`): the referenced objects are
checked on what was found, the pipeline continues from it, and pinning reads it in ``VmStages.found``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from krm_fn.index import Index, is_vm
from krm_fn.kube.api import FAMILIES
from krm_fn.kube.meta import metadata_problems
from krm_fn.kube.status import TYPE_INVALID, Cause
from krm_fn.kube.paths import Obj, wrapped_items
from krm_fn.kubevirt.caches import Caches
from krm_fn.kubevirt.find import FindError, Matches, find_matches, live_object
from krm_fn.kubevirt.pipeline import VmStages, vm_stages
from krm_fn.kubevirt.revision import is_instancetype_revision
from krm_fn.render.revisions import with_sync_wave
from krm_fn.kubevirt.webhooks.admission import refused
from krm_fn.render.admission import describe
from krm_fn.render.hints import HintCache, reference_results
from krm_fn.render.pinning import Pinning, unpinned
from krm_fn.render.rendered import Rendered
from krm_fn.render.spec import RendererSpec
from krm_fn.results import Result
from krm_fn.kubevirt_versions import release


class ItemRenderer:
    """What the mode makes of one item; independent of the other items (``krm_fn.render.rendering.Rendering``)."""

    def __init__(self, spec: RendererSpec, index: Index, items: Sequence[Any]) -> None:
        self.spec = spec
        self.index = index
        self.caches = Caches()  # this render's, shared by every VM
        self.hints: HintCache = {}
        self.pinning = Pinning(spec.revisions, spec.kubevirt_version, index, items)
        self.release = release(spec.kubevirt_version)  # the KubeVirt release whose answer is rendered

    def render(self, item: Obj) -> Rendered[Obj]:
        done: Rendered[Obj] = Rendered(item, [], [])
        done.item = self.item(item, done)
        return done

    def item(self, item: Any, done: Rendered[Obj]) -> Any:
        if is_vm(item):
            return self.vm(item, done)
        wave = self.spec.revisions.sync_wave
        if wave is not None and self.spec.mode == "revisions" and is_instancetype_revision(item):
            return with_sync_wave(item, wave)
        wrapped = wrapped_items(item)
        if wrapped is not None:
            inner = [self.item(i, done) for i in wrapped]
            if all(a is b for a, b in zip(inner, wrapped)):
                return item
            return {**item, "items": inner}
        return item

    def vm(self, vm: Obj, done: Rendered[Obj]) -> Obj:
        problem = self.metadata_problem(vm)
        if problem is not None:
            done.results.append(Result.for_object(problem[1], vm, field_path=problem[0],
                                                  tags=(("stage", "input"),)))
            return vm
        try:
            return self._vm(vm, done)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:  # last line of defence
            done.results.append(Result.for_object(
                f"cannot render this VirtualMachine ({type(exc).__name__}: {exc}); an object it uses is malformed",
                vm, tags=(("stage", "input"),)))
            return vm

    @staticmethod
    def metadata_problem(vm: Obj) -> tuple[str | None, str] | None:
        """What the API server would refuse before KubeVirt sees the VM (its metadata): (field path, message),
        or None."""
        found: list[Cause] = []
        meta = vm.get("metadata")
        if isinstance(meta, dict):
            for key in ("namespace", "generateName"):
                if key in meta and meta[key] is not None and not isinstance(meta[key], str):
                    found.append(Cause(TYPE_INVALID, f"metadata.{key}", "must be a string"))
            for key in ("labels", "annotations"):
                value = meta.get(key)
                if value is not None and (not isinstance(value, dict)
                                          or not all(isinstance(v, str) for v in value.values())):
                    found.append(Cause(TYPE_INVALID, f"metadata.{key}", "must be a map of strings"))
            if not found:
                metadata_problems(meta, False, ("metadata",), found)
        if found:
            return found[0].field, found[0].error()
        return None

    def refused_reference(self, vm: Obj, found: Matches) -> tuple[str | None, str] | None:
        """A matcher naming an instancetype/preference (among the items or in the catalog) that the cluster
        would refuse to store (:mod:`krm_fn.kubevirt.webhooks.admission`): (field path, message), or None.
        ``found``: the matches of ``vm`` (or of a form of it with the same named matchers)."""
        spec = vm.get("spec")
        for family in FAMILIES:
            matcher = spec.get(family) if isinstance(spec, dict) else None
            if not isinstance(matcher, dict) or not matcher.get("name") or matcher.get("revisionName") \
                    or matcher.get("inferFromVolume"):
                continue
            try:
                kind, obj = live_object(vm, family, found.get(family), self.index)
            except FindError:
                continue  # the engine reports it with KubeVirt's wording
            decision = refused(obj, self.caches.admission, self.release.tag)
            if decision is not None:
                return (f"spec.{family}", f"the {kind} {matcher['name']!r} this VM uses would be refused by the "
                                          f"cluster, so it will not exist there: {describe(decision, obj)}")
        return None

    def _vm(self, vm: Obj, done: Rendered[Obj]) -> Obj:
        mode = self.spec.mode
        checked = vm
        if mode == "revisions" and self.spec.revisions.repin:
            checked = unpinned(vm)
        # the one lookup of each matcher: ``vm``'s named matchers are ``checked``'s (unpinned strips pins only)
        found = find_matches(checked, self.index, self.caches, tag=self.release.tag)
        problem = self.refused_reference(vm, found)
        if problem is None:
            if mode != "expand" and self.pinning.report_missing_pins(checked, done.results):
                return vm
            stages: VmStages = vm_stages(checked, self.index, self.spec.cluster, self.caches, found,
                                         self.release)
            if stages.rejection is not None:
                r = stages.rejection
                done.results.append(Result.for_object(r.message, vm, field_path=r.field_path,
                                                      tags=(("stage", r.stage),)))
                # what KubeVirt would not find either, with what was probably meant (krm_fn.render.hints)
                done.results += reference_results(stages.inferred or checked, r, self.index, vm, stages.found,
                                                  self.hints)
                return vm
            if stages.inferred is not None and stages.inferred is not checked:  # inferFromVolume named objects
                problem = self.refused_reference(stages.inferred, stages.found)
        if problem is not None:
            done.results.append(Result.for_object(problem[1], vm, field_path=problem[0],
                                                  tags=(("stage", "input"),)))
            return vm
        if mode == "expand":
            return stages.expanded if stages.expanded is not None else vm
        if mode == "revisions" and stages.inferred is not None:  # the VM has matchers
            return self.pinning.pin(vm, stages, done)
        return vm
