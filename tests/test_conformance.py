"""The conformance corpus (``shared/conformance/cases``): one test per case, through ``render``. Each case is
parsed once and rendered once per mode per run (``engine_support.rendered``), whichever tests read it.

Missing corpus: skipped locally, a failure when ``CI=true``.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

from krm_fn.index import Index
from krm_fn.kube.api import INSTANCETYPE_KINDS, PREFERENCE_KINDS
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.find.found import FindError
from krm_fn.kubevirt.find.object import find_object
from krm_fn.kubevirt.pipeline import vm_stages
from tests.render_support import render
from krm_fn.render.spec import RendererSpec
from krm_fn.kubevirt_versions import KubevirtVersion, release
from tests.engine_support import (
    Case,
    Rendered,
    VMError,
    build_revision,
    case_dirs,
    compare_revisions,
    compare_vm,
    load_case,
    rendered,
    results_by_vm,
    vm_key,
)

CASES = case_dirs()


def test_corpus_is_present() -> None:
    """Missing corpus: skipped locally, a failure in CI (``CI=true``)."""
    if not CASES:
        if os.environ.get("CI") == "true":
            pytest.fail("conformance corpus not found: set KUBEVIRT_KRM_SHARED or provide ../shared")
        pytest.skip("conformance corpus (../shared/conformance) not available: set KUBEVIRT_KRM_SHARED")


def _run_expand(run: Rendered) -> list[str]:
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


def _run_revisions(case: Case, version: KubevirtVersion | None = None) -> list[str]:
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


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_expand(path: Path) -> None:
    problems = _run_expand(rendered(path, "expand"))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_revisions(path: Path) -> None:
    problems = _run_revisions(load_case(path))
    assert not problems, "\n".join(problems)


# --- the same corpus through the real entry point (bytes in, bytes out) -------------------------------
def _resource_list(case: Case, version: KubevirtVersion | None = None) -> bytes:
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


def _run_process(case: Case, version: KubevirtVersion | None = None) -> list[str]:
    """The case through the real entry point (``version``: ``spec.kubevirtVersion``)."""
    import yaml

    from krm_fn.process import process
    from tests.engine_support import flatten

    out = yaml.safe_load(process(_resource_list(case, version)).data)
    vms = [o for o in flatten(out.get("items") or []) if o.get("kind") == "VirtualMachine"]
    by_vm: dict[tuple[str, str], list[VMError]] = {}
    for r in out.get("results") or []:
        ref = r.get("resourceRef") or {}
        if r.get("severity") == "error" and ref.get("kind") == "VirtualMachine":
            by_vm.setdefault((ref.get("namespace") or "", ref.get("name") or ""), []).append(VMError.of(r))
    problems: list[str] = []
    for vm_in, vm_out, entry in zip(case.vms, vms, case.expected):
        unchanged = vm_out == vm_in
        found = compare_vm(entry, vm_out, by_vm.get(vm_key(vm_in), []), unchanged)
        problems.extend(f"{entry['vm']}: {p}" for p in found)
    return problems


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_expand_through_process(path: Path) -> None:
    problems = _run_process(load_case(path))
    assert not problems, "\n".join(problems)


# --- revisions mode carries everything: expanding from the emitted revisions gives the same VM -----------
_TYPE_KINDS = INSTANCETYPE_KINDS | PREFERENCE_KINDS


def _run_pinned_round_trip(run: Rendered, version: KubevirtVersion | None = None) -> list[str]:
    case = run.case
    pinned = copy.deepcopy(run.out)  # the shared revisions render stays as it was whatever expand does
    without_types = [o for o in pinned if o.get("kind") not in _TYPE_KINDS]
    out, results = render(without_types, RendererSpec(mode="expand", kubevirt_version=version), [])
    by_vm = results_by_vm(results)
    pairs = [(i, o) for i, o in zip(without_types, out) if o.get("kind") == "VirtualMachine"]
    problems: list[str] = []
    for vm_in, (pinned_vm, vm_out), entry in zip(case.vms, pairs, case.expected):
        if entry.get("error"):
            continue
        errors = [VMError.of(r) for r in by_vm.get(vm_key(vm_in), []) if r.severity == "error"]
        found = compare_vm(entry, vm_out, errors, vm_out is pinned_vm)
        problems.extend(f"{entry['vm']}: {p}" for p in found)
    return problems


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_expand_from_pinned_revisions(path: Path) -> None:
    problems = _run_pinned_round_trip(rendered(path, "revisions"))
    assert not problems, "\n".join(problems)
