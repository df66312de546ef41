"""SIGTERM and SIGINT: the signal received is kept, so nothing is written once one has arrived."""

from __future__ import annotations

# The terminating signal received, if any. An exception raised by a signal handler is swallowed when the handler
# happens to run inside a finalizer (a generator closed or an object freed while the signal is pending: "Exception
# ignored in ..."); the run then goes on, so the output is never written (write) and the exit code stays the
# signal's once one has arrived.
signalled: list[int] = []


def terminate(signum: int, frame: object) -> None:
    signalled.append(signum)
    raise SystemExit(128 + signum)  # unwinds through `finally`: temporary files are removed


def interrupt(signum: int, frame: object) -> None:
    signalled.append(signum)
    raise KeyboardInterrupt  # main's exit code 130


def exit_if_signalled() -> None:
    if signalled:
        raise SystemExit(128 + signalled[0])
