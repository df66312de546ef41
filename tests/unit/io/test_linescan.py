"""The line scan (krm_fn.io.linescan) against libyaml's events: on every text it accepts, the same events in the
places the splice walk reads; on random layouts in and out of its subset, and on random damage to them."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from krm_fn.io.linescan import END, FLOW_MAP, MAP, OTHER, SCALAR, SEQ, STREAM_END, Unsure, scan, scannable
from krm_fn.io.loader import key_text, scalar_value
from krm_fn.io.patch import _libyaml_events, locate, plan
from tests.conftest import REPO
from tests.randomised import SEED, count, digits_drawn_again


def _libyaml(text: str) -> list[tuple[Any, ...]] | None:
    """libyaml's events as the walk reads them (None: libyaml refuses the text); a scalar that comes first in a
    mapping's pair carries its key text, as the walk reads it."""
    try:
        raw = [e for e in _libyaml_events(text) if e[0] != OTHER]
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
    from krm_fn.io import patch
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
            monkeypatch.setattr(patch, "scannable", lambda _t: False)
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
    return ([(s, o, k, repr(p[0]), p[1]) for s, o, k, p in spans],
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


def _lockstep(rng: random.Random, text: str, leap: bool = False) -> bool:
    """Walk the scan and libyaml side by side, skipping collections at random: the same events where both give
    one (the scan may give up first). Whether the scan read the text to its end."""
    fast, slow = scan(text, leap), _libyaml_events(text)
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
    from krm_fn.io import patch
    scanned = locate(text, edits)
    original = patch.scannable
    patch.scannable = lambda _t: False  # type: ignore[assignment]
    try:
        assert _plain(scanned) == _plain(locate(text, alone))
    finally:
        patch.scannable = original
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


def test_leaping_over_a_skipped_collection_gives_libyamls_end_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """``scan(text, leap=True)`` finds a skipped collection's end with one regex search (linescan._leap): on every
    text libyaml reads, the same events as libyaml's, whatever the skipped lines hold; the leap gives up (reads
    the lines) wherever a quoted scalar or flow collection could go on to another line. Texts libyaml refuses are
    never located (the source was read)."""
    from krm_fn.io import linescan

    outcomes = {"leapt": 0, "declined": 0}
    real = linescan._leap

    def counted(text: str, pos: int, column: int, indentless: bool) -> int:
        end = real(text, pos, column, indentless)
        outcomes["leapt" if end >= 0 else "declined"] += 1
        return end

    monkeypatch.setattr(linescan, "_leap", counted)
    rng = random.Random(SEED)
    whole = only_leaping = 0
    for text in _random_texts(rng, count(3000, 30000), 0.7):
        if _reads(text) is None:
            continue
        for _ in range(4):  # different collections skipped
            seed = rng.random()
            if _lockstep(random.Random(seed), text, leap=True):
                whole += 1
                only_leaping += not _lockstep(random.Random(seed), text)
    assert whole > count(3000, 30000) // 20, whole
    # the leap is taken, declined, and reads texts the line scan alone gives up on
    assert outcomes["leapt"] > count(3000, 30000) // 20 and outcomes["declined"] > 50 and only_leaping > 20, (
        outcomes, only_leaping)


def _random_texts(rng: random.Random, n: int, noisy: float) -> Iterator[str]:
    """The :func:`scannable` ones of ``n`` random layouts, a share ``noisy`` of them with noise put in."""
    for _ in range(n):
        text = _layout(rng)
        if rng.random() < noisy:
            text = _noisy(rng, text)
        if scannable(text):
            yield text


def _reads(text: str) -> list[tuple[Any, ...]] | None:
    """libyaml's events as the walk reads them; None when libyaml or the loader's key rule refuses the text."""
    try:
        return _libyaml(text)
    except Exception:  # noqa: BLE001
        return None


