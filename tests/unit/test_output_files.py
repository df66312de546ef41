"""Where the output goes: ``--output FILE`` (atomic, regular files only, permissions kept) and stdout (closed,
full): one line and exit 1 when it cannot be written, never a traceback or "internal error"."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.builders import REPO, fn_command
from tests.reliability.support import assert_one_line_failure

CONFIG = REPO / "examples" / "migrate-v1alpha1" / "fn-config.yaml"
INPUT = REPO / "examples" / "migrate-v1alpha1" / "instancetypes.yaml"


def run(tmp_path: Path, output: str, preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}
    return subprocess.run(fn_command() + [str(CONFIG), str(INPUT), "--output", output], capture_output=True,
                          cwd=tmp_path, env=env, timeout=120, preexec_fn=preexec)


def expected_output() -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}
    proc = subprocess.run(fn_command() + [str(CONFIG), str(INPUT)], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _umask_027() -> None:
    os.umask(0o027)


def test_a_new_file_gets_the_output_and_the_umask(tmp_path: Path) -> None:
    proc = run(tmp_path, "out.yaml", preexec=_umask_027)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    # migrate's warnings (one per rewrite), nothing else
    assert all(line.startswith(b"kubevirt-krm: warning: ") for line in proc.stderr.splitlines()), proc.stderr
    assert (tmp_path / "out.yaml").read_bytes() == expected_output()
    assert stat.S_IMODE((tmp_path / "out.yaml").stat().st_mode) == 0o640  # 0666 minus the umask, like `>`
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"], "a temporary file was left behind"


def test_a_regular_file_is_replaced_by_rename_keeping_its_permission_bits(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    target.chmod(0o604)
    link = tmp_path / "hardlink"
    os.link(target, link)
    before = target.stat().st_ino
    proc = run(tmp_path, "out.yaml")
    assert proc.returncode == 0, proc.stderr
    assert target.read_bytes() == expected_output()
    assert stat.S_IMODE(target.stat().st_mode) == 0o604
    # written to a new file renamed over the old one (a reader never sees half a file): the old inode, still
    # reachable through the hard link, was never written to
    assert target.stat().st_ino != before and link.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hardlink", "out.yaml"]


def _symlink(tmp_path: Path) -> tuple[str, Callable[[], None]]:
    victim = tmp_path / "victim.yaml"
    victim.write_text("keep me\n")
    (tmp_path / "link.yaml").symlink_to(victim)

    def unchanged() -> None:
        assert (tmp_path / "link.yaml").is_symlink() and victim.read_text() == "keep me\n"
    return "link.yaml", unchanged


def _dangling_symlink(tmp_path: Path) -> tuple[str, Callable[[], None]]:
    (tmp_path / "link.yaml").symlink_to(tmp_path / "elsewhere.yaml")

    def unchanged() -> None:
        assert (tmp_path / "link.yaml").is_symlink() and not (tmp_path / "elsewhere.yaml").exists()
    return "link.yaml", unchanged


def _fifo(tmp_path: Path) -> tuple[str, Callable[[], None]]:
    os.mkfifo(tmp_path / "pipe")  # opening it for writing would block without a reader: the timeout would tell

    def unchanged() -> None:
        assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    return "pipe", unchanged


def _directory(tmp_path: Path) -> tuple[str, Callable[[], None]]:
    (tmp_path / "dir").mkdir()

    def unchanged() -> None:
        assert (tmp_path / "dir").is_dir() and list((tmp_path / "dir").iterdir()) == []
    return "dir", unchanged


def _socket(tmp_path: Path) -> tuple[str, Callable[[], None]]:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    sock.close()

    def unchanged() -> None:
        assert stat.S_ISSOCK(os.lstat(tmp_path / "sock").st_mode)
    return "sock", unchanged


def _device(tmp_path: Path) -> tuple[str, Callable[[], None]]:
    # a node of our own, never /dev/null: a regression would replace the system's (seen while writing this)
    try:
        os.mknod(tmp_path / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD (root in CI)")

    def unchanged() -> None:
        assert stat.S_ISCHR(os.lstat(tmp_path / "null").st_mode)
    return "null", unchanged


@pytest.mark.parametrize(("make", "kind"), [
    (_symlink, "a symbolic link"), (_dangling_symlink, "a symbolic link"), (_fifo, "a FIFO"),
    (_directory, "a directory"), (_socket, "a socket"), (_device, "a character device"),
], ids=["symlink", "dangling-symlink", "fifo", "directory", "socket", "device"])
def test_what_is_not_a_regular_file_is_refused_and_left_alone(
        tmp_path: Path, make: Callable[[Path], tuple[str, Callable[[], None]]], kind: str) -> None:
    name, unchanged = make(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = run(tmp_path, name)
    assert_one_line_failure(proc, f"refusing to write {name}: it is {kind}")
    unchanged()
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "something was written"


def test_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    assert_one_line_failure(run(tmp_path, "missing/out.yaml"), "cannot write missing/out.yaml: No such file")


def test_a_failed_run_writes_no_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(INPUT.read_text().replace("guest: 128Mi", "guest: 12x8Mi", 1))
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}
    proc = subprocess.run(fn_command() + [str(CONFIG), str(bad), "--output", "out.yaml"], capture_output=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 1 and b'Invalid value: "12x8Mi": spec.memory.guest in body should match' in proc.stderr, \
        proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


# --- stdout --------------------------------------------------------------------------------------------
RL = (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
      b"  metadata: {name: c}\n")


def test_a_closed_stdout_is_one_line() -> None:
    """``kubevirt-krm < rl.yaml >&-``: Python starts with sys.stdout None."""
    proc = subprocess.run(fn_command(), input=RL, stderr=subprocess.PIPE, timeout=120,
                          preexec_fn=lambda: os.close(1))
    err = proc.stderr.decode()
    assert proc.returncode == 1 and err == "kubevirt-krm: error: cannot write the output: stdout is closed\n", err


def test_a_full_disk_is_one_line() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(fn_command(), input=RL, stdout=full, stderr=subprocess.PIPE, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 1 and err == "kubevirt-krm: error: cannot write the output: No space left on device\n"
