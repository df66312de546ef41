"""The KubeVirt release table (``krm_fn.kubevirt_versions``) and ``VirtualMachineRenderer.spec.kubevirtVersion``.

Expected revision contents come from the upstream bundles (shared/reference, read with PyYAML): what the
cluster of each release holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml

from krm_fn import kubevirt_versions
from krm_fn.catalog.generate import generate
from krm_fn.catalog.spec import CatalogSpec
from krm_fn.config import load
from krm_fn.errors import ConfigError, FnError
from krm_fn.kube.api import INSTANCETYPE_VERSION
from krm_fn.kubevirt_versions import DEFAULT, RELEASES, KubevirtVersion, release
from krm_fn.process import Options, process
from tests.builders import instancetype, make_vm, require_shared
from tests.render_support import render
from krm_fn.render.spec import RendererSpec

OBJECT_VERSION_LABEL = "instancetype.kubevirt.io/object-version"


def test_the_setting_lists_the_releases_of_the_table() -> None:
    assert get_args(KubevirtVersion) == tuple(RELEASES)
    assert DEFAULT in RELEASES and release(None) is RELEASES[DEFAULT]


def test_every_release_stores_revisions_we_can_write() -> None:
    """The embedded object is encoded as v1beta1 (krm_fn.kubevirt.schema): a release with another object-version needs
    that API version's schema before it can join the table."""
    assert {r.object_version for r in RELEASES.values()} == {INSTANCETYPE_VERSION}


@pytest.mark.parametrize("version", RELEASES)
def test_every_release_names_a_version_its_builtins_have(version: str) -> None:
    for builtin, catalog_version in RELEASES[version].builtins.items():
        assert generate(CatalogSpec(builtin=builtin, version=catalog_version), None)


def test_an_unknown_release_is_an_error_with_its_field() -> None:
    with pytest.raises(FnError) as err:
        release("v1.4")
    assert err.value.field_path == "spec.kubevirtVersion" and "known: v1.5, v1.6, v1.7, v1.8, v1.9, v1.10" in err.value.message


@pytest.mark.parametrize("fn_config", [
    {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer", "spec": {"kubevirtVersion": "v1.10"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "data": {"kubevirtVersion": "v1.10"}},
])
def test_config(fn_config: dict[str, Any]) -> None:
    assert load(fn_config).spec.kubevirt_version == "v1.10"
    bad = json.loads(json.dumps(fn_config).replace("v1.10", "v1.4"))
    with pytest.raises(ConfigError, match=r"kubevirtVersion: must be one of v1.5, v1.6, v1.7, v1.8, v1.9, v1.10; got 'v1.4'"):
        load(bad)


def test_the_table_drives_the_object_version_of_pinned_revisions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RELEASES, "v1.10", RELEASES["v1.10"]._replace(object_version="v9test"))
    vm = make_vm(instancetype={"name": "it"})
    out, results = render([instancetype(), vm], RendererSpec(kubevirt_version="v1.10"), [])
    cr = out[2]
    assert results == [] and cr["metadata"]["labels"][OBJECT_VERSION_LABEL] == "v9test"
    assert cr["metadata"]["name"].startswith("vm-it-v9test-")
    default, _ = render([instancetype(), vm], RendererSpec(), [])
    assert default[2]["metadata"]["labels"][OBJECT_VERSION_LABEL] == "v1beta1"
    # a revision labelled for another release is reported, with the target's label in the message
    again, results = render([instancetype(), default[1], default[2]], RendererSpec(kubevirt_version="v1.10"),
                            [])
    assert [r.message.split(";")[0] for r in results] == [
        f"ControllerRevision {default[2]['metadata']['name']} has no label {OBJECT_VERSION_LABEL}: v9test"]
    assert kubevirt_versions.release("v1.10").object_version == "v9test"


def _pinned_preference(preference: str, renderer_spec: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Render one VM using a builtin preference; the exit code and the preference revision's embedded spec."""
    vm = make_vm(instancetype={"name": "u1.large"}, preference={"name": preference})  # 2 vCPUs, 8Gi: windows.11 needs 2, 4Gi
    data = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [vm],
                       "functionConfig": {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
                                          "metadata": {"name": "r"}, "spec": renderer_spec}})
    out = process(data.encode(), Options())
    items = yaml.safe_load(out.data)["items"]
    revisions = [o for o in items if o["kind"] == "ControllerRevision"
                 and o["data"]["kind"] == "VirtualMachineClusterPreference"]
    return out.exit_code, revisions[0]["data"]["spec"] if revisions else {}


def _upstream_spec(directory: str, bundle: str, name: str) -> dict[str, Any]:
    path = require_shared(f"reference/{directory}/{bundle}.yaml")
    spec: dict[str, Any] = next(o for o in yaml.safe_load_all(path.read_text(encoding="utf-8"))
                                if o and o["metadata"]["name"] == name)["spec"]
    return spec


@pytest.mark.parametrize(("renderer_spec", "directory", "bundle"), [
    pytest.param({}, "kubevirt-operator-bundle", "common-clusterpreferences-bundle", id="default: v1.7.0"),
    pytest.param({"kubevirtVersion": "v1.10"}, "kubevirt-operator-bundle", "common-clusterpreferences-bundle",
                 id="v1.10 deploys v1.7.0"),
    pytest.param({"catalog": {"version": "main"}}, "common-instancetypes", "VirtualMachineClusterPreferences",
                 id="pinned to main"),
])
def test_the_fallback_catalog_is_what_the_target_release_deploys(renderer_spec: dict[str, Any], directory: str,
                                                                  bundle: str) -> None:
    code, spec = _pinned_preference("windows.11", renderer_spec)
    assert code == 0 and spec == _upstream_spec(directory, bundle, "windows.11")


def test_a_preference_the_release_does_not_deploy_is_not_found() -> None:
    assert _pinned_preference("fedora.s390x.secex", {})[0] == 1
    code, spec = _pinned_preference("fedora.s390x.secex", {"catalog": {"version": "main"}})
    assert code == 0 and spec == _upstream_spec("common-instancetypes", "VirtualMachineClusterPreferences",
                                                "fedora.s390x.secex")


def test_catalog_file_path_is_unchanged_by_the_release(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text("sizes: {s: {cpu: 1, memory: 1Gi}}\nseries: {a: {sizes: [s]}}\n")
    spec = CatalogSpec(path="mine.yaml", scope="Cluster")
    assert generate(spec, tmp_path, "v1.10") == generate(spec, tmp_path)
