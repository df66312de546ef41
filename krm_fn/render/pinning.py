"""``revisions`` mode: a VM pinned to ControllerRevisions as KubeVirt pins it (content-addressed names, one per
referenced object; ``krm_fn.kubevirt.revision`` says what a revision holds), kept pins checked for drift, and
the revisions written next to their VMs (docs/revisions.md)."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any, Final

from krm_fn.index import Index, iter_objects, namespace_of
from krm_fn.kube.identity import name_of
from krm_fn.kube import kpt_annotations
from krm_fn.kube.api import FAMILIES, KIND_CONTROLLER_REVISION, LABEL_OBJECT_NAME, LABEL_OBJECT_VERSION, Family
from krm_fn.kube.meta import LABEL_VALUE_MAX
from krm_fn.kube.paths import Obj, as_map, get
from krm_fn.kubevirt.find.found import FindError, Found
from krm_fn.kubevirt.find.object import find_object, live_object
from krm_fn.kubevirt.pipeline import VmStages
from krm_fn.kubevirt.revision import revision_data
from krm_fn.render.revisions import PinnedContent, build_pinned_revision, with_sync_wave
from krm_fn.kubevirt_versions import KubevirtVersion, release
from krm_fn.render.rendered import Rendered
from krm_fn.render.spec import RevisionsSpec
from krm_fn.results import Result

SHARED_REVISIONS_FILE: Final = "controllerrevisions.yaml"
# a VM with only generateName in per-vm scope: a warning, as the VM is valid and KubeVirt pins it on create
NAMELESS: Final = (
    "not pinned: this VirtualMachine has no metadata.name (only generateName) and per-vm revisions are named "
    "after their VM, a name the API server makes only on create; it is left as it is, and KubeVirt pins it in "
    "the cluster when it is created (revisions.scope: shared names revisions after their content only, and pins it)")


def reference_policy_result(vm: Obj, policy: str, mode: str) -> Result:
    """A VM with matchers under ``instancetype.referencePolicy`` ``policy`` (expand, expandAll): virt-controller
    expands it in the cluster, so Git should hold it expanded. An error in revisions mode, a warning in validate."""
    spec = as_map(vm.get("spec"))
    family = next((f for f in FAMILIES if isinstance(spec.get(f), dict)), FAMILIES[0])
    what = ("expands every VM with an instancetype or preference into its template and deletes the "
            "ControllerRevisions it used" if policy == "expandAll" else
            "expands a VM with an instancetype or preference into its template when its status names no revision "
            "yet, as for every VM created from Git")
    then = "so pins would not hold and the cluster would differ from Git" if mode == "revisions" \
        else "so the cluster will differ from Git"
    message = (f"the cluster's KubeVirt sets instancetype.referencePolicy: {policy}: virt-controller {what}, {then}; "
               "commit this VM as expand mode renders it (spec.mode: expand)")
    return Result.for_object(message, vm, "error" if mode == "revisions" else "warning", field_path=f"spec.{family}",
                             tags=(("stage", "referencePolicy"),))


def unpinned(vm: Obj) -> Obj:
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


class Pinning:
    """The revisions of one run: what each VM needs (:meth:`pin`, independent of the other VMs), then the
    revisions written in item order (:meth:`commit`; ``generated``)."""

    def __init__(self, revisions: RevisionsSpec, kubevirt_version: KubevirtVersion | None, index: Index,
                 items: Sequence[Any]) -> None:
        self.revisions = revisions
        self.index = index
        self.generated: list[Obj] = []
        self._committed: set[tuple[str, str]] = set()
        self._items = items
        self._files: kpt_annotations.IndexAllocator | None = None  # on the first commit: only revisions write
        self._content: dict[int, PinnedContent] = {}  # per object (id): revision data computed once
        row = release(kubevirt_version)
        self.object_version = row.object_version  # of the revisions the target expects
        self.tag = row.tag  # whose Go types write the revisions' data

    def pin(self, vm: Obj, stages: VmStages, done: Rendered[Obj], stored: bool = False) -> Obj:
        """``vm`` with every matcher pinned (the revisions it needs queued on ``done``), or ``vm`` itself with an
        error result on ``done``. ``stages``: ``vm`` through the pipeline (``repin`` unpinned it first, so a
        ``revisionName`` left on ``stages.inferred`` is a pin to keep). ``stored``: the pins go on the VM as the
        mutating webhook left it (``stages.mutated``: the preference's architecture, machine type and storage
        class), not on the VM as written."""
        if self.revisions.scope != "shared" and not name_of(vm):
            done.results.append(Result.for_object(NAMELESS, vm, "warning", field_path="metadata.name",
                                                  tags=(("stage", "input"),)))
            return vm
        inferred = stages.mutated if stored and stages.mutated is not None else \
            stages.inferred if stages.inferred is not None else vm
        spec = inferred.get("spec") or {}
        new_matchers: dict[str, Obj] = {}
        for family in FAMILIES:
            matcher = spec.get(family)
            if not isinstance(matcher, dict):
                continue
            match = stages.found.get(family)
            if matcher.get("revisionName"):
                if isinstance(match, Found) and match.revision is not None:
                    self.report_drift(vm, inferred, family, str(matcher["revisionName"]), match, done.results)
                continue
            try:
                kind, obj = live_object(inferred, family, match, self.index)
            except FindError as err:  # from a status ref's revision, the live object may be missing
                done.results.append(Result.for_object(err.message, vm, field_path=f"spec.{family}"))
                return vm
            obj_name = str((obj.get("metadata") or {}).get("name") or "")
            if len(obj_name) > LABEL_VALUE_MAX:
                done.results.append(Result.for_object(
                    f"the {kind} name {obj_name!r} is longer than {LABEL_VALUE_MAX} characters: KubeVirt records it "
                    f"in the {LABEL_OBJECT_NAME} label of the ControllerRevision, which the API server would reject",
                    vm, field_path=f"spec.{family}.name", tags=(("stage", "input"),)))
                return vm
            content = self._content.get(id(obj))
            if content is None:
                content = self._content[id(obj)] = PinnedContent.of(obj, kind, self.tag)
            cr = build_pinned_revision(inferred, obj, kind, self.revisions.scope == "shared", content,
                                       self.object_version)
            name = cr["metadata"]["name"]
            done.revisions.append((cr, kpt_annotations.file_path(vm) or ""))
            pinned = {**matcher, "kind": kind, "revisionName": name}
            if pinned != spec.get(family):
                new_matchers[family] = pinned
        if not new_matchers and inferred is vm:
            return vm
        return {**inferred, "spec": {**spec, **new_matchers}}

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
            if self.revisions.scope == "shared":
                path = posixpath.join(posixpath.dirname(path), SHARED_REVISIONS_FILE)
            if self._files is None:  # every index the items take, read once (items are never changed)
                self._files = kpt_annotations.IndexAllocator(iter_objects(self._items))
            cr["metadata"]["annotations"] = self._files.place(path)
        if self.revisions.sync_wave is not None:
            cr = with_sync_wave(cr, self.revisions.sync_wave)
        self.generated.append(cr)

    def report_missing_pins(self, vm: Obj, results: list[Result]) -> bool:
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
            results.append(Result.for_object(
                f"controllerrevisions.apps \"{name}\" not found: spec.{family}.revisionName pins this VM to a "
                f"ControllerRevision that is not among the input objects; render the VM together with its revisions, "
                f"or set spec.{family}.revisionName to \"\" to pin it again", vm,
                field_path=f"spec.{family}.revisionName", tags=(("stage", "revisions"),)))
        return missing

    def report_drift(self, vm: Obj, inferred: Obj, family: Family, revision_name: str, pinned: Found,
                     results: list[Result]) -> None:
        """A pin is kept (``pinned``: what its revision holds, as the pipeline found it); say when the revision
        lacks the version label or a newer content exists."""
        cr = pinned.revision
        assert cr is not None
        labels = get(cr, ("metadata", "labels")) or {}
        if labels.get(LABEL_OBJECT_VERSION) != self.object_version:
            results.append(Result.for_object(
                f"ControllerRevision {revision_name} has no label {LABEL_OBJECT_VERSION}: {self.object_version}; "
                f"KubeVirt's upgrade step will replace it and delete it, and the VM then fails with "
                f"FailedFind{family.title()}; set spec.{family}.revisionName to \"\" (or revisions.repin: true) to "
                f"pin it to a labelled revision",
                vm, "warning", field_path=f"spec.{family}.revisionName"))
        try:
            kind, obj = find_object(inferred, family, self.index)  # the live object, to compare with the pin
        except FindError:
            return
        current = revision_data(obj, kind, self.tag).get("spec")
        if current != revision_data({"spec": pinned.spec}, pinned.kind, self.tag).get("spec"):
            name = get(obj, ("metadata", "name"))
            results.append(Result.for_object(
                f"{kind} {name} has changed since it was pinned in ControllerRevision {revision_name}; set "
                f"spec.{family}.revisionName to \"\" (or revisions.repin: true) to move to the current version",
                vm, "info", field_path=f"spec.{family}.revisionName"))
