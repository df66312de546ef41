"""Changed items keep the user's text for everything that did not change (krm_fn.io.splice.splice)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import load_documents
from krm_fn.io.locate import plan
from krm_fn.io.resourcelist import dump_resource_list, dump_stream, parse_resource_list
from krm_fn.io.source import item_as_entry as _item_as_entry
from krm_fn.io.splice import splice as splice_text
from tests.io_support import parse_stream


def splice(text: str, old: dict[str, Any], new: dict[str, Any], e: Emitter, entry: bool = False) -> str | None:
    """The spliced text alone (what is read back is :mod:`tests.unit.io.test_verify`'s)."""
    edits = plan(old, new)
    done = splice_text(text, old, new, e, edits, entry=entry) if edits is not None else None
    return done.text if done is not None else None


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
  preference: {name: fedora}
  template:
    spec:
      domain:
        memory:
          guest: 1Gi # a comment
      volumes:
        - name: ci
          cloudInitNoCloud:
            userData: |
              #cloud-config
              password: "x"
        - name: 'root'
          containerDisk: {image: "quay.io/x:1"}
"""


def old() -> dict[str, Any]:
    value = load_documents(VM)[0].value
    assert isinstance(value, dict)
    return value


def spliced(new: dict[str, Any]) -> str:
    out = splice(VM, old(), new, Emitter())
    assert out is not None
    assert load_documents(out)[0].value == new
    return out


def test_pinning_matchers_keeps_everything_else_verbatim() -> None:
    new = copy.deepcopy(old())
    new["spec"]["instancetype"] = {"name": "u1.medium", "kind": "VirtualMachineClusterInstancetype",
                                   "revisionName": "vm1-u1.medium-v1beta1-abc-1"}
    out = spliced(new)
    assert out == VM.replace("    name: u1.medium\n", "    name: u1.medium\n    kind: VirtualMachineClusterInstancetype\n"
                                                     "    revisionName: vm1-u1.medium-v1beta1-abc-1\n")


def test_flow_mapping_with_edits_is_rewritten_whole() -> None:
    new = copy.deepcopy(old())
    new["spec"]["preference"]["kind"] = "VirtualMachineClusterPreference"
    out = spliced(new)
    assert "  preference:\n    name: fedora\n    kind: VirtualMachineClusterPreference\n" in out
    assert '  labels: {app: "x", tier: \'db\'}\n' in out


def test_removed_and_added_keys() -> None:
    new = copy.deepcopy(old())
    del new["spec"]["template"]["spec"]["domain"]["memory"]
    new["spec"]["extra"] = "yes"
    out = spliced(new)
    assert "memory" not in out and '      domain: {}\n' in out and '  extra: "yes"\n' in out
    assert "            userData: |\n" in out


def test_changed_list_entry_rewrites_the_list_only() -> None:
    new = copy.deepcopy(old())
    new["spec"]["template"]["spec"]["volumes"][1]["containerDisk"]["image"] = "on"
    out = spliced(new)
    assert 'image: "on"' in out and '  runStrategy: "Always"\n' in out


def test_unchanged_object_is_returned_as_is() -> None:
    assert splice(VM, old(), old(), Emitter()) == VM


def test_too_many_edits_mean_a_fresh_emit() -> None:
    new = {f"k{i}": i for i in range(100)}
    assert splice(VM, old(), new, Emitter()) is None


@pytest.mark.parametrize("src, form", [("a: &x {b: 1}\nc: *x\n", "&x"), ("{a: {b: 1}}\n", "{a:")],
                         ids=["anchor", "flow-root"])
def test_unusual_originals_fall_back(src: str, form: str) -> None:
    """The splicer refuses such a text, so the changed document is written fresh: no trace of ``form``."""
    orig = load_documents(src)[0].value
    new = copy.deepcopy(orig)
    new["a"]["b"] = 2
    assert splice(src, orig, new, Emitter()) is None
    out = dump_stream(parse_stream(src), [new])
    fresh = Emitter()
    fresh.mapping(new, "")
    assert out == fresh.text() and form not in out
    assert load_documents(out)[0].value == new


def test_edits_under_a_value_written_as_an_alias_fall_back() -> None:
    """An item whose anchors stand in another item of the list: an edit inside a value written ``*a`` has no
    place in the text (found by tests/reliability/test_layouts.py, object set 26655, layout seed 19115)."""
    src = "- kind: VM\n  spec:\n    ? instancetype\n    : *a5\n    ? preference\n    :\n      name: ubuntu\n"
    old: dict[str, Any] = {"kind": "VM", "spec": {"instancetype": {"name": "u1.medium"}, "preference": {"name": "ubuntu"}}}
    new = copy.deepcopy(old)
    new["spec"]["instancetype"]["kind"] = "VirtualMachineClusterInstancetype"
    edits = plan(old, new)
    assert edits is not None
    assert splice_text(src, old, new, Emitter(), edits, entry=True) is None


def test_resource_list_uses_the_original_text_of_a_replaced_item() -> None:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + VM.replace("\n", "\n  ").rstrip(" ")
    rl = parse_resource_list(text)
    new = copy.deepcopy(rl.items[0])
    new["spec"]["runStrategy"] = "Halted"
    out = dump_resource_list(rl, [new], [])
    assert "    labels: {app: \"x\", tier: 'db'}\n" in out and "    runStrategy: Halted\n" in out
    assert parse_resource_list(out).items == [new]


# --- property: whatever the edit, the spliced text reads back as the new value ------------------------
from hypothesis import given, settings  # noqa: E402

from tests.emitted import dump  # noqa: E402
from tests.randomised import count  # noqa: E402
from tests.io_support import edited_documents


@settings(max_examples=count(250, 1000), deadline=None, database=None)
@given(edited_documents())
def test_splice_reads_back_as_the_new_value(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    old, new = pair
    src = dump(old)
    assert load_documents(src)[0].value == old
    out = splice(src, old, new, Emitter())
    if out is not None:
        assert load_documents(out)[0].value == new, out
    entry = _item_as_entry(src)  # the same item as a "- " entry of a ResourceList's items
    out = splice(entry, old, new, Emitter(), entry=True)
    if out is not None:
        assert load_documents(out)[0].value == [new], out


