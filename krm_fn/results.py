"""KRM function results (kpt SDK ``result.go``): data, never exceptions. Mostly named tuples: immutable,
and a tenth of a frozen dataclass's cost to define (every run imports this module)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from krm_fn.catalog.errors import keypath
from krm_fn.errors import cut
from krm_fn.io.resourcelist import ResourceList, line_of, set_aside
from krm_fn.kube import kpt_annotations
from krm_fn.kube.api import KIND_CATALOG
from krm_fn.kube.identity import name_of
from krm_fn.kube.paths import FieldPath, Obj, dotted, iter_objects

Severity = Literal["error", "warning", "info"]
# the tag of a result that follows from others (their field paths): KubeVirt's verdict on a VM whose references
# do not resolve (krm_fn/render/hints.py). stderr shows the causes alone; a ResourceList carries it in the tags
# of its root cause (FOLLOW_ON, with its stage in FOLLOW_ON_STAGE): kpt prints every result, tags it does not.
FOLLOWS_FROM = "follows-from"
FOLLOW_ON = "follow-on"
FOLLOW_ON_STAGE = "follow-on-stage"


class ResourceRef(NamedTuple):
    api_version: str
    kind: str
    name: str
    namespace: str | None = None
    generate_name: str | None = None  # an object without a name: the prefix the API server names it from

    @staticmethod
    def of(obj: Obj) -> ResourceRef:
        raw_md = obj.get("metadata")
        md: Obj = raw_md if isinstance(raw_md, dict) else {}
        ns = md.get("namespace")
        name = str(md.get("name", ""))
        generate = md.get("generateName") if not name else None
        return ResourceRef(
            api_version=str(obj.get("apiVersion", "")),
            kind=str(obj.get("kind", "")),
            name=name,
            namespace=str(ns) if ns else None,
            generate_name=str(generate) if generate else None,
        )

    def shown(self) -> str:
        """``Kind ns/name`` for a stderr line; a nameless object as ``Kind ns/prefix*`` (its generateName)."""
        name = self.name or (f"{self.generate_name}*" if self.generate_name else "")
        return f"{self.kind} {self.namespace + '/' if self.namespace else ''}{name}"

    def to_obj(self) -> Obj:
        out: Obj = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}
        if self.namespace:
            out["namespace"] = self.namespace
        return out


@dataclass(frozen=True, slots=True)
class FileRef:  # a dataclass: a named tuple's own index() would clash with the field
    path: str
    index: int | None = None
    line: int | None = None  # the document's line in the file, when we read the file itself (stream modes)

    @staticmethod
    def of(obj: Obj) -> FileRef | None:
        path = kpt_annotations.file_path(obj)
        return FileRef(path, kpt_annotations.file_index(obj)) if path else None

    def to_obj(self) -> Obj:
        out: Obj = {"path": self.path}
        if self.index is not None:
            out["index"] = self.index
        return out


class Result(NamedTuple):
    """One KRM result: ``{message, severity, resourceRef, field{path,...}, file{path,index}, tags}``."""

    message: str
    severity: Severity = "error"
    resource_ref: ResourceRef | None = None
    field_path: str | None = None
    current_value: Any = None
    proposed_value: Any = None
    file: FileRef | None = None
    tags: tuple[tuple[str, str], ...] = ()

    @staticmethod
    def for_object(message: str, obj: Obj, severity: Severity = "error", field_path: str | None = None,
                   **kw: Any) -> Result:
        """A result about ``obj``: fills resourceRef and file from the object (kpt ``ConfigObjectResult``)."""
        return Result(message, severity, ResourceRef.of(obj), field_path, file=FileRef.of(obj), **kw)

    def to_obj(self) -> Obj:
        out: Obj = {"message": self.message, "severity": self.severity}
        if self.resource_ref is not None:
            out["resourceRef"] = self.resource_ref.to_obj()
        if self.field_path is not None:
            field: Obj = {"path": self.field_path}
            if self.current_value is not None:
                field["currentValue"] = self.current_value
            if self.proposed_value is not None:
                field["proposedValue"] = self.proposed_value
            out["field"] = field
        if self.file is not None:
            out["file"] = self.file.to_obj()
        if self.tags:
            out["tags"] = dict(self.tags)
        return out

    @property
    def follows(self) -> bool:
        """Whether this result follows from other results (tagged :data:`FOLLOWS_FROM`): not a mistake of its own."""
        return any(key == FOLLOWS_FROM for key, _ in self.tags)

    def summary(self) -> str:
        """The one-line stderr form: ``error: VirtualMachine ns/vm (vms/vm.yaml line 3) spec.x: message``."""
        parts = [f"{self.severity}:"]
        if self.resource_ref is not None:
            parts.append(readable(self.resource_ref.shown(), 200))
        if self.file is not None and not self.message.startswith(f"{self.file.path} line "):  # not said twice
            line = f" line {self.file.line}" if self.file.line is not None else ""
            parts.append(f"({readable(self.file.path, 200)}{line})")
        if self.field_path and not self.message.startswith(self.field_path):
            parts.append(f"{readable(self.field_path, 200)}:")
        elif len(parts) > 1:
            parts[-1] += ":"
        parts.append(readable(" ".join(self.message.split())))
        return " ".join(parts)


def resource_list_results(results: list[Result]) -> list[Obj]:
    """``results`` as a ResourceList holds them: an error that follows from a root cause on the same object is
    not a result of its own (kpt would print it beside its cause) but the cause's :data:`FOLLOW_ON` tag,
    KubeVirt's words unchanged (one per line); a follow-on whose causes are elsewhere stays a result."""
    causes: dict[tuple[ResourceRef | None, str | None], int] = {}
    for i, r in enumerate(results):
        if r.severity == "error" and not r.follows and r.resource_ref is not None:
            causes.setdefault((r.resource_ref, r.field_path), i)
    folded: dict[int, list[Result]] = {}
    kept: list[int] = []
    for i, r in enumerate(results):
        cause = _cause_of(r, causes) if r.follows and r.severity == "error" else None
        if cause is None:
            kept.append(i)
        else:
            folded.setdefault(cause, []).append(r)
    return [_with_follow_ons(results[i], folded.get(i, [])) for i in kept]


