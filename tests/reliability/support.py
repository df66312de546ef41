"""Helpers for the reliability suite: strict output validation in tests, hypothesis settings, subprocess limits."""

from __future__ import annotations

import os
import random
import resource
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from krm_fn.index import is_vm
from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import load_documents
from krm_fn.io.resourcelist import dump_resource_list, parse_resource_list
from krm_fn.kubevirt.schema.strict import covers, validate_object
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.process import Options, Output, process, run
from krm_fn.render.output import output_results
from tests.builders import fn_command
from tests.randomised import count
from tests.reliability.strategies import TRICKY_VALUES

EXAMPLES = count(200, 2000, "KUBEVIRT_KRM_HYPOTHESIS_EXAMPLES")
# new examples every run, from the run's seed (tests/randomised.py, KUBEVIRT_KRM_SEED replays them); no example
# database; hypothesis' other files (caches, failure patches) go to the temp dir (conftest.py)
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much], print_blob=True)

RL_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
FN_API = "kubevirt-krm.dev/v1alpha1"


def renderer(mode: str = "revisions", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": FN_API, "kind": "VirtualMachineRenderer", "metadata": {"name": "render"},
            "spec": {"mode": mode, **spec}}


def resource_list(items: Sequence[Any], fn_config: dict[str, Any] | None = None) -> bytes:
    """A ResourceList as kyaml writes it (our emitter)."""
    rl: dict[str, Any] = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": list(items)}
    if fn_config is not None:
        rl["functionConfig"] = fn_config
    e = Emitter()
    e.document(rl)
    return e.text().encode()


def parse(data: bytes) -> dict[str, Any]:
    docs = [d.value for d in load_documents(data.decode()) if d.value is not None]
    assert len(docs) == 1 and isinstance(docs[0], dict)
    return docs[0]


def identity(obj: Any) -> tuple[str, str, str, str]:
    md = obj.get("metadata") or {}
    return (str(obj.get("apiVersion")), str(obj.get("kind")), str(md.get("namespace") or ""), str(md.get("name")))


# --- strict validation of everything we emit ------------------------------------------------------
def emitted(input_items: Sequence[Any], output_items: Sequence[Any]) -> list[Any]:
    """Output items we generated or changed: no input item has their identity, or it differs in value."""
    before = {identity(o): o for o in input_items if isinstance(o, dict)}
    return [o for o in output_items if before.get(identity(o)) != o]


def invalid_emitted(input_items: Sequence[Any], output_items: Sequence[Any], tag: str = DEFAULT_TAG) -> list[str]:
    """Why each object we generated or changed is not valid for KubeVirt ``tag`` (default: the newest release)."""
    problems: list[str] = []
    for obj in emitted(input_items, output_items):
        if covers(obj):
            problems += [f"{'/'.join(identity(obj))}: {p}" for p in validate_object(obj, tag)]
    return problems


def checked_process(data: bytes, options: Options | None = None) -> Any:
    """``process`` with every emitted object validated strictly (the test-suite default)."""
    out = process(data, options)
    before = parse(data).get("items") or []
    after = parse(out.data).get("items") or []
    problems = invalid_emitted(before, after)
    assert not problems, "emitted invalid objects:\n" + "\n".join(problems[:20])
    return out


def checked_run(data: bytes, options: Options | None = None) -> tuple[list[Any], list[Any]]:
    """``run`` on parsed input; unchanged items are identical objects, so ``output_results`` applies directly."""
    rl = parse_resource_list(data.decode())
    written, results = run(rl, options or Options())
    items = list(written)
    bad = output_results(rl.items, items)
    assert not bad, "emitted invalid objects:\n" + "\n".join(r.summary() for r in bad[:20])
    return items, results


# --- subprocesses with resource limits ---------------------------------------------------------------
def limits(address_space: int | None = 2 << 30, cpu_seconds: int | None = 120) -> Callable[[], None]:
    def apply() -> None:
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        if cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    return apply


