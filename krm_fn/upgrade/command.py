"""The ``upgrade-report`` command line (:func:`request`) and its run (:func:`main`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from krm_fn.errors import FnError
from krm_fn.io.inputs import Source
from krm_fn.kubevirt_versions import RELEASES
from krm_fn.process import Options

USAGE = ("usage: kubevirt-krm upgrade-report --from RELEASE --to RELEASE [--catalog-from VERSION] "
         "[--catalog-to VERSION] [--output text|json] CONFIG.yaml FILE|DIR|-...")
HELP = f"""{USAGE}

Render the same VMs for two KubeVirt releases (the renderer config CONFIG.yaml in expand mode, with each
release's spec.kubevirtVersion) and report what changes, summary first, then per VM and object:

  changed         what KubeVirt runs (the expanded spec) differs: every field, old -> new value
  refused         the new release refuses the VM (KubeVirt's message); admitted: only the old one refuses it
  still refused   both refuse it (each release's message)
  repin changes   a pinned VM keeps its revisions; what a repin on the new release would change
  objects         instancetypes, preferences, ... in the inputs the new release's API or webhooks refuse

  --from, --to    KubeVirt releases ({', '.join(RELEASES)})
  --catalog-from, --catalog-to
                  the builtin catalog's version on each side (default: what that release deploys)
  --output, -o    text (default) or json

Exit 0: nothing changes; 1: something changes (a CI job can gate the upgrade on it); 2: usage error, unusable
config or input."""


class Request(NamedTuple):
    before: str
    after: str
    catalog_before: str | None
    catalog_after: str | None
    output: str
    config: str
    operands: tuple[str, ...]


OPTIONS: Final = {"--from": "before", "--to": "after", "--catalog-from": "catalog_before",
                  "--catalog-to": "catalog_after", "--output": "output", "-o": "output"}


def request(values: dict[str, str], operands: list[str]) -> Request:
    """The request of a command line read by ``krm_fn.cli.arguments.split`` with :data:`OPTIONS` (values by
    key); raises FnError."""
    for key, option in (("before", "--from"), ("after", "--to")):
        if key not in values:
            raise FnError(f"{option} is missing ({USAGE})")
        if values[key] not in RELEASES:
            raise FnError(f"{option} {values[key]!r}: not a KubeVirt release this version knows "
                          f"(known: {', '.join(RELEASES)})")
    if values.get("output", "text") not in ("text", "json"):
        raise FnError(f"--output {values['output']!r}: use text or json")
    if len(operands) < 2:
        raise FnError(f"a config file and at least one input are needed ({USAGE})")
    return Request(values["before"], values["after"], values.get("catalog_before"), values.get("catalog_after"),
                   values.get("output", "text"), operands[0], tuple(operands[1:]))


def main(req: Request, config: Source, sources: Sequence[Source], options: Options) -> tuple[str, int]:
    """The report as ``req.output`` asks and the exit code (0: nothing changes, 1: something does); raises
    FnError for an unusable config or input."""
    from krm_fn.upgrade.report import Side, report
    from krm_fn.upgrade.show import as_json, text

    done = report(config, sources, Side(req.before, req.catalog_before), Side(req.after, req.catalog_after), options)
    return (as_json(done) if req.output == "json" else text(done)), 1 if done.changes else 0
