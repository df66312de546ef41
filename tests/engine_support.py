"""Shared helpers for running the conformance corpus (``shared/conformance``) against the engine.

Used by ``tests/test_conformance.py`` (engine API) and meant to be reused by a variant that goes through
the real entry point (``krm_fn.process.process``): everything here works on plain lists of objects.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from krm_fn.kube.api import (
    CONTROLLER_REVISION_API_VERSION,
    INSTANCETYPE_VERSION,
    KIND_CONTROLLER_REVISION,
    KIND_VM,
    LABEL_OBJECT_GENERATION,
    LABEL_OBJECT_KIND,
    LABEL_OBJECT_NAME,
    LABEL_OBJECT_UID,
    LABEL_OBJECT_VERSION,
    TYPE_KINDS,
    VM_API_VERSION,
)
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.find.object import decoded_spec
from krm_fn.kubevirt.conflict import Conflict
from krm_fn.kubevirt.rejection import STAGE_PREFIX
from krm_fn.kubevirt.revision import revision_data
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.schema.roundtrip import encode_object
from krm_fn.kubevirt_versions import RELEASES, KubevirtVersion, release
from krm_fn.index import Index
from krm_fn.kube.api import INSTANCETYPE_KINDS, PREFERENCE_KINDS
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.find.found import FindError
from krm_fn.kubevirt.find.object import find_object
from krm_fn.kubevirt.pipeline import vm_stages
from tests.builders import shared_dir
from tests.render_support import render
from krm_fn.render.spec import Mode, RendererSpec
from krm_fn.results import FOLLOW_ON, FOLLOW_ON_STAGE, FOLLOWS_FROM, Result

KPT_ANNOTATION_PREFIXES = ("internal.config.kubernetes.io/", "config.kubernetes.io/")
KPT_ANNOTATIONS = ("kustomize.config.k8s.io/id",)
WRAPPERS = ("List", "ResourceList")


def conformance_dir() -> Path:
    return shared_dir() / "conformance"


def release_dir(tag: str) -> Path:
    """What the KubeVirt release ``tag`` answers for the same inputs (``shared/conformance-releases/<tag>``)."""
    return shared_dir() / "conformance-releases" / tag


@dataclass(frozen=True)
class Case:
    name: str
    path: Path
    documents: list[Any]
    expected: list[dict[str, Any]]

    @property
    def items(self) -> list[Obj]:
        return list(flatten(self.documents))

    @property
    def vms(self) -> list[Obj]:
        return [o for o in self.items if o.get("kind") == "VirtualMachine"]


def case_dirs() -> list[Path]:
    root = conformance_dir() / "cases"
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "input.yaml").is_file())


@functools.cache
def _parsed_yaml(path: Path) -> list[Any]:
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def load_case(path: Path, tag: str | None = None) -> Case:
    """A case, its files parsed once per run (PyYAML's pure-Python loader was most of the corpus tests' time);
    every call gets its own copy. ``tag``: the expectations of that KubeVirt release (:func:`release_dir`) for
    the same input, instead of main's."""
    docs = _parsed_yaml(path / "input.yaml")
    expected_dir = path if tag is None else release_dir(tag) / "cases" / path.name
    expected = (_parsed_yaml(expected_dir / "expected.yaml") or [[]])[0]
    return Case(path.name, path, copy.deepcopy(docs), copy.deepcopy(expected))


@dataclass(frozen=True)
class Rendered:
    """A case rendered in one mode through the engine API: the items it was given, the output, the results."""

    case: Case
    items: list[Obj]
    out: list[Obj]
    results: list[Result]


@functools.cache
def rendered(path: Path, mode: Mode, version: KubevirtVersion | None = None) -> Rendered:
    """A case rendered in ``mode`` once per run; the tests that share it only read it. ``version``: the
    ``kubevirtVersion`` rendered for, its case holding that release's expectations (else main's)."""
    case = load_case(path, None if version is None else RELEASES[version].tag)
    items = case.items
    out, results = render(items, RendererSpec(mode=mode, kubevirt_version=version), [])
    return Rendered(case, items, out, results)


def as_stored(items: list[Obj], tag: str) -> list[Obj]:
    """``items`` as a cluster of KubeVirt ``tag`` holds them: the corpus's instancetypes and preferences are
    objects the cluster has, so a field that release's CRDs do not know was pruned when it was stored (the
    renderer would refuse to create them: ``render.items``). Everything else is the same object."""
    return [{**o, "spec": decoded_spec(o, str(o["kind"]), tag)} if o.get("kind") in TYPE_KINDS else o
            for o in items]


