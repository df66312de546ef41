"""Differential layout fuzzer: the same objects in many layouts must mean the same to the function.

Each example is a small object set (``strategies.LayoutObjects``: VMs using builtin instancetypes and
preferences, some rejected by KubeVirt, instancetype/preference objects, ConfigMaps of tricky scalars), a mode
and :data:`PER_EXAMPLE` layouts (``layouts.draw_layout``). The canonical layout (kpt's) is run first and must
pass every property itself; then for every layout:

* **the layout is right** — PyYAML's libyaml SafeLoader (YAML 1.1, timestamps kept as strings) reads the
  objects of the canonical text. This proves the layout writer, not the product: it fails as a writer bug.
* **one reading** — our loader reads what it reads from the canonical text, and so does the ResourceList
  reader or the stream reader (the yaml-rs fast lane where it applies);
* **same verdict** — no refusal and no exception, the same results (severity, message, resourceRef, field
  path and values) and exit code;
* **valid output** — the output parses with our loader and with PyYAML;
* **same output** — its objects (our loader) are the canonical output's;
* **no-op second render** — the output rendered again (results stripped, as kpt does) is byte-identical.

Modes: KRM (``process.process``) in revisions per-vm and shared, expand and validate; stream (what
``kubevirt-krm CONFIG.yaml -`` does with stdin: ``process.process_stream``, which reads documents with the
yaml-rs lane where it applies) in revisions and expand.

The examples come from the run's seed (``tests/randomised.py``: fresh every run, printed in the pytest header
and summary, replayed with ``KUBEVIRT_KRM_SEED=N``). Knobs: ``KUBEVIRT_KRM_LAYOUTS`` (layouts per run, default
2,000; 20,000 with ``KUBEVIRT_KRM_DEEP=1``), ``KUBEVIRT_KRM_LAYOUT_DIMENSIONS``
(comma-separated: only these dimensions, e.g. ``comments,anchors``), ``KUBEVIRT_KRM_LAYOUT_MODES`` (e.g.
``expand,stream-expand``). One case by hand, or a survey of failure classes with minimal reproducers::

    python -m tests.reliability.test_layouts --objects 12 --mode expand --layout-seed 7 --show
    python -m tests.reliability.test_layouts --survey 20000 --findings /tmp/findings.md
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from krm_fn.errors import InputError
from krm_fn.io.inputs import Source, read_documents
from krm_fn.io.loader import load_documents
from krm_fn.io.resourcelist import (
    decode,
    dump_resource_list,
    parse_resource_list,
)
from krm_fn.process import Options, process, process_stream
from krm_fn.results import Result
from tests.randomised import count
from tests.reliability.layouts import DIMENSIONS, Layout, Map, Node, Seq, Str, draw_layout, node, write_documents
from tests.reliability.strategies import LayoutObjects
from tests.reliability.support import renderer

pytestmark = [pytest.mark.reliability, pytest.mark.usefixtures("shared_builtin_catalog")]

TARGET = count(2000, 20000, "KUBEVIRT_KRM_LAYOUTS")
PER_EXAMPLE = 10
ONLY = tuple(d for d in os.environ.get("KUBEVIRT_KRM_LAYOUT_DIMENSIONS", "").split(",") if d)
MODES = ("revisions", "shared", "expand", "validate", "stream-revisions", "stream-expand")
RUN_MODES = tuple(m for m in os.environ.get("KUBEVIRT_KRM_LAYOUT_MODES", "").split(",") if m) or MODES
assert set(ONLY) <= set(DIMENSIONS), f"unknown dimensions {set(ONLY) - set(DIMENSIONS)}; known: {list(DIMENSIONS)}"
assert set(RUN_MODES) <= set(MODES), f"unknown modes {set(RUN_MODES) - set(MODES)}; known: {MODES}"


# --- readers ------------------------------------------------------------------------------------------------
class YAML11(yaml.CSafeLoader):
    """PyYAML on libyaml, resolving as YAML 1.1, timestamps kept as strings (as kubectl decodes them)."""


def _timestamp_as_str(loader: YAML11, n: yaml.Node) -> str:
    return str(loader.construct_scalar(n))  # type: ignore[arg-type]  # a timestamp is a scalar node


YAML11.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_str)


def typed(v: Any) -> Any:
    """A comparable form that keeps types (``1``, ``1.0`` and ``True`` differ; NaN equals NaN; key order
    does not matter)."""
    if isinstance(v, dict):
        return ("map", tuple(sorted((typed(k), typed(x)) for k, x in v.items())))
    if isinstance(v, list):
        return ("seq", tuple(typed(x) for x in v))
    if isinstance(v, float):
        return ("float", repr(v))
    return (type(v).__name__, v)


def pyyaml_docs(text: str) -> list[Any]:
    return [typed(d) for d in yaml.load_all(text, Loader=YAML11) if d is not None]


def loader_docs(text: str) -> list[Any]:
    return [typed(d.value) for d in load_documents(decode(text.encode("utf-8"))) if d.value is not None]


def difference(a: Any, b: Any, path: str = "") -> str:
    """Where two ``typed`` values first differ."""
    if a == b:
        return ""
    if a[0] == b[0] == "map":
        da, db = dict(a[1]), dict(b[1])
        for k in list(da) + [k for k in db if k not in da]:
            where = f"{path}.{k[1]}"
            if k not in db or k not in da:
                return f"{where}: {'only in the layout' if k in db else 'missing in the layout'}"
            sub = difference(da[k], db[k], where)
            if sub:
                return sub
    if a[0] == b[0] == "seq" and len(a[1]) == len(b[1]):
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            sub = difference(x, y, f"{path}[{i}]")
            if sub:
                return sub
    return f"{path or '.'}: canonical {_short(a)}, layout {_short(b)}"


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) < 200 else text[:200] + "..."


# --- one run -------------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What one input did: refused / raised (``error``), else the verdict and the output."""

    error: str | None = None
    exit: int = 0
    results: list[Any] = field(default_factory=list)
    output: str | None = None  # None: nothing written (stream mode on errors)