@pytest.mark.parametrize(("text", "indentless", "landing"), [
    ("a:\n  b:\n    c: 1\n# c\n    d: 2\n  e: 3\n", False, "  e: 3\n"),             # a comment at column 0
    ("a:\n  b:\n    c: |\n      x\n  # c\n    d: 2\ne: 3\n", False, "e: 3\n"),     # one ends a block scalar
    ("a:\n  b:\n    c: 1\n\n   \n  e: 3\n", False, "  e: 3\n"),                   # blank lines
    ("a:\n  b:\n  - x\n  -\n    y\n  - z\n  c: 1\n", True, "  c: 1\n"),          # an indentless sequence
    ("a:\n  b:\n    c: 1\n    d: 2\n", False, None),                              # the text's end
    ("a:\n  b:\n    c: 'x'\n    d: {e: f}\n    g: [h]\n---\n", False, "---\n"),  # quoted, flow, a marker
])
def test_a_leap_lands_where_libyaml_ends_the_collection(text: str, indentless: bool, landing: str | None) -> None:
    """The line where libyaml ends the collection (its END event at the line's first token: unroll_indent on
    that token's column, scanner.c in libyaml 0.2.5), skipping comment and blank lines."""
    from krm_fn.io.linescan import _leap

    first = text.index("\n", text.index("b:")) + 1  # the collection's first line (read by the scan)
    end = len(text) if landing is None else text.rindex(landing)
    assert _leap(text, text.index("\n", first) + 1, 2 if indentless else 4, indentless) == end
    token = end + len(text[end:]) - len(text[end:].lstrip(" "))
    assert sum(kind == END and start == token for kind, start, *_ in _libyaml_events(text)) >= 1


@pytest.mark.parametrize("text", [
    'a:\n  b:\n    c: 1\n    d: "x\ny"\n  e: 3\n',    # a quoted scalar going on at column 0
    "a:\n  b:\n    c: 1\n    d: [x,\n y]\n  e: 3\n",  # a flow sequence
    "a:\n  b:\n    c: 1\n    d: 1 # it's\n  e: 3\n",  # a quote in a comment: not proven, the lines are read
    "a:\n  b:\n    c: 1\n    d'e: 'f\n  e: 3\n",
])
def test_a_leap_over_a_line_that_could_go_on_gives_up(text: str) -> None:
    from krm_fn.io.linescan import _leap

    first = text.index("\n", text.index("b:")) + 1
    assert _leap(text, text.index("\n", first) + 1, 4, False) == -1


@pytest.mark.parametrize("text", ["a: 'open", 'a: "x\\', "a: [b,", "a: 'x'", "'", "a: 1\nb: {c: d}"])
def test_a_last_line_without_its_line_break_is_not_read_as_closed(text: str) -> None:
    """The first three open a quoted scalar or a flow collection that goes on past the line (in YAML one ends only
    at its closing quote or bracket, on whatever line): ``closed`` gave True on them; on a text that is one line
    ending in a quote it searched for that quote again from the text's end, for ever. Never in a scannable text
    (which ends in a line break): with one, the lines are read."""
    from krm_fn.io.linescan import closed

    assert closed(text, 0, len(text)) is False
    assert closed(text + "\n", 0, len(text) + 1) is (text.count("'") == 2 or text.endswith("}"))


# --- the search for an item read back whole (patch._searched) ----------------------------------------------

def _searched(text: str, edits: Any, entry: bool) -> Any:
    """What ``patch._searched`` finds (read alike), or None when it leaves the text to the walk."""
    from krm_fn.io import patch

    try:
        return _plain(patch._searched(text, edits, entry))
    except Unsure:
        return None


def _walked(text: str, edits: Any, entry: bool) -> Any:
    """What the walk finds on libyaml's events (read alike)."""
    from krm_fn.io import patch

    return _plain(patch._walk(text, edits, entry, _libyaml_events(text), []))


def _loaded_item(text: str) -> dict[str, Any] | None:
    """The item ``text`` holds as the loader reads it (a document, or a one-entry sequence: its entry), or None
    when the loader refuses it (duplicate keys among the reasons) or it holds no mapping."""
    from krm_fn.io.loader import load_documents

    try:
        docs = load_documents(text)
    except Exception:  # noqa: BLE001
        return None
    if len(docs) != 1:
        return None
    value = docs[0].value
    if text.startswith("- ") and type(value) is list and len(value) == 1:
        value = value[0]
    return value if type(value) is dict and value else None


