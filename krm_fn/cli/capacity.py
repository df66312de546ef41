"""The ``resources`` command line (:func:`request`) and its run (:func:`main`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from krm_fn.cli.arguments import split
from krm_fn.errors import FnError
from krm_fn.io.inputs import Source
from krm_fn.kube.paths import Obj, as_map
from krm_fn.process import Options

USAGE = "usage: kubevirt-krm resources [--output text|json] [--complete-objects] CONFIG.yaml FILE|DIR|-..."
HELP = f"""{USAGE}

What starting the VMs costs, as the renderer config CONFIG.yaml's KubeVirt release and cluster would start them
(the inputs' KubeVirt CR, Namespaces, ResourceQuotas and LimitRanges):

  per VM          its launcher pod's requests and limits (containers, init containers, QoS class, totals), and
                  whether it starts: a VM that runs (runStrategy Always, RerunOnFailure, Once) whose pod its
                  namespace refuses does not
  per namespace   what the pods of the VMs that run ask for, each ResourceQuota's hard limits and use, and each
                  refusal in the API server's words ("exceeded quota: ...", "must specify limits.memory ...")

  --output, -o        text (default) or json (vms: {{namespace, name, runs, replicas, pod}}; namespaces: totals,
                      quotas, refused)
  --complete-objects  the inputs hold every PVC, NetworkAttachmentDefinition and StorageClass the VMs use: a
                      missing one keeps the pod from being created, as in the cluster

Exit 0: every VM that runs starts; 1: one does not; 2: usage error, unusable config or input."""


class Request(NamedTuple):
    output: str
    complete_objects: bool
    config: str
    operands: tuple[str, ...]


def request(args: list[str]) -> Request:
    """The command line read (``--output VALUE`` or ``--output=VALUE``; ``--`` ends the options); raises FnError."""
    values, flags, operands = split(args, ("--output", "-o"), ("--complete-objects",), USAGE)
    if len(values) > 1:
        raise FnError(f"--output is given twice ({USAGE})")
    output = next(iter(values.values()), "text")
    if output not in ("text", "json"):
        raise FnError(f"--output {output!r}: use text or json")
    complete = "--complete-objects" in flags
    if len(operands) < 2:
        raise FnError(f"a config file and at least one input are needed ({USAGE})")
    return Request(output, complete, operands[0], tuple(operands[1:]))


def main(req: Request, config: Source, sources: Sequence[Source], options: Options) -> tuple[str, int]:
    """The report as ``req.output`` asks and the exit code (0: every VM that runs starts, 1: one does not);
    raises FnError for an unusable config or input."""
    from krm_fn.capacity.report import as_json, text
    from krm_fn.process import run_parsed, stream_input
    from krm_fn.upgrade.report import renderer_config

    source = stream_input(config, sources)
    renderer_config(source.function_config)  # a renderer's config, usable: else FnError
    source.function_config = capacity_config(source.function_config, req.complete_objects)
    seen: list[Any] = []  # the renderer's phases (krm_fn.render.rendering.Rendering)
    ran = run_parsed(source, options, seen)
    # the config's problems, and a ResourceQuota or LimitRange the report cannot use: unusable input
    problems = [r for r in ran.results if r.severity == "error" and (r.resource_ref is None or (
        "stage", "capacity") in r.tags and r.resource_ref.kind in ("ResourceQuota", "LimitRange"))]
    if problems:
        raise FnError(problems[0].summary().removeprefix("error: "))
    report = seen[0].capacity if seen else None
    if report is None:
        from krm_fn.capacity.report import Report

        report = Report("", (), ())
    return (as_json(report) if req.output == "json" else text(report)), 1 if report.refused else 0


def capacity_config(fn_config: Obj, complete_objects: bool) -> Obj:
    """The user's renderer config in validate mode with the capacity report on (typed config or ConfigMap form);
    ``fn_config`` is not changed."""
    if fn_config.get("kind") == "ConfigMap":
        data = {**as_map(fn_config.get("data")), "mode": "validate", "capacity.report": "true"}
        if complete_objects:
            data["capacity.completeObjects"] = "true"
        return {**fn_config, "data": data}
    capacity = {**as_map(as_map(fn_config.get("spec")).get("capacity")), "report": True}
    if complete_objects:
        capacity["completeObjects"] = True
    return {**fn_config, "spec": {**as_map(fn_config.get("spec")), "mode": "validate", "capacity": capacity}}
