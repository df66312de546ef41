"""bench/last-run.txt holds run.py's report and, in a delimited block, pipelines.py's section. Each script
rewrites only its own part: run.py keeps the pipelines block, pipelines.py replaces the block in place."""

from __future__ import annotations

import io
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import TextIO

LAST_RUN = Path(__file__).resolve().parent / "last-run.txt"
BEGIN = "# ---- begin pipelines (bench/pipelines.py --write replaces this block; bench/run.py keeps it) ----\n"
END = "# ---- end pipelines ----\n"


def block(text: str) -> str | None:
    """The pipelines block of ``text``, markers included, or ``None``."""
    start = text.find(BEGIN)
    stop = text.find(END, start + len(BEGIN)) if start >= 0 else -1
    return text[start:stop + len(END)] if stop >= 0 else None


def with_block(text: str, section: str) -> str:
    """``text`` with its pipelines block replaced by ``section`` (appended when it has none)."""
    new = BEGIN + section.rstrip("\n") + "\n" + END
    old = block(text)
    if old is not None:
        return text.replace(old, new, 1)
    return text.rstrip("\n") + ("\n\n" if text.strip() else "") + new


def write_keeping_block(report: str, path: Path = LAST_RUN) -> None:
    """run.py's report as the whole file, the pipelines block of the previous file kept at its end."""
    old = block(path.read_text(encoding="utf-8")) if path.exists() else None
    path.write_text(report.rstrip("\n") + "\n" + ("\n" + old if old else ""), encoding="utf-8")


def write_block(section: str, path: Path = LAST_RUN) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(with_block(old, section), encoding="utf-8")


class Tee(io.TextIOBase):
    """stdout that also keeps what was printed (run.py's ``--write``)."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out, self.kept = out, io.StringIO()

    def write(self, s: str) -> int:
        self.kept.write(s)
        return self.out.write(s)

    def flush(self) -> None:
        self.out.flush()


def host_line(title: str, repeat: int, load_start: float, tools: str = "", after: str = "") -> str:
    """A report's first line: what ran, when, on what host and tools (kubectl's kustomize, then ``tools``),
    the rounds and the load average at the start and now (then ``after``)."""
    kustomize = re.search(r"Kustomize Version: (\S+)", subprocess.run(
        ["kubectl", "version", "--client"], capture_output=True, text=True).stdout)
    return (f"# {title} — {time.strftime('%Y-%m-%d %H:%M')}, {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, kubectl's kustomize {kustomize.group(1) if kustomize else '?'}{tools}; "
            f"median of {repeat} interleaved rounds; load average {load_start:.1f} at the start, "
            f"{os.getloadavg()[0]:.1f} at the end{after}")
