"""The catalog benchmark's output check, without the timings: ``kubectl kustomize`` of the upstream
common-instancetypes tree at 7c1e305b (shared/reference/common-instancetypes-src) prints exactly the objects
``kubevirt-krm`` generates for the builtin at version ``main``, object for object (bench/catalog_vs_kustomize.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.builders import bench_module, require_shared
from tests.integration_support import require_tool

pytestmark = pytest.mark.integration


def test_kustomize_of_the_upstream_tree_equals_our_generation(tmp_path: Path) -> None:
    require_tool("kubectl", "needed to build the upstream kustomize tree")
    tree = require_shared("reference/common-instancetypes-src")
    bench = bench_module("catalog_vs_kustomize")
    assert bench.upstream_tree() == tree
    theirs, _, _ = bench.run(bench.kustomize_command(tree))
    ours, _, _ = bench.run(bench.ours_command(tmp_path))
    assert len(bench.objects(theirs)) == 244
    assert bench.compare_outputs(ours, theirs) == []

    # the check can fail: one changed field, one missing object
    docs = [d for d in yaml.safe_load_all(ours) if d]
    docs[0]["spec"]["cpu"]["guest"] += 1
    changed = yaml.safe_dump_all(docs[1:-1] + [docs[0]])
    problems = bench.compare_outputs(changed, theirs)
    assert problems[0] == f"{docs[-1]['kind']} {docs[-1]['metadata']['name']}: only in kustomize's output"
    assert problems[1].startswith(f"{docs[0]['kind']} {docs[0]['metadata']['name']}: spec.cpu.guest: ")