def flatten(docs: Iterable[Any]) -> Iterator[Obj]:
    """Documents with ``List`` / ``ResourceList`` wrappers replaced by their items."""
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") in WRAPPERS and isinstance(doc.get("items"), list):
            yield from flatten(doc["items"])
        elif isinstance(doc, dict):
            yield doc


def strip_kpt_annotations(obj: Obj) -> Obj:
    """A copy of ``obj`` without kpt/kustomize bookkeeping annotations (conformance expectations have none)."""
    md = obj.get("metadata")
    if not isinstance(md, dict) or not isinstance(md.get("annotations"), dict):
        return obj
    ann = {k: v for k, v in md["annotations"].items()
           if not k.startswith(KPT_ANNOTATION_PREFIXES) and k not in KPT_ANNOTATIONS}
    md = {**md, "annotations": ann} if ann else {k: v for k, v in md.items() if k != "annotations"}
    return {**obj, "metadata": md}


def diff_paths(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Field paths where two JSON-like values differ (``spec.template.spec.domain.cpu.cores: 1 != 2``)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[str] = []
        for key in sorted(set(expected) | set(actual), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                out.append(f"{sub}: missing (expected {expected[key]!r})")
            elif key not in expected:
                out.append(f"{sub}: unexpected {actual[key]!r}")
            else:
                out.extend(diff_paths(expected[key], actual[key], sub))
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: {len(actual)} items != expected {len(expected)}: {actual!r} vs {expected!r}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out.extend(diff_paths(e, a, f"{path}[{i}]"))
        return out
    if expected != actual or type(expected) is not type(actual):
        return [f"{path}: {actual!r} != expected {expected!r}"]
    return []


def vm_key(obj: Obj) -> tuple[str, str]:
    md = obj.get("metadata") or {}
    return str(md.get("namespace") or ""), str(md.get("name") or "")


def results_by_vm(results: Iterable[Result]) -> dict[tuple[str, str], list[Result]]:
    out: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        if r.resource_ref is not None and r.resource_ref.kind == "VirtualMachine":
            out.setdefault((r.resource_ref.namespace or "", r.resource_ref.name), []).append(r)
    return out


@dataclass(frozen=True)
class VMError:
    """An error result about one VM, whatever produced it (``Result`` or a ResourceList result dict)."""

    message: str
    stage: str | None
    follows: bool = False  # KubeVirt's verdict behind the root causes we lead with (krm_fn/render/hints.py)

    @staticmethod
    def of(result: Result | dict[str, Any]) -> VMError:
        if isinstance(result, Result):
            return VMError(result.message, dict(result.tags).get("stage"), result.follows)
        tags = result.get("tags") or {}
        return VMError(str(result.get("message", "")), tags.get("stage"), FOLLOWS_FROM in tags)

    @staticmethod
    def all_of(result: Result | dict[str, Any]) -> list[VMError]:
        """The errors of one result: a ResourceList's root cause carries the errors that follow from it in its
        tags (krm_fn.results.resource_list_results)."""
        tags = {} if isinstance(result, Result) else result.get("tags") or {}
        follow_ons = [VMError(m, tags.get(FOLLOW_ON_STAGE), True) for m in tags[FOLLOW_ON].split("\n")] \
            if FOLLOW_ON in tags else []
        return [VMError.of(result), *follow_ons]


def compare_vm(entry: dict[str, Any], output_vm: Obj, errors: list[VMError], unchanged: bool) -> list[str]:
    """Problems (empty = conformant) for one ``expected.yaml`` entry, per the corpus README.

    ``unchanged``: the VM was passed through as is (identity through the engine API; through the real entry
    point, compare with the input text's data). KubeVirt returns the Go round trip of such a VM. A refusal of the
    VM's VMI or launcher pod (stages ``vmi``, ``pod``) leaves the VM stored and rendered: the expand-spec API does not start it
    (tests/test_conformance_vms.py judges those causes).
    """
    problems: list[str] = []
    errors = [e for e in errors if e.stage not in ("vmi", "pod")]
    if entry.get("error"):
        want = STAGE_PREFIX[entry["errorStage"]] + entry["error"]
        # KubeVirt's verdict: the first error, or the one the root causes we lead with are followed by
        verdict = next((e for e in errors if e.follows), errors[0] if errors else None)
        if verdict is None:
            problems.append(f"expected {entry['errorStage']} error {entry['error']!r}, got none")
        elif verdict.message != want:
            problems.append(f"error message {verdict.message!r} != expected {want!r}")
        elif verdict.stage is not None and verdict.stage != entry["errorStage"]:
            problems.append(f"error stage {verdict.stage} != expected {entry['errorStage']}")
        if not unchanged:
            problems.append("a rejected VM must be returned unchanged")
        return problems
    if errors and all(e.stage == "template" for e in errors if not e.follows):
        # the VM webhook's template rules, which the expand-spec API this corpus records does not run:
        # tests/test_conformance_vms.py holds the webhook's answer
        return problems
    if errors:
        problems.append(f"unexpected error: {errors[0].message}")
        return problems
    actual = strip_kpt_annotations(output_vm)
    if unchanged:
        actual = encode_object(actual, "v1.VirtualMachine")
    problems.extend(diff_paths(entry["expanded"], actual))
    return problems


def compare_revisions(expected: list[Obj], actual: list[Obj]) -> list[str]:
    problems: list[str] = []
    if len(expected) != len(actual):
        return [f"{len(actual)} revisions != expected {len(expected)}"]
    for i, (e, a) in enumerate(zip(expected, actual)):
        em, am = e.get("metadata") or {}, a.get("metadata") or {}
        for key in ("name", "namespace", "labels", "ownerReferences"):
            problems.extend(diff_paths(em.get(key), am.get(key), f"revisions[{i}].metadata.{key}"))
        problems.extend(diff_paths(e.get("data"), a.get("data"), f"revisions[{i}].data"))
    return problems


# --- what KubeVirt does in a cluster and the renderer never needs (it runs admission before expand, and
# --- names revisions after their content): kept here to check our understanding against the corpus ---------
def expand_message(conflicts: list[Conflict]) -> str:
    """``Conflicts.Error()`` as returned by expand: ``VM field(s) a, b conflicts with selected instance type``."""
    return f"VM field(s) {', '.join(str(c) for c in conflicts)} conflicts with selected instance type"


def revision_name(vm_name: str, obj_name: str, uid: str, generation: Any) -> str:
    """``<vm>-<object>-v1beta1-<object uid>-<object generation>``."""
    return f"{vm_name}-{obj_name}-{INSTANCETYPE_VERSION}-{uid}-{int(generation or 0)}"


def build_revision(vm: Obj, obj: Obj, kind: str, tag: str = DEFAULT_TAG) -> Obj:
    """The ControllerRevision KubeVirt's VM controller (of release ``tag``) stores for ``obj`` (an instancetype or
    preference) owned by ``vm`` (``revision/store.go``); ``ownerReferences`` only when the VM has a
    ``metadata.uid``."""
    vm_meta = vm.get("metadata") or {}
    obj_meta = obj.get("metadata") or {}
    uid = str(obj_meta.get("uid") or "")
    generation = obj_meta.get("generation") or 0
    metadata: Obj = {
        "name": revision_name(str(vm_meta.get("name") or ""), str(obj_meta.get("name") or ""), uid, generation),
    }
    if vm_meta.get("namespace"):
        metadata["namespace"] = vm_meta["namespace"]
    metadata["labels"] = {
        LABEL_OBJECT_GENERATION: str(int(generation)),
        LABEL_OBJECT_KIND: kind,
        LABEL_OBJECT_NAME: str(obj_meta.get("name") or ""),
        LABEL_OBJECT_UID: uid,
        LABEL_OBJECT_VERSION: INSTANCETYPE_VERSION,
    }
    if vm_meta.get("uid"):
        metadata["ownerReferences"] = [{
            "apiVersion": VM_API_VERSION,
            "blockOwnerDeletion": True,
            "controller": True,
            "kind": KIND_VM,
            "name": vm_meta.get("name"),
            "uid": vm_meta["uid"],
        }]
    return {
        "apiVersion": CONTROLLER_REVISION_API_VERSION,
        "kind": KIND_CONTROLLER_REVISION,
        "metadata": metadata,
        "data": revision_data(obj, kind, tag),
        "revision": 0,
    }


def check_expand(run: Rendered) -> list[str]:
    case, items, out = run.case, run.items, run.out
    by_vm = results_by_vm(run.results)
    outputs = {id(i): o for i, o in zip(items, out)}
    problems: list[str] = []
    vms = case.vms
    if len(vms) != len(case.expected):
        return [f"{len(vms)} VMs in input, {len(case.expected)} expected entries"]
    for vm, entry in zip(vms, case.expected):
        output = outputs[id(vm)]
        errors = [VMError.of(r) for r in by_vm.get(vm_key(vm), []) if r.severity == "error"]
        found = compare_vm(entry, output, errors, output is vm)
        problems.extend(f"{entry['vm']}: {p}" for p in found)
    return problems


def check_revisions(case: Case, version: KubevirtVersion | None = None) -> list[str]:
    """The revisions KubeVirt's store makes for each VM (``version``: of that release)."""
    items = case.items
    index = Index(items)
    row = release(version)
    problems: list[str] = []
    for vm, entry in zip(case.vms, case.expected):
        if not entry.get("revisions"):
            continue
        outcome = vm_stages(vm, index, ClusterConfig(), release=row)
        mutated = outcome.mutated
        assert mutated is not None
        built = []
        for family in ("instancetype", "preference"):
            matcher = (mutated.get("spec") or {}).get(family)
            if not matcher or matcher.get("revisionName"):
                continue
            try:
                kind, obj = find_object(mutated, family, index)
            except FindError as err:
                problems.append(f"{entry['vm']}: {err.message}")
                continue
            built.append(build_revision(mutated, obj, kind, row.tag))
        problems.extend(f"{entry['vm']}: {p}" for p in compare_revisions(entry["revisions"], built))
    return problems


# --- the same corpus through the real entry point (bytes in, bytes out) -------------------------------
def case_resource_list(case: Case, version: KubevirtVersion | None = None) -> bytes:
    import yaml

    spec: dict[str, object] = {"mode": "expand", "catalog": {"builtin": "none"}}
    if version is not None:
        spec["kubevirtVersion"] = version
    config = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
              "metadata": {"name": "render"}, "spec": spec}
    # List wrappers are flattened: a ResourceList item must have a metadata.name (kpt/kustomize flatten Lists)
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": case.items,
          "functionConfig": config}
    return yaml.safe_dump(rl, sort_keys=False).encode()


