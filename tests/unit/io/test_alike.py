"""A text alike another but for its digits is told from the other's marked reading (krm_fn.io.alike).

Every expectation is the loader's reading of the text itself (krm_fn.io.loader), never a pasted value: random
texts whose digits are drawn again, the constructs where a digit is more than a character, and the read-back
batch that tells whole items from one of them (krm_fn.io.verify.ReadBacks).
"""

from __future__ import annotations

import marshal
import random
import re
from typing import Any

import pytest

import krm_fn.io.alike as alike_module
import krm_fn.io.verify as verify_module
from krm_fn.errors import InputError
from krm_fn.io.alike import Template, changes, derive, marshalled, template, zeroed
from krm_fn.io.loader import load_documents
from krm_fn.io.verify import ALIKE_MIN, ReadBacks, identical
from tests.conftest import bench_module
from tests.randomised import SEED, count, digits_drawn_again


def loaded(text: str) -> Any:
    """What the loader reads a ``- `` entry as."""
    docs = load_documents(text)
    assert len(docs) == 1 and len(docs[0].value) == 1
    return docs[0].value[0]


def told(t: Template, text: str) -> Any:
    """What ``text`` reads as, told from ``t`` (None: it cannot be), and checked to be what marshalled() writes."""
    changed = changes(t, text)
    if changed is None:
        return None
    value = derive(t, changed)
    assert marshalled(t, changed) == marshal.dumps(value, 2)
    return value


def _fleet_vm(index: int) -> str:
    text = bench_module("synth").resource_list(8)
    entries = re.split(r"(?m)^(?=- )", text.split("\nitems:\n", 1)[1])
    return [e for e in entries if "kind: VirtualMachine\n" in e][index]


# digits in every place a scalar can hold them, in every style, and where YAML 1.1 resolves them as numbers
SCALARS = """\
- a: 1
  b: 07
  c: 0o17
  d: 0x1F
  e: 1e5
  f: 1_000
  g: 12:30:00
  h: 2001-12-14
  i: 1.5
  j: -3
  k: +4
  l: .5
  m: 1:20
  n: 0
  o: 100000000000000000000
  p: v1.2.3
  q: [1, 2.0, {x: 4}, "5", '6']
  r: {s: 7, t: [8, "9"]}
  u:
  - 10
  - - 11
    - a12
"""
STYLES = """\
- name: "vm-0001"
  quoted: 'it''s 42'
  dq: "multi 12
    line 34"
  plain: first 56
    continued 78
  lit: |
    line 1
    line 22

  fold: >-
    folded 3
    more 4
  head: |- # a note
    body 6
  # a comment
  tail: end 8  # another
"""
KEYS = """\
- k1: a
  k2: b
  "q3": c
  nested:
    x4: 5
    '6': y
"""


@pytest.mark.parametrize("text", [SCALARS, STYLES, KEYS, _fleet_vm(0), _fleet_vm(5)],
                         ids=["scalars", "styles", "keys", "vm0", "vm5"])
def test_a_told_value_is_the_loaders_reading_of_the_text(text: str) -> None:
    t = template(text, loaded(text))
    assert t is not None
    rng = random.Random(SEED)
    how_many = 0
    for _ in range(count(150, 1500)):
        other = digits_drawn_again(rng, text)
        assert zeroed(other) == zeroed(text)
        value = told(t, other)
        if value is None:
            continue
        how_many += 1
        assert identical(value, loaded(other)), other  # exact types and key order
    if text is not KEYS:  # most draws change a key there: those are read instead (comments: see below)
        assert how_many == count(150, 1500)


def test_a_digit_that_changes_the_type_is_resolved_again() -> None:
    t = template("- a: 07\n  b: '07'\n", {"a": 7, "b": "07"})
    assert t is not None
    assert identical(told(t, "- a: 09\n  b: '09'\n"), loaded("- a: 09\n  b: '09'\n"))
    assert type(loaded("- a: 09\n")["a"]) is not int  # not an octal: not the template's type


def test_a_key_that_differs_is_not_told() -> None:
    text = "- a1: x\n  a2: y\n"
    t = template(text, loaded(text))
    assert t is not None
    with pytest.raises(InputError, match="duplicate"):
        loaded("- a1: x\n  a1: y\n")
    assert told(t, "- a1: x\n  a1: y\n") is None and told(t, "- a1: x\n  a3: y\n") is None


def test_a_digit_the_value_drops_is_not_told() -> None:
    """A block scalar's header comment is in its text but not in its value: counting the digits tells."""
    text = "- a: |- # 1\n    x2\n"
    t = template(text, loaded(text))
    assert t is not None
    other = "- a: |- # 3\n    x4\n"
    assert loaded(other) == {"a": "x4"} and told(t, other) is None
    assert told(t, "- a: |- # 1\n    x5\n") is None  # nor where it is its content that differs


@pytest.mark.parametrize(("text", "other"), [
    ("- a: |1\n   x\n", "- a: |2\n   x\n"),  # the indentation indicator: another content indentation
    ('- a: "\\x31"\n', '- a: "\\x32"\n'),  # an escape: another character
    ("- a: !!int 1\n", "- a: !!int 2\n"),  # a tag
    ("- a: &a1 x\n  b: *a1\n", "- a: &a1 x\n  b: *a2\n"),  # an anchor's name
])
def test_a_text_where_a_digit_is_more_than_a_character_makes_no_template(text: str, other: str) -> None:
    assert zeroed(text) == zeroed(other)
    assert template(text, loaded(text)) is None


