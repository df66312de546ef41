"""The line scan (krm_fn.io.linescan) against libyaml's events: on every text it accepts, the same events in the
places the splice walk reads; on random layouts in and out of its subset, and on random damage to them."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from krm_fn.io.linescan import END, FLOW_MAP, MAP, OTHER, SCALAR, SEQ, STREAM_END, Unsure, scan, scannable
from krm_fn.io.loader import key_text, scalar_value
from krm_fn.io.locate import libyaml_events, locate, plan
from tests.builders import REPO
from tests.randomised import SEED, count


def _libyaml(text: str) -> list[tuple[Any, ...]] | None:
    """libyaml's events as the walk reads them (None: libyaml refuses the text); a scalar that comes first in a
    mapping's pair carries its key text, as the walk reads it."""
    try:
        raw = [e for e in libyaml_events(text) if e[0] != OTHER]
    except Exception:
        return None
    out: list[tuple[Any, ...]] = []
    stack: list[list[bool]] = []  # [a mapping, expecting a key]
    inside = 0  # how deep inside a flow mapping (the walk always skips one: the scan gives none of its events)
    for kind, start, end, column, event in raw:
        if inside:
            inside += kind in (MAP, SEQ, FLOW_MAP)
            inside -= kind == END
            if inside:
                continue
        elif kind == FLOW_MAP:
            inside = 1
        if kind == SCALAR and stack and stack[-1][0] and stack[-1][1]:
            out.append((SCALAR, start, end, column, key_text(scalar_value(event), event)))
            stack[-1][1] = False
            continue
        if stack and stack[-1][0]:
            stack[-1][1] = True  # a value: a key comes next (after its end, for a collection)
        if kind in (MAP, SEQ, FLOW_MAP):
            stack.append([kind != SEQ, True])
        elif kind == END:
            stack.pop()
        out.append((kind, start, end, column if kind == MAP else None, None))
    return out


def events(text: str) -> list[tuple[Any, ...]] | None:
    """All the scan's events, or None when it gives up."""
    if not scannable(text):
        return None
    try:
        return list(scan(text))
    except Unsure:
        return None


def _fast(text: str) -> list[tuple[Any, ...]] | None:
    """The scan's events, read alike."""
    out = events(text)
    if out is None:
        return None
    return [(kind, start, end, column if kind == MAP or key is not None else None, key)
            for kind, start, end, column, key in out if kind != OTHER]


def _same_events(text: str) -> bool:
    """Whether the scan accepts ``text``; fails when it does and libyaml reads it otherwise."""
    fast = _fast(text)
    if fast is None:
        return False
    slow = _libyaml(text)
    assert slow is not None, f"the scan accepts what libyaml refuses:\n{text}"
    assert fast == slow, text
    return True


# --- random layouts ---------------------------------------------------------------------------------

# what the scan reads, and (one time in ten) what it must leave to libyaml
_KEYS = (["a", "name", "spec", "kubevirt.io/domain", "x-y_z", "k1"],
         ["on", "Yes", "null", "'q'", '"dq"', "? a", "&x a", "1", "a b", "!t a", "<<"])
_VALUES = (["v", "1", "30Gi", "a b", "'s'", '"d"', "{}", "[]", "|", "|-", ">", "|+", ">-", "http://h", "a,b", "x.y",
            "{a: 1}", '{name: u1.medium, x: "q\\n\\u00e9"}', '{a: "", b: c.d}'],
           ["'it''s'", '"e\\n"', "{a: b: c}", '{a: "\\q"}', "{a, b}", "{a: - b}", "{a: 1,b: 2}", "{a: {b: 1}}",
            "[1, 2]", "*x", "&y v", "!!str v", "v # c", "a: b", "- x", "-1", "|2",
            "", "...", "---", "x ", "v\t", "%v", "@v", "{", "'open", '"a\n  b"', "plain\n  more", "~"])


def _pick(rng: random.Random, choices: tuple[list[str], list[str]]) -> str:
    return rng.choice(choices[rng.random() < 0.1])
_BLOCK_LINES = ["text", "#comment", "- item", "key: v", "", "  deeper", "[a, b]", "   ", "text", "more"]


def _value(rng: random.Random, indent: int, depth: int, out: list[str], prefix: str) -> None:
    """Append a pair's or an entry's value after ``prefix`` (the line so far)."""
    roll = rng.random()
    if depth < 4 and roll < 0.35:
        out.append(prefix.rstrip(" ") + ("\n" if rng.random() < 0.97 else " # c\n"))
        _collection(rng, indent + rng.choice([2] * 8 + [4, 1, 0]), depth + 1, out)
        return
    value = _pick(rng, _VALUES)
    out.append(f"{prefix}{value}\n")
    if value[:1] in "|>":
        deeper = indent + rng.choice([2] * 8 + [4, 0, 1])
        for _ in range(rng.randint(0, 4)):
            line = rng.choice(_BLOCK_LINES)
            out.append((" " * (deeper + rng.choice([0] * 8 + [2, -1])) + line).rstrip(" ") + "\n" if line
                       else "\n")