def check_process(case: Case, version: KubevirtVersion | None = None) -> list[str]:
    """The case through the real entry point (``version``: ``spec.kubevirtVersion``)."""
    import yaml

    from krm_fn.process import process
    from tests.engine_support import flatten

    out = yaml.safe_load(process(case_resource_list(case, version)).data)
    vms = [o for o in flatten(out.get("items") or []) if o.get("kind") == "VirtualMachine"]
    by_vm: dict[tuple[str, str], list[VMError]] = {}
    for r in out.get("results") or []:
        ref = r.get("resourceRef") or {}
        if r.get("severity") == "error" and ref.get("kind") == "VirtualMachine":
            by_vm.setdefault((ref.get("namespace") or "", ref.get("name") or ""), []).extend(VMError.all_of(r))
    problems: list[str] = []
    for vm_in, vm_out, entry in zip(case.vms, vms, case.expected):
        unchanged = vm_out == vm_in
        found = compare_vm(entry, vm_out, by_vm.get(vm_key(vm_in), []), unchanged)
        problems.extend(f"{entry['vm']}: {p}" for p in found)
    return problems


def check_pinned_round_trip(run: Rendered, version: KubevirtVersion | None = None) -> list[str]:
    case = run.case
    pinned = copy.deepcopy(run.out)  # the shared revisions render stays as it was whatever expand does
    without_types = [o for o in pinned if o.get("kind") not in _TYPE_KINDS]
    out, results = render(without_types, RendererSpec(mode="expand", kubevirt_version=version), [])
    by_vm = results_by_vm(results)
    pairs = [(i, o) for i, o in zip(without_types, out) if o.get("kind") == "VirtualMachine"]
    problems: list[str] = []
    refused = results_by_vm(run.results)
    for vm_in, (pinned_vm, vm_out), entry in zip(case.vms, pairs, case.expected):
        if entry.get("error") or any(VMError.of(r).stage == "template" for r in refused.get(vm_key(vm_in), [])):
            continue  # not pinned: refused by the webhook's template rules in the revisions render
        errors = [VMError.of(r) for r in by_vm.get(vm_key(vm_in), []) if r.severity == "error"]
        found = compare_vm(entry, vm_out, errors, vm_out is pinned_vm)
        problems.extend(f"{entry['vm']}: {p}" for p in found)
    return problems


# --- revisions mode carries everything: expanding from the emitted revisions gives the same VM -----------
_TYPE_KINDS = INSTANCETYPE_KINDS | PREFERENCE_KINDS
