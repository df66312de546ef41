"""``stored: true``: each rendered VM in the form KubeVirt's VM mutating webhook stores it, so Git equals the live
object (issue 36, point 3).

What the webhook writes is checked against every case of ``shared/conformance-vms`` in
``tests/test_conformance_vms.py``; here the product's promises: the firmware identity follows the VM's namespace
and name (stable across re-creation, distinct across namespaces), what the VM sets is kept, the bytes are the same
twice and rendering the output again changes nothing, and each release writes what it writes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.kube.paths import Obj
from krm_fn.process import process
from tests.builders import NO_CATALOG, instancetype, make_vm, renderer, resource_list, run_krm

UUID = "9a4d7f0e-1111-4c3b-8f00-000000000001"


def _vm(name: str = "vm", namespace: str = "ns1", **firmware: str) -> Obj:
    spec: Obj = {"domain": {"devices": {}, "resources": {"requests": {"memory": "1Gi"}}},
                 "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]}
    if firmware:
        spec["domain"]["firmware"] = dict(firmware)
    vm = make_vm(spec, name=name, namespace=namespace)
    vm["spec"]["runStrategy"] = "Always"
    return vm


def _stored(items: list[Any], mode: str = "revisions", **spec: Any) -> list[Obj]:
    out, code = run_krm(items, renderer(mode, stored=True, catalog=NO_CATALOG, **spec))
    assert code == 0, out.get("results")
    return [i for i in out["items"] if i.get("kind") == "VirtualMachine"]


def _template(vm: Obj) -> Obj:
    template: Obj = vm["spec"]["template"]
    return template


def test_the_webhook_s_fields_are_written_and_the_identity_follows_namespace_and_name() -> None:
    a, b, c = _stored([_vm("db", "ns1"), _vm("db", "ns2"), _vm("db", "ns1")])
    spec = _template(a)["spec"]
    assert (spec["architecture"], spec["domain"]["machine"]) == ("amd64", {"type": "q35"})
    assert _template(a)["metadata"]["annotations"]["kubevirt.io/pci-topology-version"] == "v3"
    firmware = spec["domain"]["firmware"]
    assert set(firmware) == {"uuid", "serial"} and firmware["uuid"] != firmware["serial"]
    assert _template(c)["spec"]["domain"]["firmware"] == firmware  # the same VM re-created: the same machine
    assert _template(b)["spec"]["domain"]["firmware"]["uuid"] != firmware["uuid"]  # another namespace: another


def test_what_the_vm_sets_is_kept() -> None:
    vm = _vm(uuid=UUID, serial="S-1")
    vm["spec"]["template"]["spec"]["architecture"] = "arm64"
    (out,) = _stored([vm])
    spec = _template(out)["spec"]
    assert spec["domain"]["firmware"] == {"uuid": UUID, "serial": "S-1"}
    assert (spec["architecture"], spec["domain"]["machine"]["type"]) == ("arm64", "virt")


@pytest.mark.parametrize("version", ["v1.5", "v1.9"])
def test_each_release_stores_what_it_stores(version: str) -> None:
    """v1.5 stores a serial but no uuid and no PCI topology annotation (shared/conformance-vms, v1.5.3)."""
    (out,) = _stored([_vm()], kubevirtVersion=version)
    firmware = _template(out)["spec"]["domain"]["firmware"]
    annotations = _template(out).get("metadata", {}).get("annotations", {})
    assert ("uuid" in firmware, "kubevirt.io/pci-topology-version" in annotations) == (version != "v1.5",) * 2
    assert "serial" in firmware


def test_expand_mode_stores_the_expanded_vm_and_validate_mode_writes_nothing() -> None:
    items = [instancetype(), _vm()]
    items[1]["spec"]["instancetype"] = {"name": "it"}
    del items[1]["spec"]["template"]["spec"]["domain"]["resources"]
    (expanded,) = _stored(items, "expand")
    assert "instancetype" not in expanded["spec"] and "uuid" in _template(expanded)["spec"]["domain"]["firmware"]
    out, code = run_krm(items, renderer("validate", stored=True, catalog=NO_CATALOG))
    assert code == 0 and [i for i in out["items"] if i.get("kind") == "VirtualMachine"] == [items[1]]


def test_the_stored_form_is_byte_identical_twice_and_a_fixed_point() -> None:
    items = [instancetype(), _vm("a"), _vm("b", uuid=UUID)]
    items[1]["spec"]["instancetype"] = {"name": "it"}
    del items[1]["spec"]["template"]["spec"]["domain"]["resources"]
    config = renderer("revisions", stored=True, catalog=NO_CATALOG)
    first = process(resource_list(items, config)).data
    assert process(resource_list(items, config)).data == first
    again = yaml.safe_load(first)
    assert process(resource_list(again["items"], config)).data == first


def test_standalone_mode_writes_the_stored_form_into_the_file(tmp_path: Path) -> None:
    """The fields are added under what the VM wrote; the rest of the file keeps its bytes."""
    text = yaml.safe_dump(_vm("web"), sort_keys=False)
    (tmp_path / "vm.yaml").write_text(text)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(renderer("revisions", stored=True, catalog=NO_CATALOG)))
    from tests.builders import fn_command
    proc = subprocess.run([*fn_command(), str(cfg), str(tmp_path / "vm.yaml")], capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert out.startswith(text.split("      domain:")[0]) and "kubevirt.io/pci-topology-version: v3" in out
    assert yaml.safe_load(out)["spec"]["template"]["spec"]["domain"]["firmware"]["uuid"]