def run_limited(args: list[str], stdin: bytes | Path = b"", address_space: int | None = 2 << 30,
                timeout: float = 120, env: dict[str, str] | None = None,
                cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """The console script under RLIMIT_AS (default 2 GiB) and a CPU limit."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}
    full_env.update(env or {})
    if isinstance(stdin, Path):
        with stdin.open("rb") as f:
            return subprocess.run(fn_command() + args, stdin=f, capture_output=True, env=full_env, cwd=cwd,
                                  timeout=timeout, preexec_fn=limits(address_space))
    return subprocess.run(fn_command() + args, input=stdin, capture_output=True, env=full_env, cwd=cwd,
                          timeout=timeout, preexec_fn=limits(address_space))


def assert_one_line_failure(proc: subprocess.CompletedProcess[bytes], message: str = "",
                            stdout_empty: bool = True) -> None:
    """Exit 1, a one-line error on stderr containing ``message``, no traceback, nothing on stdout (warnings,
    which the stream modes print too, are not errors)."""
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == 1, (proc.returncode, err[-2000:])
    assert "Traceback" not in err and b"Traceback" not in proc.stdout, err[-2000:]
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("kubevirt-krm: warning: ")]
    assert len(lines) == 1, err[-2000:]
    assert message in err, err
    if stdout_empty:
        assert proc.stdout == b"", proc.stdout[:300]


MODES = ("revisions", "expand")


def _annotations(obj: dict[str, Any]) -> Any:
    return (obj.get("metadata") or {}).get("annotations")


def check_invariants(items: list[dict[str, Any]], fn_config: dict[str, Any],
                     invalid_output_ok: bool = False) -> Output:
    """Every invariant of one run; returns the run's output. ``invalid_output_ok``: the input is broken on
    purpose, so ``validateOutput`` error results are a correct answer (they still make exit 1)."""
    data = resource_list(items, fn_config)
    out = process(data)  # must not raise: the input is well-formed (or broken only inside a VM's spec)
    errors = [r for r in out.results if r.severity == "error"]
    assert out.exit_code == (1 if errors else 0)
    invalid = [r.summary() for r in out.results if ("stage", "output") in r.tags]
    assert invalid_output_ok or not invalid, "emitted objects that are not valid:\n" + "\n".join(invalid)

    before = parse(data)["items"] or []
    after = parse(out.data)["items"] or []
    assert [identity(o) for o in after[:len(before)]] == [identity(o) for o in before], "input items lost or moved"
    for a, b in zip(before, after):
        assert _annotations(a) == _annotations(b), f"annotations of {identity(a)} changed"
        if not is_vm(a):
            assert a == b, f"{identity(a)} is not ours but was changed"
    for extra in after[len(before):]:
        assert extra.get("kind") == "ControllerRevision", f"unexpected generated object {identity(extra)}"
        assert covers(extra)

    assert process(data).data == out.data, "output differs between two runs"

    rl = parse_resource_list(out.data.decode())
    again = dump_resource_list(rl, rl.items, []).encode()  # kpt drops the results between runs
    rl2 = parse_resource_list(process(again).data.decode())
    assert dump_resource_list(rl2, rl2.items, []).encode() == again, "rendering the output again changed it"
    return out


# --- wrong types anywhere in a VM's spec: an error result for that VM, never a crash ----------------------
_WRONG: tuple[Any, ...] = (None, True, 0, -1, 2.5, "", "two", "yes", [], [1], {}, {"x": 1}, "1Gi", 10**30)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


WRONG_VALUES = st.one_of(st.sampled_from(_WRONG), TRICKY_VALUES)


def confused_items(rnd: random.Random, items: list[dict[str, Any]], wrong: Any) -> tuple[list[dict[str, Any]],
                                                                                        tuple[Any, ...]]:
    """``items`` with ``wrong`` put at a random path of the first VM's spec (``rnd`` picks it); the path."""
    at = next(i for i, o in enumerate(items) if o["kind"] == "VirtualMachine")
    path = rnd.choice(_paths(items[at]["spec"])[1:] or [()])
    items = list(items)
    items[at] = {**items[at], "spec": _replace(items[at]["spec"], path, wrong)}
    return items, path


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(value[head], rest, new)
    return copy
