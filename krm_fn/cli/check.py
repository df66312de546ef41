"""``check``: whether a rendered file in Git is what the render gives now (a pull request's gate).

``kubevirt-krm check CONFIG.yaml INPUT... --output FILE`` renders the inputs as the standalone mode would write
them to FILE, and compares the bytes with FILE.
Equal: one line on stderr, exit 0.
Different (or FILE missing): a unified diff on stdout (Git's FILE first), one line on stderr that says how to
re-render, exit 1.
A render with errors prints them as the render would and exits 1: there is nothing to compare.
Unusable input or usage: exit 2.

``kubevirt-krm check`` without arguments checks every render the repository declares: each config file under
the current directory (hidden files and directories left out) annotated ``kubevirt-krm.dev/output: FILE``
and, when it reads inputs, ``kubevirt-krm.dev/inputs: PATH...``, both relative to the config file. That is
what a pre-commit hook without arguments runs (``pre-commit try-repo``).
"""

from __future__ import annotations

import difflib
import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Final, NamedTuple

from krm_fn.cli.arguments import asks_for_help, split
from krm_fn.cli.inputs import yaml_files
from krm_fn.cli.modes import config_file, rendered_stream
from krm_fn.cli.output import PREFIX, die, err, print_text, report, stdout_bytes, write
from krm_fn.kube.meta import annotations_of

USAGE = "usage: kubevirt-krm check [CONFIG.yaml [INPUT...] --output FILE]"
ANN_OUTPUT: Final = "kubevirt-krm.dev/output"
ANN_INPUTS: Final = "kubevirt-krm.dev/inputs"
HELP = f"""{USAGE}

Fail when FILE (a render committed to Git) is not what rendering INPUT... with CONFIG.yaml gives now: the same
render as `kubevirt-krm CONFIG.yaml INPUT... --output FILE`, compared byte for byte with FILE (no INPUT: a
generator's run on nothing, such as a catalog).

Without arguments: every render the repository declares, that is each config file under the current directory
annotated {ANN_OUTPUT}: FILE (and {ANN_INPUTS}: PATH..., whitespace-separated), paths relative to the
config file. Hidden files and directories are not searched.

Exit 0: FILE is up to date; 1: it is not (a unified diff on stdout, how to re-render on stderr), or the render
has errors (printed as the render prints them); 2: usage error or unusable input."""


def check(args: list[str]) -> int:
    if asks_for_help(args):
        print_text(HELP + "\n")
        return 0
    if not args:
        return _check_declared(Path("."))
    operands, target = _arguments(args)
    return _check(operands, target)


class Declared(NamedTuple):
    """A render a config file declares: the config, its inputs and its output, as paths from the cwd."""

    config: str
    inputs: list[str]
    output: Path


def _check_declared(root: Path) -> int:
    """Each declared render checked in turn (the worst exit code); none declared is a usage error."""
    renders = list(declared(root))
    if not renders:
        die(f"no config file under {root.resolve()} is annotated {ANN_OUTPUT}: name one "
            f"({USAGE}), or annotate each config with the file its render is committed to", 2)
    return max(_check([r.config, *r.inputs], r.output) for r in renders)


def declared(root: Path) -> Iterator[Declared]:
    """The renders declared under ``root``, in path order: YAML files holding one object whose annotations
    name its output (:data:`ANN_OUTPUT`)."""
    import yaml

    for path in yaml_files(root):
        try:
            data = path.read_bytes()
        except OSError as exc:
            die(f"cannot read {path}: {exc.strerror}", 2)
        if ANN_OUTPUT.encode() not in data:
            continue
        try:
            docs = [d for d in yaml.load_all(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if d]
        except yaml.YAMLError as exc:  # it names the annotation: a render it declares would go unchecked
            mark = getattr(exc, "problem_mark", None)
            die(f"{path}{f' line {mark.line + 1}' if mark is not None else ''}: not YAML, so the render it may "
                f"declare ({ANN_OUTPUT}) cannot be checked", 2)
        declaring = [d for d in docs if ANN_OUTPUT in annotations_of(d)]
        if declaring and len(docs) > 1:
            die(f"{path}: a config that declares its render ({ANN_OUTPUT}) must be the only object in its file "
                f"(this one holds {len(docs)})", 2)
        annotations = annotations_of(docs[0]) if declaring else {}
        output = annotations.get(ANN_OUTPUT)
        if isinstance(output, str) and output:
            here = path.parent
            inputs = str(annotations.get(ANN_INPUTS) or "").split()
            yield Declared(str(path), [os.path.normpath(here / i) for i in inputs],
                           Path(os.path.normpath(here / output)))


def _check(operands: list[str], target: Path) -> int:
    """One render checked against ``target``."""
    from krm_fn.errors import InputError

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
