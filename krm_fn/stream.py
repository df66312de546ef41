"""What a stream of manifests means in the stream modes (standalone / Argo CD CMP, kustomize legacy plugin),
following what kustomize and kpt do with the same files (docs/standalone.md):

* **In.** Every document is a Kubernetes object, except that kustomize's and kpt's own files found while
  walking a directory (``kustomization.yaml``/``.yml`` whatever they hold; ``Kustomization``, ``Component``
  and ``Kptfile`` objects in any file) are build files, not resources: they are skipped, quietly, as
  ``kubectl apply -k`` and ``kpt live apply`` never apply them either. Given explicitly (a file operand,
  stdin) they are objects like any other.
* **Once.** An object (group, kind, namespace, name: "no namespace" is ``default``, as kustomize's ids
  have it) may come once: a second copy is an error naming both places, as ``kustomize build`` refuses a
  resource "with an already registered id" (a directory given twice, or one holding an earlier output).
* **Out.** What is printed is what a cluster is to get: objects marked ``config.kubernetes.io/local-config:
  "true"`` (visible to the run, as to a kpt function; dropped from the output, as kustomize drops them),
  our own function configs (``kubevirt-krm.dev``) and the config object itself are not printed, and the
  annotations kpt and kustomize use to track files (``internal.config.kubernetes.io/*``, the legacy
  ``config.kubernetes.io/path|index`` and ``config.k8s.io/id``) are removed, as ``kpt fn eval -o unwrap``
  and ``kustomize build`` remove them.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any, Final

from krm_fn.errors import InputError
from krm_fn.io.inputs import Skipped, Source
from krm_fn.io.source import Origin
from krm_fn.io.fieldline import field_line
from krm_fn.io.resourcelist import ResourceList, line_of, lines_of, origin_of, put_aside, rl_text, set_aside
from krm_fn.kube.api import ANN_LEGACY_INDEX, ANN_LEGACY_PATH, FN_GROUP, KIND_VM
from krm_fn.kube import kpt_annotations
from krm_fn.kube.identity import ObjectId, group_of, object_id
from krm_fn.kube.meta import annotations_of
from krm_fn.kube.paths import Obj
from krm_fn.results import FileRef, ResourceRef, Result

ANN_LOCAL_CONFIG = "config.kubernetes.io/local-config"
_INTERNAL = "internal.config.kubernetes.io/"
_LEGACY = frozenset((ANN_LEGACY_PATH, ANN_LEGACY_INDEX, "config.k8s.io/id"))
# kustomize's and kpt's files met while walking a directory: skipped, not resources. By name: the files
# kustomize finds (kustomize's apiVersion and kind are optional in them); by (group, kind) in any file.
BUILD_FILES = Skipped(frozenset(("kustomization.yaml", "kustomization.yml")),
                      frozenset((("kustomize.config.k8s.io", "Kustomization"),
                                 ("kustomize.config.k8s.io", "Component"), ("kpt.dev", "Kptfile"))))


SWAPPED = "; the first argument is the config file (kubevirt-krm CONFIG.yaml [FILE|DIR|-]...)"


def check_config_kind(name: str, config: Obj) -> None:
    """A config file that holds a manifest, not a function config (``kubevirt-krm vms.yaml config.yaml``): one
    line saying which argument is which. Function configs of any kind, and ConfigMaps, are the config's to judge."""
    api_version, kind = config.get("apiVersion"), config.get("kind")
    if isinstance(kind, str) and kind and kind != "ConfigMap" and group_of(api_version) != FN_GROUP:
        raise InputError(f"{name} holds a {kind}, not a function config{SWAPPED}")


def empty_inputs(rl: ResourceList, sources: Sequence[Source]) -> list[Result]:
    """A warning for each file given by name that held no manifest (empty, only comments, only build files
    skipped as such are not: those come from directories, and the edge names a directory without YAML)."""
    read = {o.file for o in (origin_of(rl, item) for item in rl.items) if o is not None} | \
        {u.origin.file for u in set_aside(rl) if u.origin is not None}  # an unusable manifest has its own error
    return [Result(f"{s.name}: holds no manifest: nothing read from it", "warning") for s in sources
            if s.is_file and not s.in_directory and s.name not in read]


