"""``CatalogError``: every problem found in one catalog (or in the selection), each with file and key path."""

from __future__ import annotations

from krm_fn.errors import FnError
from krm_fn.kube.paths import FieldPath


def keypath(path: FieldPath) -> str:
    """``("preferences", "rhel.9", "use", 1)`` -> ``preferences["rhel.9"].use[1]`` (keys with dots are quoted)."""
    out: list[str] = []
    for step in path:
        if isinstance(step, str) and len(step) > 80:  # a hostile key still gives a readable line
            step = f"{step[:60]}…({len(step)} characters)"
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif "." in step or not step or " " in step:
            out.append(f'["{step}"]')
        else:
            out.append(("." if out else "") + step)
    return "".join(out)


class CatalogError(FnError):
    """A catalog (or the ``InstancetypeCatalog`` selection) is unusable.

    ``problems`` holds ``(file, key path, message)`` triples, the file with the key's line when it is known; the
    message has one line per problem:
    ``catalog/my.yaml line 7: series.cx.sizes[2].memory: must be a quantity like 4Gi, got 'lots'``.
    """

    def __init__(self, problems: list[tuple[str, FieldPath, str]]) -> None:
        self.problems = problems
        lines = []
        for file, path, message in problems:
            where = f"{file}: " if file else ""
            where += f"{keypath(path)}: " if path else ""
            lines.append(where + message)
        super().__init__("\n".join(lines))


# a catalog named on the command line (``catalog docs|diff --builtin NAME[@VERSION]``) has no functionConfig:
# the settings its problems point at are options there
_OPTIONS: dict[FieldPath, str] = {("spec", "builtin"): "--builtin", ("spec", "version"): "--builtin NAME@VERSION"}


def command_line_message(exc: FnError) -> str:
    """``exc``'s message for a command-line catalog: one line per problem, ``spec.builtin`` said as ``--builtin``."""
    if not isinstance(exc, CatalogError):
        return exc.message
    return "\n".join(f"{_OPTIONS[path]}: {message}" if not file and path in _OPTIONS else line
                     for (file, path, message), line in zip(exc.problems, exc.message.split("\n")))
