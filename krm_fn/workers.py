"""Rendering a long list on two processes (:class:`Halves`), and every threshold that decides it.

The child is forked *before* parsing, so neither process pays copy-on-write faults on the other's data. It
parses the same input and prepares the same run. When the run renders item by item, the child renders the odd
blocks of :data:`BLOCK` items, writes them, and sends back texts, results and the revisions they need. Rendering
an item does not depend on the others (``krm_fn.render.rendering.Rendering``), so what the child renders is
what this process would. If the child fails in any way, this process renders its blocks too.

Only the command turns this on (``Options.workers``, from the CPUs this process may use: ``krm_fn/cli/resources.py``).
``multiprocessing``'s fork context was measured as an alternative to :class:`Child`: its import alone costs
~17 ms, and its child bootstrap flushes the standard streams and prints the traceback of an uncaught exception,
both of which the command must not do.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from krm_fn.io.write import Prewritten
    from krm_fn.render.rendered import Rendered

# Below these sizes a second process costs more than it saves.
SPLIT_MIN_BYTES = 1 << 20  # input bytes: the child is forked before parsing
SPLIT_MIN_ITEMS = 1000  # items to render
BLOCK = 128  # items per block: blocks alternate between the two processes, which balances their work
_SIZE = 8  # bytes of the length the child sends first

Written = list["Rendered[Prewritten]"]


def blocks(n: int) -> tuple[list[int], list[int]]:
    """The indexes of ``n`` items in the even blocks (this process) and in the odd ones (the child)."""
    spans = [range(lo, min(lo + BLOCK, n)) for lo in range(0, n, BLOCK)]
    return [i for block in spans[::2] for i in block], [i for block in spans[1::2] for i in block]


class Halves:
    """A forked child rendering the odd blocks of a long list while this process renders the even ones."""

    def __init__(self, child: Child) -> None:
        self._child = child
        self.used = False  # the run reached render()

    @classmethod
    def start(cls, theirs: Callable[[], Written | None]) -> Halves | None:
        """The child forked to compute ``theirs()`` (the odd blocks, or None when the run does not render in
        halves); None when no child can be started. In the child this ends the process."""
        child = Child.start()
        if child is None:
            return None
        if child.in_child:  # pragma: no cover - the child process (its bytes are asserted through the parent's)
            with child.sending() as out:  # the child ends with this block, whatever happens in it
                done = theirs()
                out.append(b"" if done is None else pickle.dumps(
                    [(d.item.text, d.results, d.revisions, d.pods) for d in done], protocol=pickle.HIGHEST_PROTOCOL))
        return cls(child)

    def stop(self) -> None:
        """Stop the child unless its result was taken."""
        self._child.cancel()

    def render(self, count: int, ours: Callable[[list[int]], Written]) -> Written:
        """Every one of ``count`` items rendered and written, in order: ``ours(indexes)`` renders the given items
        here, the child's blocks come from the child (or are rendered here when it failed)."""
        from krm_fn.io.write import Prewritten
        from krm_fn.render.rendered import Rendered

        self.used = True
        mine_at, theirs_at = blocks(count)
        mine = ours(mine_at)
        data = self._child.result()
        if data:  # our own child's bytes, through a private pipe
            theirs = [Rendered(Prewritten(text), results, revisions, pods)
                      for text, results, revisions, pods in pickle.loads(data)]
        else:
            theirs = ours(theirs_at)
        in_order = dict(zip(mine_at, mine, strict=True))
        in_order.update(zip(theirs_at, theirs, strict=True))
        return [in_order[i] for i in range(count)]


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
