"""InstancetypeCatalog selection: default builtin, include/exclude globs, scope, namespace, version label."""

from __future__ import annotations

import pytest

from krm_fn.catalog.generate import generate, load_builtin_objects

from krm_fn.catalog.spec import CatalogSpec, Selection
from krm_fn.kube.paths import Obj


def names(objs: list[Obj], kind: str | None = None) -> list[str]:
    return [o["metadata"]["name"] for o in objs if kind is None or o["kind"] == kind]


def test_default_is_common_instancetypes(common_objects: list[Obj]) -> None:
    assert generate(CatalogSpec(builtin="common-instancetypes"), None) == common_objects


def test_order_is_kind_then_name(common_objects: list[Obj]) -> None:
    keys = [(o["kind"], o["metadata"]["name"]) for o in common_objects]
    assert keys == sorted(keys)


def test_generation_is_deterministic_and_objects_are_independent() -> None:
    first = generate(CatalogSpec(), None)
    first[0]["spec"]["cpu"]["guest"] = 999
    first[0]["metadata"]["labels"].clear()
    second = generate(CatalogSpec(), None)
    assert second[0]["spec"]["cpu"]["guest"] != 999 and second[0]["metadata"]["labels"]
    # no dict is shared between two objects (a shared dict would be dumped as a YAML anchor)
    seen: dict[int, str] = {}

    def walk(value: object, owner: str) -> None:
        if isinstance(value, (dict, list)):
            assert seen.setdefault(id(value), owner) == owner, f"shared between {seen[id(value)]} and {owner}"
            for v in value.values() if isinstance(value, dict) else value:
                walk(v, owner)
    for i, obj in enumerate(second):
        walk(obj, f"{i}")


@pytest.mark.parametrize(("scope", "kinds"), [
    ("Cluster", {"VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference"}),
    ("Namespaced", {"VirtualMachineInstancetype", "VirtualMachinePreference"}),
    ("Both", {"VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference",
              "VirtualMachineInstancetype", "VirtualMachinePreference"}),
])
def test_scope(scope: str, kinds: set[str]) -> None:
    objs = generate(CatalogSpec(builtin="classic", scope=scope), None)  # type: ignore[arg-type]
    assert {o["kind"] for o in objs} == kinds
    assert len(objs) == 21 * len(kinds) // 2


def test_namespace_only_on_namespaced_kinds() -> None:
    objs = generate(CatalogSpec(builtin="classic", namespace="vms"), None)
    for obj in objs:
        assert obj["metadata"].get("namespace") == (None if "Cluster" in obj["kind"] else "vms")
        assert list(obj["metadata"])[:2] == ["name", "namespace"] or "Cluster" in obj["kind"]


def test_scopes_differ_only_in_kind(common_objects: list[Obj]) -> None:
    cluster = {o["metadata"]["name"]: o for o in common_objects if "Cluster" in o["kind"] and "Instancetype"
               in o["kind"]}
    for obj in common_objects:
        if obj["kind"] == "VirtualMachineInstancetype":
            assert {**obj, "kind": "VirtualMachineClusterInstancetype"} == cluster[obj["metadata"]["name"]]


def test_version_label() -> None:
    for obj in generate(CatalogSpec(builtin="classic", version="v1.2.3"), None):
        assert obj["metadata"]["labels"]["instancetype.kubevirt.io/common-instancetypes-version"] == "v1.2.3"
        assert list(obj["metadata"]["labels"]) == sorted(obj["metadata"]["labels"])


@pytest.mark.parametrize(("include", "exclude", "expected"), [
    pytest.param(Selection(series=("u1",)), Selection(preferences=("*",)),
                 ["u1.2xlarge", "u1.2xmedium", "u1.4xlarge", "u1.8xlarge", "u1.large", "u1.medium", "u1.micro",
                  "u1.nano", "u1.small", "u1.xlarge"], id="one series by versioned name, no preferences"),
    pytest.param(Selection(series=("cx",), sizes=("*1gi",)), Selection(sizes=("*xlarge*",), preferences=("*",)),
                 ["cx1.large1gi", "cx1.medium1gi"], id="series key, size globs with hugepages variants"),
    pytest.param(Selection(sizes=("nano",), preferences=("rhel.9*",)),
                 Selection(series=("[do]1",), preferences=("*.s390x*", "*arm64")),
                 ["u1.nano", "rhel.9", "rhel.9.desktop", "rhel.9.dpdk", "rhel.9.realtime"],
                 id="sizes across series, preference globs"),
])
def test_include_exclude(include: Selection, exclude: Selection, expected: list[str]) -> None:
    objs = generate(CatalogSpec(include=include, exclude=exclude, scope="Cluster"), None)
    assert names(objs) == expected


def test_load_builtin_objects() -> None:
    objs = load_builtin_objects()  # v1.7.0, what the default KubeVirt release deploys
    assert len(objs) == 2 * (65 + 54)
    assert len(load_builtin_objects(version="main")) == 2 * (65 + 57)
    assert all("namespace" not in o["metadata"] for o in objs)
    assert len(load_builtin_objects("classic")) == 2 * (17 + 4)


def test_user_catalog_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "mine.yaml").write_text(
        "parameters: {team: {default: web}}\n"
        "labels: {example.com/team: '${team}'}\n"
        "sizes: {s: {cpu: 1, memory: 1Gi}, l: {cpu: 4, memory: 4Gi}}\n"
        "series: {web: {sizes: [s, l, {name: xl, cpu: 8, memory: 16Gi}], traits: [maxSockets]}}\n")
    objs = generate(CatalogSpec(path="cat/mine.yaml", scope="Namespaced", namespace="web",
                                parameters=("team=shop",)), tmp_path)
    assert names(objs) == ["web.l", "web.s", "web.xl"]
    assert objs[2]["spec"] == {"cpu": {"guest": 8, "maxSockets": 8}, "memory": {"guest": "16Gi"}}
    assert objs[2]["metadata"] == {
        "name": "web.xl", "namespace": "web",
        "labels": {"example.com/team": "shop", "instancetype.kubevirt.io/cpu": "8",
                   "instancetype.kubevirt.io/memory": "16Gi", "instancetype.kubevirt.io/size": "xl"}}