def test_a_comment_that_differs_is_not_told() -> None:
    t = template("- a: x1 # 1\n", {"a": "x1"})
    assert t is not None and told(t, "- a: x2 # 2\n") is None
    assert identical(told(t, "- a: x2 # 1\n"), {"a": "x2"})


def test_the_templates_value_is_never_changed() -> None:
    text = _fleet_vm(0)
    value = loaded(text)
    t = template(text, value)
    assert t is not None
    other = text.replace("vm-00000", "vm-00042")
    assert identical(told(t, other), loaded(other))
    assert identical(value, loaded(text))


def _batch(texts: list[str], expected: list[Any]) -> set[int]:
    reads = ReadBacks()
    for i, (text, value) in enumerate(zip(texts, expected, strict=True)):
        reads.add(text, value, i, ordered=False, whole=True)
    return reads.failures()


def test_a_batch_tells_whole_items_alike_and_fails_the_wrong_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    base = _fleet_vm(0)
    texts = [base.replace("vm-00000", f"vm-{i:05d}") for i in range(ALIKE_MIN + 4)]
    expected = [loaded(text) for text in texts]
    expected[3]["metadata"]["name"] = "vm-00099"  # another digit than the text's
    expected[5]["metadata"]["annotations"]["internal.config.kubernetes.io/index"] = 0  # the text has a string
    calls: list[str] = []

    def counted(t: Any, text: str) -> Any:
        calls.append(text)
        return alike_module.changes(t, text)

    monkeypatch.setattr(verify_module, "changes", counted)
    assert _batch(texts, expected) == {3, 5}
    assert len(calls) == len(texts) - 1  # every one but the first was told


def test_a_batch_whose_first_is_wrong_reads_the_others() -> None:
    base = _fleet_vm(0)
    texts = [base.replace("vm-00000", f"vm-{i:05d}") for i in range(ALIKE_MIN + 1)]
    expected = [loaded(text) for text in texts]
    expected[0]["metadata"]["name"] = "vm-00099"
    expected[4]["metadata"]["name"] = "vm-00098"
    assert _batch(texts, expected) == {0, 4}


def test_a_value_not_in_the_texts_order_makes_no_template() -> None:
    """marshal writes pairs in the value's order: the places found must follow the text's, or nothing is told."""
    assert template("- a: 1\n  b: 2\n", {"b": 2, "a": 1}) is None
    t = template("- a: 1\n  b: 2\n", {"a": 1, "b": 2})
    assert t is not None and told(t, "- a: 3\n  b: 4\n") == {"a": 3, "b": 4}


def test_a_lone_surrogate_does_not_stop_the_grouping() -> None:
    """The output's writer refuses a lone surrogate with a result (process.encode); grouping texts must not fail
    first."""
    assert zeroed("- a: \ud8001\n") == zeroed("- a: \ud8002\n") != zeroed("- a: \ud8003x\n")


def _v15_fleet(vms: int) -> bytes:
    renderer: str = bench_module("run").RENDERER.format(mode="expand")
    return (bench_module("synth").resource_list(vms) + renderer + "    kubevirtVersion: v1.5\n").encode()


def _items(data: bytes) -> list[str]:
    """The output's ``- `` entries, each as written."""
    items = data.decode().split("\nitems:\n", 1)[1].split("\nfunctionConfig:", 1)[0] + "\n"
    return [item for item in re.split(r"(?m)^(?=- )", items) if item]


def test_a_fleets_told_read_back_catches_one_wrong_digit(monkeypatch: pytest.MonkeyPatch) -> None:
    """v1.5's expansions of a fleet are spliced and told from one read each; a digit spliced wrong into one VM
    (its memory request) makes that VM's told value differ from its object: it alone is written fresh."""
    from krm_fn.io import patch as patch_module
    from krm_fn.process import Options, process

    fleet = _v15_fleet(300)
    right = process(fleet, Options(workers=1))
    calls: list[str] = []
    real_changes, real_pairs = alike_module.changes, patch_module._pairs_text

    def counted(t: Any, text: str) -> Any:
        calls.append(text)
        return real_changes(t, text)

    seen: dict[bytes, int] = {}
    wrong_text: list[str] = []

    def one_wrong(e: Any, pairs: dict[str, Any], column: int) -> str:
        text = real_pairs(e, pairs, column)
        if "resources" in pairs and not wrong_text:
            key = marshal.dumps(pairs, 2)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 6:  # a VM with five alike before it: its group's template was read before it
                bad = re.sub(r"(requests:\n +memory: )([0-9])", lambda m: m[1] + str((int(m[2]) + 1) % 10), text)
                assert bad != text
                wrong_text.append(bad)
                return bad
        return text

    monkeypatch.setattr(verify_module, "ALIKE_MIN", 2)
    monkeypatch.setattr(verify_module, "changes", counted)
    monkeypatch.setattr(patch_module, "_pairs_text", one_wrong)
    wrong = process(fleet, Options(workers=1))
    assert wrong_text and any(wrong_text[0] in text for text in calls)  # the wrong VM was told, not read
    assert wrong.exit_code == right.exit_code == 0
    assert [loaded(item) for item in _items(wrong.data)] == [loaded(item) for item in _items(right.data)]
    differ = [i for i, (a, b) in enumerate(zip(_items(wrong.data), _items(right.data), strict=True)) if a != b]
    assert len(differ) == 1  # that VM alone: written fresh (the emitter's quoting), where the others are spliced
    assert "index: '0'" in _items(right.data)[differ[0]] and "index: '0'" not in _items(wrong.data)[differ[0]]
