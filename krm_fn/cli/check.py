"""``check``: whether a rendered file in Git is what the render gives now (a pull request's gate).

``kubevirt-krm check CONFIG.yaml INPUT... --output FILE`` renders the inputs as the standalone mode would write
them to FILE, and compares the bytes with FILE.
Equal: one line on stderr, exit 0.
Different (or FILE missing): a unified diff on stdout (Git's FILE first), one line on stderr that says how to
re-render, exit 1.
A render with errors prints them as the render would and exits 1: there is nothing to compare.
Unusable input or usage: exit 2.
"""

from __future__ import annotations

import difflib
import shlex
from pathlib import Path

from krm_fn.cli.arguments import asks_for_help, split
from krm_fn.cli.modes import config_file, rendered_stream
from krm_fn.cli.output import PREFIX, die, err, print_text, report, stdout_bytes, write

USAGE = "usage: kubevirt-krm check CONFIG.yaml [INPUT...] --output FILE"
HELP = f"""{USAGE}

Fail when FILE (a render committed to Git) is not what rendering INPUT... with CONFIG.yaml gives now: the same
render as `kubevirt-krm CONFIG.yaml INPUT... --output FILE`, compared byte for byte with FILE (no INPUT: a
generator's run on nothing, such as a catalog).

Exit 0: FILE is up to date; 1: it is not (a unified diff on stdout, how to re-render on stderr), or the render
has errors (printed as the render prints them); 2: usage error or unusable input."""


def check(args: list[str]) -> int:
    from krm_fn.errors import InputError

    if asks_for_help(args):
        print_text(HELP + "\n")
        return 0
    operands, target = _arguments(args)
    try:
        config, base = config_file(Path(operands[0]), operands[0])
        out = rendered_stream(config, base, operands[1:], b"", False)
    except InputError as exc:
        die(exc.message, 2)
    code = report(out.results, warnings=True)
    if code != 0:
        return code
    try:
        committed = target.read_bytes() if target.exists() else b""
    except OSError as exc:
        die(f"cannot read {target}: {exc.strerror}", 2)
    if committed == out.data:
        err(f"{PREFIX}check: {target} is what the render gives")
        return 0
    before = committed.decode("utf-8", "replace").splitlines(keepends=True)
    after = out.data.decode("utf-8", "replace").splitlines(keepends=True)
    diff = list(difflib.unified_diff(before, after, f"{target} (in Git)", f"{target} (rendered)"))
    write(stdout_bytes(), "".join(line if line.endswith("\n") else line + "\n" for line in diff).encode())
    changed = sum(1 for line in diff[2:] if line[:1] in "+-")
    command = shlex.join(["kubevirt-krm", *operands, "--output", str(target)])
    err(f"{PREFIX}check: {target} is not what the render gives ({changed} lines differ"
        f"{'' if target.exists() else ', the file is missing'}): run {command} and commit it")
    return 1


def _arguments(args: list[str]) -> tuple[list[str], Path]:
    """The operands (the config first) and ``--output FILE``; usage errors exit 2."""
    from krm_fn.errors import FnError

    try:
        values, _, operands = split(args, ("-o", "--output"), (), USAGE)
    except FnError as exc:
        die(exc.message, 2)
    if len(values) != 1:
        die(f"--output FILE is missing or given twice: the rendered file to check ({USAGE})", 2)
    target = Path(next(iter(values.values())))
    if not operands:
        die(f"the config file is missing ({USAGE})", 2)
    return operands, target