def _collection(rng: random.Random, indent: int, depth: int, out: list[str]) -> None:
    pad = " " * max(indent, 0)
    if rng.random() < 0.3:  # a sequence
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.5:
                key = _pick(rng, _KEYS)
                _value(rng, indent + 2, depth, out, f"{pad}- {key}: ")
                for _ in range(rng.randint(0, 2)):
                    _value(rng, indent + 2, depth, out, f"{pad}  {_pick(rng, _KEYS)}: ")
            else:
                _value(rng, indent + 2, depth, out, f"{pad}- ")
        return
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.02:
            out.append(f"{pad}# a comment\n")
        elif roll < 0.06:
            out.append("\n")
        _value(rng, indent, depth, out, f"{pad}{_pick(rng, _KEYS)}: ")


def _layout(rng: random.Random) -> str:
    out: list[str] = []
    if rng.random() < 0.3:
        out.append("- ")
        inner: list[str] = []
        _collection(rng, 2, 0, inner)
        first = inner[0]
        out[0] += first[2:] if first.startswith("  ") else first
        out += inner[1:]
    else:
        _collection(rng, 0, 0, out)
    return "".join(out)


def _damage(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text))
    return text[:at] + rng.choice([" ", "", "#", "- ", "\n", ":", "'", "{", "&a ", "\t", "x"]) + text[at + 1:]


def test_random_layouts_give_libyamls_events() -> None:
    rng = random.Random(SEED)
    accepted = damaged = 0
    for _ in range(count(3000, 30000)):
        text = _layout(rng)
        if _same_events(text):
            accepted += 1
            for _ in range(3):
                damaged += _same_events(_damage(rng, text))
    # the subset is hit often enough for the comparison to mean something
    assert accepted > count(3000, 30000) // 20, accepted
    assert damaged > 0


@pytest.mark.parametrize("text", [
    "a: 1\n  b: 2\n",              # a plain scalar continued on the next line
    "a:\nb: 1\n",                  # a null value
    "a: |\n  x\n   y\n z\n",       # a line between the block scalar's indentation and its key's
    "a: |2\n   x\n",               # an indentation indicator
    "a: 1 # c\n",                  # a comment
    "- a\nb: 1\n",                 # a mapping after the root sequence
    "a: 1\n---\nb: 2\n",           # a second document
    "yes: 1\n",                    # a key that is not a string
    "a:\n  - x\n  b: 1\n",         # a key after an indented sequence
    "a: 1",                        # no final line break
])
def test_out_of_subset_texts_are_left_to_libyaml(text: str) -> None:
    assert events(text) is None


def _example_texts() -> list[str]:
    texts = []
    for path in sorted((REPO / "examples").rglob("*.yaml")):
        text = path.read_text()
        for doc in text.split("\n---\n"):
            texts.append(doc if doc.endswith("\n") else doc + "\n")
    return texts


def test_example_texts_give_libyamls_events() -> None:
    accepted = sum(_same_events(text) for text in _example_texts())
    assert accepted > 10, accepted


