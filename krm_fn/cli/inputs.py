"""The inputs an operand names (stdin, a file, a directory), each read on its own."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from krm_fn.cli.output import PREFIX, err

if TYPE_CHECKING:
    from krm_fn.io.inputs import Source


def read_stdin() -> bytes:
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    return sys.stdin.buffer.read()


def join_documents(texts: list[str]) -> str:
    """Several inputs as one stream, ``---`` between them; each is still read on its own (a file without a
    final line break keeps its last value, each file is JSON or YAML by itself: krm_fn/io/inputs.py)."""
    from krm_fn.io.inputs import Joined

    return Joined.of([t for t in texts if t.strip()])


def operand_sources(spec: str) -> list[Source]:
    """The inputs an operand names: stdin (``-``), a file, or a directory's ``.yaml``/``.yml`` files (hidden
    ones and those under hidden directories left out), in path order, each read on its own."""
    from krm_fn.io.inputs import Source

    if spec == "-":
        return [Source("stdin", read_stdin(), is_file=False)]
    path = Path(spec)
    if path.is_dir():
        files = yaml_files(path)
        if not files:  # a warning, as for a file that holds no manifest (krm_fn.stream.empty_inputs)
            err(f"{PREFIX}warning: {spec}: no .yaml or .yml file in this directory (hidden ones left out): "
                 "nothing read from it")
        return [Source(str(f), read_bytes(f, str(f)), in_directory=True) for f in files]
    return [Source(spec, read_bytes(path, spec))]


def yaml_files(directory: Path) -> list[Path]:
    """The ``.yaml`` and ``.yml`` files under ``directory``, hidden ones and those under hidden directories left
    out, in path order."""
    return sorted(p for p in directory.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()
                  and not any(part.startswith(".") for part in p.relative_to(directory).parts))


def read_bytes(path: Path, name: str) -> bytes:
    from krm_fn.errors import InputError

    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {name}: {exc.strerror}") from None


def read_input(spec: str) -> str:
    """One operand of ``catalog diff`` as text: its inputs (:func:`operand_sources`) joined, each still read on its own."""
    from krm_fn.io.resourcelist import decode

    return join_documents([decode(s.data) for s in operand_sources(spec)])