def _edited_whole(rng: random.Random, old: dict[str, Any]) -> dict[str, Any]:
    """A random edit of ``old`` (removed, replaced, added and nested changes) with a change of the item's own
    mapping, as expand makes (``status``): the item is read back whole, the case ``_searched`` serves."""
    new = _edit(rng, copy.deepcopy(old))
    if rng.random() < 0.7 or new == old:
        new["status"] = {}
    return new


# KUBEVIRT_KRM_SEED=2507795875 drew this: the loader takes `spec` twice (the merge set it, the explicit key after
# the merge overrides it), so the key line the search found first is not the pair the walk ends on
_MERGED_TWICE = ('k1:\n  spec:\n   x-y_z: |\n     more\n  <<:\n    spec:\n      k1: {name: u1.medium}\n'
                 '  spec: x \n')


def test_a_text_with_a_merge_key_is_left_to_the_walk() -> None:
    old = _loaded_item(_MERGED_TWICE)
    assert old == {"k1": {"spec": "x"}}  # the loader reads the key twice (a plain duplicate is refused)
    new = {"k1": {"spec": "changed"}, "status": {}}
    edits = plan(old, new)
    assert edits is not None
    assert _searched(_MERGED_TWICE, edits, False) is None  # gives up: the walk decides
    assert _walked(_MERGED_TWICE, plan(old, new), False) is not None
    heredoc = "a:\n  b: |\n    cat <<EOF\n    x\n    EOF\nc: 1\n"
    loaded = _loaded_item(heredoc)
    assert loaded is not None
    assert _searched(heredoc, plan(loaded, {**loaded, "status": {}}), False) is not None  # no colon: searched


def test_searching_an_item_read_back_whole_finds_what_the_walk_finds_on_libyamls_events() -> None:
    """Wherever ``patch._searched`` does not give up, its pairs, insertion points and sites are the walk's over
    libyaml's events: on random layouts, noisy ones (comments and blank lines at any column, quoted scalars and
    flow collections over several lines, plain scalars over several lines, document markers, block scalars with
    lines like keys and entries), as a document and as a ``- `` entry; texts the loader refuses are never located
    (the source was read)."""
    rng = random.Random(SEED)
    found = compared = 0
    for text in _random_texts(rng, count(4000, 40000), 0.5):
        old = _loaded_item(text)
        if old is None:
            continue
        entry = text.startswith("- ")
        for _ in range(3):
            edits = plan(old, _edited_whole(rng, old))
            if edits is None or not edits.direct():
                continue
            compared += 1
            fast = _searched(text, edits, entry)
            if fast is not None:
                found += 1
                assert fast == _walked(text, edits, entry), text
    # the search serves most items it is offered, and is compared often enough to mean something
    assert found > count(4000, 40000) // 10 and found > compared // 4, (found, compared)


@pytest.mark.parametrize(("text", "new"), [
    # the key searched for also stands in a block scalar, deeper, and under a later key at the mapping's column
    ("x:\n  k: 1\n  m: |\n    k: fake\n  p: 2\nz: |\n  k: fake\n", {"x": {"k": 2, "m": "k: fake\n", "p": 2}}),
    # a comment line at the key's column that names it, blank lines, a comment ending a nested mapping
    ("x:\n  j:\n    a: 1\n  # k: 0\n\n  k: 1\n  i:\n    a: 1\n# c\n  l: 2\n",
     {"x": {"j": {"a": 1}, "k": 2, "i": {"a": 1}, "l": 2}}),
    # the first key of the entry edited, after "- "
    ("- a: 1\n  b:\n    c: 1\n", {"a": 2, "b": {"c": 1}}),
    # an indentless sequence replaced, a block scalar removed
    ("a:\n- x\n- y\nb: |\n  t\n\nc: 1\n", {"a": ["z"], "c": 1}),
    # flow maps of JSON-quoted values (as PyYAML writes leaves), one removed
    ('x:\n  a: {i: "0", j: "k: 1"}\n  k: {name: u1.small}\n  l: 1\n', {"x": {"a": {"i": "0", "j": "k: 1"}, "l": 2}}),
])
def test_searching_lands_where_the_walk_does(text: str, new: dict[str, Any]) -> None:
    old = _loaded_item(text)
    assert old is not None
    new = dict(new, status={})
    edits = plan(old, new)
    assert edits is not None
    fast = _searched(text, edits, text.startswith("- "))
    assert fast is not None and fast == _walked(text, edits, text.startswith("- "))


