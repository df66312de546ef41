"""The only module that touches argv, the environment, stdin/stdout/stderr, files and exit codes.

Modes (shared/docs/krm-integration.md §1.7), detected from stdin first:

* KRM: stdin is a ``ResourceList`` (kpt, kustomize KRM functions) -> a ResourceList on stdout.
* kustomize legacy exec plugin: stdin is a plain stream (maybe empty), the config comes from the file in
  ``argv[1]`` or ``$KUSTOMIZE_PLUGIN_CONFIG_STRING`` -> a plain stream on stdout.
* standalone (Argo CD CMP, humans): ``kubevirt-krm CONFIG.yaml [FILE|DIR|-]...`` -> a plain stream.
"""

from __future__ import annotations

import gc
import os
import re
import signal
import stat
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from krm_fn.io.inputs import Source
    from krm_fn.results import Result

USAGE = """\
usage: kubevirt-krm                                  KRM function: ResourceList on stdin -> stdout
       kubevirt-krm [--validate]                     (kpt fn render/eval, kustomize KRM functions)
       kubevirt-krm CONFIG.yaml [FILE|DIR|-]... [-o|--output FILE]
                                                     standalone / kustomize legacy exec plugin: plain YAML
                                                     stream in (files, dirs, or stdin), stream out (to stdout,
                                                     or to FILE: written to a temporary file next to it, then
                                                     renamed; only a regular file is created or replaced, and
                                                     it keeps its permission bits; a symlink, FIFO, directory
                                                     or device at FILE is refused, nothing written). Each
                                                     input is read on its own (errors: FILE line N); an
                                                     object given twice is refused; local-config objects,
                                                     function configs and kpt's file annotations are not
                                                     printed; a directory's kustomization.yaml is skipped
       kubevirt-krm catalog docs [--builtin NAME[@VERSION] | --path FILE]
                                                     Markdown reference of a catalog (a config file
                                                     named catalog: give it as ./catalog)
       kubevirt-krm catalog diff --builtin NAME[@VERSION|@auto] [--strict] FILE|DIR|-...
                                                     a bundle or cluster export vs a builtin catalog (exit 0
                                                     identical, 1 different, 2 unusable input or usage error);
                                                     @auto: which version (and KubeVirt release) it matches
       kubevirt-krm upgrade-report --from RELEASE --to RELEASE [--catalog-from V] [--catalog-to V]
                    [--output text|json] CONFIG.yaml FILE|DIR|-...
                                                     what a KubeVirt upgrade changes per VM: expanded specs
                                                     field by field, refusals, repins (exit 0 nothing
                                                     changes, 1 something does, 2 usage or unusable input)
       kubevirt-krm install-plugin DIR               lay out a KUSTOMIZE_PLUGIN_HOME for kubectl kustomize
       kubevirt-krm --help | --version               (every subcommand takes -h/--help too)

Generate KubeVirt instancetypes/preferences from a compact catalog, and pre-render VirtualMachines that
reference them (pinned ControllerRevisions or fully expanded), exactly as KubeVirt would.

functionConfig (apiVersion: kubevirt-krm.dev/v1alpha1):
  kind: InstancetypeCatalog        generator
    spec.builtin: common-instancetypes | classic   (default common-instancetypes)
    spec.path: FILE                 a user catalog, relative to the package root and inside it (symlinks
                                    resolved): the kustomization dir (cwd), the config file's dir
                                    (standalone), or kpt's package; set builtin or path, not both
    spec.include / spec.exclude:    {series: [glob], sizes: [glob], preferences: [glob]}
    spec.scope: Cluster | Namespaced | Both         spec.namespace
    spec.version: v1.7.0 | main     common-instancetypes version (default: what the KubeVirt release deploys;
                                    also v1.6.0, v1.5.1, v1.4.1, v1.3.1: what KubeVirt v1.8 to v1.5 deploy)
    spec.parameters: [name=value]   catalog parameters (e.g. gpuDeviceName for classic)
    spec.kubevirtVersion: v1.9      the KubeVirt release the objects are for: its builtin version (default) and
                                    its schema (a field it does not know is an error)
  kind: VirtualMachineRenderer     transformer / validator
    spec.mode: revisions (default) | expand | validate | migrate
    spec.catalog: {builtin: NAME | none, path: FILE, version}  where types missing from the input are looked up
                  {scope: Cluster | Namespaced | Both}  the kinds it serves (default Cluster, as a cluster has)
    spec.kubevirtVersion: v1.9 | v1.10   the KubeVirt release the output is for (default v1.9)
    spec.revisions: {scope: per-vm | shared, repin: true|false, syncWave: N}
    spec.migrate: true              rewrite legacy flavor/v1alpha objects to v1beta1 first
    spec.validateOutput: true       validate every emitted object against the KubeVirt schema
    spec.templateParameters: [NAME=value]   values for VirtualMachineTemplate / OpenShift Template parameters
                                    (over the templates' own; the VMs they make are checked)
    spec.cluster:                   cluster defaults used by expand (defaults: a default KubeVirt CR)
      architecture: amd64 | arm64 | s390x | ppc64le   (default amd64)
      machineType: NAME                           (default: the architecture's own, e.g. q35)
      defaultNetworkInterface: bridge | masquerade | slirp              (default bridge)
      permitBridgeInterfaceOnPodNetwork: true | false                   (default true)
      evictionStrategy: None | LiveMigrate | LiveMigrateIfPossible | External   (default None)
      cpuRequest: QUANTITY                        (default 100m)
  A ConfigMap (kpt fn eval -- key=value) takes the same settings as flat keys: mode=expand,
  revisions.scope=shared, builtin=classic (an optional kind=InstancetypeCatalog|VirtualMachineRenderer
  key picks the kind).
  No functionConfig: render VMs in revisions mode with the builtin catalog.
  Every problem of a config is reported at once, one line each, with its field path.

Exit status:
  0    success
  1    an error result, or unusable input, config or catalog, or an output that cannot be written (the
       ResourceList with its results is still written in KRM mode; in stream modes nothing is written)
  2    a usage error (unknown option, missing argument), or an internal error (a bug: please report it);
       catalog diff, upgrade-report: also unusable input (their 1 means "different", "something changes")
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM); a closed pipe on stdout ends the process by SIGPIPE
       (status 141 in a shell), quietly
  One line per error on stderr, "kubevirt-krm: error: ..." (a VM's unresolved reference first, with what was
  probably meant); warnings, "kubevirt-krm: warning: ...", in the stream modes too, never change the code.

Environment: KUBEVIRT_KRM_WORKERS=1 renders on one process (default: two when two CPUs are available and a
cgroup memory limit leaves room for two copies of a long input); KUBEVIRT_KRM_DEBUG=1 shows tracebacks of
internal errors.
"""


