"""Changed items keep the user's text for everything that did not change."""

from __future__ import annotations

import copy

from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import load_documents
from krm_fn.io.patch import emit_patched
from krm_fn.io.resourcelist import dump_resource_list, parse_resource_list

VM = """\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm1
  labels: {app: "x", tier: 'db'}
spec:
  runStrategy: "Always"
  instancetype:
    name: u1.medium
  template:
    spec:
      volumes:
        - name: ci
          cloudInitNoCloud:
            userData: |
              #cloud-config
              password: "x"
        - name: 'root'
          containerDisk: {image: "quay.io/x:1"}
"""


def patched(new: dict[str, object], src: str = VM) -> str:
    e = Emitter()
    assert emit_patched(e, new, src, "", None)
    return e.text()


def test_unchanged_parts_keep_quotes_flow_maps_and_blocks() -> None:
    new = copy.deepcopy(load_documents(VM)[0].value)
    new["spec"]["instancetype"] = {"kind": "VirtualMachineClusterInstancetype", "name": "u1.medium",
                                   "revisionName": "vm1-u1.medium-v1beta1-abc-1"}
    out = patched(new)
    assert load_documents(out)[0].value == new
    assert '  labels: {app: "x", tier: \'db\'}\n' in out
    assert '  runStrategy: "Always"\n' in out
    assert "            userData: |\n              #cloud-config\n              password: \"x\"\n" in out
    assert "          containerDisk: {image: \"quay.io/x:1\"}\n" in out
    assert "    kind: VirtualMachineClusterInstancetype\n    name: u1.medium\n    revisionName:" in out


def test_changed_leaf_inside_a_list_is_emitted_fresh_and_correctly() -> None:
    new = copy.deepcopy(load_documents(VM)[0].value)
    new["spec"]["template"]["spec"]["volumes"][1]["containerDisk"]["image"] = "yes"
    new["spec"]["template"]["spec"]["volumes"].append({"name": "extra"})
    out = patched(new)
    assert load_documents(out)[0].value == new
    assert 'image: "yes"' in out


def test_removed_keys_disappear() -> None:
    new = copy.deepcopy(load_documents(VM)[0].value)
    del new["spec"]["instancetype"]
    out = patched(new)
    assert "instancetype" not in out and load_documents(out)[0].value == new


def test_anchors_in_the_original_fall_back_to_a_fresh_emit() -> None:
    src = "a: &x {b: 1}\nc: *x\n"
    assert not emit_patched(Emitter(), {"a": {"b": 2}, "c": {"b": 1}}, src, "", None)


def test_resource_list_uses_the_original_text_of_a_replaced_item() -> None:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + VM.replace("\n", "\n  ").rstrip(" ")
    rl = parse_resource_list(text)
    new = copy.deepcopy(rl.items[0])
    new["spec"]["runStrategy"] = "Halted"
    out = dump_resource_list(rl, [new], [])
    assert "    labels: {app: \"x\", tier: 'db'}\n" in out and "    runStrategy: Halted\n" in out
    assert parse_resource_list(out).items == [new]
