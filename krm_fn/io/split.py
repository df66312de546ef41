"""Writing a long output on two cores: every other block of items is written by a forked child.

Writing items is pure (the same items give the same text whatever an emitter's caches hold), so the child's
text is exactly what this process would have written; if the child fails in any way (killed, out of memory,
an exception), this process writes that part itself. The fork shares the parsed input and the rendered items
copy-on-write: nothing is pickled, only the finished text comes back through a pipe.

Only the command turns it on (``Options.workers`` from the CPUs this process may use), and only when there is
enough to write to pay for the fork (~10 ms).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

MIN_WORK = 1000  # items to write (changed or generated) below which one process does it all
BLOCK = 128  # items per block: blocks alternate between the two processes, which balances their work
_SIZE = 8


def write_parts(costs: list[int], write: Callable[[int, int], str], workers: int) -> str:
    """``write(0, len(costs))``, as blocks ``write(lo, hi)``; with ``workers >= 2`` the odd blocks are written by
    a forked child. ``costs`` (1 for an item to write, 0 for one passed through) decide whether to fork."""
    n = len(costs)
    if workers < 2 or sum(costs) < MIN_WORK or not hasattr(os, "fork"):
        return write(0, n)
    blocks = [(lo, min(lo + BLOCK, n)) for lo in range(0, n, BLOCK)]
    theirs = blocks[1::2]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child process (its output is asserted through the parent's)
        _child(r, w, lambda: [write(lo, hi) for lo, hi in theirs])
    os.close(w)
    ok = False
    try:
        ours = [write(lo, hi) for lo, hi in blocks[::2]]
        data = _read_all(r)
        ok = True
    finally:
        os.close(r)
        if not ok:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    parts = _decode(data, len(theirs)) if status == 0 else None
    if parts is None:  # the child failed: write its blocks here
        parts = [write(lo, hi) for lo, hi in theirs]
    merged = [""] * len(blocks)
    merged[::2] = ours
    merged[1::2] = parts
    return "".join(merged)


def _child(r: int, w: int, write: Callable[[], list[str]]) -> None:  # pragma: no cover - runs in the child
    code = 1
    try:
        os.close(r)
        parts = [p.encode("utf-8", "surrogatepass") for p in write()]
        header = b"".join(len(p).to_bytes(_SIZE, "little") for p in parts)
        view = memoryview(header + b"".join(parts))
        while view:
            view = view[os.write(w, view):]
        code = 0
    except BaseException:  # noqa: BLE001 - the parent writes these blocks itself
        pass
    finally:
        os._exit(code)


def _decode(data: bytes, count: int) -> list[str] | None:
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


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