# every stderr line starts with the program's name, then its severity: "kubevirt-krm: error: ..." (one voice
# for problems of the run and for results, README "Exit codes and errors")
PREFIX = "kubevirt-krm: "


def _die(message: str, code: int = 1) -> NoReturn:
    """One stderr line per line of ``message`` (a catalog's problems come one per line), then exit."""
    for line in message.splitlines() or [""]:
        if line.strip() or not message.strip():
            _err(f"{PREFIX}error: {' '.join(line.split())}")
    raise SystemExit(code)


def _err(line: str) -> None:
    """One line on stderr; nothing when stderr is closed (the exit status still tells)."""
    if sys.stderr is not None:
        try:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def _stdout() -> IO[bytes]:
    """stdout as bytes; a closed stdout (``kubevirt-krm ... >&-``) is one line and exit 1, found before the
    work is done."""
    stream = sys.stdout
    if stream is None or getattr(stream, "closed", False):
        _die("cannot write the output: stdout is closed")
    return stream.buffer


def _print(text: str) -> None:
    _write(_stdout(), text.encode("utf-8"))


def _read_stdin() -> bytes:
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    return sys.stdin.buffer.read()


def _write(stream: IO[bytes], data: bytes) -> None:
    _exit_if_signalled()
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
            _die(f"cannot write the output: {exc.strerror if isinstance(exc, OSError) else exc}")


def _report(results: list[Result], warnings: bool = False) -> int:
    """One stderr line per mistake: each error result (not those that follow from another: the root cause
    leads, krm_fn/render/hints.py), and with ``warnings`` (the stream modes, whose results are nowhere else)
    each warning; the exit code the results call for (warnings never change it)."""
    from krm_fn.results import exit_code

    for r in results:
        if (r.severity == "error" or (warnings and r.severity == "warning")) and not r.follows:
            _err(PREFIX + r.summary())
    return exit_code(results)


# The terminating signal received, if any. An exception raised by a signal handler is swallowed when the handler
# happens to run inside a finalizer (a generator closed or an object freed while the signal is pending: "Exception
# ignored in ..."); the run then goes on, so the output is never written (_write) and the exit code stays the
# signal's once one has arrived.
_signalled: list[int] = []


