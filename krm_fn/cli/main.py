"""The entry point: the process set up (GC, signals, a memory reserve), the command dispatched, and its exit code."""

from __future__ import annotations

import gc
import os
import signal
import sys
from pathlib import Path
from typing import NoReturn

from krm_fn.cli.inputs import read_stdin
from krm_fn.cli.modes import (
    environ_text,
    krm_mode,
    looks_like_resource_list,
    run_stream,
    stream_arguments,
    stream_mode,
)
from krm_fn.cli.output import PREFIX, die, print_text
from krm_fn.cli.signals import exit_if_signalled, interrupt, terminate
from krm_fn.cli.subcommands import catalog, install_plugin, resources, upgrade_report
from krm_fn.cli.usage import HELP, USAGE


def main(argv: list[str] | None = None) -> int:
    # A one-shot process building millions of small dicts: the cyclic GC would re-scan them over and over
    # (measured: ~2x on a 10k-VM list). Reference counting still frees everything we drop; nothing we build
    # holds reference cycles, and the process exits right after.
    gc.disable()
    # Documents may nest up to the loader's limit (1,000 levels); writing one back recurses ~2 frames a level.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    reserve = bytearray(1 << 20)  # released to report running out of memory in one line
    signal.signal(signal.SIGPIPE, signal.SIG_DFL) if hasattr(signal, "SIGPIPE") else None
    signal.signal(signal.SIGTERM, terminate)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when our parent made us ignore it
        signal.signal(signal.SIGINT, interrupt)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        code = dispatch(args)
        exit_if_signalled()
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
            die(exc.message)
        if os.environ.get("KUBEVIRT_KRM_DEBUG"):
            raise
        die(f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())} "
             "(set KUBEVIRT_KRM_DEBUG=1 for details)", 2)


def _out_of_memory() -> NoReturn:
    os.write(2, PREFIX.encode() + b"error: out of memory: the input is too large for the memory available\n")
    os._exit(1)


def dispatch(args: list[str]) -> int:
    if args and args[0] in (*HELP, "help"):
        print_text(USAGE)
        return 0
    if args and args[0] == "--version":
        from krm_fn import __version__

        print_text(f"kubevirt-krm {__version__}\n")
        return 0
    if args and args[0] == "catalog":  # a subcommand whatever the directory holds (a config file: ./catalog)
        return catalog(args[1:])
    if args and args[0] == "install-plugin":
        return install_plugin(args[1:])
    if args and args[0] == "upgrade-report":
        return upgrade_report(args[1:])
    if args and args[0] == "resources":
        return resources(args[1:])
    if args and args[0] == "check":
        from krm_fn.cli.check import check

        return check(args[1:])
    validate, output, args, flags = stream_arguments(args)
    if output is not None and not args:
        die("--output is for the standalone mode: kubevirt-krm CONFIG.yaml [FILE|DIR|-]... --output FILE", 2)
    if len(args) > 1:
        return stream_mode(Path(args[0]), args[1:], validate, b"", output, flags)
    data = read_stdin()  # stdin decides the mode first (env vars leak into nested calls)
    if args and not looks_like_resource_list(data):
        return stream_mode(Path(args[0]), [], validate, data, output, flags)
    env_config = environ_text("KUSTOMIZE_PLUGIN_CONFIG_STRING")
    if not args and env_config is not None and not looks_like_resource_list(data):
        root = os.environ.get("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
        from krm_fn.io.inputs import Source

        config = Source("$KUSTOMIZE_PLUGIN_CONFIG_STRING", env_config.encode("utf-8"))
        return run_stream(config, Path(root) if root else None, [], data, validate)
    return krm_mode(data, validate)
