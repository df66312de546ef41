"""``kubevirt-krm catalog diff``: a bundle or cluster export against a builtin, every difference with its path.

The expected differences between main and v1.7.0 are the ones shared/reference/kubevirt-operator-bundle/README.md
states (three ``*.s390x.secex`` preferences, four Windows preferences with ``sockets``, the version label).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NoReturn

import pytest
import yaml

from krm_fn.catalog.diff import compare, comparable, differences, main, request
from krm_fn.catalog.errors import command_line_message
from krm_fn.errors import FnError
from krm_fn.kube.paths import Obj
from tests.builders import run_fn

VERSION_LABEL = 'metadata.labels["instancetype.kubevirt.io/common-instancetypes-version"]'


class Failed(Exception):
    pass


def _fail(message: str) -> NoReturn:
    raise Failed(message)


def run(args: list[str], files: dict[str, str]) -> tuple[int, str]:
    try:
        req = request(args)
        out, code = main(req, [files[name] for name in req.operands])
    except FnError as exc:
        _fail(command_line_message(exc))
    return code, out


def operator_bundles(shared: Path) -> str:
    directory = shared / "reference" / "kubevirt-operator-bundle"
    return "".join(p.read_text(encoding="utf-8") for p in sorted(directory.glob("*.yaml")))


def as_cluster_export(text: str) -> str:
    """What ``kubectl get ... -o yaml`` gives for objects virt-operator deployed: a List, server fields and the
    operator's install labels and annotations on every object."""
    items = [o for o in yaml.safe_load_all(text) if o]
    for i, obj in enumerate(items):
        md = obj["metadata"]
        md.update(uid=f"0000-{i}", resourceVersion=str(1000 + i), generation=1,
                  creationTimestamp="2026-01-01T00:00:00Z", managedFields=[{"manager": "virt-operator"}],
                  ownerReferences=[{"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "name": "kubevirt"}])
        md["labels"].update({"app.kubernetes.io/component": "kubevirt", "app.kubernetes.io/managed-by": "virt-operator"})
        md["annotations"].update({"kubevirt.io/install-strategy-version": "v1.9.0",
                                  "kubevirt.io/install-strategy-registry": "quay.io/kubevirt",
                                  "kubevirt.io/install-strategy-identifier": "abc", "kubevirt.io/generation": "3"})
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}})


def test_the_operator_bundles_are_identical_to_the_default_builtin(shared: Path) -> None:
    code, out = run(["--builtin", "common-instancetypes", "bundle.yaml"], {"bundle.yaml": operator_bundles(shared)})
    assert (code, out) == (0, "builtin common-instancetypes@v1.7.0: identical (119 objects)\n")


def test_a_cluster_export_compares_without_what_the_server_and_the_operator_add(shared: Path) -> None:
    export = as_cluster_export(operator_bundles(shared))
    assert run(["--builtin=common-instancetypes@v1.7.0", "-"], {"-": export})[0] == 0
    code, out = run(["--builtin", "common-instancetypes@v1.7.0", "--strict", "-"], {"-": export})
    assert code == 1 and "119 of 119 objects differ" in out and "  metadata.uid: (absent) -> \"0000-0\"" in out


def test_main_against_the_operator_bundles_lists_each_difference(shared: Path) -> None:
    code, out = run(["--builtin", "common-instancetypes@main", "b.yaml"], {"b.yaml": operator_bundles(shared)})
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == "builtin common-instancetypes@main: 122 of 122 objects differ (3 removed, 0 added, 119 changed)"
    assert [line for line in lines if line.startswith("removed")] == [
        f"removed VirtualMachineClusterPreference {n}.s390x.secex" for n in ("fedora", "rhel.10", "rhel.9")]
    at = lines.index("changed VirtualMachineClusterPreference windows.11.virtio")
    assert lines[at + 1:at + 3] == [f"  {VERSION_LABEL}: (absent) -> \"v1.7.0\"",
                                    "  spec.cpu.preferredCPUTopology: \"cores\" -> \"sockets\""]
    topology = [line for line in lines if "preferredCPUTopology" in line]
    assert len(topology) == 4
    assert sum(line == f"  {VERSION_LABEL}: (absent) -> \"v1.7.0\"" for line in lines) == 119