@pytest.mark.parametrize(("text", "new"), [
    ('x:\n  a: "q\n  k: no"\n  k: 1\n', {"x": {"a": "q k: no", "k": 2}}),   # a quoted scalar over two lines
    ("x:\n  a: [q,\n  k: no]\n  k: 1\n", {"x": {"a": ["q", {"k": "no"}], "k": 2}}),  # a flow sequence too
    ('x:\n  a: {i: "q,\n  k: no"}\n  k: 1\n', {"x": {"a": {"i": "q, k: no"}, "k": 2}}),  # a flow map too
    ('x:\n  "k": 1\n', {"x": {"k": 2}}),                                    # a quoted key
    ("x:\n  k : 1\n", {"x": {"k": 2}}),                                     # "key :"
    ("x:\n  k: 1\n  # c\n", {"x": {"k": 2}}),                              # a comment after a scalar
    ("x:\n  k: 1\n    # c\n  l: 1\n", {"x": {"k": 2, "l": 1}}),            # a deeper one
    ("x: {k: 1}\n", {"x": {"k": 2}}),                                       # a flow map: rewritten by the walk
    ("x:\n  k:\n  l: 1\n", {"x": {"k": 2, "l": 1}}),                        # a null value
    ("x:\n  k: 1\n---\n", {"x": {"k": 2}}),                                 # a document marker
])
def test_searching_gives_up_where_a_line_could_be_read_otherwise(text: str, new: dict[str, Any]) -> None:
    from krm_fn.io.loader import load_documents

    old = load_documents(text)[0].value
    edits = plan(old, dict(new, status={}))
    assert edits is not None
    assert _searched(text, edits, False) is None
    assert _plain(locate(text, edits)) == _walked(text, plan(old, dict(new, status={})), False)


# --- the search's answer recalled for a text alike but for its digits (patch._recalled) ------------------------

def _recall(text: str, edits: Any, entry: bool) -> Any:
    from krm_fn.io import patch

    try:
        return _plain(patch._recalled(text, edits, entry))
    except Unsure:
        return None


