"""``VirtualMachineRenderer``: pin VMs to ControllerRevisions (``revisions``, the default), expand them
(``expand``), or only check them (``validate``).

Rules (``docs/architecture.md``): never mutate an input dict; an unchanged item is returned as the same
object; a changed item is a new dict; generated ControllerRevisions come after the input items, in the
order they are first needed; a VM KubeVirt would reject stays unchanged and gets an error result, and
processing continues.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.cluster import ClusterConfig
from krm_fn.expand import Outcome, has_matchers, process_vm
from krm_fn.find import Family, FindError, find_object, spec_from_revision
from krm_fn.index import WRAPPER_KINDS, Index, iter_objects, namespace_of
from krm_fn.kube.api import ANN_INDEX, ANN_LEGACY_INDEX, ANN_LEGACY_PATH, ANN_PATH, KIND_CONTROLLER_REVISION, \
    KIND_VM, VM_API_VERSION
from krm_fn.kube.paths import Obj, get
from krm_fn.results import Result
from krm_fn.revisions import LABEL_OBJECT_VERSION, PinnedContent, build_pinned_revision, revision_data

Mode = Literal["revisions", "expand", "validate"]
FAMILIES: Final[tuple[Family, ...]] = ("instancetype", "preference")
SHARED_REVISIONS_FILE: Final = "controllerrevisions.yaml"


@dataclass(frozen=True, slots=True)
class RevisionsSpec:
    # per-vm: one revision per VM and object (KubeVirt's own layout); shared: one per namespace and content
    scope: Literal["per-vm", "shared"] = "per-vm"
    # move pinned VMs to the current content of their instancetype/preference
    repin: bool = False


@dataclass(frozen=True, slots=True)
class RendererSpec:
    mode: Mode = "revisions"
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    revisions: RevisionsSpec = field(default_factory=RevisionsSpec)
    # where instancetypes/preferences missing from the items come from (builtin "none": nowhere)
    catalog: CatalogSpec = field(default_factory=CatalogSpec)


VM_API_VERSIONS: Final = frozenset({VM_API_VERSION, "kubevirt.io/v1alpha3"})  # both served, same types


def is_vm(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == KIND_VM and obj.get("apiVersion") in VM_API_VERSIONS


def _annotations(obj: Obj) -> dict[str, Any]:
    ann = get(obj, ("metadata", "annotations"))
    return ann if isinstance(ann, dict) else {}


def _unpinned(vm: Obj) -> Obj:
    """``vm`` without ``revisionName`` on its matchers (``repin``); the same object when it has none."""
    spec = vm.get("spec")
    if not isinstance(spec, dict) or not any((spec.get(f) or {}).get("revisionName") for f in FAMILIES):
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
        self._emitted: set[tuple[str, str]] = set()
        self._next_index: dict[str, int] = {}
        self._content: dict[int, PinnedContent] = {}  # per object (id): revision data computed once
        for obj in iter_objects(items):
            ann = _annotations(obj)
            path = ann.get(ANN_PATH) or ann.get(ANN_LEGACY_PATH)
            if path:
                raw = str(ann.get(ANN_INDEX, ann.get(ANN_LEGACY_INDEX, "0")))
                idx = int(raw) if raw.isdigit() else 0
                self._next_index[str(path)] = max(self._next_index.get(str(path), 0), idx + 1)

    # --- items ---------------------------------------------------------------------------------
    def item(self, item: Any) -> Any:
        if is_vm(item):
            return self.vm(item)
        if isinstance(item, dict) and item.get("kind") in WRAPPER_KINDS and isinstance(item.get("items"), list):
            inner = [self.item(i) for i in item["items"]]
            if all(a is b for a, b in zip(inner, item["items"])):
                return item
            return {**item, "items": inner}
        return item

    def vm(self, vm: Obj) -> Obj:
        mode = self.spec.mode
        checked = vm
        if mode == "revisions" and self.spec.revisions.repin:
            checked = _unpinned(vm)
        outcome: Outcome = process_vm(checked, self.index, self.spec.cluster)
        if outcome.rejection is not None:
            r = outcome.rejection
            self.results.append(Result.for_object(r.message, vm, field_path=r.field_path,
                                                  tags=(("stage", r.stage),)))
            return vm
        if mode == "expand":
            return outcome.expanded if outcome.expanded is not None else vm
        if mode == "revisions" and has_matchers(vm):
            return self.pin(vm, outcome)
        return vm

    # --- revisions mode ------------------------------------------------------------------------
    def pin(self, vm: Obj, outcome: Outcome) -> Obj:
        inferred = outcome.inferred if outcome.inferred is not None else vm
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
            content = self._content.get(id(obj))
            if content is None:
                content = self._content[id(obj)] = PinnedContent.of(obj, kind)
            cr = build_pinned_revision(inferred, obj, kind, self.spec.revisions.scope == "shared", content)
            name = cr["metadata"]["name"]
            self.emit(cr, vm)
            pinned = {**matcher, "kind": kind, "revisionName": name}
            if pinned != spec.get(family):
                new_matchers[family] = pinned
        if not new_matchers and inferred is vm:
            return vm
        return {**inferred, "spec": {**spec, **new_matchers}}

    def emit(self, cr: Obj, vm: Obj) -> None:
        ns = str(get(cr, ("metadata", "namespace")) or "")
        name = str(cr["metadata"]["name"])
        key = (ns, name)
        if key in self._emitted:
            return
        self._emitted.add(key)
        if self.index.get(KIND_CONTROLLER_REVISION, namespace_of(cr), name) is not None:
            return  # already in the ResourceList (a previous render): content-addressed, so identical
        vm_path = _annotations(vm).get(ANN_PATH) or _annotations(vm).get(ANN_LEGACY_PATH)
        if vm_path:
            path = str(vm_path)
            if self.spec.revisions.scope == "shared":
                path = posixpath.join(posixpath.dirname(path), SHARED_REVISIONS_FILE)
            idx = self._next_index.get(path, 0)
            self._next_index[path] = idx + 1
            cr["metadata"]["annotations"] = {ANN_PATH: path, ANN_INDEX: str(idx)}
        self.generated.append(cr)

    def report_drift(self, vm: Obj, inferred: Obj, family: Family, revision_name: str) -> None:
        """A pin is kept; say when the revision lacks the version label or a newer content exists."""
        cr = self.index.get(KIND_CONTROLLER_REVISION, namespace_of(inferred), revision_name)
        if cr is None:
            return
        labels = get(cr, ("metadata", "labels")) or {}
        if labels.get(LABEL_OBJECT_VERSION) != "v1beta1":
            self.results.append(Result.for_object(
                f"ControllerRevision {revision_name} has no label {LABEL_OBJECT_VERSION}: v1beta1; KubeVirt's "
                f"upgrade step will replace it and delete it", vm, "warning", field_path=f"spec.{family}.revisionName"))
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


def render(items: list[Obj], spec: RendererSpec,
           catalog_objects: Callable[[], Sequence[Obj]]) -> tuple[list[Obj], list[Result]]:
    """Process every VirtualMachine in ``items`` (input order); other items pass through untouched."""
    renderer = _Renderer(spec, Index(items, catalog_objects), items)
    out = [renderer.item(item) for item in items]
    return out + renderer.generated, renderer.results
