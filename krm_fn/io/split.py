"""Work on two processes: a forked child computes bytes for us (:class:`Child`, :func:`fork_map`).

Two uses. ``krm_fn.process.Halves`` forks before parsing and lets the child render and write half of a long
list (KRM and stream modes). :func:`write_parts` writes the output of runs not rendered in halves on two
processes: every other block of items in a child forked after rendering, which shares the items
copy-on-write and sends back only text. Writing items is pure (the same items give the same text whatever
an emitter's caches hold), so the child's text is exactly what this process would have written.

A child that fails in any way (killed, out of memory, an exception) only costs time: the caller does its part
itself. Only the command turns this on (``Options.workers`` from the CPUs this process may use), and only
when there is enough work to pay for the fork.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn, TypeVar

T = TypeVar("T")

MIN_WORK = 1000  # items to write (changed or generated) below which one process does it all
BLOCK = 128  # items per block: blocks alternate between the two processes, which balances their work
_SIZE = 8


def write_parts(costs: list[int], write: Callable[[int, int], list[str]], workers: int) -> list[str]:
    """``write(0, len(costs))``, as blocks ``write(lo, hi)``; with ``workers >= 2`` the odd blocks are written by
    a forked child. ``costs`` (1 for an item to write, 0 for one passed through) decide whether to fork. The texts
    are returned as written (the output is their concatenation): a long list's output is joined once, by the caller."""
    n = len(costs)
    if workers < 2 or sum(costs) < MIN_WORK:
        return write(0, n)
    blocks = [(lo, min(lo + BLOCK, n)) for lo in range(0, n, BLOCK)]
    theirs = blocks[1::2]
    forked = fork_map(lambda: [write(lo, hi) for lo, hi in blocks[::2]],
                      lambda: _encode(["".join(write(lo, hi)) for lo, hi in theirs]))
    if forked is None:  # no child: everything here
        return write(0, n)
    ours, data = forked
    parts = _decode(data, len(theirs)) if data is not None else None
    if parts is None:  # the child failed: write its blocks here
        parts = ["".join(write(lo, hi)) for lo, hi in theirs]
    merged: list[str] = []
    for at, texts in enumerate(ours):
        merged += texts
        if at < len(parts):
            merged.append(parts[at])
    return merged


def fork_map(ours: Callable[[], T], theirs: Callable[[], bytes]) -> tuple[T, bytearray | None] | None:
    """``theirs()`` in a forked child while ``ours()`` runs here: ``(ours(), theirs' bytes)``.

    None when no child could be started (nothing ran: the caller does it all); the bytes are None when the
    child failed in any way (the caller does that part itself)."""
    child = Child.start()
    if child is None:
        return None
    if child.in_child:  # pragma: no cover - the child process (its output is asserted through the parent's)
        with child.sending() as out:
            out.append(theirs())
    try:
        result = ours()
    except BaseException:
        child.cancel()
        raise
    return result, child.result()


class Child:
    """A forked process computing bytes for us.

    :meth:`start` returns in both processes, as ``os.fork`` does: in this one a handle on the child
    (:meth:`result`, :meth:`cancel`), in the child one whose :attr:`in_child` is true. The child computes its
    bytes in :meth:`sending`, which ends the process (nothing of the caller's code runs on after it there)::

        if child.in_child:
            with child.sending() as out:
                out.append(work())
    """

    def __init__(self, pid: int, fd: int) -> None:
        self._pid = pid  # 0 in the child
        self._fd = fd  # the pipe's read end here, its write end in the child
        self._data: bytearray | None = None
        self._done = False
        self._status = -1

    @property
    def in_child(self) -> bool:
        return self._pid == 0

    @classmethod
    def start(cls) -> Child | None:
        """Fork; None when no child can be started (then nothing was forked)."""
        if not hasattr(os, "fork"):  # pragma: no cover - Linux and macOS have it
            return None
        try:
            r, w = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:  # no memory or processes left for a child
            os.close(r)
            os.close(w)
            return None
        if pid == 0:  # pragma: no cover - the child process (its output is asserted through the parent's)
            os.close(r)
            return cls(0, w)
        os.close(w)
        return cls(pid, r)

    def result(self) -> bytearray | None:
        """Wait for the child: its bytes, or None when it failed in any way."""
        if not self._done:
            try:
                data = _read_sized(self._fd)
            finally:
                self._finish(kill=False)
            if self._status == 0:
                self._data = data
        return self._data

    def cancel(self) -> None:
        """Stop and reap the child unless :meth:`result` did (its result is then None)."""
        if not self._done:
            self._finish(kill=True)

    def _finish(self, kill: bool) -> None:
        self._done = True
        os.close(self._fd)
        if kill:
            os.kill(self._pid, signal.SIGKILL)
        _, self._status = os.waitpid(self._pid, 0)


    @contextmanager
    def sending(self) -> Iterator[list[bytes]]:  # pragma: no cover - runs in the child
        """In the child: the bytes put in the list are sent when the block completes; the process ends with the
        block, whatever happens in it (an exception: nothing is sent, the parent does this part itself)."""
        out: list[bytes] = []
        try:
            yield out
        finally:
            self._exit(out[0] if out else None)

    def _exit(self, data: bytes | None) -> NoReturn:  # pragma: no cover - runs in the child
        """Send ``data`` (None: nothing) and end the process."""
        code = 1
        try:
            if data is not None:
                for view in (memoryview(len(data).to_bytes(_SIZE, "little")), memoryview(data)):  # no copy of data
                    while view:
                        view = view[os.write(self._fd, view):]
                code = 0
        except BaseException:  # noqa: BLE001 - the parent does this part itself
            pass
        finally:
            os._exit(code)


def _encode(parts: list[str]) -> bytes:
    encoded = [p.encode("utf-8", "surrogatepass") for p in parts]
    return b"".join([*(len(p).to_bytes(_SIZE, "little") for p in encoded), *encoded])  # one copy of the texts


def _decode(data: bytes | bytearray, count: int) -> list[str] | None:
    """The child's blocks, or None when ``data`` is not ``count`` complete blocks."""
    at = count * _SIZE
    sizes = [int.from_bytes(data[i:i + _SIZE], "little") for i in range(0, at, _SIZE)]
    if len(data) < at or at + sum(sizes) != len(data):
        return None
    parts = []
    for size in sizes:
        parts.append(data[at:at + size].decode("utf-8", "surrogatepass"))
        at += size
    return parts


def _read_exactly(fd: int, buffer: bytearray) -> bool:
    """Fill ``buffer`` from ``fd``; False when the pipe ends first."""
    view = memoryview(buffer)
    while view:
        got = os.readv(fd, [view])
        if not got:
            return False
        view = view[got:]
    return True


def _read_sized(fd: int) -> bytearray | None:
    """What the child sent (its length first, then the bytes: read into one buffer of that length, not joined
    from chunks and cut); None when the pipe holds anything else."""
    head = bytearray(_SIZE)
    if not _read_exactly(fd, head):
        return None
    data = bytearray(int.from_bytes(head, "little"))
    if not _read_exactly(fd, data) or os.read(fd, 1):
        return None
    return data