def _verdict(results: list[Result]) -> list[Any]:
    return [typed(r.to_obj()) for r in results]


def _guarded(fn: Callable[[], Outcome]) -> Outcome:
    try:
        return fn()
    except InputError as exc:
        return Outcome(error=f"refused: {exc.message}")
    except Exception as exc:  # noqa: BLE001 - any exception is a finding, reported with its traceback
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        return Outcome(error=f"raised {type(exc).__name__}: {exc} ({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})")


def run_krm(text: str) -> Outcome:
    def go() -> Outcome:
        out = process(text.encode("utf-8"), Options())
        return Outcome(exit=out.exit_code, results=_verdict(out.results), output=out.data.decode("utf-8"))
    return _guarded(go)


def run_stream(text: str, config_text: str) -> Outcome:
    """The standalone / kustomize-plugin path for stdin ``text``, minus the process edges."""
    def go() -> Outcome:
        out = process_stream(Source("config file", config_text.encode("utf-8")),
                             [Source("stdin", text.encode("utf-8"), is_file=False)], Options())
        return Outcome(exit=out.exit_code, results=_verdict(out.results),
                       output=out.data.decode("utf-8") if out.exit_code == 0 else None)
    return _guarded(go)


def strip_results(output: str) -> str:
    """The output as kpt hands it to the next run: results dropped."""
    rl = parse_resource_list(output)
    return dump_resource_list(rl, rl.items, [])


# --- cases ---------------------------------------------------------------------------------------------------
def fn_config(mode: str) -> dict[str, Any]:
    render_mode = mode.removeprefix("stream-")
    if render_mode == "shared":
        return renderer("revisions", revisions={"scope": "shared"})
    return renderer(render_mode)


def roots(items: list[Node], mode: str) -> list[Node]:
    """The documents of the input: one ResourceList (KRM) or the items (stream)."""
    if mode.startswith("stream-"):
        return items
    return [Map((("apiVersion", Str("config.kubernetes.io/v1")), ("kind", Str("ResourceList")),
                 ("items", Seq(tuple(items))), ("functionConfig", node(fn_config(mode)))))]


