"""The three modes, told apart by stdin first: KRM (a ResourceList), the kustomize legacy exec plugin, and standalone."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from krm_fn.cli.inputs import operand_sources, read_bytes
from krm_fn.cli.output import (
    PREFIX,
    die,
    err,
    print_text,
    report,
    stdout_bytes,
    write,
    write_output,
)
from krm_fn.cli.resources import fast_yaml_fits, workers
from krm_fn.cli.usage import HELP, USAGE

if TYPE_CHECKING:
    from krm_fn.io.inputs import Source
    from krm_fn.process import Output


class StreamArgs(NamedTuple):
    validate: bool
    output: Path | None
    operands: list[str]
    flags: StreamFlags


class StreamFlags(NamedTuple):
    allow_empty: bool = False  # --allow-empty: named inputs without manifests, nothing generated: no error
    verbose: bool = False      # -v: each info result on stderr (else one line counts them)


def stream_arguments(args: list[str]) -> StreamArgs:
    """``--validate``, ``--allow-empty``, ``-v``, ``-o FILE`` / ``--output FILE`` / ``--output=FILE`` anywhere,
    ``-h``/``--help`` anywhere (prints the usage), ``--`` ends the options; what remains are operands (``-`` is
    stdin)."""
    validate = allow_empty = verbose = False
    output: Path | None = None
    operands: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            operands += rest
        elif arg in HELP:
            print_text(USAGE)
            raise SystemExit(0)
        elif arg == "--validate":
            validate = True
        elif arg == "--allow-empty":
            allow_empty = True
        elif arg in ("-v", "--verbose"):
            verbose = True
        elif arg in ("-o", "--output") or arg.startswith("--output="):
            value = arg.partition("=")[2] if "=" in arg else next(rest, None)
            if not value:
                die(f"{arg.partition('=')[0]} needs a file name (see --help)", 2)
            if output is not None:
                die("-o/--output is given twice (see --help)", 2)
            output = Path(value)
        elif arg.startswith("-") and arg != "-":
            die(f"unknown option {arg} (see --help)", 2)
        else:
            operands.append(arg)
    return StreamArgs(validate, output, operands, StreamFlags(allow_empty, verbose))


def environ_text(name: str) -> str | None:
    """An environment variable as UTF-8 text (``os.environ`` turns invalid bytes into lone surrogates)."""
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return os.fsencode(value).decode("utf-8")
    except UnicodeDecodeError as exc:
        die(f"${name} is not valid UTF-8 (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r})")


def krm_mode(data: bytes, validate: bool) -> int:
    from krm_fn.errors import InputError
    from krm_fn.process import Options, process

    stdout = stdout_bytes()
    if not data.strip():
        die("empty input: expected a ResourceList on stdin (see --help)")
    try:
        out = process(data, Options(base_dir=Path.cwd(), kpt=True, validate_only=validate,
                                    workers=workers(len(data)), fast_yaml=fast_yaml_fits(len(data))))
    except InputError as exc:
        die(exc.message)
    write(stdout, out.data)
    report(out.results)
    return out.exit_code


_RL_YAML = re.compile(rb"(?m)^kind:[ \t]*[\"']?ResourceList[\"']?[ \t]*(?:#.*)?$")
_RL_JSON = re.compile(rb'"kind"\s*:\s*"ResourceList"')


def looks_like_resource_list(data: bytes) -> bool:
    """Cheap mode detection: a root-level ``kind: ResourceList`` line (or JSON) anywhere in stdin."""
    return _RL_YAML.search(data) is not None or (data.lstrip()[:1] == b"{" and _RL_JSON.search(data) is not None)


def stream_mode(config_path: Path, inputs: list[str], validate: bool, stdin: bytes,
                 output: Path | None = None, flags: StreamFlags = StreamFlags()) -> int:
    from krm_fn.errors import InputError

    try:
        config, base = config_file(config_path, str(config_path))
    except InputError as exc:
        die(exc.message)
    return run_stream(config, base, inputs, stdin, validate, output, flags)


def config_file(path: Path, name: str) -> tuple[Source, Path]:
    """The config file as the input ``config file NAME``, and the directory its relative paths start from
    (``$KUSTOMIZE_PLUGIN_CONFIG_ROOT``, else the file's own); raises InputError when it cannot be read."""
    from krm_fn.io.inputs import Source

    data = read_bytes(path, f"config file {name}")
    root = os.environ.get("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
    users = users_config_file(data, Path(root)) if root and path.name.startswith(KUSTOMIZE_COPY) else None
    listed = _bytes_or_none(Path(users)) if users else None
    return Source(f"config file {users or name}", data, listed=listed), Path(root) if root else path.resolve().parent


def _bytes_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


KUSTOMIZE_COPY = "kust-plugin-config-"  # the temporary file kustomize hands a legacy exec plugin its config in


def users_config_file(data: bytes, root: Path) -> str | None:
    """The file that holds the config kustomize copied to a temporary file (issue 38, point 5): the entry of the
    kustomization in ``root`` (its generators, transformers or validators) with an object of the same apiVersion,
    kind and name; None when no entry, or more than one, does."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def identity(doc: object) -> tuple[object, ...] | None:
        if not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict):
            return None
        return doc.get("apiVersion"), doc.get("kind"), doc["metadata"].get("name")

    def documents(path: Path) -> list[object]:
        try:
            return list(yaml.load_all(path.read_bytes(), Loader=loader))
        except (OSError, yaml.YAMLError):
            return []

    try:
        wanted = identity(yaml.load(data, Loader=loader))
    except yaml.YAMLError:
        return None
    kustomization = next((d for name in ("kustomization.yaml", "kustomization.yml", "Kustomization")
                          for d in documents(root / name) if isinstance(d, dict)), None)
    if wanted is None or kustomization is None:
        return None
    entries = [e for field in ("generators", "transformers", "validators")
               for e in kustomization.get(field) or [] if isinstance(e, str)]
    found = [root / e for e in entries if any(identity(d) == wanted for d in documents(root / e))]
    # the whole path: kustomize runs the plugin in the kustomization's directory, not where the user is
    return str(found[0]) if len(found) == 1 else None


def rendered_stream(config: Source, base: Path | None, inputs: list[str], stdin: bytes, validate: bool,
                    allow_empty: bool = False) -> Output:
    """The core run on the stream modes' inputs (files, directories, else stdin); raises InputError."""
    from krm_fn.stream import LEGACY_PLUGIN_MAX_RESOURCES, legacy_plugin_route
    from krm_fn.io.inputs import Source
    from krm_fn.process import Options, process_stream

    sources = [Source("stdin", stdin, is_file=False)] if not inputs else [s for p in inputs for s in operand_sources(p)]
    size = sum(len(s.data) for s in sources)
    return process_stream(config, sources, Options(base_dir=base or Path.cwd(), validate_only=validate,
                                                   workers=workers(size), fast_yaml=fast_yaml_fits(size),
                                                   handed_back_limit=LEGACY_PLUGIN_MAX_RESOURCES
                                                   if legacy_plugin_route(os.environ, bool(inputs)) else None,
                                                   named_inputs=tuple(inputs), allow_empty=allow_empty))


def run_stream(config: Source, base: Path | None, inputs: list[str], stdin: bytes, validate: bool,
                output: Path | None = None, flags: StreamFlags = StreamFlags()) -> int:
    """The stream modes at the edge: inputs read (files, directories, stdin), the core run
    (``process.process_stream``), the output written; nothing is written unless the run succeeded."""
    from krm_fn.errors import InputError

    stdout = stdout_bytes() if output is None else None
    try:
        out = rendered_stream(config, base, inputs, stdin, validate, flags.allow_empty)
    except InputError as exc:
        die(exc.message)
    code = report(out.results, warnings=True, infos=flags.verbose)
    if out.notice is not None:
        err(PREFIX + out.notice.summary())  # a fleet on kustomize's legacy plugin route (krm_fn.stream)
    if code == 0:
        if stdout is not None:
            write(stdout, out.data)
        elif output is not None:
            write_output(output, out.data)
    return code
