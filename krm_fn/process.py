"""The pure core: ResourceList in, ResourceList out. No argv, env, files or exit codes here (see krm_fn/cli).

``process(data) -> Output`` is the whole KRM function; ``process_stream(config, sources) -> Output`` the
stream modes (kustomize legacy plugin, standalone / Argo CD CMP: krm_fn/stream.py says what a stream means);
both go through ``run_parsed`` and ``run``, their input a value (:class:`KrmInput`, :class:`StreamInput`) that
:func:`parse` reads and :func:`write_items` writes the items of.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from krm_fn.catalog.errors import CatalogError
from krm_fn.config import Config, load
from krm_fn.errors import ConfigError, FnError, InputError, shown
from krm_fn.io.resourcelist import (ResourceList, dump_resource_list, parse_resource_list, put_aside, set_aside,
                                    upsert, with_set_aside)
from krm_fn.kube import kpt_annotations
from krm_fn.kube.api import ANN_PACKAGE_PATH, KIND_CATALOG
from krm_fn.kube.identity import ObjectId, object_id
from krm_fn.kube.meta import annotations_of
from krm_fn.kube.paths import Obj, iter_objects
from krm_fn.kube.package_root import package_root
from krm_fn.results import (FileRef, ResourceRef, Result, annotation_results, catalog_result, config_result, exit_code,
                            not_yet_said, resource_list_results, unusable_results)
from krm_fn.kubevirt_versions import release

if TYPE_CHECKING:  # imported lazily at run time (start-up time)
    from krm_fn.io.inputs import Source
    from krm_fn.io.write import OutItem, Prewritten
    from krm_fn.workers import Halves
    from krm_fn.render.rendered import Rendered
    from krm_fn.render.rendering import Rendering


class Options(NamedTuple):
    """Decided at the edge (krm_fn/cli) and passed down (named tuples here: a dataclass costs ten times as much to
    define, and a generator run is mostly start-up)."""

    base_dir: Path | None = None          # the root: relative catalog paths are resolved in it and stay inside it
    kpt: bool = False                     # KRM mode: kpt's package-path annotation may name the package (a Kptfile)
    force_kind: str | None = None         # the entry point decides the config kind (legacy plugin layout)
    validate_only: bool = False           # `--validate`: results only, items unchanged
    workers: int = 1                      # processes that may render (krm_fn/workers.py)
    fast_yaml: bool = True                # the yaml-rs lane (off under an address-space cap: see cli/resources.py)
    handed_back_limit: int | None = None  # kustomize's legacy exec plugin route: warn above this many resources
    named_inputs: tuple[str, ...] = ()    # the stream modes' inputs named on the command line: no manifest in
                                          # them and nothing generated is an error, unless allow_empty
    allow_empty: bool = False             # `--allow-empty`: a run that may read and write nothing


class KrmInput:
    """KRM mode's input: the bytes of a ResourceList. (Plain classes for the inputs: every run defines them,
    and a named tuple costs about eight times as much to define.)"""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


class StreamInput:
    """The stream modes' input: the inputs, the functionConfig (read from its file) and its id, if it has one
    (the config object is not printed)."""

    __slots__ = ("sources", "function_config", "config_id")

    def __init__(self, sources: Sequence[Source], function_config: Obj,
                 config_id: ObjectId | None) -> None:
        self.sources = sources
        self.function_config = function_config
        self.config_id = config_id


class Output(NamedTuple):
    data: bytes
    results: list[Result]
    exit_code: int
    notice: Result | None = None          # a warning for the user's terminal beside the output (krm_fn.stream)


def process(data: bytes, options: Options | None = None) -> Output:
    """KRM mode: bytes of a ResourceList in, bytes of a ResourceList out (always written, even on errors)."""
    opts = options or Options()
    ran = run_parsed(KrmInput(data), opts)
    rl = ran.rl
    results = at_field_lines(rl, unusable_results(rl) + ran.results, opts.base_dir)
    items = with_set_aside(rl, ran.items)
    text = dump_resource_list(rl, items, rl.results + resource_list_results(results), ran.splice)
    return Output(encode(text), results, exit_code(results))


def at_field_lines(rl: ResourceList, results: list[Result], cwd: Path | None) -> list[Result]:
    """Under kpt, each result about an object of a package file (the function config's too) names the line of
    its field, or of the object, in that file, read again from disk: kpt hands us each item's file and index,
    not its lines. The package is the item's package-path annotation (``kpt fn render``), else ``cwd``
    (``kpt fn eval`` in the package; kustomize's origin annotation, relative to the kustomization the legacy
    plugin runs in). The line is for the stderr line (a kpt result's file has none)."""
    from krm_fn.io.fieldline import line_in_package

    if not any(r.file is not None and r.resource_ref is not None for r in results):
        return results
    roots: dict[tuple[ResourceRef, str], str] = {}
    for obj in [*iter_objects(rl.items), rl.function_config or {}]:
        root = annotations_of(obj).get(ANN_PACKAGE_PATH)
        if isinstance(root, str) and root:
            roots.setdefault((ResourceRef.of(obj), kpt_annotations.file_path(obj) or ""), root)
    cache: dict[tuple[str, str], Any] = {}
    fallback = str(cwd) if cwd is not None else None

    def located(r: Result) -> Result:
        ref, file = r.resource_ref, r.file
        root = roots.get((ref, file.path), fallback) if ref is not None and file is not None and file.line is None \
            else None
        if root is None or ref is None or file is None:
            return r
        line = line_in_package(root, file.path, file.index, (ref.kind, ref.namespace or "", ref.name),
                               r.field_path or "", cache)
        return r if line is None else r._replace(file=FileRef(file.path, file.index, line))

    return [located(r) for r in results]


def process_stream(config: Source, sources: Sequence[Source], options: Options | None = None) -> Output:
    """The stream modes: a functionConfig (a file of one object) and the inputs in, a plain stream of
    manifests out (empty unless the run succeeded). Input that cannot be read raises InputError (one line, naming
    the input and a line in it); an item that cannot be processed is an error result on it (the rest is run)."""
    from krm_fn import stream
    from krm_fn.io.resourcelist import dump_stream
    from krm_fn.io.write import Prewritten

    opts = options or Options()
    source = stream_input(config, sources)
    config_id = source.config_id
    ran = run_parsed(source, opts)
    rl, items = ran.rl, ran.items
    results = unusable_results(rl) + \
        stream.with_config_file(stream.with_files(rl, ran.results), source.function_config, config.name,
                                (config.listed or config.data).decode("utf-8", "replace")) + \
        stream.empty_inputs(rl, sources)
    results = at_field_lines(rl, results, Path.cwd())  # kustomize's origin annotations: its root is the cwd
    code = exit_code(results)
    if code:
        return Output(b"", results, code)
    # items rendered by two processes are written already (Prewritten; "" when not printed)
    out: list[OutItem] = [i if isinstance(i, Prewritten) else stream.unannotated(i) for i in items
                          if (i.text if isinstance(i, Prewritten) else stream.printed(i, config_id))]
    if opts.named_inputs and not opts.allow_empty and not out and not rl.items and not set_aside(rl):
        # named inputs without a manifest, and nothing generated: a CI job would pass having checked nothing
        results.append(stream.nothing_read(opts.named_inputs))
        return Output(b"", results, 1)
    notice = None
    if opts.handed_back_limit is not None:
        from krm_fn.stream import legacy_plugin_warning

        notice = legacy_plugin_warning(rl.items, len(out), opts.handed_back_limit)
    return Output(encode(dump_stream(rl, out, ran.splice)), results, code, notice)


def stream_input(config: Source, sources: Sequence[Source]) -> StreamInput:
    """The stream modes' input: the config file read (exactly one object, its id) and the inputs; raises
    InputError naming the config file."""
    from krm_fn import stream
    from krm_fn.io.fastload import load_values
    from krm_fn.io.resourcelist import decode

    try:
        text = decode(config.data)
    except InputError as exc:
        raise InputError(f"cannot read {config.name}: {exc.message}") from None
    try:
        docs = [value for value in load_values(text) if value is not None]  # no PyYAML for a plain config
    except InputError as exc:
        raise InputError(f"{config.name}: {exc.message}") from None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InputError(f"{config.name}: the config file must hold exactly one object, found {len(docs)} documents"
                         f"{stream.SWAPPED if len(docs) > 1 else ''}")
    fn_config = docs[0]
    stream.check_config_kind(config.name, fn_config)
    return StreamInput(sources, fn_config, object_id(fn_config) if fn_config.get("metadata") else None)


def encode(text: str) -> bytes:
    """The output as UTF-8. Text we write comes from the input, so a lone surrogate in it (which no UTF-8 input
    can hold; a reader that let one through, or ``$KUSTOMIZE_PLUGIN_CONFIG_STRING``) is the input's fault."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"the input holds {shown(exc.object[exc.start:exc.end])}, a lone surrogate, which is "
                         f"not Unicode text and cannot be written as UTF-8") from None


def parse(source: KrmInput | StreamInput, fast: bool = True) -> ResourceList:
    """The input as a ResourceList (``fast``: YAML may take the yaml-rs lane); raises InputError."""
    from krm_fn.io.resourcelist import decode

    if isinstance(source, KrmInput):
        return parse_resource_list(decode(source.data), fast)
    from krm_fn import stream
    from krm_fn.io.resourcelist import parse_sources

    rl = parse_sources(source.sources, stream.BUILD_FILES, fast)
    stream.check_unique(rl)
    rl.function_config = source.function_config
    return rl


def write_items(source: KrmInput | StreamInput, rl: ResourceList, items: list[Obj], splice: bool = True) -> list[str]:
    """Each item as the output holds it: a ResourceList entry (KRM mode), or a document, "" for one that is
    not printed (no object's document is empty). ``splice``: changed items keep their source text."""
    from krm_fn.io.resourcelist import document_texts, entry_texts

    if isinstance(source, KrmInput):
        return entry_texts(rl, items, splice)
    from krm_fn import stream

    shown = [stream.printed(i, source.config_id) for i in items]
    texts = iter(document_texts(rl, [stream.unannotated(i) for i, s in zip(items, shown, strict=True) if s], splice))
    return [next(texts) if s else "" for s in shown]


def _size(source: KrmInput | StreamInput) -> int:
    return len(source.data) if isinstance(source, KrmInput) else sum(len(s.data) for s in source.sources)


def run_parsed(source: KrmInput | StreamInput, options: Options, seen: list[Rendering] | None = None) -> Ran:
    """:func:`parse` then :func:`run`. With ``options.workers >= 2`` and a long input, a long list is rendered
    by two processes (:class:`krm_fn.workers.Halves`), its items written (:func:`write_items`) as they are
    rendered."""
    from krm_fn.workers import SPLIT_MIN_BYTES, Halves

    halves = None
    if options.workers >= 2 and _size(source) >= SPLIT_MIN_BYTES:
        halves = Halves.start(lambda: _theirs(source, options))
    try:
        rl = parse(source, options.fast_yaml)  # InputError propagates: nothing sensible to write
        in_two = None if halves is None else _in_two(halves, source, rl)
        items, results = run(rl, options, in_two, seen)
    finally:
        if halves is not None:
            halves.stop()
    return Ran(rl, items, results, halves is not None and halves.used, _splices(rl, options))


class Ran(NamedTuple):
    """What :func:`run_parsed` did: the list, the output items and results, whether the items were written
    already (by two processes), and whether changed items keep their source text (:func:`_splices`)."""

    rl: ResourceList
    items: Sequence[OutItem]
    results: list[Result]
    written: bool
    splice: bool


def _splices(rl: ResourceList, options: Options) -> bool:
    """Whether changed items are spliced into their source text: not in expand mode, where every VM the renderer
    changes is its expansion, written fresh (docs/reference.md, "YAML fidelity")."""
    try:
        config = load(rl.function_config, force_kind=options.force_kind)
    except ConfigError:
        return True
    return options.validate_only or getattr(config.spec, "mode", None) != "expand"


def _in_two(halves: Halves, source: KrmInput | StreamInput, rl: ResourceList
            ) -> Callable[[Rendering], list[Rendered[Prewritten]]]:
    """What renders a list on two processes: ``halves`` with this process's blocks rendered and written here."""
    def render(rendering: Rendering) -> list[Rendered[Prewritten]]:
        splice = rendering.spec.mode != "expand"
        return halves.render(len(rendering.items), lambda indexes: _written(source, rl, rendering, indexes, splice))
    return render


def _theirs(source: KrmInput | StreamInput, options: Options) -> list[Rendered[Prewritten]] | None:
    """In the child: the odd blocks rendered and written; None when the run does not render in halves."""
    from krm_fn.workers import blocks

    rl = parse(source, options.fast_yaml)
    configured = _configured(rl, options)
    if isinstance(configured, list) or configured[0].kind == KIND_CATALOG:
        return None  # nothing for two processes: the parent does it all
    rendering = _rendering(rl, *configured[:2])
    if rendering is None or not _in_halves(rendering):
        return None
    return _written(source, rl, rendering, blocks(len(rendering.items))[1], rendering.spec.mode != "expand")


def _written(source: KrmInput | StreamInput, rl: ResourceList, rendering: Rendering, indexes: list[int],
             splice: bool) -> list[Rendered[Prewritten]]:
    """The items of ``indexes`` rendered and written (``Prewritten``; "" when nothing is written)."""
    from krm_fn.io.write import Prewritten
    from krm_fn.render.rendered import Rendered

    done = [rendering.item(i) for i in indexes]
    if rendering.spec.mode == "validate":  # the output is the input: nothing to write
        texts = [""] * len(done)
    else:
        texts = write_items(source, rl, [d.item for d in done], splice)
    return [Rendered(Prewritten(text), d.results, d.revisions, d.pods) for d, text in zip(done, texts, strict=True)]


def run(rl: ResourceList, options: Options, in_two: Callable[[Rendering], list[Rendered[Prewritten]]] | None = None,
        seen: list[Rendering] | None = None) -> tuple[Sequence[OutItem], list[Result]]:
    """Apply the configured function to ``rl``; returns the output items and our results. With ``in_two``, a
    long list of items to render is rendered by two processes (:func:`run_parsed`); ``seen`` gets the renderer's
    phases."""
    configured = _configured(rl, options)
    if isinstance(configured, list):
        return rl.items, configured
    config, options, said = configured
    items, results = _run(rl, config, options, in_two, seen)
    return items, said + results


def _run(rl: ResourceList, config: Config, options: Options,
         in_two: Callable[[Rendering], list[Rendered[Prewritten]]] | None,
         seen: list[Rendering] | None = None) -> tuple[Sequence[OutItem], list[Result]]:
    try:
        if config.kind == KIND_CATALOG:
            return _generate(rl, config, options)
        rendering = _rendering(rl, config, options)
        if rendering is None:  # nothing to render
            return rl.items, []
        if seen is not None:
            seen.append(rendering)
        if in_two is not None and _in_halves(rendering):
            return rendering.finish(in_two(rendering))
        return rendering.finish(rendering.every_item())
    except InputError:
        raise
    except CatalogError as exc:
        return rl.items, [catalog_result(rl.function_config, config.kind, problem) for problem in exc.problems]
    except FnError as exc:
        return rl.items, [config_result(rl.function_config, exc.field_path or "", exc.message)]


def _configured(rl: ResourceList, options: Options) -> tuple[Config, Options, list[Result]] | list[Result]:
    """The run's config and options (the package root moved by the config) and the results on the items whose
    path/index annotations cannot be read (set aside: the others are processed); or the error results that
    end the run: the config's problems (and those)."""
    bad_items = _annotations_checked(rl)
    try:
        config = load(rl.function_config, force_kind=options.force_kind)
        options = options._replace(base_dir=package_root(options.base_dir, options.kpt, rl.function_config))
    except ConfigError as exc:
        return [config_result(rl.function_config, path, msg) for path, msg in exc.problems] + bad_items
    return config, options, bad_items


def _annotations_checked(rl: ResourceList) -> list[Result]:
    """:func:`krm_fn.results.annotation_results`, the items they are about set aside (written back unchanged, not rendered)."""
    found = {i: annotation_results(item) for i, item in enumerate(rl.items)}
    found = {i: results for i, results in found.items() if results}
    put_aside(rl, {i: "" for i in found})
    return [result for results in found.values() for result in results]


# --- generator ---------------------------------------------------------------------------------

def _generate(rl: ResourceList, config: Config, options: Options) -> tuple[list[Obj], list[Result]]:
    from krm_fn.catalog.generate import generate

    spec = config.spec
    generated = generate(spec, options.base_dir, spec.kubevirt_version)
    items = upsert(rl.items, generated, posixpath.dirname(kpt_annotations.file_path(config.source) or ""))
    # what the target release's cluster would make of each object we emit: every field known to that release
    # (its schema), then admission. A builtin catalog's output for the release it follows is the same on every run
    # and proven admissible by tests (tests/unit/kubevirt/test_admission.py, test_release_schema.py), so only a
    # catalog file's, or a builtin version pinned by hand, is checked
    results: list[Result] = []
    tag = release(spec.kubevirt_version).tag
    if spec.path is not None or spec.parameters or spec.version is not None:
        from krm_fn.render.admission import results as admission_results
        from krm_fn.render.output import release_results

        keys = {object_id(obj) for obj in generated}
        results = release_results(generated, spec.kubevirt_version)
        results += not_yet_said(results, admission_results((item for item in items if object_id(item) in keys),
                                                            tag=tag))
    if not spec.validate_output:
        return items, results
    from krm_fn.render.output import output_results

    return items, results + not_yet_said(results, output_results(rl.items, items, tag))


# --- renderer ----------------------------------------------------------------------------------

def _rendering(rl: ResourceList, config: Config, options: Options) -> Rendering | None:
    """The renderer's phases prepared for the items (None without items: the engine is not even imported,
    start-up time). The catalog is handed down as a value, loaded only when a reference is not among the items
    (``krm_fn.catalog.generate.FallbackObjects``)."""
    if not rl.items:
        return None
    from krm_fn.catalog.generate import FallbackObjects
    from krm_fn.render.rendering import Rendering

    spec = config.spec
    if options.validate_only and getattr(spec, "mode", None) != "validate":
        spec = dataclasses.replace(spec, mode="validate")
    catalog = FallbackObjects(getattr(spec, "catalog", None), options.base_dir, getattr(spec, "kubevirt_version", None))
    return Rendering(rl.items, spec, catalog)


def _in_halves(rendering: Rendering) -> bool:
    """Whether two processes render the list (:func:`run_parsed`): a long list, rendered item by item."""
    from krm_fn.workers import SPLIT_MIN_ITEMS

    return rendering.per_item and len(rendering.items) >= SPLIT_MIN_ITEMS and not rendering.spec.validate_output