@dataclass
class Canonical:
    """The canonical layout's text, readings and outcome."""

    text: str
    config_text: str
    pyyaml: list[Any]
    loader: list[Any]
    outcome: Outcome
    output: list[Any]


@dataclass(frozen=True)
class Finding:
    prop: str      # which property failed
    detail: str    # what differs


def run_mode(mode: str, text: str, config_text: str) -> Outcome:
    return run_stream(text, config_text) if mode.startswith("stream-") else run_krm(text)


def check_output(mode: str, outcome: Outcome, config_text: str) -> tuple[list[Finding], list[Any] | None]:
    """Valid YAML out, and a no-op second render; returns the output's objects (our loader)."""
    if outcome.output is None:
        return [], None
    out = outcome.output
    try:
        objects = loader_docs(out)
        list(yaml.load_all(out, Loader=YAML11))
    except (InputError, yaml.YAMLError) as exc:
        message = exc.message if isinstance(exc, InputError) else str(exc).replace("\n", " ")
        return [Finding("invalid-output", f"{message[:300]}; output: {out[-1500:]!r}")], None
    if mode.startswith("stream-"):
        again = out
        second = run_stream(again, config_text)
        second_text = second.output
    else:
        try:
            again = strip_results(out)
        except InputError as exc:
            return [Finding("second-render", f"the output is refused: {exc.message}")], objects
        second = run_krm(again)
        second_text = strip_results(second.output) if second.output is not None and second.error is None else None
    if second.error is not None:
        return [Finding("second-render", f"the output {second.error}")], objects
    if second.exit != outcome.exit:
        return [Finding("second-render", f"the output gives exit {second.exit}: {_short(second.results)}")], objects
    if second_text != again:
        return [Finding("second-render", _text_diff(again, second_text or ""))], objects
    return [], objects


def _text_diff(a: str, b: str) -> str:
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"first render {a[max(0, i - 80):i + 120]!r} / second {b[max(0, i - 80):i + 120]!r}"


def canonical(items: list[Node], mode: str) -> tuple[Canonical, list[Finding]]:
    docs = roots(items, mode)
    text = write_documents(docs, Layout(), resource_list=not mode.startswith("stream-"))
    config_text = write_documents([node(fn_config(mode))], Layout())
    outcome = run_mode(mode, text, config_text)
    canon = Canonical(text, config_text, pyyaml_docs(text), loader_docs(text), outcome, [])
    findings = [Finding("canonical-" + outcome.error.split(":")[0], outcome.error)] if outcome.error else []
    problems, output = check_output(mode, outcome, config_text) if not findings else ([], None)
    # the readers must agree on the canonical text too, or its verdict is not the reference
    problems += _readers(canon, text, mode.startswith("stream-"))
    findings += [Finding("canonical-" + f.prop, f.detail) for f in problems]
    canon.output = output or []
    return canon, findings


class LayoutBug(AssertionError):
    """The layout writer wrote something PyYAML reads differently: a bug in the fuzzer, not the product."""


def check_layout(canon: Canonical, items: list[Node], mode: str, lay: Layout) -> tuple[str, list[Finding]]:
    """The input text of ``lay`` and every property it breaks."""
    stream = mode.startswith("stream-")
    text = write_documents(roots(items, mode), lay, resource_list=not stream)
    try:
        seen = pyyaml_docs(text)
    except yaml.YAMLError as exc:
        raise LayoutBug(f"PyYAML refuses layout {lay}: {exc}\n{text!r}") from None
    if seen != canon.pyyaml:
        raise LayoutBug(f"PyYAML reads layout {lay} differently: "
                        f"{difference(('seq', tuple(canon.pyyaml)), ('seq', tuple(seen)))}\n{text!r}")
    findings = _readers(canon, text, stream)
    outcome = run_mode(mode, text, canon.config_text)
    if outcome.error is not None:
        kind, _, message = outcome.error.partition(": ")
        return text, findings + [Finding(kind.split(" ")[0], message if kind == "refused" else outcome.error)]
    want = canon.outcome
    if (outcome.exit, outcome.results) != (want.exit, want.results):
        findings.append(Finding("verdict", _verdict_diff(want, outcome)))
    problems, objects = check_output(mode, outcome, canon.config_text)
    findings += problems
    if objects is not None and objects != canon.output:
        findings.append(Finding("output", difference(("seq", tuple(canon.output)), ("seq", tuple(objects)))))
    elif outcome.output is None and want.output is not None:
        findings.append(Finding("output", "nothing written"))
    return text, findings


