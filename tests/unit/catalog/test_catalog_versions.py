"""A catalog's ``versions`` (JSON merge patches on the catalog as written) and ``spec.version``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from krm_fn.catalog.errors import CatalogError

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.kube.api import ANN_INSTANCETYPE_DESCRIPTION, LABEL_COMMON_INSTANCETYPES_VERSION
from krm_fn.kube.paths import Obj

BASE = """\
sizes: {s: {cpu: 1, memory: 1Gi}, m: {cpu: 2, memory: 2Gi}}
series: {a: {version: 1, sizes: [s, m], description: Ours., annotations: {example.com/note: theirs}}}
components: {virtio: {spec: {devices: {preferredDiskBus: virtio}}}}
preferences:
  p: {use: [virtio], spec: {devices: {preferredInterfaceModel: e1000}}}
  q: {use: [virtio]}
"""
VERSIONS = """\
versions:
  next: {description: as written}
  old:
    label: v0.9.0
    patch:
      preferences: {q: null, p: {use: [], spec: {devices: {preferredInterfaceModel: rtl8139}}}}
      series: {a: {sizes: [s]}}
"""

Write = Callable[..., Path]


def names(objs: list[Obj]) -> list[str]:
    return [f"{o['kind']}/{o['metadata']['name']}" for o in objs]


def gen(path: Path, version: str | None = None) -> list[Obj]:
    return generate(CatalogSpec(path=path.name, version=version, scope="Cluster"), path.parent)


def test_a_version_is_the_catalog_with_its_patch(write_catalog: Write) -> None:
    path = write_catalog(BASE + VERSIONS)
    old = gen(path, "old")
    assert names(old) == ["VirtualMachineClusterInstancetype/a1.s", "VirtualMachineClusterPreference/p"]
    pref = old[1]
    assert pref["spec"] == {"devices": {"preferredInterfaceModel": "rtl8139"}}
    assert all(o["metadata"]["labels"][LABEL_COMMON_INSTANCETYPES_VERSION] == "v0.9.0"
               for o in old)


@pytest.mark.parametrize("version", [None, "next"])
def test_without_a_patch_or_a_version_the_catalog_is_as_written(write_catalog: Write, version: str | None) -> None:
    objs = gen(write_catalog(BASE + VERSIONS), version)
    assert names(objs) == ["VirtualMachineClusterInstancetype/a1.m", "VirtualMachineClusterInstancetype/a1.s",
                           "VirtualMachineClusterPreference/p", "VirtualMachineClusterPreference/q"]
    assert all(LABEL_COMMON_INSTANCETYPES_VERSION not in o["metadata"].get("labels", {}) for o in objs)


def test_without_versions_spec_version_is_the_label_value(write_catalog: Write) -> None:
    objs = gen(write_catalog(BASE), "anything-1.0")
    assert {o["metadata"]["labels"][LABEL_COMMON_INSTANCETYPES_VERSION] for o in objs} == {"anything-1.0"}


def test_unknown_version(write_catalog: Write) -> None:
    with pytest.raises(CatalogError) as err:
        gen(write_catalog(BASE + VERSIONS), "v1.0.0")
    assert err.value.problems == [("", ("spec", "version"), "catalog 'my' has no version 'v1.0.0' "
                                                            "(versions: next, old)")]


def test_builtin_unknown_version() -> None:
    with pytest.raises(CatalogError, match=r"catalog 'common-instancetypes' has no version 'v1.4.0' "
                                           r"\(versions: main, v1.7.0, v1.6.0, v1.5.1, v1.4.1, v1.3.1\)"):
        generate(CatalogSpec(version="v1.4.0"), None)


@pytest.mark.parametrize(("versions", "path", "message"), [
    pytest.param("versions: {old: {patch: {preferences: {nope: null}}}}", ("versions", "old", "patch", "preferences",
                 "nope"), "removes 'nope', which the catalog does not have", id="removing what is not there"),
    pytest.param("versions: {old: {patch: {name: x}}}", ("versions", "old", "patch", "name"),
                 "unknown key 'name'", id="the name is not patchable"),
    pytest.param("versions: {old: {lable: v1}}", ("versions", "old", "lable"), "unknown key 'lable'",
                 id="unknown key"),
    pytest.param("versions: {old: {label: 'v 1'}}", ("versions", "old", "label"), "not a valid label value",
                 id="label value"),
    pytest.param("versions: {'a b': {}}", ("versions", "a b"), "a version name must be a valid label value",
                 id="version name"),
    pytest.param("versions: [old]", ("versions",), "must be a mapping of version names", id="not a mapping"),
    pytest.param("versions: {old: {from: new}}", ("versions", "old", "from"), "no version 'new' to start from",
                 id="from an unknown version"),
    pytest.param("versions: {old: {from: new}, new: {from: old}}", ("versions", "old", "from"),
                 "versions start from each other: old -> new -> old", id="from in a circle"),
    pytest.param("versions: {old: {patch: {derivedLabels: {example.com/x: false}}}}",
                 ("derivedLabels", "example.com/x"), "not a derived label", id="derivedLabels: not derived"),
    pytest.param("versions: {old: {patch: {derivedLabels: {instancetype.kubevirt.io/size: 'a b'}}}}",
                 ("derivedLabels", "instancetype.kubevirt.io/size"), "not a valid label value",
                 id="derivedLabels: value"),
    pytest.param("versions: {old: {patch: {omitFields: [devices..x]}}}", ("omitFields", 0),
                 "must be a dotted spec path", id="omitFields: empty part"),
])
def test_version_problems(write_catalog: Write, versions: str, path: tuple[object, ...], message: str) -> None:
    with pytest.raises(CatalogError) as err:
        gen(write_catalog(BASE + versions), "old")
    assert [p for _, p, m in err.value.problems if message in m] == [path], err.value.problems


def test_a_problem_in_a_patched_catalog_names_the_version(write_catalog: Write) -> None:
    path = write_catalog(BASE + "versions: {old: {patch: {preferences: {q: {use: [nothere]}}}}}\n")
    gen(path)  # as written: fine
    with pytest.raises(CatalogError) as err:
        gen(path, "old")
    assert err.value.problems[0][0] == "my.yaml (version old)"
    assert err.value.problems[0][1] == ("preferences", "q", "use", 0)


def test_series_annotations_win_over_the_description(write_catalog: Write) -> None:
    obj = gen(write_catalog(BASE))[0]
    assert obj["metadata"]["annotations"] == {
        ANN_INSTANCETYPE_DESCRIPTION: "Ours.", "example.com/note": "theirs"}
    over = BASE.replace("example.com/note: theirs", f"{ANN_INSTANCETYPE_DESCRIPTION}: Theirs.")
    obj = gen(write_catalog(over))[0]
    assert obj["metadata"]["annotations"] == {ANN_INSTANCETYPE_DESCRIPTION: "Theirs."}


FROM = """\
versions:
  new: {label: v2, patch: {preferences: {q: null}}}
  old:
    label: v1
    from: new
    patch:
      series: {a: {sizes: [s]}}
      derivedLabels: {instancetype.kubevirt.io/size: false, instancetype.kubevirt.io/cpu: "few"}
      omitFields: [devices.preferredDiskBus]