def test_locate_is_the_same_from_either_event_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk over the scan's events finds what it finds over libyaml's, on edited examples."""
    from krm_fn.io import locate as locate_module
    from krm_fn.io.loader import load_documents

    rng = random.Random(SEED)
    compared = 0
    for text in _example_texts():
        if events(text) is None:
            continue
        try:
            old = load_documents(text)[0].value
        except Exception:
            continue
        if type(old) is not dict or not old:
            continue
        for _ in range(5):
            new = _edit(rng, copy.deepcopy(old))
            edits = plan(old, new)
            if edits is None:
                continue
            fast = locate(text, copy.deepcopy(edits))
            monkeypatch.setattr(locate_module, "scannable", lambda _t: False)
            slow = locate(text, copy.deepcopy(edits))
            monkeypatch.undo()
            assert _plain(fast) == _plain(slow), text
            compared += 1
    assert compared > 20, compared


def _edit(rng: random.Random, node: dict[str, Any], written: list[Any] | None = None) -> dict[str, Any]:
    """``node`` with pairs removed, replaced and added at random, nested mappings edited; the values written are
    ``"changed"`` and ``{"x": 1}``, or drawn from ``written``."""
    for key in list(node):
        roll = rng.random()
        if roll < 0.1:
            del node[key]
        elif roll < 0.2:
            node[key] = "changed" if written is None else copy.deepcopy(rng.choice(written))
        elif type(node[key]) is dict and node[key] and roll < 0.6:
            _edit(rng, node[key], written)
    if rng.random() < 0.5:
        if written is None:
            node["added"] = {"x": 1}
        else:
            node[rng.choice(["added", "zz"])] = copy.deepcopy(rng.choice(written))
    return node


def _plain(located: Any) -> Any:
    if located is None:
        return None
    spans, sites = located
    return ([(s.start, s.end, s.order, s.kind, repr(s.pairs), s.column, repr(s.mapping)) for s in spans],
            [(s.line_start, s.start, s.end, s.order, s.column, s.pair, repr(s.node.new)) for s in sites])


@pytest.mark.parametrize("text", [
    "a: x\n  - y\n",        # a plain scalar continued by a line that looks like an entry
    "a: x\n  b: 1\n",       # libyaml fails on the line after a value
    "- x\n  - y\n",
    "a: {}\n  b: 1\n",
    "a: 'q'\n  b\n",
    "a:\n  b: |\n    x\n   c: 1\n",
])
def test_a_value_is_given_only_once_the_next_line_ends_it(text: str) -> None:
    for seed in range(4):
        assert not _lockstep(random.Random(seed), text)


def test_the_examples_directory_exists() -> None:
    assert Path(REPO / "examples").is_dir()


def _lockstep(rng: random.Random, text: str) -> bool:
    """Walk the scan and libyaml side by side, skipping collections at random: the same events where both give
    one (the scan may give up first). Whether the scan read the text to its end."""
    fast, slow = scan(text), libyaml_events(text)
    skip = False
    while True:
        try:
            got = fast.send(True) if skip else next(fast)
            while got[0] == OTHER:
                got = next(fast)
        except Unsure:
            return False
        try:
            want = slow.send(True) if skip else next(slow)
            while want[0] == OTHER:
                want = next(slow)
        except Exception as exc:  # noqa: BLE001
            raise AssertionError(f"the scan gives {got}, libyaml fails first ({exc}):\n{text}") from None
        kind, start, end, column, key = got
        assert (kind, start, end) == want[:3], (text, got, want)
        if kind == MAP or type(key) is str:
            assert column == want[3], (text, got, want)
        if type(key) is str:
            assert key == key_text(scalar_value(want[4]), want[4]), (text, got, want)
        if kind == STREAM_END:
            return True
        skip = kind == FLOW_MAP or kind in (MAP, SEQ) and rng.random() < 0.5  # the walk skips every flow map


def test_skipping_collections_gives_libyamls_end_events() -> None:
    """Also on texts libyaml refuses, or the scan gives up on, in part: up to where the scan gives up, libyaml
    gives the same events (it fails no earlier)."""
    rng = random.Random(SEED)
    whole = 0
    for _ in range(count(2000, 20000)):
        text = _layout(rng)
        if scannable(text):
            whole += _lockstep(rng, text)
            damaged = _damage(rng, text)
            if scannable(damaged):
                _lockstep(rng, damaged)
    assert whole > count(2000, 20000) // 20, whole


def test_a_flow_pair_rewritten_before_the_scan_gives_up_is_restored() -> None:
    """The walk turns an edited flow map into a rewritten pair, then the scan meets a comment: the walk over
    libyaml's events starts from the edits as they were, and finds what it finds alone."""
    text = "spec:\n  instancetype: {name: a}\n  other: 1\n  more: 1 # c\n"
    old = {"spec": {"instancetype": {"name": "a"}, "other": 1, "more": 1}}
    new = {"spec": {"instancetype": {"name": "a", "revisionName": "r"}, "other": 2, "more": 2}}
    edits = plan(old, new)
    assert edits is not None
    alone = plan(old, new)
    assert alone is not None
    from krm_fn.io import locate as locate_module
    scanned = locate(text, edits)
    original = getattr(locate_module, "scannable")
    setattr(locate_module, "scannable", lambda _t: False)
    try:
        assert _plain(scanned) == _plain(locate(text, alone))
    finally:
        setattr(locate_module, "scannable", original)
    assert _plain(scanned) is not None


# what a skipped collection may hold that the line scan does not read: comments and blank lines at any column,
# block scalars whose lines look like keys, entries or comments, quoted scalars and flow collections over
# several lines (going on at any column), plain scalars over several lines, document markers
_NOISE = ["# c", " # c", "   #- x", "  ", "", "#", "---", "...", "  - x", "  k: v", "    k: 'q'", "  [a, b]"]
_SPANNING = ["'a\nzz: c'", '"a\nzz: c"', "[a,\nzz: c]", "{a: 1,\nzz: c}", "'a\n  zz: c'", '"a\n- zz: c"',
             '"a\nb"', '"a\n\n  b"', "'a\nb: c'", "[a,\nb]", "{a: 1,\nb: 2}", "[a, {b: c,\n d: e}]",
             '"a\n# c\n- d"', "plain\n   more", "'q' # c", "x\n  - y", '"\\"\n', "{a: 'b'\n}", "- 'a'"]


def _noisy(rng: random.Random, text: str) -> str:
    """``text`` with lines the line scan never reads one by one put in at random."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(1, len(lines))
        if rng.random() < 0.5:
            lines.insert(at, " " * rng.choice([0, 0, 1, 2, 3, 4, 6]) + rng.choice(_NOISE))
        else:
            plain = [i for i, line in enumerate(lines) if line.endswith((": v", "- v", ": 1", ": x.y"))]
            if plain:
                i = rng.choice(plain)
                lines[i] = lines[i][:lines[i].rindex(" ") + 1] + rng.choice(_SPANNING)
    return "\n".join(lines)