def test_a_recalled_answer_is_the_searchs_on_a_text_alike_but_for_its_digits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``patch._recalled`` answers for a text the search answered on before but for its digits (keys among them)
    without searching: on random layouts with their digits drawn again, edited alike, its answer is what
    ``patch._searched`` finds there, and where the search would give up it searches too."""
    from krm_fn.io import patch

    searches = [0]
    real = patch._searched

    def counted(*args: Any) -> Any:
        searches[0] += 1
        return real(*args)

    monkeypatch.setattr(patch, "_searched", counted)
    monkeypatch.setattr(patch, "_RECIPES", {})
    rng = random.Random(SEED)
    recalled = searched = 0
    for text in _random_texts(rng, count(4000, 40000), 0.5):
        old = _loaded_item(text)
        if old is None or not any(c.isdigit() for c in text):
            continue
        entry = text.startswith("- ")
        seed = rng.random()
        edits = plan(old, _edited_whole(random.Random(seed), old))
        patch._RECIPES.clear()
        if edits is None or not edits.direct() or _recall(text, edits, entry) is None:
            continue  # kept for the texts alike (when the search answered)
        for _ in range(3):
            other = digits_drawn_again(rng, text)
            old = _loaded_item(other)
            if old is None:
                continue
            edits = plan(old, _edited_whole(random.Random(seed), old))
            if edits is None or not edits.direct():
                continue
            want = _searched(other, copy.deepcopy(edits), entry)
            before = searches[0]
            assert _recall(other, edits, entry) == want, other
            recalled += searches[0] == before
            searched += searches[0] > before
    # most texts alike are answered without a search; the rest are searched (another shape, a key moved)
    assert recalled > count(4000, 40000) // 10 and searched > 5, (recalled, searched)


@pytest.mark.parametrize(("first", "second", "new"), [
    # the edited key and another one alike but for a digit trade places: it stands elsewhere in the second text
    ("x:\n  k1: 1\n  k2: 2\n", "x:\n  k2: 1\n  k1: 2\n", lambda old: {"x": {**old["x"], "k2": 5}}),
    # the edited key is the mapping's first in one text, not in the other
    ("k1: 1\nk2: 2\n", "k2: 1\nk1: 2\n", lambda old: {**old, "k1": 5}),
    ("- k1: 1\n  k2:\n    a: 1\n", "- k2: 1\n  k1:\n    a: 1\n", lambda old: {**old, "k1": 5}),
])
def test_a_key_found_by_its_name_elsewhere_is_searched_again(monkeypatch: pytest.MonkeyPatch, first: str,
                                                              second: str, new: Any) -> None:
    from krm_fn.io import patch

    monkeypatch.setattr(patch, "_RECIPES", {})
    entry = first.startswith("- ")
    for text in (first, second):
        old = _loaded_item(text)
        assert old is not None
        edits = plan(old, {**new(old), "status": {}})
        assert edits is not None
        assert _recall(text, edits, entry) == _searched(text, copy.deepcopy(edits), entry) is not None
    assert len(patch._RECIPES) == 1  # the same key: the second text's answer was searched, not recalled


# --- the splice decision from the search's facts (patch.Spliced._stands_as_searched) -------------------------

# values the emitter writes over several lines (for :func:`_edit`): block scalars (keep chomping, lines like comments, keys and
# entries, blank lines), a tab, nested collections
_WRITTEN = ["changed", "a\nb\n", "kept\n\n\n", "#c\n  #d\n", "k: v\n- e\n", "x\ty", "tab\t\nline\n", "\n lead\n",
            {"k": {"j": 1}}, [{"a": 1}, "b"], {"m": "l1\n\nl2\n"}, [], {}, None]


def _commented(rng: random.Random, text: str) -> str:
    """``text`` with comment lines and lines of spaces put in at any column."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        lines.insert(rng.randrange(1, len(lines)), " " * rng.randint(0, 9) + rng.choice(["# c", "#", ""]))
    return "\n".join(lines)


def _decisions(text: str, new: dict[str, Any], old: dict[str, Any]) -> tuple[bool, bool] | None:
    """For a splice whose sites :func:`patch._searched` found: what ``_stands_as_searched`` and today's check of
    every site's lines (``_sites_stand``) say; None for any other text."""
    from krm_fn.io import patch
    from krm_fn.io.emitter import Emitter

    edits = plan(old, new)
    if edits is None or not edits.direct():
        return None
    done = patch.splice_checked(text, old, new, Emitter(), edits, text.startswith("- "))
    if done is None or not done._by_search or done.whole_item() is None:
        return None
    fast, slow = done._stands_as_searched(), done._sites_stand()
    assert done.whole_item() is slow
    return fast, slow


def test_the_splice_decision_from_the_search_is_the_site_lines_decision() -> None:
    """Where the sites are the search's and ``_stands_as_searched`` says the splice stands, reading every site's
    lines (``_site_lines``) says so too, so ``whole_item`` answers as before: on random and noisy layouts (comments
    and blank lines at any column, block scalars with lines like comments), as a document and as a ``- `` entry,
    with values written over several lines. Splices that do not stand are rare (about one layout in 330 gives one:
    6000 layouts gave 4 or fewer about once in 600 runs, e.g. KUBEVIRT_KRM_SEED=357, which failed on main):
    further layouts are drawn, 1000 at a time (up to 40,000: 4 or fewer in all of them has a chance below 1e-30),
    until more than 4 are met, so a run needs its witnesses, now not by chance."""
    rng = random.Random(SEED)
    said = {(True, True): 0, (False, True): 0, (False, False): 0}  # (from the search's facts, from the lines)
    _decide(rng, count(6000, 60000), said)
    for _ in range(40):
        if said[True, True] > count(6000, 60000) // 20 and said[False, False] > 4:
            break
        _decide(rng, 1000, said)
    # it decides most splices, and splices that do not stand are met
    assert said[True, True] > count(6000, 60000) // 20 and said[False, False] > 4, said


