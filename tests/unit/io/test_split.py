"""Writing on two processes gives the bytes one process writes, whatever happens to the child."""

from __future__ import annotations

import os

import pytest

from krm_fn.io import split
from krm_fn.process import Options, process
from tests.conftest import bench_module


def _fleet(vms: int, mode: str) -> bytes:
    renderer: str = bench_module("run").RENDERER
    return (bench_module("synth").resource_list(vms) + renderer.format(mode=mode)).encode()


@pytest.mark.parametrize("mode", ["revisions", "expand"])
def test_two_processes_write_the_same_bytes_as_one(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    forks: list[int] = []
    real_fork = os.fork

    def counting_fork() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(split.os, "fork", counting_fork)
    monkeypatch.setattr(split, "MIN_WORK", 100)
    monkeypatch.setattr(split, "BLOCK", 7)  # many blocks, an odd last one
    data = _fleet(150, mode)
    one = process(data, Options(workers=1))
    two = process(data, Options(workers=2))
    assert forks, "the output was not split"
    assert two.data == one.data
    assert two.exit_code == one.exit_code == 0


def test_a_failing_child_leaves_its_blocks_to_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "MIN_WORK", 2)
    monkeypatch.setattr(split, "BLOCK", 2)
    pid = os.getpid()

    def write(lo: int, hi: int) -> list[str]:
        if os.getpid() != pid:
            raise RuntimeError("the child fails")
        return [f"<{i}>" for i in range(lo, hi)]

    assert "".join(split.write_parts([1] * 9, write, 2)) == "".join(f"<{i}>" for i in range(9))


def test_a_child_killed_mid_write_leaves_its_blocks_to_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "MIN_WORK", 2)
    monkeypatch.setattr(split, "BLOCK", 1)
    pid = os.getpid()

    def write(lo: int, hi: int) -> list[str]:
        if os.getpid() != pid and lo == 3:
            os._exit(9)
        return [f"<{lo}>"]

    assert "".join(split.write_parts([1] * 6, write, 2)) == "<0><1><2><3><4><5>"


def test_little_work_is_not_split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split.os, "fork", lambda: pytest.fail("forked for a small output"))
    assert split.write_parts([0] * 5000 + [1] * 10, lambda lo, hi: [f"{lo}-{hi}"], 2) == ["0-5010"]


def test_a_fork_that_fails_leaves_everything_to_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(split.os, "fork", no_fork)
    monkeypatch.setattr(split, "MIN_WORK", 2)
    assert split.write_parts([1] * 300, lambda lo, hi: [f"{lo}-{hi},"], 2) == ["0-300,"]


@pytest.mark.parametrize("size", [0, 1, 65_536, 3_000_017])
def test_a_childs_bytes_arrive_whole_however_long(size: int) -> None:
    """The child writes its length, then its bytes, in as many writes as the pipe takes; they are read into
    one buffer of that length."""
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    forked = split.fork_map(lambda: "ours", lambda: payload)
    assert forked is not None
    ours, theirs = forked
    assert ours == "ours" and theirs == payload


def test_a_child_that_sends_more_than_it_said_is_not_believed(monkeypatch: pytest.MonkeyPatch) -> None:
    real = split._read_exactly

    def one_byte_short(fd: int, buffer: bytearray) -> bool:  # the length read is one less than what follows
        done = real(fd, buffer)
        if len(buffer) == split._SIZE:
            buffer[:] = (int.from_bytes(buffer, "little") - 1).to_bytes(split._SIZE, "little")
        return done

    monkeypatch.setattr(split, "_read_exactly", one_byte_short)
    forked = split.fork_map(lambda: "ours", lambda: b"0123456789")
    assert forked == ("ours", None)
