"""The migrate walk over the items: each legacy object and reference rewritten by its form's module."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from krm_fn.index import is_vm, iter_objects, name_of, namespace_of
from krm_fn.kube import kpt_annotations
from krm_fn.kube.api import ANN_INDEX, ANN_LEGACY_INDEX, ANN_LEGACY_PATH, ANN_PATH, CLUSTER_SCOPED_KINDS, FAMILIES
from krm_fn.kube.meta import annotations_of, undecodable_metadata
from krm_fn.kube.paths import Obj, get, wrapped_items
from krm_fn.render.revisions import build_pinned_revision
from krm_fn.kubevirt.schema.strict import problems
from krm_fn.render.migrate.common import (
    FLAVOR_API_VERSION,
    FLAVOR_KINDS,
    TOPOLOGY_PATH,
    current_kind,
    deprecated_topology,
    fail,
    family_of,
    warn,
)
from krm_fn.render.migrate.flavor import Choice, choose_profile, convert_flavor, has_profiles
from krm_fn.render.migrate.objects import convert_object
from krm_fn.render.migrate.revision import (
    OBJECT_LABEL_PREFIX,
    Decoded,
    DecodeError,
    decode,
    fixed_labels,
    holds_spec_revision,
    is_controller_revision,
    labelled_current,
    looks_like_ours,
)
from krm_fn.render.migrate.vm import convert_vm
from krm_fn.render.output import output_results
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.results import Result

__all__ = ["deprecation_infos", "migrate"]

@dataclass(slots=True)
class _Replacement:
    """A v1beta1 revision made from a legacy one for one VM."""

    cr: Obj
    decoded: Decoded
    vm: Obj


@dataclass(slots=True)
class _Legacy:
    """What became of a legacy revision: the new revisions to emit, and those that already existed."""

    new: list[_Replacement] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)


class _Migrator:
    def __init__(self, items: list[Any], shared: bool, tag: str) -> None:
        self.items = items
        self.shared = shared
        self.tag = tag  # the target release's API (output checks, revision data)
        self.results: list[Result] = []
        self.extra: list[Obj] = []
        self.extra_results: list[Result] = []
        self.vms: dict[int, tuple[Obj, list[Result]]] = {}
        self.legacy: dict[int, _Legacy] = {}
        self.referenced: set[int] = set()
        self.flavors: dict[tuple[str, str, str], Choice | None] = {}
        self.revisions: dict[tuple[str, str], Obj] = {}
        objects = list(iter_objects(items))
        self.files = kpt_annotations.IndexAllocator(objects)
        for obj in objects:
            kind = obj.get("kind")
            if obj.get("apiVersion") == FLAVOR_API_VERSION and kind in FLAVOR_KINDS:
                ns = "" if FLAVOR_KINDS[str(kind)] in CLUSTER_SCOPED_KINDS else namespace_of(obj)
                self.flavors.setdefault((str(kind), ns, name_of(obj)),
                                        choose_profile(obj) if has_profiles(obj) else None)
            elif is_controller_revision(obj):
                self.revisions.setdefault((namespace_of(obj), name_of(obj)), obj)
        self.known: set[tuple[str, str]] = set(self.revisions)

    # --- pass 1: VirtualMachines ----------------------------------------------------------------------
    def flavor(self, kind: str, vm: Obj, name: str) -> Choice | None | bool:
        ns = "" if FLAVOR_KINDS[kind] in CLUSTER_SCOPED_KINDS else namespace_of(vm)
        key = (kind, ns, name)
        return self.flavors[key] if key in self.flavors else False

    def vm(self, vm: Obj) -> None:
        malformed = undecodable_metadata(vm.get("metadata"))
        touched = False
        new, results = convert_vm(vm, self.flavor)
        raw_spec = new.get("spec")
        spec: Obj = raw_spec if isinstance(raw_spec, dict) else {}
        new_matchers: dict[str, Obj] = {}
        for family in FAMILIES:
            matcher = spec.get(family)
            name = matcher.get("revisionName") if isinstance(matcher, dict) else None
            if not name or not isinstance(matcher, dict):
                continue
            cr = self.revisions.get((namespace_of(new), str(name)))
            if cr is None or labelled_current(cr):
                continue
            self.referenced.add(id(cr))
            touched = True
            if malformed is not None:
                continue  # the VM stays as it is (below); so does the revision
            path = f"spec.{family}.revisionName"
            cr_malformed = undecodable_metadata(cr.get("metadata"))
            if cr_malformed is not None:
                results.append(fail(new, (
                    f"ControllerRevision {name}: {cr_malformed.field} {cr_malformed.message}: migrate cannot rewrite it "
                    f"(nor this VM's reference); fix it and rerun migrate"), path))
                continue
            try:
                decoded = decode(cr, family, matcher, namespace_of(new))
                invalid = problems(decoded.obj, self.tag) if decoded.legacy else []
                if invalid:  # as v1beta1: what the new revision would hold
                    more = f" (and {len(invalid) - 1} more)" if len(invalid) > 1 else ""
                    raise DecodeError(f"its {decoded.source} is not a valid v1beta1 {decoded.kind}: "
                                      f"data.{invalid[0].field or ''}: {invalid[0].message}{more}")
            except DecodeError as err:
                results.append(fail(new, (
                    f"ControllerRevision {name} cannot be decoded: {err.message}; KubeVirt cannot use it either: "
                    f"re-pin the VM (set {path} to \"\" so that a revision of the current {family} is made) or "
                    f"replace the revision's data with a v1beta1 object, and rerun migrate"), path))
                continue
            if not decoded.legacy:
                continue  # v1beta1 data: only its labels change (pass 2), under the same name
            replacement = build_pinned_revision(new, decoded.obj, decoded.kind, self.shared, tag=self.tag)
            new_name = str(replacement["metadata"]["name"])
            key = (namespace_of(replacement), new_name)
            record = self.legacy.setdefault(id(cr), _Legacy())
            if key in self.known:
                record.existing.append(new_name)
            else:
                self.known.add(key)
                record.new.append(_Replacement(replacement, decoded, new))
            new_matchers[family] = {**matcher, "revisionName": new_name}
            results.append(warn(new, (
                f"{path}: {name} ({decoded.source}, which KubeVirt >= v1.7 cannot decode) rewritten as "
                f"{new_name} (v1beta1 data, label object-version: v1beta1)"), path))
        if malformed is not None and (touched or new is not vm):
            path, message = str(malformed.field), malformed.message
            self.vms[id(vm)] = (vm, [fail(vm, f"{path} {message}: migrate cannot rewrite this object; fix it and "
                                              f"rerun migrate", path)])
            return
        if new_matchers:
            new = {**new, "spec": {**spec, **new_matchers}}
        self.vms[id(vm)] = (new, results)

    # --- pass 2: every item, in order ------------------------------------------------------------------
    def item(self, item: Any) -> list[Any]:
        if not isinstance(item, dict):
            return [item]
        wrapped = wrapped_items(item)
        if wrapped is not None:
            inner = [out for i in wrapped for out in self.item(i)]
            same = len(inner) == len(wrapped) and all(a is b for a, b in zip(inner, wrapped))
            return [item] if same else [{**item, "items": inner}]
        malformed = undecodable_metadata(item.get("metadata"))
        if malformed is None:
            return self.convert(item)
        # left as it is when migrate would change it: nothing it would say about it holds
        marks = len(self.results), len(self.extra), len(self.extra_results)
        try:
            out = self.convert(item)
            changed = len(out) != 1 or out[0] is not item
        except (TypeError, AttributeError, ValueError, KeyError):  # the metadata it reads is malformed
            changed = True
        if not changed:
            return out
        del self.results[marks[0]:], self.extra[marks[1]:], self.extra_results[marks[2]:]
        path, message = str(malformed.field), malformed.message
        self.results.append(fail(item, f"{path} {message}: migrate cannot rewrite this object; fix it and rerun "
                                       f"migrate", path))
        return [item]

    def convert(self, item: Obj) -> list[Any]:
        if is_vm(item):
            new, results = self.vms[id(item)]
            self.results += results
            return [new]
        if is_controller_revision(item):
            return self.revision(item)
        if item.get("apiVersion") == FLAVOR_API_VERSION and has_profiles(item):
            new, results = convert_flavor(item)
        else:
            new, results = convert_object(item)
        self.results += results
        return [new]

    def revision(self, cr: Obj) -> list[Any]:
        record = self.legacy.get(id(cr))
        if record is not None:
            return self.replace(cr, record)
        if labelled_current(cr) or not looks_like_ours(cr):
            return [cr]
        if holds_spec_revision(cr):
            if id(cr) not in self.referenced:
                self.results.append(self.unreferenced(cr, "a v1alpha1 spec revision"))
            return [cr]
        try:
            decoded = decode(cr, None)
        except DecodeError as err:
            if id(cr) not in self.referenced:  # else the VM that references it has the error
                self.results.append(fail(cr, (
                    f"cannot be decoded: {err.message}; no VirtualMachine in the input references it: delete it "
                    f"(KubeVirt cannot use it), or migrate it together with the VMs that reference it"), "data"))
            return [cr]
        if decoded.legacy:
            if id(cr) not in self.referenced:
                self.results.append(self.unreferenced(cr, decoded.source))
            return [cr]
        new = fixed_labels(cr, decoded)
        self.results.append(warn(new, (
            f"label instancetype.kubevirt.io/object-version: v1beta1 added (the embedded {decoded.kind} already "
            f"is v1beta1; labels can change on the server, so the name is kept)"), "metadata.labels"))
        return [new]

    def unreferenced(self, cr: Obj, source: str) -> Result:
        return warn(cr, (
            f"holds {source}, which KubeVirt >= v1.7 cannot decode, and no VirtualMachine in the input "
            f"references it: left unchanged; migrate it together with the VMs that reference it, or delete it"),
            "data")

    def replace(self, cr: Obj, record: _Legacy) -> list[Any]:
        old = name_of(cr)
        out: list[Any] = []
        for i, rep in enumerate(record.new):
            new = self.adopt(cr, rep.cr, in_place=i == 0)
            new_name = name_of(new)
            vm = f"{namespace_of(rep.vm)}/{name_of(rep.vm)}"
            if i == 0:
                message = (f"ControllerRevision {old} ({rep.decoded.source}, which KubeVirt >= v1.7 cannot decode) "
                           f"replaced by {new_name} for VirtualMachine {vm}: v1beta1 data and label "
                           f"object-version: v1beta1, under a new name because the data of a ControllerRevision "
                           f"cannot change on the server")
            else:
                message = (f"ControllerRevision {new_name} added for VirtualMachine {vm}: the v1beta1 form of "
                           f"{old} ({rep.decoded.source}), one revision per VM")
            results = [warn(new, message, "metadata.name")]
            results += [warn(new, f"data.{note}", "data." + note.split(":", 1)[0]) for note in rep.decoded.notes]
            if i == 0:
                out.append(new)
                self.results += results
            else:
                self.extra.append(new)
                self.extra_results += results
        if not record.new:
            names = ", ".join(sorted(set(record.existing)))
            self.results.append(warn(cr, (
                f"removed: {old} holds {self.source(cr)}, which KubeVirt >= v1.7 cannot decode, and the VMs that "
                f"referenced it now use {names}, already in the input"), "metadata.name"))
        return out

    def source(self, cr: Obj) -> str:
        data = cr.get("data")
        if isinstance(data, dict) and data.get("kind"):
            return f"{data.get('apiVersion')} {data.get('kind')}"
        return "a v1alpha1 spec revision"

    def adopt(self, legacy: Obj, new: Obj, in_place: bool) -> Obj:
        """``new`` with the legacy revision's other labels and annotations; in place it also keeps the file
        path and index, otherwise it goes next in the same file."""
        md = dict(new["metadata"])
        legacy_labels = get(legacy, ("metadata", "labels")) or {}
        kept = {k: v for k, v in legacy_labels.items() if not str(k).startswith(OBJECT_LABEL_PREFIX)}
        md["labels"] = {**kept, **md.get("labels", {})}
        annotations = dict(annotations_of(legacy))
        path = kpt_annotations.file_path(legacy)
        if not in_place:
            for key in (ANN_PATH, ANN_INDEX, ANN_LEGACY_PATH, ANN_LEGACY_INDEX):
                annotations.pop(key, None)
            if path:
                annotations.update(self.files.place(path))
        if annotations:
            md["annotations"] = annotations
        return {**new, "metadata": md}

    def run(self) -> tuple[list[Any], list[Result]]:
        for obj in iter_objects(self.items):
            if is_vm(obj):
                self.vm(obj)
        out = [new for item in self.items for new in self.item(item)] + self.extra
        # what migrate emits is checked like every other mode's output (docs/migrate.md): KubeVirt must be able
        # to decode it, revisions' data as v1beta1
        return out, self.results + self.extra_results + output_results(self.items, out, self.tag)


def migrate(items: list[Any], *, shared_revisions: bool = False,
            tag: str = DEFAULT_TAG) -> tuple[list[Any], list[Result]]:
    """Every legacy object and reference in ``items`` as v1beta1 (see the module doc); ``shared_revisions``
    names rewritten revisions like ``revisions.scope: shared`` (one per namespace and content); ``tag``: the
    target KubeVirt release, whose API the output is checked against and whose Go types write revision data."""
    return _Migrator(items, shared_revisions, tag).run()


def deprecation_infos(items: list[Any]) -> list[Result]:
    """``info`` results for preferences that use a deprecated ``preferredCPUTopology`` value: KubeVirt
    applies them exactly like the new value and warns at admission (the non-migrate modes)."""
    results: list[Result] = []
    for obj in iter_objects(items):
        kind = current_kind(obj.get("apiVersion"), obj.get("kind"))
        if kind is None or family_of(kind) != "preference":
            continue
        found = deprecated_topology(obj.get("spec"))
        if found is not None:
            old, new = found
            results.append(Result.for_object(
                f"deprecated value {old}, use {new} (it still works; mode: migrate or migrate: true rewrites it)",
                obj, "info", field_path=TOPOLOGY_PATH))
    return results