def _readers(canon: Canonical, text: str, stream: bool) -> list[Finding]:
    """Our loader and the ResourceList reader (fast lane) read the canonical objects."""
    try:
        ours = loader_docs(text)
    except InputError as exc:
        return [Finding("reader", f"loader refuses: {exc.message}")]
    if ours != canon.loader:
        return [Finding("reader", "loader: " + difference(("seq", tuple(canon.loader)), ("seq", tuple(ours))))]
    if stream:
        try:
            docs = read_documents(decode(text.encode("utf-8")), fast=True)[0]
        except InputError as exc:
            return [Finding("reader", f"stream reader refuses: {exc.message}")]
        got_docs = [typed(d.value) for d in docs if d.value is not None]
        if got_docs != canon.loader:
            return [Finding("reader", "stream reader: " + difference(("seq", tuple(canon.loader)),
                                                                     ("seq", tuple(got_docs))))]
        return []
    try:
        lane = parse_resource_list(decode(text.encode("utf-8")))
    except InputError as exc:
        return [Finding("reader", f"ResourceList reader refuses: {exc.message}")]
    canon_items = dict(canon.loader[0][1])[("str", "items")]
    got = typed(lane.items)
    if got != canon_items:
        return [Finding("reader", "ResourceList reader: " + difference(canon_items, got, "items"))]
    return []


def _verdict_diff(want: Outcome, got: Outcome) -> str:
    if want.exit != got.exit:
        head = f"exit {want.exit} -> {got.exit}; "
    else:
        head = ""
    extra = [r for r in got.results if r not in want.results]
    missing = [r for r in want.results if r not in got.results]
    return head + f"new results {_short(extra)}; missing results {_short(missing)}"


def check_case(objects: int, mode: str, layout_seeds: list[int], only: tuple[str, ...] = ()
               ) -> list[tuple[Layout, str, Finding]]:
    """Every finding of one object set in one mode over the given layouts (the canonical run's own first)."""
    items = LayoutObjects(objects).items()
    canon, findings = canonical(items, mode)
    if findings:
        return [(Layout(), canon.text, f) for f in findings]
    out: list[tuple[Layout, str, Finding]] = []
    for seed in layout_seeds:
        lay = draw_layout(seed, only, stream=mode.startswith("stream-"))
        text, found = check_layout(canon, items, mode, lay)
        out += [(lay, text, f) for f in found]
    return out


# --- the test ------------------------------------------------------------------------------------------------
COUNT = [0]
# the layouts are checked in shards, so that a run on several cores spreads them
SHARDS = 4
# the run's seed (conftest.py hands it to hypothesis); no shrinking: the report names each case's own seeds
FUZZ = settings(max_examples=math.ceil(TARGET / SHARDS / PER_EXAMPLE), deadline=None, database=None,
                phases=[Phase.explicit, Phase.generate], print_blob=False)
_SPREAD = 0x9E3779B9  # a shard's draws moved by this much: each shard checks other object sets and layouts


def _report(objects: int, mode: str, found: list[tuple[Layout, str, Finding]]) -> str:
    lines = [f"{len(found)} finding(s) for object set {objects} in mode {mode}:"]
    seen: set[str] = set()
    for lay, text, f in found:
        if f.prop in seen:
            continue
        seen.add(f.prop)
        lines += [f"- {f.prop}: {f.detail}",
                  f"  layout dimensions {', '.join(lay.dims) or 'canonical'}; reproduce: python -m "
                  f"tests.reliability.test_layouts --objects {objects} --mode {mode} --layout-seed {lay.seed}"
                  f"{' --dims ' + ','.join(ONLY) if ONLY else ''} --show",
                  f"  input: {text[:1500]!r}"]
    return "\n".join(lines)