def _decide(rng: random.Random, n: int, said: dict[tuple[bool, bool], int]) -> None:
    """Checks the splice decisions on the :func:`_random_texts` of ``n`` layouts, counting them in ``said``."""
    for text in _random_texts(rng, n, 0.5):
        text = _commented(rng, text) if rng.random() < 0.7 else text
        old = _loaded_item(text)
        if old is None:
            continue
        for _ in range(3):
            new = _edit(rng, copy.deepcopy(old), _WRITTEN)
            decided = _decisions(text, dict(new, status={}) if rng.random() < 0.7 else new, old)
            if decided is not None:
                assert decided != (True, False), text
                said[decided] += 1


@pytest.mark.parametrize(("text", "new", "stands"), [
    # a comment left of the nested mapping's keys, inside its lines: that site cannot be read alone
    ("x:\n  q:\n    a: 1\n  # c\n    b: 2\nz: 1\n", {"x": {"q": {"a": 1, "b": 3}}, "z": 1}, False),
    # blank lines or a comment after the site's last line: left to the walk (the search wants content there)
    ("x:\n  q:\n    a: 1\n    b:\n      c: 1\n\n\n  w: 1\nz: 1\n", {"x": {"q": {"a": 2, "b": {"c": 1}}, "w": 1}, "z": 1},
     None),
    ("x:\n  q:\n    a: 1\n    b: 1\n    # after\n  w: 1\n", {"x": {"q": {"a": 2, "b": 1}, "w": 1}}, None),
    # a comment at the parent's column after a site's key line and before a deeper one: inside its lines
    ("x:\n  q:\n    a: 1\n    b:\n      c: 1\n  # c\n      d: 1\n  w: 1\n",
     {"x": {"q": {"a": 2, "b": {"c": 1, "d": 1}}, "w": 1}}, False),
    # a site ending in a block scalar with keep chomping, and one written so (its blank lines end the site)
    ("x:\n  q:\n    a: 1\n    b: |+\n      t\n  w: 1\n", {"x": {"q": {"a": 2, "b": "t\n"}, "w": 1}}, True),
    ("x:\n  q:\n    a: 1\n    b: 1\n  w: 1\n", {"x": {"q": {"a": 1, "b": "kept\n\n\n"}, "w": 1}}, True),
    # a less indented comment inside a block scalar's lines (it ends the scalar: a comment)
    ("x:\n  q:\n    a: 1\n    b: |\n      t\n # c\n    d: 1\n", {"x": {"q": {"a": 2, "b": "t\n", "d": 1}}}, False),
    # comment-like lines deeper than every site (a cloud-config)
    ("x:\n  q:\n    a: 1\n    b: |\n      #c\n      t\n", {"x": {"q": {"a": 2, "b": "#c\nt\n"}}}, True),
    # a flow map beside the edits (read whole on its line), one written with a value over several lines
    ("x:\n  q:\n    a: {i: \"0\"}\n    b: 1\n", {"x": {"q": {"a": {"i": "0"}, "b": "l1\nl2\n"}}}, True),
    # a value written with a tab
    ("x:\n  q:\n    a: 1\n", {"x": {"q": {"a": "t\tu\nv\n"}}}, True),
])
def test_the_splice_decision_from_the_search_on_traps(text: str, new: dict[str, Any], stands: bool | None) -> None:
    old = _loaded_item(text)
    assert old is not None
    decided = _decisions(text, dict(new, status={}), old)
    assert (decided is None if stands is None else decided is not None and decided[1] is stands), decided
    assert decided != (True, False)