def nothing_read(names: Sequence[str]) -> Result:
    """The error of a run whose named inputs hold no manifest at all: it would pass having checked nothing."""
    return Result(f"{', '.join(names)}: no manifest in the inputs, so nothing was rendered or checked "
                  "(--allow-empty allows it)")


def with_config_file(results: list[Result], config: Obj, name: str, text: str) -> list[Result]:
    """The results about the function config name the input it came from (``config file cfg.yaml``) and, for a
    result about a field, the field's line in ``text``, the file's (the config's document in it)."""
    from krm_fn.io.fieldline import object_field_line
    from krm_fn.io.inputs import read_stream

    ref = ResourceRef.of(config)
    mine = [r for r in results if r.resource_ref == ref and r.file is None]
    if not mine:
        return results
    try:
        read = read_stream(text)
    except InputError:
        read = None
    identity = (ref.kind, ref.namespace or "", ref.name)

    def at(r: Result) -> FileRef:
        line = object_field_line(read[0], read[1], identity, r.field_path) if read and r.field_path else None
        return FileRef(name, line=line)

    return [r._replace(file=at(r)) if r in mine else r for r in results]


def check_unique(rl: ResourceList) -> None:
    """One object, one copy across every input: each later copy is set aside with one line naming both places
    (an error result on it; the rest is processed)."""
    first: dict[ObjectId, Origin] = {}
    again: dict[int, str] = {}
    for i, item in enumerate(rl.items):
        key = object_id(item)
        if not key.name:  # generateName: each is a new object
            continue
        origin = origin_of(rl, item)
        assert origin is not None, "every item of parse_sources has an origin"
        seen = first.setdefault(key, origin)
        if seen is not origin:
            group, kind, namespace, name = key
            again[i] = (
                f"{_place(rl, origin)}: {kind}{'.' + group if group else ''} {namespace}/{name} is already in "
                f"{_place(rl, seen)}: an object may be given once (kustomize refuses a second resource with "
                f"the same id; a directory given twice, or holding an earlier output?)")
    put_aside(rl, again)


def _place(rl: ResourceList, origin: Origin) -> str:
    return f"{origin.file} line {line_of(rl, origin)}"


def printed(item: Any, config_id: ObjectId | None) -> bool:
    """Whether an output object is printed: not local-config, not a function config."""
    if not isinstance(item, dict):
        return True
    if annotations_of(item).get(ANN_LOCAL_CONFIG) == "true":
        return False
    return group_of(item.get("apiVersion")) != FN_GROUP and (config_id is None or object_id(item) != config_id)


def unannotated(item: Obj) -> Obj:
    """``item`` without kpt's and kustomize's file-tracking annotations (the same object when it has none;
    else a copy, which the writer splices and verifies as any changed item)."""
    ann = annotations_of(item)
    if not any(k.startswith(_INTERNAL) or k in _LEGACY for k in ann):
        return item
    md = item["metadata"]
    kept = {k: v for k, v in ann.items() if not (k.startswith(_INTERNAL) or k in _LEGACY)}
    new_md = {k: kept if k == "annotations" else v for k, v in md.items() if k != "annotations" or kept}
    return {**item, "metadata": new_md}


def _kustomize_origin(item: Obj) -> FileRef | None:
    path = kpt_annotations.origin_path(item)
    return FileRef(path) if path else None


def _file_of(where: Origin | FileRef | None) -> str | None:
    return where.file if isinstance(where, Origin) else where.path if where is not None else None