@FUZZ
@given(objects=st.integers(0, 2**32 - 1), mode=st.sampled_from(RUN_MODES), base=st.integers(0, 2**32 - 1))
def _fuzz(shard: int, objects: int, mode: str, base: int) -> None:
    objects = (objects + shard * _SPREAD) % 2**32
    base = (base + shard * _SPREAD * PER_EXAMPLE) % 2**32
    seeds = [base + i for i in range(PER_EXAMPLE)]
    found = check_case(objects, mode, seeds, ONLY)
    COUNT[0] += PER_EXAMPLE
    assert not found, _report(objects, mode, found)


@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_layout_means_the_same(shard: int) -> None:
    COUNT[0] = 0
    _fuzz(shard)
    print(f"\n{COUNT[0]} layouts checked")
    assert COUNT[0] >= TARGET / SHARDS, f"only {COUNT[0]} of {TARGET / SHARDS} layouts were generated"


# --- debugging and the survey of failure classes ------------------------------------------------------------
def _layout_for(seed: int, mode: str, only: tuple[str, ...]) -> Layout:
    return draw_layout(seed, only, stream=mode.startswith("stream-"))


def _show(objects: int, mode: str, seed: int, only: tuple[str, ...]) -> int:
    """One layout of one object set: the texts and every finding."""
    items = LayoutObjects(objects).items()
    canon, findings = canonical(items, mode)
    print(f"--- canonical input ({mode})\n{canon.text}")
    for f in findings:
        print(f"CANONICAL {f.prop}: {f.detail}")
    lay = _layout_for(seed, mode, only)
    text, found = check_layout(canon, items, mode, lay)
    print(f"--- layout {lay}\n{text}\n--- repr\n{text!r}")
    for f in found:
        print(f"FINDING {f.prop}: {f.detail}")
    return 1 if found or findings else 0


# node paths that make an item what it is (never removed while minimizing)
_KEEP = {("apiVersion",), ("kind",), ("metadata",), ("metadata", "name")}


