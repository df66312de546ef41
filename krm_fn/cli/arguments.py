"""``split``: a subcommand's command line as options and operands, the one way every subcommand reads them.

An option takes a value as ``--name VALUE`` or ``--name=VALUE``; a flag takes none.
``--`` ends the options, and ``-`` is an operand (stdin).
A problem (an unknown option, a missing value, an option given twice) is an FnError naming the usage.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from krm_fn.cli.usage import HELP
from krm_fn.errors import FnError


def asks_for_help(args: list[str]) -> bool:
    """Whether ``-h`` or ``--help`` comes before any ``--`` (after it, it is an operand)."""
    return any(a in HELP for a in args[:args.index("--") if "--" in args else len(args)])


def split(args: list[str], options: Collection[str] | Mapping[str, str], flags: Collection[str], usage: str
          ) -> tuple[dict[str, str], set[str], list[str]]:
    """(option values by the name given, flags given, operands) of ``args``; ``options`` and ``flags`` are the
    names each may be given by (``-o`` beside ``--output``). ``options`` as a mapping gives each name its key:
    the values are then by key, and two names of one key are the option given twice."""
    values: dict[str, str] = {}
    given: set[str] = set()
    operands: list[str] = []
    rest = iter(args)
    for arg in rest:
        name, eq, value = arg.partition("=")
        if arg == "--":
            operands += rest
        elif name in options:
            found = value if eq else next(rest, "")
            if not found:
                raise FnError(f"{name} needs a value ({usage})")
            key = options[name] if isinstance(options, Mapping) else name
            if key in values:
                raise FnError(f"{name} is given twice ({usage})")
            values[key] = found
        elif arg in flags:
            given.add(arg)
        elif arg.startswith("-") and arg != "-":
            raise FnError(f"unknown option {arg} ({usage})")
        else:
            operands.append(arg)
    return values, given, operands
