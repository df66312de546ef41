"""Each version of the builtin ``common-instancetypes`` catalog is identical to its upstream bundles.

* ``main``: common-instancetypes main at 7c1e305b, its four bundles (shared/reference/common-instancetypes).
* ``v1.7.0``: what KubeVirt's virt-operator deploys (shared/reference/kubevirt-operator-bundle, verbatim
  from KubeVirt): the two cluster-scoped bundles.
* ``v1.3.1``, ``v1.4.1``, ``v1.5.1``, ``v1.6.0``: what the virt-operator of KubeVirt v1.5.3, v1.6.6, v1.7.4 and
  v1.8.4 deploys (shared/reference/kubevirt-releases/<tag>, the same two bundles each), the versions
  ``kubevirt_versions.DEPLOYED`` names for those release lines. Upstream builds a release's namespaced bundles from the same
  resources as the cluster ones, each keeping one kind (common-instancetypes-src/VirtualMachine*/); so a
  namespaced object is its cluster object with the namespaced kind. That rule is checked on main's four
  upstream bundles, and then holds for our v1.7.0 by construction (checked too).

Every object, field, label and annotation (the version label included) must be equal; a failure lists every
difference with its path. The bundles are read with PyYAML, not with our loader.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.kube import api
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt_versions import DEPLOYED, RELEASES, default_builtin_version, deployed_by

MAIN = ("common-instancetypes", ("VirtualMachineClusterInstancetypes", "VirtualMachineInstancetypes",
                                 "VirtualMachineClusterPreferences", "VirtualMachinePreferences"))
CLUSTER_BUNDLES = ("common-clusterinstancetypes-bundle", "common-clusterpreferences-bundle")
OPERATOR = ("kubevirt-operator-bundle", CLUSTER_BUNDLES)
# the newest patch tag of each release line (shared/reference/kubevirt-releases/README.md)
TAGS = {"v1.5": "v1.5.3", "v1.6": "v1.6.6", "v1.7": "v1.7.4", "v1.8": "v1.8.4", "v1.9": "v1.9.0"}
RELEASE_BUNDLES = {version: (f"kubevirt-releases/{TAGS[line]}", CLUSTER_BUNDLES)
                   for line, version in (("v1.5", "v1.3.1"), ("v1.6", "v1.4.1"), ("v1.7", "v1.5.1"),
                                         ("v1.8", "v1.6.0"))}
REFERENCES = {"main": MAIN, "v1.7.0": OPERATOR, **RELEASE_BUNDLES}
BUNDLES = [(version, bundle) for version, (_, files) in REFERENCES.items() for bundle in files]
NAMESPACED = {api.KIND_CLUSTER_INSTANCETYPE: api.KIND_INSTANCETYPE, api.KIND_CLUSTER_PREFERENCE: api.KIND_PREFERENCE}


@functools.cache
def builtin(version: str) -> list[Obj]:
    return generate(CatalogSpec(version=version), None)


def reference(shared: Path, version: str, bundle: str) -> list[Obj]:
    directory, _ = REFERENCES[version]
    text = (shared / "reference" / directory / f"{bundle}.yaml").read_text(encoding="utf-8")
    return [o for o in yaml.safe_load_all(text) if o is not None]


def diff(ref: Any, got: Any, path: str = "") -> list[str]:
    """Every difference between two JSON-like values, as ``path: detail`` lines."""
    if isinstance(ref, dict) and isinstance(got, dict):
        out = [f"{path}.{k}: missing" for k in ref if k not in got]
        out += [f"{path}.{k}: extra" for k in got if k not in ref]
        for k in ref:
            if k in got:
                out += diff(ref[k], got[k], f"{path}.{k}")
        return out
    if isinstance(ref, list) and isinstance(got, list):
        if len(ref) != len(got):
            return [f"{path}: {len(ref)} items expected, got {len(got)}"]
        return [d for i, (r, g) in enumerate(zip(ref, got)) for d in diff(r, g, f"{path}[{i}]")]
    if type(ref) is not type(got) or ref != got:
        return [f"{path}: expected {ref!r}, got {got!r}"]
    return []


@pytest.mark.parametrize(("version", "bundle"), BUNDLES)
def test_generated_objects_equal_the_reference_bundle(version: str, bundle: str, shared: Path) -> None:
    ref_objects = reference(shared, version, bundle)
    kind = ref_objects[0]["kind"]
    assert all(o["kind"] == kind for o in ref_objects)
    ref = {o["metadata"]["name"]: o for o in ref_objects}
    got = {o["metadata"]["name"]: o for o in builtin(version) if o["kind"] == kind}
    problems = [f"{name}: missing object" for name in sorted(ref.keys() - got.keys())]
    problems += [f"{name}: extra object" for name in sorted(got.keys() - ref.keys())]
    for name in sorted(ref.keys() & got.keys()):
        problems += [f"{kind} {name}{d}" for d in diff(ref[name], got[name])]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("version", "bundle"), BUNDLES)
def test_spec_key_order_matches_the_reference_bundle(version: str, bundle: str, shared: Path) -> None:
    def order(value: Any) -> Any:
        if isinstance(value, dict):
            return [(k, order(v)) for k, v in value.items()]
        if isinstance(value, list):
            return [order(v) for v in value]
        return None

    got = {(o["kind"], o["metadata"]["name"]): o for o in builtin(version)}
    for ref in reference(shared, version, bundle):
        mine = got[(ref["kind"], ref["metadata"]["name"])]
        assert order(mine["spec"]) == order(ref["spec"]), ref["metadata"]["name"]


def test_upstream_namespaced_bundles_are_the_cluster_bundles_with_the_namespaced_kind(shared: Path) -> None:
    """The rule we apply to v1.7.0 (which has no namespaced bundles), checked on the four bundles of main."""
    for cluster, namespaced in (("VirtualMachineClusterInstancetypes", "VirtualMachineInstancetypes"),
                                ("VirtualMachineClusterPreferences", "VirtualMachinePreferences")):
        expected = [{**o, "kind": NAMESPACED[o["kind"]]} for o in reference(shared, "main", cluster)]
        assert reference(shared, "main", namespaced) == expected


@pytest.mark.parametrize("version", REFERENCES)
def test_namespaced_objects_are_the_cluster_objects_with_the_namespaced_kind(version: str) -> None:
    objs = builtin(version)
    cluster = {(NAMESPACED[o["kind"]], o["metadata"]["name"]): o for o in objs if o["kind"] in NAMESPACED}
    namespaced = {(o["kind"], o["metadata"]["name"]): o for o in objs if o["kind"] not in NAMESPACED}
    assert namespaced.keys() == cluster.keys()
    for key, obj in namespaced.items():
        assert obj == {**cluster[key], "kind": key[0]}


@pytest.mark.parametrize(("version", "instancetypes", "preferences"), [
    ("main", 65, 57), ("v1.7.0", 65, 54), ("v1.6.0", 65, 54), ("v1.5.1", 55, 54), ("v1.4.1", 55, 54),
    ("v1.3.1", 44, 43)])
def test_counts(version: str, instancetypes: int, preferences: int) -> None:
    kinds = [o["kind"] for o in builtin(version)]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "VirtualMachineClusterInstancetype": instancetypes, "VirtualMachineInstancetype": instancetypes,
        "VirtualMachineClusterPreference": preferences, "VirtualMachinePreference": preferences}


@pytest.mark.parametrize("line", TAGS)
def test_each_release_line_deploys_the_version_the_table_names(line: str, shared: Path) -> None:
    """``DEPLOYED`` against the bundles of the line's tag: their version label, and sha256 sums that start
    with the ones the reference README lists (the sums the tag pins)."""
    directory = shared / "reference" / "kubevirt-releases" / TAGS[line]
    readme = (shared / "reference" / "kubevirt-releases" / "README.md").read_text(encoding="utf-8")
    row = next(r for r in readme.splitlines() if r.startswith(f"| {line} ({TAGS[line]}) |"))
    for bundle in CLUSTER_BUNDLES:
        data = (directory / f"{bundle}.yaml").read_bytes()
        assert f"| {hashlib.sha256(data).hexdigest()[:8]}… |" in row, bundle
        labels = {o["metadata"]["labels"][api.LABEL_COMMON_INSTANCETYPES_VERSION]
                  for o in yaml.safe_load_all(data) if o}
        assert labels == {DEPLOYED[line]["common-instancetypes"]}
    assert line in deployed_by("common-instancetypes", DEPLOYED[line]["common-instancetypes"])


def test_the_v1_9_tag_deploys_the_operator_bundles_of_main(shared: Path) -> None:
    for bundle in CLUSTER_BUNDLES:
        tagged = shared / "reference" / "kubevirt-releases" / "v1.9.0" / f"{bundle}.yaml"
        operator = shared / "reference" / "kubevirt-operator-bundle" / f"{bundle}.yaml"
        assert tagged.read_bytes() == operator.read_bytes()


def test_the_default_is_what_the_default_kubevirt_release_deploys(shared: Path) -> None:
    deployed = {o["metadata"]["labels"][api.LABEL_COMMON_INSTANCETYPES_VERSION]
                for bundle in OPERATOR[1] for o in reference(shared, "v1.7.0", bundle)}
    assert deployed == {default_builtin_version("common-instancetypes")}
    assert builtin("v1.7.0") == generate(CatalogSpec(), None)
    for release in RELEASES:  # every release in the table names a version the builtin has
        assert generate(CatalogSpec(), None, release) == builtin(str(default_builtin_version(
            "common-instancetypes", release)))


@pytest.mark.parametrize("version", REFERENCES)
def test_object_and_metadata_key_order(version: str) -> None:
    for obj in builtin(version):
        assert list(obj) == ["apiVersion", "kind", "metadata", "spec"]
        keys = list(obj["metadata"])
        assert keys == [k for k in ("name", "namespace", "labels", "annotations") if k in keys]
        assert list(obj["metadata"]["labels"]) == sorted(obj["metadata"]["labels"])


def test_builtin_catalog_budget() -> None:
    """<= 600 catalog lines in <= 5 files (issue 5), every version included (six since issue 24)."""
    from krm_fn.catalog.load import BUILTIN_DIR

    files = [BUILTIN_DIR / "common-instancetypes.yaml"]
    lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
    assert len(files) <= 5 and lines <= 600, lines


@pytest.mark.parametrize(("ref", "got", "expected"), [
    pytest.param({"a": 1}, {"a": 1, "b": 2}, [".b: extra"], id="extra field"),
    pytest.param({"a": {"b": 1}}, {"a": {}}, [".a.b: missing"], id="missing nested field"),
    pytest.param({"a": 1}, {"a": "1"}, [".a: expected 1, got '1'"], id="type matters"),
    pytest.param({"a": [1, 2]}, {"a": [1]}, [".a: 2 items expected, got 1"], id="list length"),
    pytest.param({"metadata": {"annotations": {api.ANN_INSTANCETYPE_DESCRIPTION: "x"}}},
                 {"metadata": {"annotations": {api.ANN_INSTANCETYPE_DESCRIPTION: "y"}}},
                 [f".metadata.annotations.{api.ANN_INSTANCETYPE_DESCRIPTION}: expected 'x', got 'y'"],
                 id="every annotation text counts"),
])
def test_diff_reports_every_difference(ref: Any, got: Any, expected: list[str]) -> None:
    assert diff(ref, got) == expected
