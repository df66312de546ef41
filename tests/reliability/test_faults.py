"""Fault behaviour of the console script: the reader goes away (broken pipe), the process is terminated.

* stdout closed early (``kubevirt-krm < big | head -c 100``): exit quietly, non-zero, no traceback.
* SIGTERM/SIGINT during a long run: no traceback, and no partial output: stdout is written once, at the end,
  so a terminated run leaves the redirected file empty; with ``--output FILE`` (write-then-rename, cli/output.py)
  the target is either absent or complete and no temporary file is left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from krm_fn.io.resourcelist import dump_stream, parse_resource_list
from krm_fn.process import Options, run
from tests.builders import bench_module, fn_command

pytestmark = pytest.mark.reliability

CFG = "apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\nspec: {}\n"


def _synth(vms: int) -> str:
    text: str = bench_module("synth").resource_list(vms)
    return text


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A ResourceList of 8,000 VMs (~11 MB in, a few seconds) and the same as a plain stream."""
    root = tmp_path_factory.mktemp("faults")
    text = _synth(8000)
    rl = root / "rl.yaml"
    rl.write_text(text)
    parsed = parse_resource_list(text)
    _, results = run(parsed, Options(validate_only=True))
    rejected = {(r.resource_ref.namespace, r.resource_ref.name) for r in results if r.resource_ref}
    accepted = [o for o in parsed.items if ((o["metadata"].get("namespace")), o["metadata"]["name"]) not in rejected]
    plain = root / "vms.yaml"  # a stream that renders without errors, so the stream mode writes it
    plain.write_text(dump_stream(parsed, accepted))
    cfg = root / "cfg.yaml"
    cfg.write_text(CFG.replace("spec: {}", "spec: {mode: validate}"))  # exit 0: the stream is written
    return {"rl": rl, "plain": plain, "cfg": cfg, "root": root}


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}


@pytest.mark.parametrize("mode", ["krm", "stream"])
def test_broken_pipe_exits_quietly_non_zero(big: dict[str, Path], mode: str) -> None:
    args = [] if mode == "krm" else [str(big["cfg"]), str(big["plain"])]
    stdin = big["rl"].open("rb") if mode == "krm" else subprocess.DEVNULL
    proc = subprocess.Popen(fn_command() + args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_env())
    assert proc.stdout is not None and proc.stderr is not None
    head = proc.stdout.read(100)  # `| head -c 100`
    proc.stdout.close()
    err = proc.stderr.read()
    code = proc.wait(timeout=120)
    assert len(head) == 100 and head.startswith(b"apiVersion:")
    assert code != 0, "a truncated output must not look like success"
    assert code in (141, -signal.SIGPIPE, 1), code
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err[-500:]


def test_broken_pipe_through_a_shell_pipeline(big: dict[str, Path]) -> None:
    cmd = " ".join(fn_command()) + f" < {big['rl']} | head -c 100 >/dev/null; echo ${{PIPESTATUS[0]}}"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, env=_env(), timeout=120)
    assert int(proc.stdout.strip()) != 0
    assert b"Traceback" not in proc.stderr and b"Exception ignored" not in proc.stderr, proc.stderr[-500:]


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (Linux: the SigCgt mask of /proc/PID/status); True
    where that cannot be read (then the delay alone has to do)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return True


def _default_dispositions() -> None:
    """In the child, before exec: SIGINT and SIGTERM at their defaults, whatever the test runner inherited. A
    shell starts a background job (``pytest ... &``) with SIGINT ignored, and an ignored signal stays ignored
    across exec: Python would not install its SIGINT handler, so neither does kubevirt-krm (as it must not when
    its parent asks it to ignore Ctrl-C), and the test's signal would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _started_then(sig: int, args: list[str], stdin_path: Path, out_path: Path, delay: float) -> tuple[int, bytes]:
    """Run the command, send it ``sig`` ``delay`` seconds after it installed its handler for it, and return its
    exit code and stderr. Waiting for the handler: on a loaded machine the interpreter can still be starting
    after ``delay``, and a signal the parent process ignores (a test runner's worker) is then lost."""
    with stdin_path.open("rb") as stdin, out_path.open("wb") as stdout:
        proc = subprocess.Popen(fn_command() + args, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, env=_env(),
                                preexec_fn=_default_dispositions)
        deadline = time.monotonic() + 60
        while not _catches(proc.pid, sig) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(delay)
        assert proc.poll() is None, "the run finished before the signal: make the input bigger"
        proc.send_signal(sig)
        assert proc.stderr is not None
        err = proc.stderr.read()
        return proc.wait(timeout=60), err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("mode", ["krm", "stream"])
def test_signal_during_a_long_run_leaves_no_partial_output(big: dict[str, Path], mode: str, sig: int,
                                                            tmp_path: Path) -> None:
    args = [] if mode == "krm" else [str(big["cfg"]), "-"]
    stdin = big["rl"] if mode == "krm" else big["plain"]
    out = tmp_path / "out.yaml"
    code, err = _started_then(sig, args, stdin, out, delay=0.5)  # mid-parse/render (the whole run takes seconds)
    assert code != 0
    assert out.read_bytes() == b"", "a terminated run wrote a partial output"
    assert b"Traceback" not in err, err[-500:]


def test_output_file_is_written_atomically(big: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "rendered.yaml"
    target.write_text("previous content\n")
    code, err = _started_then(signal.SIGTERM, [str(big["cfg"]), str(big["plain"]), "--output", str(target)],
                              big["plain"], tmp_path / "stdout", delay=0.5)
    assert code != 0 and b"Traceback" not in err
    assert target.read_text() == "previous content\n", "a terminated run replaced the file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rendered.yaml", "stdout"], "a temporary file was left"
    done = subprocess.run(fn_command() + [str(big["cfg"]), str(big["plain"]), "--output", str(target)],
                          capture_output=True, env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    written = target.read_bytes()
    assert done.stdout == b"" and written.startswith(b"apiVersion: ") and b"\nkind: VirtualMachine\n" in written


def test_a_termination_swallowed_by_a_finalizer_still_ends_the_run(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """A signal handler's exception is lost when the handler runs inside a finalizer (Python prints "Exception
    ignored in ..." and goes on): the run must still write nothing and end with the signal's code."""
    import io
    import sys

    from krm_fn.cli import output, signals

    monkeypatch.setattr(signals, "signalled", [])
    swallowed: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: swallowed.append(u.exc_value))

    class Finalized:
        def __del__(self) -> None:
            signals.terminate(signal.SIGTERM, None)

    Finalized()  # freed at once: the handler's SystemExit is raised inside __del__ and swallowed
    assert len(swallowed) == 1 and isinstance(swallowed[0], SystemExit)
    out = io.BytesIO()
    with pytest.raises(SystemExit) as exit_info:
        output.write(out, b"kind: VirtualMachine\n")
    assert exit_info.value.code == 128 + signal.SIGTERM and out.getvalue() == b""
    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    with pytest.raises(SystemExit):
        output.write_output(target, b"new\n")
    assert target.read_text() == "previous\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]
