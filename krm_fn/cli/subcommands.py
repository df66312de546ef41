"""The subcommands: ``catalog docs``, ``catalog diff``, ``upgrade-report``, ``resources`` and ``install-plugin``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from krm_fn.cli.arguments import asks_for_help, split
from krm_fn.cli.inputs import operand_sources, read_input
from krm_fn.cli.modes import config_file
from krm_fn.cli.output import die, print_text
from krm_fn.cli.resources import fast_yaml_fits, workers
from krm_fn.cli.usage import (
    CATALOG_DOCS_USAGE,
    CATALOG_USAGE,
    HELP,
    INSTALL_PLUGIN_USAGE,
)

if TYPE_CHECKING:
    from krm_fn.io.inputs import Source
    from krm_fn.process import Options


def catalog(args: list[str]) -> int:
    """``catalog docs`` / ``catalog diff``; ``catalog --help`` lists both."""
    if args[:1] == ["docs"]:
        return _catalog_docs(args[1:])
    if args[:1] == ["diff"]:
        from krm_fn.catalog.diff import HELP as DIFF_HELP
        from krm_fn.catalog.diff import main as catalog_diff
        from krm_fn.catalog.diff import request
        from krm_fn.catalog.errors import command_line_message
        from krm_fn.errors import FnError

        if any(a in HELP for a in args[1:]):
            print_text(DIFF_HELP + "\n")
            return 0
        try:
            req = request(args[1:])
            text, code = catalog_diff(req, [read_input(spec) for spec in req.operands])
        except FnError as exc:
            die(command_line_message(exc), 2)
        sys.stdout.write(text)
        return code
    if args[:1] and args[0] in HELP:
        print_text(CATALOG_USAGE + "\n")
        return 0
    die(f"{'unknown catalog command ' + repr(args[0]) if args else 'a catalog command is missing'}: "
         "use catalog docs or catalog diff (see kubevirt-krm catalog --help)", 2)


def upgrade_report(args: list[str]) -> int:
    """``upgrade-report``: what moving to another KubeVirt release (or catalog version) changes per VM
    (krm_fn/upgrade); exit 0 nothing changes, 1 something does, 2 usage or unusable config or input."""
    from krm_fn.errors import FnError
    from krm_fn.upgrade.command import HELP as UPGRADE_HELP
    from krm_fn.upgrade.command import OPTIONS as UPGRADE_OPTIONS
    from krm_fn.upgrade.command import USAGE as UPGRADE_USAGE
    from krm_fn.upgrade.command import main as upgrade_main
    from krm_fn.upgrade.command import request

    if asks_for_help(args):
        print_text(UPGRADE_HELP + "\n")
        return 0
    try:
        values, _, operands = split(args, UPGRADE_OPTIONS, (), UPGRADE_USAGE)
        req = request(values, operands)
        config, sources, options = _report_inputs(req.config, req.operands)
        text, code = upgrade_main(req, config, sources, options._replace(workers=1))
    except FnError as exc:
        die(exc.message, 2)
    print_text(text)
    return code


def resources(args: list[str]) -> int:
    """``resources``: what starting the VMs costs per VM and namespace (krm_fn/capacity); exit 0 every VM that
    runs starts, 1 one does not, 2 usage or unusable config or input."""
    from krm_fn.cli.capacity import HELP as RESOURCES_HELP
    from krm_fn.cli.capacity import main as resources_main
    from krm_fn.cli.capacity import request
    from krm_fn.errors import FnError

    if asks_for_help(args):
        print_text(RESOURCES_HELP + "\n")
        return 0
    try:
        req = request(args)
        text, code = resources_main(req, *_report_inputs(req.config, req.operands))
    except FnError as exc:
        die(exc.message, 2)
    print_text(text)
    return code


def _report_inputs(config_name: str, operands: tuple[str, ...]) -> tuple[Source, list[Source], Options]:
    """A report command's config file, its inputs (files, directories, stdin) and the run's options for their
    size; raises FnError (InputError) when one cannot be read."""
    from krm_fn.process import Options

    config, base = config_file(Path(config_name), config_name)
    sources = [s for spec in operands for s in operand_sources(spec)]
    size = sum(len(s.data) for s in sources)
    return config, sources, Options(base_dir=base, fast_yaml=fast_yaml_fits(size), workers=workers(size))


def _catalog_docs(args: list[str]) -> int:
    from krm_fn.catalog.docs import render as render_docs, render_readme
    from krm_fn.catalog.generate import load_catalog_file
    from krm_fn.catalog.spec import CatalogSpec
    from krm_fn.catalog.errors import command_line_message
    from krm_fn.errors import FnError

    if any(a in HELP for a in args):
        print_text(CATALOG_DOCS_USAGE + "\n")
        return 0
    if len(args) == 1 and args[0].startswith(("--builtin=", "--path=")):
        args = list(args[0].partition("=")[::2])
    if not args:
        print_text(render_readme())
    elif args[0] in ("--builtin", "--path") and len(args) == 2:
        try:
            name, _, version = args[1].partition("@")  # NAME@VERSION, as catalog diff takes it
            spec = (CatalogSpec(builtin=name, version=version or None) if args[0] == "--builtin"
                    else load_catalog_file(Path(args[1])))
            print_text(render_docs(spec))
        except FnError as exc:
            die(command_line_message(exc))
    else:
        die(CATALOG_DOCS_USAGE, 2)
    return 0


def install_plugin(args: list[str]) -> int:
    if asks_for_help(args):
        print_text(INSTALL_PLUGIN_USAGE + "\n")
        return 0
    if args[:1] == ["--"]:
        args = args[1:]
    elif args[:1] and args[0].startswith("-"):
        die(f"unknown option {args[0]} ({INSTALL_PLUGIN_USAGE}; a directory starting with '-' goes after --)", 2)
    if len(args) != 1:
        die(INSTALL_PLUGIN_USAGE, 2)
    exe = Path(sys.argv[0]).resolve() if Path(sys.argv[0]).name == "kubevirt-krm" else None
    home = Path(args[0])
    try:
        _lay_out_plugins(home, exe)
    except OSError as exc:
        die(f"cannot install the plugin in {home}: {exc.strerror} ({exc.filename})")
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
        print_text(f"{target}\n")
