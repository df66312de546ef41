"""Helpers for the reliability suite: strict output validation in tests, hypothesis settings, subprocess limits."""

from __future__ import annotations

import os
import resource
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import load_documents
from krm_fn.io.resourcelist import parse_resource_list
from krm_fn.process import Options, process, run
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.schema.strict import covers, validate_object
from krm_fn.render.output import output_results
from tests.conftest import fn_command
from tests.randomised import count

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
    items, results = run(rl, options or Options())
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