def _terminate(signum: int, frame: object) -> None:
    _signalled.append(signum)
    raise SystemExit(128 + signum)  # unwinds through `finally`: temporary files are removed


def _interrupt(signum: int, frame: object) -> None:
    _signalled.append(signum)
    raise KeyboardInterrupt  # main's exit code 130


def _exit_if_signalled() -> None:
    if _signalled:
        raise SystemExit(128 + _signalled[0])


def main(argv: list[str] | None = None) -> int:
    # A one-shot process building millions of small dicts: the cyclic GC would re-scan them over and over
    # (measured: ~2x on a 10k-VM list). Reference counting still frees everything we drop; nothing we build
    # holds reference cycles, and the process exits right after.
    gc.disable()
    # Documents may nest up to the loader's limit (1,000 levels); writing one back recurses ~2 frames a level.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    reserve = bytearray(1 << 20)  # released to report running out of memory in one line
    signal.signal(signal.SIGPIPE, signal.SIG_DFL) if hasattr(signal, "SIGPIPE") else None
    signal.signal(signal.SIGTERM, _terminate)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when our parent made us ignore it
        signal.signal(signal.SIGINT, _interrupt)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _main(args)
        _exit_if_signalled()
        return code
    except MemoryError:
        del reserve
        _out_of_memory()
    except KeyboardInterrupt:
        return 130
    except SystemExit:
        raise
    except Exception as exc:  # last line of defence: one line, never a traceback
        from krm_fn.errors import FnError

        if isinstance(exc, SystemError) and "error return without exception set" in str(exc):
            # CPython 3.11 reports a failed allocation of a new frame-stack chunk this way (a function call
            # under an address-space cap: seen in CI with a 100 MB input under ulimit -v)
            del reserve
            _out_of_memory()

        if isinstance(exc, FnError):
            _die(exc.message)
        if os.environ.get("KUBEVIRT_KRM_DEBUG"):
            raise
        _die(f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())} "
             "(set KUBEVIRT_KRM_DEBUG=1 for details)", 2)


def _out_of_memory() -> NoReturn:
    os.write(2, PREFIX.encode() + b"error: out of memory: the input is too large for the memory available\n")
    os._exit(1)


INSTALL_PLUGIN_USAGE = "usage: kubevirt-krm install-plugin DIR"
CATALOG_DOCS_USAGE = "usage: kubevirt-krm catalog docs [--builtin NAME[@VERSION] | --path FILE]"
CATALOG_USAGE = f"{CATALOG_DOCS_USAGE}\n       kubevirt-krm catalog diff --builtin NAME[@VERSION|@auto] [--strict] FILE|DIR|-..."
HELP = ("-h", "--help")


