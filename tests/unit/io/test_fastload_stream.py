"""The yaml-rs lane for plain streams (``fastload.load_stream``, the standalone mode's documents) must read
every stream exactly as the libyaml loader does, or step aside: the same corpora as the ResourceList lane
(tests/unit/io/test_fastload.py), as ``---``-separated documents, compared with
:func:`krm_fn.io.loader.load_documents` (values, types and spans; empty documents hold no object and are left
out by both readers' users)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krm_fn.errors import InputError
from krm_fn.io import fastload
from krm_fn.io.inputs import read_documents
from krm_fn.io.loader import load_documents
from tests.conftest import bench_module
from tests.unit.io import test_fastload as base
from tests.randomised import count


class Count:
    """Documents the lane handed to the loader."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.exact = 0
        real = fastload._exact_documents

        def counting(text: str, *args: Any, **kw: Any) -> Any:
            self.exact += 1
            return real(text, *args, **kw)

        monkeypatch.setattr(fastload, "_exact_documents", counting)


def stream(docs: list[str]) -> str:
    return "".join(d if d.endswith("\n") else d + "\n" for d in docs[:1]) + "".join(
        "---\n" + (d if d.endswith("\n") else d + "\n") for d in docs[1:])


def agree(text: str) -> bool:
    """Assert the lane agrees with the loader on ``text``; True when the lane applied."""
    fast = fastload.load_stream(text)
    try:
        exact = [d for d in load_documents(text) if d.value is not None]
    except InputError:
        assert fast is None, "the lane accepted input the loader rejects"
        return False
    if fast is None:
        return False
    assert len(fast) == len(exact)
    for i, (w, g) in enumerate(zip(exact, fast)):
        assert base.same(w.value, g.value), f"document {i}: {w.value!r} != {g.value!r}"
        assert (w.start, w.end, w.column) == (g.start, g.end, g.column), f"document {i} span"
    return True


def test_synthetic_manifests_take_the_lane_without_a_single_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    text = bench_module("synth").manifests(200)
    count = Count(monkeypatch)
    assert agree(text)
    assert count.exact == 0
    assert read_documents(text, fast=True)[0][0].value == load_documents(text)[0].value


@pytest.mark.parametrize("place", list(base.PLACES))
def test_tokens_in_every_place_read_as_the_loader_reads_them(place: str) -> None:
    docs = [base.PLACES[place].format(t=t) for t in base._tokens()]
    docs = [d for d in docs if base._valid(d)]
    assert len(docs) > 1000
    agree(stream(docs))  # where a token at column 0 is a document marker or a directive, the loader reads all
    assert agree(stream([d for d in docs if not d.startswith(("---", "...", "%"))]))


@pytest.mark.parametrize("name", list(fastload.TOKENS))
def test_each_risk_class_is_needed(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    examples = [e for e in base.CLASS_EXAMPLES[name] if not e.startswith("l:\n- ")]
    for example in examples:  # with every class, the lane agrees (or steps aside where the loader refuses)
        agree(stream(["kind: A", "kind: X\n" + example, "kind: B"]))
        agree(stream(["kind: A", "kind: X\n" + example]))
    monkeypatch.setattr(fastload, "_RISK", fastload.risk_patterns({k: v for k, v in fastload.TOKENS.items()
                                                                    if k != name}))
    failed = 0
    for example in examples:  # without this one, the examples are read differently (or accepted wrongly)
        try:
            agree(stream(["kind: A", "kind: X\n" + example]))
        except AssertionError:
            failed += 1
    assert failed


def test_string_styles_read_as_the_loader_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = [d for d in base.STRINGS if base._valid(d)]
    count = Count(monkeypatch)
    assert agree(stream(docs))
    assert count.exact - 1 < len(docs) // 2  # most of them are the lane's own work


@settings(max_examples=count(50, 200), deadline=None, database=None)
@given(st.lists(base._handwritten_documents(), min_size=1, max_size=4), st.sampled_from(["", "# end\n", "---\n"]))
def test_handwritten_layouts_read_as_the_loader_reads_them(docs: list[str], tail: str) -> None:
    docs = [d for d in ("kind: X\n" + doc for doc in docs) if base._valid(d)]
    if docs:
        agree(stream(docs) + tail)


def test_real_files_read_as_the_loader_reads_them() -> None:
    applied = 0
    for f in base._yaml_files():
        text = f.read_text(encoding="utf-8")
        applied += agree(text)
    assert applied > 20


@pytest.mark.parametrize("text", [
    "# license\n# header\n\napiVersion: v1\nkind: A\n# trailing\n---\n# only a comment\n---\nkind: B\n",
    "---\nkind: A\n---\n",
    "kind: A\n---\n\n---\nkind: B\n",
    "kind: A\n---\n  kind: B\n",  # an indented document: the loader's
    "kind: A\n---\n{kind: B}\n",
    "kind: A\n---\n'kind': B\n",
])
def test_comments_and_empty_documents_read_as_the_loader_reads_them(text: str) -> None:
    assert agree(text)


@pytest.mark.parametrize("text", [
    "kind: A\n--- # marker comment\nkind: B\n",
    "kind: A\n--- {kind: B}\n",
    "kind: A\n...\n---\nkind: B\n",
    "%YAML 1.1\n---\nkind: A\n",
    "kind: A\n---\n---\nkind: B\n",
    "kind: A\n---\nkind: B\r\n",
    "kind: A\n---\nk:\n" + " " * 256 + "x: 1\n",
])
def test_other_layouts_are_left_to_the_loader(text: str) -> None:
    assert fastload.load_stream(text) is None
    assert not agree(text)


@pytest.mark.parametrize("text", [
    "kind: A\n---\nkind: B\nkind: C\n",
    "kind: A\n---\nk: \"open\n---\nkind: B\n",
    "kind: A\n---\nk: *nowhere\n",
    "kind: A\n---\nk: !!python/object x\n",
    "kind: A\n---\nk: 1\n   b: 2\n",
])
def test_bad_input_gets_the_loaders_error_with_the_files_line(text: str) -> None:
    with pytest.raises(InputError) as exact:
        load_documents(text)
    with pytest.raises(InputError) as through_lane:
        read_documents(text, fast=True)
    assert through_lane.value.message == exact.value.message
    assert re.search(r"line [3-9]", exact.value.message)
