"""Everything the command writes: stderr lines, stdout, and ``--output FILE`` (a rename, never a half file)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, NoReturn

from krm_fn.cli.signals import exit_if_signalled

if TYPE_CHECKING:
    from krm_fn.results import Result


# every stderr line starts with the program's name, then its severity: "kubevirt-krm: error: ..." (one voice
# for problems of the run and for results, docs/reference.md "Exit codes and errors")
PREFIX = "kubevirt-krm: "


def die(message: str, code: int = 1) -> NoReturn:
    """One stderr line per line of ``message`` (a catalog's problems come one per line), then exit."""
    for line in message.splitlines() or [""]:
        if line.strip() or not message.strip():
            err(f"{PREFIX}error: {' '.join(line.split())}")
    raise SystemExit(code)


def err(line: str) -> None:
    """One line on stderr; nothing when stderr is closed (the exit status still tells)."""
    if sys.stderr is not None:
        try:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def stdout_bytes() -> IO[bytes]:
    """stdout as bytes; a closed stdout (``kubevirt-krm ... >&-``) is one line and exit 1, found before the
    work is done."""
    stream = sys.stdout
    if stream is None or getattr(stream, "closed", False):
        die("cannot write the output: stdout is closed")
    return stream.buffer


def print_text(text: str) -> None:
    write(stdout_bytes(), text.encode("utf-8"))


def write(stream: IO[bytes], data: bytes) -> None:
    exit_if_signalled()
    try:
        stream.write(data)
        stream.flush()
    except BrokenPipeError:
        # the reader went away: exit quietly, non-zero, without a traceback
        try:
            sys.stdout = None
        finally:
            os._exit(141)
    except (OSError, ValueError) as exc:  # a full disk (> /dev/full), a descriptor not open for writing
        try:
            sys.stdout = None  # nothing more may be flushed to it at exit
        finally:
            die(f"cannot write the output: {exc.strerror if isinstance(exc, OSError) else exc}")


def report(results: list[Result], warnings: bool = False, infos: bool = False) -> int:
    """One stderr line per mistake: each error result (not those that follow from another: the root cause
    leads, krm_fn/render/hints.py), and with ``warnings`` (the stream modes, whose results are nowhere else)
    each warning, and each info result with ``infos`` (``-v``), else one line that counts them; the exit code the
    results call for (warnings never change it)."""
    from krm_fn.results import exit_code

    for r in results:
        if (r.severity == "error" or (warnings and r.severity == "warning")) and not r.follows:
            err(PREFIX + r.summary())
    said = [r for r in results if r.severity == "info" and not r.follows]
    if warnings and infos:
        for r in said:
            err(PREFIX + r.summary())
    elif warnings and said:
        err(f"{PREFIX}{len(said)} info result{'s' if len(said) > 1 else ''} (-v shows them)")
    return exit_code(results)


_FILE_TYPES = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
               (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def write_output(target: Path, data: bytes) -> None:
    """``--output FILE``: write a temporary file in FILE's directory, then rename it over FILE, so a reader (or
    a killed run) never sees half a file. Only regular files are created or replaced: a symlink, FIFO,
    directory, socket or device at FILE is refused (one line, exit 1, nothing written), never replaced nor
    written through. A replaced file keeps its permission bits (rwx for user, group, others); a new one gets
    0666 minus the umask, as a shell redirection would. Owner and group become the user's, and other hard
    links to the old file keep the old content (a rename cannot do otherwise)."""
    import tempfile

    try:
        st: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        die(f"cannot write {target}: {exc.strerror}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _FILE_TYPES if test(st.st_mode)), "not a regular file")
        die(f"refusing to write {target}: it is {kind}; --output only creates or replaces regular files")
    if st is not None:
        mode = stat.S_IMODE(st.st_mode) & 0o777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        exit_if_signalled()
        os.replace(tmp, target)
        tmp = None
        _sync_directory(target.parent)
    except OSError as exc:
        die(f"cannot write {target}: {exc.strerror}")
    finally:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)


def _sync_directory(directory: Path) -> None:
    """Make the rename durable (best effort: not every file system lets a directory be synced)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
