"""``VirtualMachineRenderer``: pin VMs to ControllerRevisions (``revisions``, the default), expand them
(``expand``), only check them (``validate``), or rewrite legacy objects to v1beta1 (``migrate``, also a step
the other modes run first with ``migrate: true``; ``krm_fn.migrate``).

Rules (``docs/architecture.md``): never mutate an input dict; an unchanged item is returned as the same
object; a changed item is a new dict; generated ControllerRevisions come after the input items, in the
order they are first needed; a VM KubeVirt would reject stays unchanged and gets an error result, and
processing continues.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from krm_fn.hints import reference_results
from krm_fn.index import WRAPPER_KINDS, Index, is_vm, iter_objects, namespace_of
from krm_fn.kube import kpt_annotations
from krm_fn.kube.api import CLUSTER_SCOPED_KINDS, FAMILIES, KIND_CONTROLLER_REVISION, LABEL_OBJECT_NAME, \
    LABEL_OBJECT_VERSION, TYPE_KINDS, Family
from krm_fn.kube.paths import Obj, get
from krm_fn.kubevirt.find import FindError, find_object, spec_from_revision
from krm_fn.kubevirt.pipeline import VmStages, has_matchers, process_vm
from krm_fn.kubevirt.revision import PinnedContent, build_pinned_revision, is_instancetype_revision, revision_data, \
    with_sync_wave
from krm_fn.kubevirt.webhooks import admission
from krm_fn.kubevirt_versions import release
from krm_fn.render_spec import Mode, RendererSpec, RevisionsSpec
from krm_fn.results import Result, not_yet_said
from krm_fn.scope import clear_cluster_namespaces
from krm_fn.validate import Problem, metadata_problems

__all__ = ["Mode", "RendererSpec", "RevisionsSpec", "is_vm", "render"]

SHARED_REVISIONS_FILE: Final = "controllerrevisions.yaml"


def _unpinned(vm: Obj) -> Obj:
    """``vm`` without ``revisionName`` on its matchers (``repin``); the same object when it has none."""
    spec = vm.get("spec")
    if not isinstance(spec, dict) or not any(isinstance(spec.get(f), dict) and spec[f].get("revisionName")
                                             for f in FAMILIES):
        return vm
    new_spec = dict(spec)
    for family in FAMILIES:
        matcher = spec.get(family)
        if isinstance(matcher, dict) and matcher.get("revisionName"):
            new_spec[family] = {k: v for k, v in matcher.items() if k != "revisionName"}
    return {**vm, "spec": new_spec}


class _Renderer:
    def __init__(self, spec: RendererSpec, index: Index, items: Sequence[Any]) -> None:
        self.spec = spec
        self.index = index
        self.results: list[Result] = []
        self.generated: list[Obj] = []
        self.pending: list[tuple[Obj, str]] = []  # revisions the item being rendered needs (see need_revision)
        self._committed: set[tuple[str, str]] = set()
        self._files = kpt_annotations.IndexAllocator(iter_objects(items))
        self._content: dict[int, PinnedContent] = {}  # per object (id): revision data computed once
        self.object_version = release(spec.kubevirt_version).object_version  # of the revisions the target expects

    # --- items ---------------------------------------------------------------------------------
    def item(self, item: Any) -> Any:
        if is_vm(item):
            return self.vm(item)
        wave = self.spec.revisions.sync_wave
        if wave is not None and self.spec.mode == "revisions" and is_instancetype_revision(item):
            return with_sync_wave(item, wave)
        if isinstance(item, dict) and item.get("kind") in WRAPPER_KINDS and isinstance(item.get("items"), list):
            inner = [self.item(i) for i in item["items"]]
            if all(a is b for a, b in zip(inner, item["items"])):
                return item
            return {**item, "items": inner}
        return item

    def vm(self, vm: Obj) -> Obj:
        problem = self.input_problem(vm)
        if problem is not None:
            self.results.append(Result.for_object(problem[1], vm, field_path=problem[0], tags=(("stage", "input"),)))
            return vm
        try:
            return self._vm(vm)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:  # last line of defence
            self.results.append(Result.for_object(
                f"cannot render this VirtualMachine ({type(exc).__name__}: {exc}); an object it uses is malformed",
                vm, tags=(("stage", "input"),)))
            return vm

    def input_problem(self, vm: Obj) -> tuple[str | None, str] | None:
        """What the API server would refuse before KubeVirt sees the VM (its metadata), or a referenced
        instancetype/preference the cluster would refuse: (field path, message), or None."""
        found: list[Problem] = []
        meta = vm.get("metadata")
        if isinstance(meta, dict):
            for key in ("namespace", "generateName"):
                if key in meta and meta[key] is not None and not isinstance(meta[key], str):
                    found.append((f"metadata.{key}", "must be a string"))
            for key in ("labels", "annotations"):
                value = meta.get(key)
                if value is not None and (not isinstance(value, dict)
                                          or not all(isinstance(v, str) for v in value.values())):
                    found.append((f"metadata.{key}", "must be a map of strings"))
            if not found:
                metadata_problems(meta, False, ("metadata",), found)
        if found:
            path, message = found[0]
            return path, f"{path}: {message}"
        return self.refused_reference(vm)

    def refused_reference(self, vm: Obj) -> tuple[str | None, str] | None:
        """A matcher naming an instancetype/preference (among the items or in the catalog) that the cluster
        would refuse to store (:mod:`krm_fn.kubevirt.webhooks.admission`): (field path, message), or None."""
        spec = vm.get("spec")
        for family in FAMILIES:
            matcher = spec.get(family) if isinstance(spec, dict) else None
            if not isinstance(matcher, dict) or not matcher.get("name") or matcher.get("revisionName") \
                    or matcher.get("inferFromVolume"):
                continue
            try:
                kind, obj = find_object(vm, family, self.index)
            except FindError:
                continue  # the engine reports it with KubeVirt's wording
            refused = admission.refused(obj, self.index.memo)
            if refused:
                more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
                return (f"spec.{family}", f"the {kind} {matcher['name']!r} this VM uses would be refused by the "
                                          f"cluster, so it will not exist there: "
                                          f"{admission.describe(refused[0], obj)}{more}")
        return None

    def _vm(self, vm: Obj) -> Obj:
        mode = self.spec.mode
        checked = vm
        if mode == "revisions" and self.spec.revisions.repin:
            checked = _unpinned(vm)
        if mode != "expand" and self.report_missing_pins(checked):
            return vm
        stages: VmStages = process_vm(checked, self.index, self.spec.cluster)
        if stages.rejection is not None:
            r = stages.rejection
            self.results.append(Result.for_object(r.message, vm, field_path=r.field_path,
                                                  tags=(("stage", r.stage),)))
            # what KubeVirt would not find either, with what was probably meant (krm_fn.hints)
            self.results += reference_results(stages.inferred or checked, r, self.index, vm)
            return vm
        if stages.inferred is not None and stages.inferred is not checked:  # inferFromVolume named objects
            problem = self.refused_reference(stages.inferred)
            if problem is not None:
                self.results.append(Result.for_object(problem[1], vm, field_path=problem[0],
                                                      tags=(("stage", "input"),)))
                return vm
        if mode == "expand":
            return stages.expanded if stages.expanded is not None else vm
        if mode == "revisions" and has_matchers(vm):
            return self.pin(vm, stages)
        return vm

    # --- revisions mode ------------------------------------------------------------------------
    def pin(self, vm: Obj, stages: VmStages) -> Obj:
        inferred = stages.inferred if stages.inferred is not None else vm
        spec = inferred.get("spec") or {}
        new_matchers: dict[str, Obj] = {}
        for family in FAMILIES:
            matcher = spec.get(family)
            if not isinstance(matcher, dict):
                continue
            if matcher.get("revisionName"):
                if self.spec.revisions.repin:
                    matcher = {k: v for k, v in matcher.items() if k != "revisionName"}
                else:
                    self.report_drift(vm, inferred, family, str(matcher["revisionName"]))
                    continue
            try:
                kind, obj = find_object(inferred, family, self.index)
            except FindError as err:  # unreachable after a successful expand; kept as a safety net
                self.results.append(Result.for_object(err.message, vm, field_path=f"spec.{family}"))
                return vm
            obj_name = str((obj.get("metadata") or {}).get("name") or "")
            if len(obj_name) > 63:
                self.results.append(Result.for_object(
                    f"the {kind} name {obj_name!r} is longer than 63 characters: KubeVirt records it in the "
                    f"{LABEL_OBJECT_NAME} label of the ControllerRevision, which the API server would reject",
                    vm, field_path=f"spec.{family}.name", tags=(("stage", "input"),)))
                return vm
            content = self._content.get(id(obj))
            if content is None:
                content = self._content[id(obj)] = PinnedContent.of(obj, kind)
            cr = build_pinned_revision(inferred, obj, kind, self.spec.revisions.scope == "shared", content,
                                       self.object_version)
            name = cr["metadata"]["name"]
            self.need_revision(cr, vm)
            pinned = {**matcher, "kind": kind, "revisionName": name}
            if pinned != spec.get(family):
                new_matchers[family] = pinned
        if not new_matchers and inferred is vm:
            return vm
        return {**inferred, "spec": {**spec, **new_matchers}}

    def need_revision(self, cr: Obj, vm: Obj) -> None:
        """A ControllerRevision ``vm`` needs; written out by :meth:`commit`, in item order."""
        self.pending.append((cr, kpt_annotations.file_path(vm) or ""))

    def commit(self, cr: Obj, vm_path: str) -> None:
        """Add ``cr`` to the generated objects unless it is there already (content-addressed names); give it a
        path next to its VM's and the next free index in that file.

        "There already" is by the namespace the revision lands in (:func:`krm_fn.index.namespace_of`: none is
        ``default``, as everywhere): a VM without a namespace and one in ``default`` share one revision, written
        as the first VM that needs it has it."""
        ns = namespace_of(cr)
        name = str(cr["metadata"]["name"])
        key = (ns, name)
        if key in self._committed:
            return
        self._committed.add(key)
        if self.index.get(KIND_CONTROLLER_REVISION, ns, name) is not None:
            return  # already in the ResourceList (a previous render): content-addressed, so identical
        if vm_path:
            path = vm_path
            if self.spec.revisions.scope == "shared":
                path = posixpath.join(posixpath.dirname(path), SHARED_REVISIONS_FILE)
            cr["metadata"]["annotations"] = self._files.place(path)
        if self.spec.revisions.sync_wave is not None:
            cr = with_sync_wave(cr, self.spec.revisions.sync_wave)
        self.generated.append(cr)

    def report_missing_pins(self, vm: Obj) -> bool:
        """An error per ``spec.*.revisionName`` that is not among the items (KubeVirt would admit the VM, skip the
        instancetype checks and fail it with FailedFind*); said directly instead of a misleading later error."""
        spec = vm.get("spec")
        missing = False
        for family in FAMILIES:
            matcher = spec.get(family) if isinstance(spec, dict) else None
            name = matcher.get("revisionName") if isinstance(matcher, dict) else None
            if not name or self.index.get(KIND_CONTROLLER_REVISION, namespace_of(vm), str(name)) is not None:
                continue
            missing = True
            self.results.append(Result.for_object(
                f"controllerrevisions.apps \"{name}\" not found: spec.{family}.revisionName pins this VM to a "
                f"ControllerRevision that is not among the input objects; render the VM together with its revisions, "
                f"or set spec.{family}.revisionName to \"\" to pin it again", vm,
                field_path=f"spec.{family}.revisionName", tags=(("stage", "revisions"),)))
        return missing

    def report_drift(self, vm: Obj, inferred: Obj, family: Family, revision_name: str) -> None:
        """A pin is kept; say when the revision lacks the version label or a newer content exists."""
        cr = self.index.get(KIND_CONTROLLER_REVISION, namespace_of(inferred), revision_name)
        if cr is None:
            return
        labels = get(cr, ("metadata", "labels")) or {}
        if labels.get(LABEL_OBJECT_VERSION) != self.object_version:
            self.results.append(Result.for_object(
                f"ControllerRevision {revision_name} has no label {LABEL_OBJECT_VERSION}: {self.object_version}; "
                f"KubeVirt's upgrade step will replace it and delete it, and the VM then fails with "
                f"FailedFind{family.title()}; set spec.{family}.revisionName to \"\" (or revisions.repin: true) to "
                f"pin it to a labelled revision",
                vm, "warning", field_path=f"spec.{family}.revisionName"))
        try:
            pinned = spec_from_revision(cr, family)
            kind, obj = find_object(inferred, family, self.index)
        except FindError:
            return
        current = revision_data(obj, kind).get("spec")
        if current != revision_data({"spec": pinned.spec}, pinned.kind).get("spec"):
            name = get(obj, ("metadata", "name"))
            self.results.append(Result.for_object(
                f"{kind} {name} has changed since it was pinned in ControllerRevision {revision_name}; set "
                f"spec.{family}.revisionName to \"\" (or revisions.repin: true) to move to the current version",
                vm, "info", field_path=f"spec.{family}.revisionName"))


def _served(catalog_objects: Callable[[], Sequence[Obj]], scope: str) -> Callable[[], Sequence[Obj]]:
    """The catalog objects the renderer takes the cluster to have: the kinds of ``spec.catalog.scope`` (by
    default only the cluster-scoped ones, which is what virt-operator deploys)."""
    kinds = {"Cluster": CLUSTER_SCOPED_KINDS, "Namespaced": TYPE_KINDS - CLUSTER_SCOPED_KINDS}.get(scope, TYPE_KINDS)
    return lambda: [o for o in catalog_objects() if isinstance(o, dict) and o.get("kind") in kinds]


@dataclass(slots=True)
class ItemOutcome:
    """One input item rendered: the output item, its results, the revisions it needs (with its VM's path)."""

    item: Any
    results: list[Result]
    revisions: list[tuple[Obj, str]]


class Rendering:
    """:func:`render` in phases, so that items can be rendered by two processes (``krm_fn.process``):
    :meth:`item` for each input item (independent of the others), then :meth:`finish` with all outcomes in
    input order (what depends on the order: generated revisions, their files and indexes, results)."""

    def __init__(self, items: list[Obj], spec: RendererSpec, catalog_objects: Callable[[], Sequence[Obj]]) -> None:
        from krm_fn.migrate import deprecation_infos, migrate

        self.spec = spec
        self.source = items
        if spec.mode == "migrate" or spec.migrate:
            self.items, self.results = migrate(items, shared_revisions=spec.revisions.scope == "shared")
        else:
            self.items, self.results = items, deprecation_infos(items)
        # cluster-scoped objects stamped with a namespace: stored without it (krm_fn.scope)
        self.items, cleared = clear_cluster_namespaces(self.items, written=spec.mode != "validate")
        self.results += cleared
        self.renderer = _Renderer(spec, Index(self.items, _served(catalog_objects, spec.catalog.scope)), self.items) \
            if spec.mode != "migrate" else None
        # every instancetype/preference among the items, as the cluster would admit it (errors, warnings)
        admitted = admission.results(self.items, self.renderer.index.memo if self.renderer else None)
        # one problem, one result: where migrate's own output check and admission agree, admission's words stay
        self.results = not_yet_said(admitted, self.results) + admitted

    def item(self, i: int) -> ItemOutcome:
        r = self.renderer
        assert r is not None
        item = r.item(self.items[i])
        outcome = ItemOutcome(item, r.results, r.pending)
        r.results, r.pending = [], []
        return outcome

    def finish(self, outcomes: list[ItemOutcome]) -> tuple[list[Any], list[Result]]:
        results = list(self.results)
        if self.renderer is None:  # migrate mode
            out: list[Any] = self.items
        else:
            for o in outcomes:
                results += o.results
                for cr, vm_path in o.revisions:
                    self.renderer.commit(cr, vm_path)
            out = [o.item for o in outcomes] + self.renderer.generated
            if self.spec.mode == "validate":
                out = list(self.source)  # validate changes nothing; migrate's results say what it would rewrite
        if self.spec.validate_output:
            from krm_fn.validate import output_results

            # against self.items: what migrate emitted it has validated already (krm_fn.migrate)
            return out, results + not_yet_said(results, output_results(self.items, out))
        return out, results


def render(items: list[Obj], spec: RendererSpec, catalog_objects: Callable[[], Sequence[Obj]],
           split: Callable[[Rendering], list[ItemOutcome] | None] | None = None) -> tuple[list[Obj], list[Result]]:
    """Process every VirtualMachine in ``items`` (input order); other items pass through untouched.

    ``split``, when given, may render the items on two processes (``krm_fn.process.Halves``): it returns every
    item's outcome in order, or None to leave them to this loop."""
    rendering = Rendering(items, spec, catalog_objects)
    if rendering.renderer is None:  # migrate mode
        return rendering.finish([])
    outcomes = split(rendering) if split is not None else None
    if outcomes is None:
        outcomes = [rendering.item(i) for i in range(len(rendering.items))]
    return rendering.finish(outcomes)