"""


def test_a_version_from_another_is_that_version_with_its_own_patch(write_catalog: Write) -> None:
    path = write_catalog(BASE + FROM)
    assert names(gen(path, "new")) == ["VirtualMachineClusterInstancetype/a1.m",
                                       "VirtualMachineClusterInstancetype/a1.s", "VirtualMachineClusterPreference/p"]
    it, pref = gen(path, "old")
    assert (it["metadata"]["name"], pref["metadata"]["name"]) == ("a1.s", "p")
    labels = it["metadata"]["labels"]
    assert "instancetype.kubevirt.io/size" not in labels and labels["instancetype.kubevirt.io/cpu"] == "few"
    assert labels[LABEL_COMMON_INSTANCETYPES_VERSION] == "v1"
    assert pref["spec"] == {"devices": {"preferredInterfaceModel": "e1000"}}  # preferredDiskBus left out


def test_labels_are_derived_before_fields_are_omitted(write_catalog: Write) -> None:
    path = write_catalog(BASE.replace("q: {use: [virtio]}", "q: {use: [virtio], arch: arm64}") + """\
omitFields: [preferredArchitecture, requirements.architecture, requirements.nothere]
derivedLabels: {instancetype.kubevirt.io/required-architecture: false}
""")
    q = gen(path)[-1]
    assert "preferredArchitecture" not in q["spec"] and "requirements" not in q["spec"]  # emptied: removed
    assert q["metadata"]["labels"]["instancetype.kubevirt.io/arch"] == "arm64"
    assert q["metadata"]["labels"]["instancetype.kubevirt.io/preferred-architecture"] == "arm64"
    assert "instancetype.kubevirt.io/required-architecture" not in q["metadata"]["labels"]