def _removals(n: Node, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every removable mapping pair / sequence entry below ``n`` (shallow first)."""
    here: list[tuple[Any, ...]] = []
    deeper: list[tuple[Any, ...]] = []
    if isinstance(n, Map):
        for k, v in n.pairs:
            keyed = tuple(p for p in path if isinstance(p, str)) + (k,)
            if len(path) > 1 or keyed not in _KEEP:
                here.append(path + (k,))
            deeper += _removals(v, path + (k,))
    elif isinstance(n, Seq):
        for i, v in enumerate(n.items):
            here.append(path + (i,))
            deeper += _removals(v, path + (i,))
    return here + deeper


def _without(n: Node, path: tuple[Any, ...]) -> Node:
    head, rest = path[0], path[1:]
    if isinstance(n, Map):
        if not rest:
            return Map(tuple(p for p in n.pairs if p[0] != head))
        return Map(tuple((k, _without(v, rest) if k == head else v) for k, v in n.pairs))
    assert isinstance(n, Seq)
    if not rest:
        return Seq(n.items[:head] + n.items[head + 1:])
    return Seq(tuple(_without(v, rest) if i == head else v for i, v in enumerate(n.items)))


def minimize(items: list[Node], mode: str, lay: Layout, prop: str, budget: int = 250
             ) -> tuple[list[Node], Layout, str, Finding]:
    """The smallest object set and layout (fewest dimensions) still failing ``prop`` (greedy)."""
    calls = [0]

    def fails(its: list[Node], ly: Layout) -> tuple[str, Finding] | None:
        calls[0] += 1
        canon, bad = canonical(its, mode)
        if bad:
            return None
        try:
            text, found = check_layout(canon, its, mode, ly)
        except LayoutBug:
            return None
        hit = [f for f in found if f.prop == prop]
        return (text, hit[0]) if hit else None

    best = fails(items, lay)
    assert best is not None
    for dim in lay.dims:
        if calls[0] < budget:
            r = fails(items, lay.without(dim))
            if r is not None:
                lay, best = lay.without(dim), r
    for i in range(len(items) - 1, -1, -1):
        if calls[0] < budget and len(items) > 1:
            r = fails(items[:i] + items[i + 1:], lay)
            if r is not None:
                items, best = items[:i] + items[i + 1:], r
    progress = True
    while progress and calls[0] < budget:
        progress = False
        for i, item in enumerate(items):
            for path in _removals(item):
                if calls[0] >= budget:
                    break
                try:
                    smaller = _without(item, path)
                except (KeyError, IndexError):
                    continue
                trial = items[:i] + [smaller] + items[i + 1:]
                r = fails(trial, lay)
                if r is not None:
                    items, best, progress = trial, r, True
                    break
            if progress:
                break
    for dim in lay.dims:
        if calls[0] < budget:
            r = fails(items, lay.without(dim))
            if r is not None:
                lay, best = lay.without(dim), r
    return items, lay, best[0], best[1]


def signature(f: Finding) -> str:
    """What kind of difference a finding is, without its particulars (positions, names, values)."""
    detail = f.detail
    if f.prop.endswith("invalid-output") or f.prop.endswith("refused"):
        detail = re.split(r" at line | in \"|; output:", detail)[0]
    elif f.prop.endswith("reader"):
        found = re.search(r"^(.*?):.*canonical \('(\w+)'.*layout \('(\w+)'", detail)
        detail = f"{found.group(1).split(':')[0]}: {found.group(2)} read as {found.group(3)}" if found else detail[:40]
    elif f.prop.endswith("verdict"):
        detail = "exit code" if detail.startswith("exit") else "results"
    elif f.prop.endswith("output"):
        detail = "missing" if "missing in the layout" in detail else "only in the layout" \
            if "only in the layout" in detail else "value"
    elif f.prop.endswith("second-render"):
        detail = "refused" if "refused" in detail else "exit code" if "gives exit" in detail else "changed"
    return re.sub(r"'[^']*'|\"[^\"]*\"|\*\w+|\d+", "_", detail)[:80]


def classify(items: list[Node], mode: str, lay: Layout, f: Finding) -> tuple[list[Node], Layout, str, Finding]:
    """A minimal reproducer of ``f``: the object set minimized, then one dimension alone if that suffices."""
    items, lay, text, f = minimize(items, mode, lay, f.prop)
    canon, _ = canonical(items, mode)
    for dim in lay.dims:
        for k in range(8):
            single = draw_layout(k, (dim,), stream=mode.startswith("stream-"))
            try:
                t, found = check_layout(canon, items, mode, single)
            except LayoutBug:
                continue
            hit = [g for g in found if g.prop == f.prop]
            if hit:
                return items, single, t, hit[0]
    return items, lay, text, f


def survey(n_layouts: int, findings_path: str, seed: int = 0, only: tuple[str, ...] = ()) -> None:
    """Run ``n_layouts`` layouts without stopping; write each failure class with a minimal reproducer."""
    rnd = random.Random(seed)
    classes: dict[tuple[str, ...], list[str]] = {}
    counts: dict[tuple[str, ...], int] = {}
    seen: set[tuple[str, ...]] = set()
    minimized: dict[tuple[str, ...], int] = {}
    totals: dict[tuple[str, ...], int] = {}  # failing layouts per (property, mode kind, signature)
    done = 0
    while done < n_layouts:
        objects, mode = rnd.getrandbits(32), rnd.choice(RUN_MODES)
        base = rnd.getrandbits(32)
        items = LayoutObjects(objects).items()
        canon, bad = canonical(items, mode)
        kind = "stream" if mode.startswith("stream") else "krm"
        done += PER_EXAMPLE
        if bad:
            key = (bad[0].prop, kind, "canonical", signature(bad[0]))
            counts[key] = counts.get(key, 0) + 1
            totals[(bad[0].prop, kind, signature(bad[0]))] = totals.get((bad[0].prop, kind, signature(bad[0])), 0) + 1
            if key not in classes:
                classes[key] = [f"objects {objects}, mode {mode}: {bad[0].detail}", canon.text]
                _write_findings(findings_path, classes, counts, totals, done)
            continue
        for i in range(PER_EXAMPLE):
            lay = _layout_for(base + i, mode, only)
            _text, found = check_layout(canon, items, mode, lay)
            for f in {g.prop: g for g in found}.values():
                raw = (f.prop, kind, ",".join(sorted(lay.dims)), signature(f))
                counts[raw] = counts.get(raw, 0) + 1
                kind_key = (f.prop, kind, signature(f))
                totals[kind_key] = totals.get(kind_key, 0) + 1
                if raw in seen or minimized.get(kind_key, 0) >= 2:  # minimizing is slow: twice per kind
                    continue
                seen.add(raw)
                minimized[kind_key] = minimized.get(kind_key, 0) + 1
                _small, small_lay, small_text, small = classify(items, mode, lay, f)
                key = (f.prop, kind, ", ".join(small_lay.dims) or "none", signature(small))
                counts[key] = counts.get(key, 0) + counts.pop(raw)
                seen.add(key)
                if key not in classes:
                    classes[key] = [f"objects {objects}, mode {mode}, layout seed {small_lay.seed}"
                                    f"{' (only ' + small_lay.dims[0] + ')' if len(small_lay.dims) == 1 else ''}:"
                                    f" {small.detail}", small_text]
                    _write_findings(findings_path, classes, counts, totals, done)
        print(f"{done} layouts, {len(classes)} classes", file=sys.stderr, flush=True)
    _write_findings(findings_path, classes, counts, totals, done)


def _write_findings(path: str, classes: dict[tuple[str, ...], list[str]], counts: dict[tuple[str, ...], int],
                    totals: dict[tuple[str, ...], int], done: int) -> None:
    lines = ["# Layout fuzzer findings", "",
             f"{done} layouts surveyed (`python -m tests.reliability.test_layouts --survey N`). A class is the "
             "property that fails (KRM or stream mode), the layout dimensions needed (one alone when one "
             "suffices; `none`: the canonical layout) and the kind of difference. Each reproducer is minimized "
             "(object set, then dimensions); the input is a Python string literal (CR, BOM visible). `seen` "
             "counts layouts of the survey that failed that way before minimizing.", "",
             "| failing layouts | property | mode | difference |", "|---|---|---|---|"]
    lines += [f"| {n} | {prop} | {kind} | {sig} |" for (prop, kind, sig), n
              in sorted(totals.items(), key=lambda kv: -kv[1])]
    lines.append("")
    for key, (what, text) in sorted(classes.items()):
        prop, kind, dims, sig = key
        lines += [f"## {prop} ({kind}) — dimensions: {dims} — {sig} — seen {counts.get(key, 1)}x",
                  "", what, "", "```python", repr(text), "```", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    import krm_fn.catalog.generate

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--objects", type=int, default=0)
    parser.add_argument("--mode", choices=MODES, default="revisions")
    parser.add_argument("--layout-seed", type=int, default=0)
    parser.add_argument("--dims", default=",".join(ONLY), help="only these dimensions (comma-separated)")
    parser.add_argument("--show", action="store_true", help="print the texts and findings of one layout")
    parser.add_argument("--survey", type=int, default=0, help="survey this many layouts")
    parser.add_argument("--findings", default="layout-findings.md")
    parser.add_argument("--seed", type=int, default=0, help="survey seed")
    args = parser.parse_args(argv)
    only = tuple(d for d in args.dims.split(",") if d)
    original = krm_fn.catalog.generate.load_builtin_objects
    cache = original()
    setattr(krm_fn.catalog.generate, "load_builtin_objects", lambda name="common-instancetypes": (
        cache if name == "common-instancetypes" else original(name)))
    if args.survey:
        survey(args.survey, args.findings, args.seed, only)
        return 0
    return _show(args.objects, args.mode, args.layout_seed, only)


if __name__ == "__main__":
    sys.exit(main())

