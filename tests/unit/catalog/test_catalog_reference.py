"""The builtin ``common-instancetypes`` catalog reproduces the four upstream bundles field by field.

Only the text of the ``instancetype.kubevirt.io/description`` annotation may differ (it is in our own words);
the annotation itself must be there. Any extra or missing object, label, annotation or field fails, and the
failure lists every difference with its path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.kube.api import ANN_INSTANCETYPE_DESCRIPTION
from krm_fn.kube.paths import Obj

BUNDLES = ("VirtualMachineClusterInstancetypes", "VirtualMachineInstancetypes",
           "VirtualMachineClusterPreferences", "VirtualMachinePreferences")


def diff(ref: Any, got: Any, path: str = "") -> list[str]:
    """Every difference between two JSON-like values, as ``path: detail`` lines."""
    if isinstance(ref, dict) and isinstance(got, dict):
        out = [f"{path}.{k}: missing" for k in ref if k not in got]
        out += [f"{path}.{k}: extra" for k in got if k not in ref]
        for k in ref:
            if k in got:
                if path == ".metadata.annotations" and k == ANN_INSTANCETYPE_DESCRIPTION:
                    if not isinstance(got[k], str) or not got[k].strip():
                        out.append(f"{path}.{k}: must be a non-empty description")
                    continue
                out += diff(ref[k], got[k], f"{path}.{k}")
        return out
    if isinstance(ref, list) and isinstance(got, list):
        if len(ref) != len(got):
            return [f"{path}: {len(ref)} items expected, got {len(got)}"]
        return [d for i, (r, g) in enumerate(zip(ref, got)) for d in diff(r, g, f"{path}[{i}]")]
    if type(ref) is not type(got) or ref != got:
        return [f"{path}: expected {ref!r}, got {got!r}"]
    return []


@pytest.mark.parametrize("bundle", BUNDLES)
def test_generated_objects_equal_the_reference_bundle(bundle: str, shared: Path, common_objects: list[Obj]) -> None:
    reference = list(yaml.safe_load_all((shared / "reference" / "common-instancetypes" / f"{bundle}.yaml")
                                        .read_text(encoding="utf-8")))
    kind = reference[0]["kind"]
    ref = {o["metadata"]["name"]: o for o in reference}
    got = {o["metadata"]["name"]: o for o in common_objects if o["kind"] == kind}
    problems = [f"{name}: missing object" for name in sorted(ref.keys() - got.keys())]
    problems += [f"{name}: extra object" for name in sorted(got.keys() - ref.keys())]
    for name in sorted(ref.keys() & got.keys()):
        problems += [f"{kind} {name}{d}" for d in diff(ref[name], got[name])]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("bundle", BUNDLES)
def test_spec_key_order_matches_the_reference_bundle(bundle: str, shared: Path, common_objects: list[Obj]) -> None:
    def order(value: Any) -> Any:
        if isinstance(value, dict):
            return [(k, order(v)) for k, v in value.items()]
        if isinstance(value, list):
            return [order(v) for v in value]
        return None

    reference = yaml.safe_load_all((shared / "reference" / "common-instancetypes" / f"{bundle}.yaml")
                                   .read_text(encoding="utf-8"))
    got = {(o["kind"], o["metadata"]["name"]): o for o in common_objects}
    for ref in reference:
        mine = got[(ref["kind"], ref["metadata"]["name"])]
        assert order(mine["spec"]) == order(ref["spec"]), ref["metadata"]["name"]


def test_counts(common_objects: list[Obj]) -> None:
    kinds = [o["kind"] for o in common_objects]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "VirtualMachineClusterInstancetype": 65, "VirtualMachineInstancetype": 65,
        "VirtualMachineClusterPreference": 57, "VirtualMachinePreference": 57}


def test_object_and_metadata_key_order(common_objects: list[Obj]) -> None:
    for obj in common_objects:
        assert list(obj) == ["apiVersion", "kind", "metadata", "spec"]
        keys = list(obj["metadata"])
        assert keys == [k for k in ("name", "namespace", "labels", "annotations") if k in keys]
        assert list(obj["metadata"]["labels"]) == sorted(obj["metadata"]["labels"])


def test_builtin_catalog_budget() -> None:
    """<= 600 catalog lines in <= 5 files (issue 5)."""
    from krm_fn.catalog.load import BUILTIN_DIR

    files = [BUILTIN_DIR / "common-instancetypes.yaml"]
    lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
    assert len(files) <= 5 and lines <= 600, lines


@pytest.mark.parametrize(("ref", "got", "expected"), [
    pytest.param({"a": 1}, {"a": 1, "b": 2}, [".b: extra"], id="extra field"),
    pytest.param({"a": {"b": 1}}, {"a": {}}, [".a.b: missing"], id="missing nested field"),
    pytest.param({"a": 1}, {"a": "1"}, [".a: expected 1, got '1'"], id="type matters"),
    pytest.param({"a": [1, 2]}, {"a": [1]}, [".a: 2 items expected, got 1"], id="list length"),
    pytest.param({"metadata": {"annotations": {ANN_INSTANCETYPE_DESCRIPTION: "x"}}},
                 {"metadata": {"annotations": {ANN_INSTANCETYPE_DESCRIPTION: "our words"}}}, [],
                 id="description text may differ"),
    pytest.param({"metadata": {"annotations": {ANN_INSTANCETYPE_DESCRIPTION: "x"}}},
                 {"metadata": {"annotations": {}}}, [f".metadata.annotations.{ANN_INSTANCETYPE_DESCRIPTION}: missing"],
                 id="description must be there"),
])
def test_diff_reports_every_difference(ref: Any, got: Any, expected: list[str]) -> None:
    assert diff(ref, got) == expected