def _cause_of(result: Result, causes: dict[tuple[ResourceRef | None, str | None], int]) -> int | None:
    fields = dict(result.tags)[FOLLOWS_FROM].split(", ")
    return next((causes[(result.resource_ref, f)] for f in fields if (result.resource_ref, f) in causes), None)


def _with_follow_ons(result: Result, follow_ons: list[Result]) -> Obj:
    out = result.to_obj()
    if follow_ons:
        tags = out.setdefault("tags", {})
        tags[FOLLOW_ON] = "\n".join(r.message for r in follow_ons)
        tags[FOLLOW_ON_STAGE] = dict(follow_ons[0].tags).get("stage", "")
    return out


def not_yet_said(said: list[Result], more: list[Result]) -> list[Result]:
    """``more`` without the results about an (object, field) that ``said`` already has an error for: one problem
    found by two checks (admission and ``validateOutput``) is reported once, by the first."""
    seen = {(r.resource_ref, r.field_path) for r in said if r.severity == "error"}
    return [r for r in more if (r.resource_ref, r.field_path) not in seen]


def readable(text: str, limit: int | None = None) -> str:
    """``text`` for a stderr line: characters that are not printable (NUL, control, lone surrogates) escaped,
    and cut to ``limit`` characters (names and paths come from the input)."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                       for c in text)
    return cut(text, limit) if limit is not None else text


def exit_code(results: list[Result]) -> int:
    return 1 if any(r.severity == "error" for r in results) else 0


# --- the core's results: on the config, on a catalog, on items set aside -------------------------------

def config_result(fn_config: Obj | None, path: str, message: str) -> Result:
    """An error result on the functionConfig at field ``path`` (``functionConfig:`` leads when it has no kind).
    The message does not repeat the field, which kpt prints beside it (and :meth:`Result.summary` before it)."""
    ref = ResourceRef.of(fn_config) if isinstance(fn_config, dict) and fn_config.get("kind") else None
    file = FileRef.of(fn_config) if isinstance(fn_config, dict) else None
    text = message
    if ref is None:
        text = f"functionConfig: {path}: {message}" if path else f"functionConfig: {message}"
    return Result(text, "error", ref, path or None, file=file)


def catalog_result(fn_config: Obj | None, kind: str, problem: tuple[str, FieldPath, str]) -> Result:
    """One result per catalog problem: in a catalog file (``file: key path: message``), or in the settings
    (field path in the functionConfig: ``spec.path``, ``spec.catalog.path`` or ``data.catalog.path``)."""
    file, path, message = problem
    if file:
        return config_result(fn_config, "", f"{file}: {keypath(path)}: {message}" if path else f"{file}: {message}")
    steps = list(path[1:] if path[:1] == ("spec",) else path)
    if kind != KIND_CATALOG:
        steps.insert(0, "catalog")
    is_configmap = isinstance(fn_config, dict) and fn_config.get("kind") == "ConfigMap"
    where = dotted(("data" if is_configmap else "spec", *steps)) if is_configmap or fn_config else ""
    return config_result(fn_config, where, message)


def annotation_results(item: Any) -> list[Result]:
    """An error result for each object of ``item`` whose path/index annotations kpt could not read
    (``krm_fn.kube.kpt_annotations``): checked here, once, before anything reads them."""
    return [Result.for_object(f"{path}: {message}", obj, field_path=path, tags=(("stage", "input"),))
            for obj in iter_objects([item]) for path, message in kpt_annotations.problems(obj)]


def unusable_results(rl: ResourceList) -> list[Result]:
    """An error result on each input item that could not be processed (set aside: the others are processed),
    naming its file: kpt's path annotation, or the stream input it came from and the document's line."""
    results = []
    for unusable in set_aside(rl):
        if not unusable.message:
            continue  # said by its own results
        item, origin = unusable.item, unusable.origin
        file = FileRef(origin.file, origin.index, line_of(rl, origin)) if origin is not None and origin.is_file \
            else FileRef.of(item)
        # a stream item's message names the object, its input and line already
        ref = ResourceRef.of(item) if origin is None and isinstance(item, dict) and item.get("kind") \
            and name_of(item) else None
        results.append(Result(unusable.message, "error", ref, file=file, tags=(("stage", "input"),)))
    return results