def with_files(rl: ResourceList, results: list[Result]) -> list[Result]:
    """Each result about an input object names the input it came from and the line of the object's document in
    it (as KRM mode names the file from kpt's path annotation); a result about an object read from stdin names
    the file kustomize's path or origin annotation gives (the legacy plugin's input), else no file. Objects that
    share a ``generateName`` (no name) share their results' reference: their file, when one, and no line."""
    if not results:
        return results
    where: dict[ResourceRef, Origin | FileRef | None] = {}
    starts: list[int] = []  # every document's start in the text: where the one before it ends
    for item in rl.items:
        origin = origin_of(rl, item)
        if origin is not None:
            starts.append(origin.start)
            ref = ResourceRef.of(item)
            here = origin if origin.is_file else FileRef.of(item) or _kustomize_origin(item)
            if ref in where and not ref.name:  # objects with the same generateName: which one a result is
                # about is not known, so no line is named; their file when they share one
                file = _file_of(where[ref])
                where[ref] = FileRef(file) if file is not None and file == _file_of(here) else None
                continue
            where.setdefault(ref, here)
    said = {r.resource_ref for r in results}
    lines = lines_of(rl, [o for ref, o in where.items() if ref in said and isinstance(o, Origin)])
    files = {ref: FileRef(o.file, o.index, lines[o]) if isinstance(o, Origin) else o
             for ref, o in where.items() if ref in said}
    text, starts = rl_text(rl), sorted(starts)
    return [r._replace(file=_at_field(text, starts, r, where.get(r.resource_ref), files.get(r.resource_ref)))
            if r.resource_ref is not None else r._replace(file=None) if r.file is not None else r for r in results]


def _at_field(text: str, starts: list[int], result: Result, origin: Origin | FileRef | None,
              file: FileRef | None) -> FileRef | None:
    """``file`` at the line of the result's field in the object's document (the text up to the next document's
    start), when the field is found there."""
    if file is None or file.line is None or not result.field_path or not isinstance(origin, Origin):
        return file
    after = bisect.bisect_right(starts, origin.start)
    document = text[origin.start:starts[after] if after < len(starts) else len(text)]
    offset = field_line(document, result.field_path)
    return file if offset is None else FileRef(file.path, file.index, file.line + offset)


# --- a fleet on kustomize's legacy exec plugin route -----------------------------------------------------
# A fleet on a slow route. The warning for many resources rendered through kustomize's legacy exec plugin.
#
# kustomize's handling of a transformer plugin's output grows quadratically with the number of resources it gets
# back, and per-vm revisions triple them: past a few thousand the build takes minutes while our own part stays
# linear (``bench/pipelines.py``, the pipelines section of ``bench/last-run.txt``). ``kpt fn render`` grows
# linearly; the same render piped (``kubectl kustomize DIR | kubevirt-krm CONFIG.yaml -``) avoids the plugin's
# share. docs/reference.md, "Which route for which fleet size".

PLUGIN_ENV: Final = "KUSTOMIZE_PLUGIN_CONFIG_STRING"  # set by kustomize for a legacy exec plugin
# Resources handed back to kustomize above which the legacy plugin route passes ~30 s and ~10x the kpt route
# on a 2-core host: 2,000 VMs in shared scope (~2,050 resources) took 31-58 s, 1,000 in per-vm scope (3,000
# resources) 23-45 s, where kpt fn render took 3-10 s (bench/last-run.txt, pipelines section; issue 16).
LEGACY_PLUGIN_MAX_RESOURCES: Final = 2000


def legacy_plugin_route(environ: Mapping[str, str], file_inputs: bool) -> bool:
    """Whether kustomize runs us as a legacy exec plugin: its config in the environment, the resources on
    stdin (inputs named as files are standalone mode, whatever the environment holds)."""
    return PLUGIN_ENV in environ and not file_inputs


def legacy_plugin_warning(inputs: Sequence[Any], outputs: int,
                          limit: int = LEGACY_PLUGIN_MAX_RESOURCES) -> Result | None:
    """On the legacy plugin route: a ``warning`` naming the faster routes when we hand kustomize back more
    than ``limit`` resources (``outputs``); else ``None``. ``inputs`` are the items read, for the VM count in
    the message."""
    if outputs <= limit:
        return None
    vms = sum(1 for item in inputs if isinstance(item, dict) and item.get("kind") == KIND_VM)  # no engine import
    return Result(
        f"{outputs} resources ({vms} VirtualMachines) handed back to kustomize's legacy exec plugin, whose "
        f"handling of a plugin's output grows quadratically with the number of resources (above {limit} this "
        "route takes minutes): render the kustomization without the transformer and pipe it, `kubectl kustomize "
        "DIR | kubevirt-krm CONFIG.yaml -`, or use `kpt fn render`, which grows linearly; shared revisions "
        "(`revisions.scope: shared`) hand back a third as many "
        "(docs/reference.md, \"Which route for which fleet size\")",
        "warning")