def _main(args: list[str]) -> int:
    if args and args[0] in (*HELP, "help"):
        _print(USAGE)
        return 0
    if args and args[0] == "--version":
        from krm_fn import __version__

        _print(f"kubevirt-krm {__version__}\n")
        return 0
    if args and args[0] == "catalog":  # a subcommand whatever the directory holds (a config file: ./catalog)
        return _catalog(args[1:])
    if args and args[0] == "install-plugin":
        return _install_plugin(args[1:])
    if args and args[0] == "upgrade-report":
        return _upgrade_report(args[1:])
    validate, output, args = _stream_arguments(args)
    if output is not None and not args:
        _die("--output is for the standalone mode: kubevirt-krm CONFIG.yaml [FILE|DIR|-]... --output FILE", 2)
    if len(args) > 1:
        return _stream_mode(Path(args[0]), args[1:], validate, b"", output)
    data = _read_stdin()  # stdin decides the mode first (env vars leak into nested calls)
    if args and not _looks_like_resource_list(data):
        return _stream_mode(Path(args[0]), [], validate, data, output)
    env_config = _environ_text("KUSTOMIZE_PLUGIN_CONFIG_STRING")
    if not args and env_config is not None and not _looks_like_resource_list(data):
        root = os.environ.get("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
        from krm_fn.io.inputs import Source

        config = Source("$KUSTOMIZE_PLUGIN_CONFIG_STRING", env_config.encode("utf-8"))
        return _run_stream(config, Path(root) if root else None, [], data, validate)
    return _krm_mode(data, validate)


def _stream_arguments(args: list[str]) -> tuple[bool, Path | None, list[str]]:
    """``--validate``, ``-o FILE`` / ``--output FILE`` / ``--output=FILE`` anywhere, ``-h``/``--help`` anywhere
    (prints the usage), ``--`` ends the options; what remains are operands (``-`` is stdin)."""
    validate = False
    output: Path | None = None
    operands: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            operands += rest
        elif arg in HELP:
            _print(USAGE)
            raise SystemExit(0)
        elif arg == "--validate":
            validate = True
        elif arg in ("-o", "--output") or arg.startswith("--output="):
            value = arg.partition("=")[2] if "=" in arg else next(rest, None)
            if not value:
                _die(f"{arg.partition('=')[0]} needs a file name (see --help)", 2)
            if output is not None:
                _die("-o/--output is given twice (see --help)", 2)
            output = Path(value)
        elif arg.startswith("-") and arg != "-":
            _die(f"unknown option {arg} (see --help)", 2)
        else:
            operands.append(arg)
    return validate, output, operands


def _environ_text(name: str) -> str | None:
    """An environment variable as UTF-8 text (``os.environ`` turns invalid bytes into lone surrogates)."""
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return os.fsencode(value).decode("utf-8")
    except UnicodeDecodeError as exc:
        _die(f"${name} is not valid UTF-8 (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r})")


def _krm_mode(data: bytes, validate: bool) -> int:
    from krm_fn.errors import InputError
    from krm_fn.process import Options, process

    stdout = _stdout()
    if not data.strip():
        _die("empty input: expected a ResourceList on stdin (see --help)")
    try:
        out = process(data, Options(base_dir=Path.cwd(), kpt=True, validate_only=validate,
                                    workers=_workers(len(data)), fast_yaml=_fast_yaml_fits(len(data))))
    except InputError as exc:
        _die(exc.message)
    _write(stdout, out.data)
    _report(out.results)
    return out.exit_code


def _workers(input_size: int) -> int:
    """Processes that may render and write the output (krm_fn/process.py Halves, krm_fn/io/split.py): two when
    this process may use two CPUs, unless ``$KUBEVIRT_KRM_WORKERS`` says otherwise or a cgroup memory limit is
    too small for two processes each holding the whole input (a container's OOM killer could pick either)."""
    setting = os.environ.get("KUBEVIRT_KRM_WORKERS", "")
    if setting.isascii() and setting.isdigit() and len(setting) < 5:  # "²" is a digit to str.isdigit()
        return max(1, int(setting))
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        cpus = os.cpu_count() or 1
    limit = _memory_limit()
    if limit is not None and limit < MEMORY_PER_INPUT_BYTE * 2 * input_size:
        return 1
    return min(cpus, 2)


# peak RSS of one process per byte of input, measured with bench/run.py (~21x at 10k and 50k VMs), rounded up
MEMORY_PER_INPUT_BYTE = 30


def _fast_yaml_fits(input_size: int) -> bool:
    """Whether the yaml-rs lane may read the input: not when an address-space cap (``ulimit -v``) could be hit
    while yaml-rs builds objects. It aborts the process then (a Rust panic), where our loader raises
    MemoryError and the run ends with one line."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, ValueError, OSError):  # pragma: no cover - platforms without RLIMIT_AS
        return True
    return soft == resource.RLIM_INFINITY or soft >= 2 * MEMORY_PER_INPUT_BYTE * input_size + (256 << 20)


def _memory_limit() -> int | None:
    """The cgroup (v2, else v1) memory limit of this process, or None."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            value = Path(path).read_text().strip()
        except OSError:
            continue
        if value.isdigit() and int(value) < 1 << 60:
            return int(value)
    return None


_RL_YAML = re.compile(rb"(?m)^kind:[ \t]*[\"']?ResourceList[\"']?[ \t]*(?:#.*)?$")
_RL_JSON = re.compile(rb'"kind"\s*:\s*"ResourceList"')


def _looks_like_resource_list(data: bytes) -> bool:
    """Cheap mode detection: a root-level ``kind: ResourceList`` line (or JSON) anywhere in stdin."""
    return _RL_YAML.search(data) is not None or (data.lstrip()[:1] == b"{" and _RL_JSON.search(data) is not None)


def _stream_mode(config_path: Path, inputs: list[str], validate: bool, stdin: bytes,
                 output: Path | None = None) -> int:
    from krm_fn.errors import InputError

    try:
        config, base = _config_file(config_path, str(config_path))
    except InputError as exc:
        _die(exc.message)
    return _run_stream(config, base, inputs, stdin, validate, output)


def _config_file(path: Path, name: str) -> tuple[Source, Path]:
    """The config file as the input ``config file NAME``, and the directory its relative paths start from
    (``$KUSTOMIZE_PLUGIN_CONFIG_ROOT``, else the file's own); raises InputError when it cannot be read."""
    from krm_fn.io.inputs import Source

    config = Source(f"config file {name}", _read_bytes(path, f"config file {name}"))
    root = os.environ.get("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
    return config, Path(root) if root else path.resolve().parent


def _run_stream(config: Source, base: Path | None, inputs: list[str], stdin: bytes, validate: bool,
                output: Path | None = None) -> int:
    """The stream modes at the edge: inputs read (files, directories, stdin), the core run
    (``process.process_stream``), the output written; nothing is written unless the run succeeded."""
    from krm_fn.errors import InputError
    from krm_fn.fleet import LEGACY_PLUGIN_MAX_RESOURCES, legacy_plugin_route
    from krm_fn.io.inputs import Source
    from krm_fn.process import Options, process_stream

    stdout = _stdout() if output is None else None
    try:
        sources = [Source("stdin", stdin, is_file=False)] if not inputs else [s for p in inputs for s in _sources(p)]
        size = sum(len(s.data) for s in sources)
        out = process_stream(config, sources, Options(base_dir=base or Path.cwd(), validate_only=validate,
                                                      workers=_workers(size), fast_yaml=_fast_yaml_fits(size),
                                                      handed_back_limit=LEGACY_PLUGIN_MAX_RESOURCES
                                                      if legacy_plugin_route(os.environ, bool(inputs)) else None))
    except InputError as exc:
        _die(exc.message)
    code = _report(out.results, warnings=True)
    if out.notice is not None:
        _err(PREFIX + out.notice.summary())  # a fleet on kustomize's legacy plugin route (krm_fn.fleet)
    if code == 0:
        if stdout is not None:
            _write(stdout, out.data)
        elif output is not None:
            write_output(output, out.data)
    return code


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
        _die(f"cannot write {target}: {exc.strerror}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _FILE_TYPES if test(st.st_mode)), "not a regular file")
        _die(f"refusing to write {target}: it is {kind}; --output only creates or replaces regular files")
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
        _exit_if_signalled()
        os.replace(tmp, target)
        tmp = None
        _sync_directory(target.parent)
    except OSError as exc:
        _die(f"cannot write {target}: {exc.strerror}")
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


def _join_documents(texts: list[str]) -> str:
    """Several inputs as one stream, ``---`` between them; each is still read on its own (a file without a
    final line break keeps its last value, each file is JSON or YAML by itself: krm_fn/io/inputs.py)."""
    from krm_fn.io.inputs import Joined

    return Joined.of([t for t in texts if t.strip()])


def _sources(spec: str) -> list[Source]:
    """The inputs an operand names: stdin (``-``), a file, or a directory's ``.yaml``/``.yml`` files (hidden
    ones and those under hidden directories left out), in path order, each read on its own."""
    from krm_fn.io.inputs import Source

    if spec == "-":
        return [Source("stdin", _read_stdin(), is_file=False)]
    path = Path(spec)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()
                       and not any(part.startswith(".") for part in p.relative_to(path).parts))
        if not files:  # a warning, as for a file that holds no manifest (krm_fn.stream.empty_inputs)
            _err(f"{PREFIX}warning: {spec}: no .yaml or .yml file in this directory (hidden ones left out): "
                 "nothing read from it")
        return [Source(str(f), _read_bytes(f, str(f)), in_directory=True) for f in files]
    return [Source(spec, _read_bytes(path, spec))]


def _read_bytes(path: Path, name: str) -> bytes:
    from krm_fn.errors import InputError

    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {name}: {exc.strerror}") from None


def _read_input(spec: str) -> str:
    """One operand of ``catalog diff`` as text: its inputs (:func:`_sources`) joined, each still read on its own."""
    from krm_fn.io.resourcelist import decode

    return _join_documents([decode(s.data) for s in _sources(spec)])


def _catalog(args: list[str]) -> int:
    """``catalog docs`` / ``catalog diff``; ``catalog --help`` lists both."""
    if args[:1] == ["docs"]:
        return _catalog_docs(args[1:])
    if args[:1] == ["diff"]:
        from krm_fn.catalog.diff import HELP as DIFF_HELP, main as catalog_diff, request
        from krm_fn.catalog.errors import command_line_message
        from krm_fn.errors import FnError

        if any(a in HELP for a in args[1:]):
            _print(DIFF_HELP + "\n")
            return 0
        try:
            req = request(args[1:])
            text, code = catalog_diff(req, [_read_input(spec) for spec in req.operands])
        except FnError as exc:
            _die(command_line_message(exc), 2)
        sys.stdout.write(text)
        return code
    if args[:1] and args[0] in HELP:
        _print(CATALOG_USAGE + "\n")
        return 0
    _die(f"{'unknown catalog command ' + repr(args[0]) if args else 'a catalog command is missing'}: "
         "use catalog docs or catalog diff (see kubevirt-krm catalog --help)", 2)


def _upgrade_report(args: list[str]) -> int:
    """``upgrade-report``: what moving to another KubeVirt release (or catalog version) changes per VM
    (krm_fn/upgrade); exit 0 nothing changes, 1 something does, 2 usage or unusable config or input."""
    from krm_fn.errors import FnError
    from krm_fn.process import Options
    from krm_fn.upgrade import HELP as UPGRADE_HELP, main as upgrade_main, request

    if any(a in HELP for a in args[:args.index("--") if "--" in args else len(args)]):
        _print(UPGRADE_HELP + "\n")
        return 0
    try:
        req = request(args)
        config, base = _config_file(Path(req.config), req.config)
        sources = [s for spec in req.operands for s in _sources(spec)]
        text, code = upgrade_main(req, config, sources, Options(
            base_dir=base, fast_yaml=_fast_yaml_fits(sum(len(s.data) for s in sources))))
    except FnError as exc:
        _die(exc.message, 2)
    _print(text)
    return code


def _catalog_docs(args: list[str]) -> int:
    from krm_fn.catalog import CatalogSpec, load_catalog_file, render_docs, render_readme
    from krm_fn.catalog.errors import command_line_message
    from krm_fn.errors import FnError

    if any(a in HELP for a in args):
        _print(CATALOG_DOCS_USAGE + "\n")
        return 0
    if len(args) == 1 and args[0].startswith(("--builtin=", "--path=")):
        args = list(args[0].partition("=")[::2])
    if not args:
        _print(render_readme())
    elif args[0] in ("--builtin", "--path") and len(args) == 2:
        try:
            name, _, version = args[1].partition("@")  # NAME@VERSION, as catalog diff takes it
            spec = (CatalogSpec(builtin=name, version=version or None) if args[0] == "--builtin"
                    else load_catalog_file(Path(args[1])))
            _print(render_docs(spec))
        except FnError as exc:
            _die(command_line_message(exc))
    else:
        _die(CATALOG_DOCS_USAGE, 2)
    return 0


def _install_plugin(args: list[str]) -> int:
    if any(a in HELP for a in args[:args.index("--") if "--" in args else len(args)]):
        _print(INSTALL_PLUGIN_USAGE + "\n")
        return 0
    if args[:1] == ["--"]:
        args = args[1:]
    elif args[:1] and args[0].startswith("-"):
        _die(f"unknown option {args[0]} ({INSTALL_PLUGIN_USAGE}; a directory starting with '-' goes after --)", 2)
    if len(args) != 1:
        _die(INSTALL_PLUGIN_USAGE, 2)
    exe = Path(sys.argv[0]).resolve() if Path(sys.argv[0]).name == "kubevirt-krm" else None
    home = Path(args[0])
    try:
        _lay_out_plugins(home, exe)
    except OSError as exc:
        _die(f"cannot install the plugin in {home}: {exc.strerror} ({exc.filename})")
    return 0


def _lay_out_plugins(home: Path, exe: Path | None) -> None:
    from krm_fn.kube.api import FN_API_VERSION, KIND_CATALOG, KIND_RENDERER

    for kind in (KIND_CATALOG, KIND_RENDERER):
        target = home / FN_API_VERSION / kind.lower() / kind
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        if exe is not None and exe.is_file():
            if tmp.exists() or tmp.is_symlink():
                tmp.unlink()
            tmp.symlink_to(exe)
        else:  # not started through the console script: a wrapper that runs this interpreter
            tmp.write_text(f"#!/bin/sh\nexec {sys.executable} -m krm_fn \"$@\"\n")
            tmp.chmod(0o755)
        tmp.replace(target)
        _print(f"{target}\n")
