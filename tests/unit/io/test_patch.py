"""Changed items keep the user's text for everything that did not change (krm_fn.io.patch.splice_checked)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import load_documents
from krm_fn.io.patch import splice_checked
from krm_fn.io.resourcelist import _item_as_entry, dump_resource_list, parse_resource_list



def splice(text: str, old: dict[str, Any], new: dict[str, Any], e: Emitter, entry: bool = False) -> str | None:
    """The spliced text alone (what is read back is :mod:`tests.unit.io.test_verify`'s)."""
    done = splice_checked(text, old, new, e, entry=entry)
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


@pytest.mark.parametrize("src", ["a: &x {b: 1}\nc: *x\n", "- 1\n", "{a: {b: 1}}\n"])
def test_unusual_originals_fall_back(src: str) -> None:
    orig = load_documents(src)[0].value
    if not isinstance(orig, dict):
        return
    new = copy.deepcopy(orig)
    new["a"]["b"] = 2
    out = splice(src, orig, new, Emitter())
    assert out is None or load_documents(out)[0].value == new


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
from hypothesis import strategies as st  # noqa: E402

from tests.emitted import dump  # noqa: E402
from tests.randomised import count  # noqa: E402

_keys = st.sampled_from(["a", "b", "spec", "name", "on", "x.y", "metadata", "status", "items"])
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5),
                     st.sampled_from(["", "yes", "0777", "multi\nline\n", "v", "1e3", "a: b", "- x"]))
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(_keys, inner, max_size=4)), max_leaves=12)
_docs = st.dictionaries(_keys, _values, min_size=1, max_size=5)


@st.composite
def _edited(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    old = draw(_docs)
    new = copy.deepcopy(old)

    def mutate(node: dict[str, Any]) -> None:
        for key in list(node):
            choice = draw(st.integers(0, 5))
            if choice == 0:
                del node[key]
            elif choice == 1:
                node[key] = draw(_values)
            elif choice == 2 and isinstance(node[key], dict):
                mutate(node[key])
        if draw(st.booleans()):
            node[draw(_keys)] = draw(_values)

    mutate(new)
    return old, new


@settings(max_examples=count(250, 1000), deadline=None, database=None)
@given(_edited())
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


def test_the_pairs_an_item_read_back_whole_gets_are_remembered_per_exact_value_and_column() -> None:
    """``patch._pairs_text`` gives what ``_emit_pairs`` writes, from memory the second time: values equal in Python
    but not in YAML (``1``, ``1.0``, ``True``), or in another key order, apart; pairs of scalars only are written."""
    from krm_fn.io.patch import _emit_pairs, _pairs_text

    e = Emitter()
    nested: list[dict[str, Any]] = [{"a": {"b": 1}}, {"a": {"b": 1.0}}, {"a": {"b": True}}, {"a": ["1"]},
                                    {"a": {"b": 1, "c": 2}}, {"a": {"c": 2, "b": 1}}, {"a": {"b": [1, "x\ny\n", None]}}]
    scalars: list[dict[str, Any]] = [{"a": 1}, {"a": 1.0}, {"a": "1"}, {"a": []}, {"a": {}}]
    for _ in range(2):
        for value in nested + scalars:
            for column in (0, 4):
                assert _pairs_text(e, value, column) == _emit_pairs(Emitter(), value, column), (value, column)
    assert not e.out and len(e.memo) == 2 * len(nested)

    class Tagged(str):
        pass

    assert _pairs_text(e, {"a": {"b": Tagged("x")}}, 0) == "a:\n  b: x\n"  # marshal writes no str subclass
    assert len(e.memo) == 2 * len(nested)


@settings(max_examples=count(300, 3000), deadline=None)
@given(st.text(alphabet=" #\na-", max_size=40), st.integers(min_value=1, max_value=8))
def test_a_comment_left_of_a_column_is_found_from_each_hash(text: str, column: int) -> None:
    """patch._comment_left_of is the line scan it replaced: a line after the first, spaces, then ``#``, left of
    ``column``."""
    import re

    from krm_fn.io.patch import _comment_left_of

    assert _comment_left_of(text, column) is (re.search(r"\n {0,%d}#" % (column - 1), text) is not None)