def test_only_the_kinds_in_the_input_are_compared_and_extra_objects_are_added() -> None:
    doc = ("apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterPreference\n"
           "metadata: {name: mine}\nspec: {}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    code, out = run(["--builtin", "classic", "f"], {"f": doc})
    assert code == 1
    assert out.splitlines()[:5] == [
        "removed VirtualMachineClusterPreference linux.cirros", "removed VirtualMachineClusterPreference linux.fedora",
        "removed VirtualMachineClusterPreference linux.rhel9",
        "removed VirtualMachineClusterPreference windows.windows10", "added VirtualMachineClusterPreference mine"]
    assert out.splitlines()[-1] == ("builtin classic (1 other objects ignored): 5 of 5 objects differ (4 removed, "
                                    "1 added, 0 changed)")


@pytest.mark.parametrize(("args", "files", "message"), [
    pytest.param([], {}, "usage: kubevirt-krm catalog diff", id="no arguments"),
    pytest.param(["--builtin", "classic"], {}, "usage:", id="no file"),
    pytest.param(["--builtin", "classic", "--bogus", "f"], {"f": ""}, "usage:", id="unknown option"),
    pytest.param(["--builtin", "nope", "f"], {"f": ""}, "unknown builtin catalog 'nope'", id="unknown builtin"),
    pytest.param(["--builtin", "common-instancetypes@v0", "f"], {"f": ""}, "has no version 'v0'", id="version"),
    pytest.param(["--builtin", "classic", "f"], {"f": "a: [\n"}, "f: malformed YAML", id="bad YAML"),
    pytest.param(["--builtin", "classic", "f"], {"f": "- 1\n"}, "f: a document is not a mapping", id="not objects"),
    pytest.param(["--builtin", "classic", "f"], {"f": "kind: ConfigMap\n"}, "nothing to compare", id="no types"),
])
def test_trouble_is_reported_through_fail(args: list[str], files: dict[str, str], message: str) -> None:
    with pytest.raises(Failed, match=message):
        run(args, files)


def test_compare_and_differences() -> None:
    ours: Obj = {"kind": "K", "metadata": {"name": "a"}, "spec": {"x": [1, 2], "y": {"z": True}}}
    theirs: Obj = {"kind": "K", "metadata": {"name": "a", "namespace": "ns", "labels": {"app.kubernetes.io/version": "1"}},
                   "spec": {"x": [1], "y": {}, "w": "new"}, "status": {}}
    assert comparable(theirs) == {"kind": "K", "metadata": {"name": "a"}, "spec": {"x": [1], "y": {}, "w": "new"}}
    assert list(differences(ours, comparable(theirs))) == [
        "spec.x: [1, 2] -> [1]", "spec.y.z: true -> (absent)", "spec.w: (absent) -> \"new\""]
    changes, compared = compare([ours], [theirs])
    assert compared == 1 and [(c.what, c.name, len(c.fields)) for c in changes] == [("changed", "a", 3)]
    assert "status" in theirs and theirs["metadata"]["namespace"] == "ns"  # the input is not changed


def test_the_command_line(shared: Path) -> None:
    bundles = str(shared / "reference" / "kubevirt-operator-bundle")
    same = run_fn(["catalog", "diff", "--builtin", "common-instancetypes", bundles])
    assert (same.returncode, same.stderr) == (0, b"")
    different = run_fn(["catalog", "diff", "--builtin", "common-instancetypes@main", bundles])
    assert different.returncode == 1 and b"changed VirtualMachineClusterPreference windows.10\n" in different.stdout
    missing = run_fn(["catalog", "diff", "--builtin", "common-instancetypes", "/nonexistent/file.yaml"])
    assert missing.returncode == 2 and b"Traceback" not in missing.stderr
    assert missing.stderr == b"kubevirt-krm: error: cannot read /nonexistent/file.yaml: No such file or directory\n"


RELEASE_TAGS = {"v1.5.3": ("v1.3.1", "v1.5"), "v1.6.6": ("v1.4.1", "v1.6"), "v1.7.4": ("v1.5.1", "v1.7"),
                "v1.8.4": ("v1.6.0", "v1.8"), "v1.9.0": ("v1.7.0", "v1.9, v1.10")}


RELEASE_VERSIONS = {version: (releases, tag) for tag, (version, releases) in RELEASE_TAGS.items()}


def release_bundles(shared: Path, tag: str) -> str:
    directory = shared / "reference" / "kubevirt-releases" / tag
    return "".join(p.read_text(encoding="utf-8") for p in sorted(directory.glob("*-bundle.yaml")))


@pytest.mark.parametrize("tag", RELEASE_TAGS)
def test_auto_identifies_each_release_from_its_cluster_export(tag: str, shared: Path) -> None:
    version, releases = RELEASE_TAGS[tag]
    code, out = run(["--builtin", "common-instancetypes@auto", "-"],
                    {"-": as_cluster_export(release_bundles(shared, tag))})
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(f"builtin common-instancetypes@{version}: identical ("), out
    verb = "deploy" if "," in releases else "deploys"
    pick = f"(spec.kubevirtVersion: {releases.replace(', ', ' or ')}" + ("; their bundles are the same)"
                                                                        if "," in releases else ")")
    assert lines[1].startswith(f"common-instancetypes@auto: the input is identical to {version}; "
                               f"KubeVirt {releases} {verb} it {pick}; other versions (objects differing beyond "
                               "the version label): "), out
    assert len(lines) == 2
    # the other versions name the releases that deploy them too
    others = lines[1].partition("version label): ")[2]
    for other_version, (other_releases, _) in ((v, r) for v, r in RELEASE_VERSIONS.items() if v != version):
        assert re.search(rf"(^|, ){re.escape(other_version)} \(KubeVirt {other_releases}\) \d+(, |$)", others), out


def test_auto_gives_the_nearest_version_and_its_differences(shared: Path) -> None:
    """A v1.8 cluster where someone deleted one preference and edited another: still nearest to v1.6.0 (alpine
    differs from v1.5.1 and older anyway, so their counts stay)."""
    items = [o for o in yaml.safe_load_all(release_bundles(shared, "v1.8.4")) if o]
    items = [o for o in items if o["metadata"]["name"] != "alpine"]
    edited = next(o for o in items if o["metadata"]["name"] == "fedora")
    edited["spec"]["devices"]["preferredDiskBus"] = "sata"
    code, out = run(["--builtin", "common-instancetypes@auto", "x.yaml"], {"x.yaml": yaml.safe_dump_all(items)})
    assert code == 1
    assert out.splitlines() == [
        "removed VirtualMachineClusterPreference alpine",
        "changed VirtualMachineClusterPreference fedora",
        '  spec.devices.preferredDiskBus: "virtio" -> "sata"',
        "builtin common-instancetypes@v1.6.0: 2 of 119 objects differ (1 removed, 0 added, 1 changed)",
        "common-instancetypes@auto: the input is nearest to v1.6.0; KubeVirt v1.8 deploys it (spec.kubevirtVersion: "
        "v1.8); other versions (objects differing beyond the version label): v1.7.0 (KubeVirt v1.9, v1.10) 22, "
        "main 27, v1.5.1 (KubeVirt v1.7) 60, v1.4.1 (KubeVirt v1.6) 60, v1.3.1 (KubeVirt v1.5) 100"]


def test_auto_without_the_version_label_names_every_equally_near_version(shared: Path) -> None:
    items = [o for o in yaml.safe_load_all(release_bundles(shared, "v1.7.4")) if o]
    for obj in items:
        del obj["metadata"]["labels"]["instancetype.kubevirt.io/common-instancetypes-version"]
    code, out = run(["--builtin", "common-instancetypes@auto", "x"], {"x": yaml.safe_dump_all(items)})
    assert code == 1 and "the input is nearest to v1.5.1 and v1.4.1; KubeVirt v1.6, v1.7 deploy it (spec.kubevirtVersion: v1.6 or v1.7;" in out


def test_auto_needs_a_builtin_with_versions() -> None:
    doc = "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterPreference\nmetadata: {name: x}\n"
    with pytest.raises(Failed, match="builtin catalog 'classic' has no versions to tell apart"):
        run(["--builtin", "classic@auto", "f"], {"f": doc})


def test_the_command_line_help_explains_auto() -> None:
    shown = run_fn(["catalog", "diff", "--help"])
    assert shown.returncode == 0 and b"@auto" in shown.stdout and b"ownerReferences" in shown.stdout
    auto = run_fn(["catalog", "diff", "--builtin", "common-instancetypes@auto", "/nonexistent"])
    assert auto.returncode == 2
