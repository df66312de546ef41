"""What an upgrade changes, from renders on the public path: the same inputs rendered by ``krm_fn.process`` with
two renderer specs (the user's config with ``mode: expand`` and each side's ``kubevirtVersion`` and, when given,
``catalog.version``), compared VM by VM and object by object. Nothing here knows how a release behaves: whatever
the renderer does for a release (admission, expand, schema) is what the report says.

* a VM both renders expand: ``changed`` when the expansions differ (every field, with both values);
* a VM one render refuses (error results about it): ``refused`` (the new release refuses it), ``admitted`` (the
  new release admits it) or ``still refused`` (both, each side's messages);
* a pinned VM (a matcher with ``revisionName``) keeps its revisions, so it is expanded from them on both sides;
  a third render, of its copy without the pins, says what a repin on the new release would change;
* any other object the new release refuses (error results about it the old release does not give): an
  instancetype in Git with a field the new API does not know, a version it no longer serves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, NamedTuple

from krm_fn.catalog.errors import keypath
from krm_fn.config import Config, load
from krm_fn.errors import ConfigError, FnError
from krm_fn.index import is_vm
from krm_fn.io.inputs import Source
from krm_fn.io.resourcelist import ResourceList, origin_of
from krm_fn.kube.api import KIND_RENDERER
from krm_fn.kube.changes import field_changes
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt_versions import default_builtin_version
from krm_fn.process import Options, parse, run, stream_input
from krm_fn.render.pinning import unpinned
from krm_fn.results import ResourceRef, Result


class Side(NamedTuple):
    """One side of the upgrade: the KubeVirt release and the catalog version (None: what the release deploys)."""

    kubevirt_version: str
    catalog_version: str | None = None


class FieldChange(NamedTuple):
    path: str
    before: Any  # kube.changes.ABSENT when the field is not there
    after: Any


class Repin(NamedTuple):
    """What moving a pinned VM to the current objects on the new release would do: the fields its expansion
    would change (against what it runs pinned), or the new release's refusal of it."""

    fields: tuple[FieldChange, ...]
    refused: tuple[str, ...]
    admitted: bool  # the pinned VM is refused on the new release, a repinned one would not be


class VmChange(NamedTuple):
    ref: ResourceRef
    file: str | None
    change: str  # unchanged | changed | refused | admitted | still refused
    fields: tuple[FieldChange, ...]
    refused_before: tuple[str, ...]
    refused_after: tuple[str, ...]
    repin: Repin | None  # pinned VMs whose repin would change something


class ObjectChange(NamedTuple):
    ref: ResourceRef
    file: str | None
    change: str  # refused (by the new release) | admitted (refused by the old one only)
    messages: tuple[str, ...]


class Report(NamedTuple):
    before: tuple[str, str]  # KubeVirt release, catalog as rendered
    after: tuple[str, str]
    vms: tuple[VmChange, ...]  # every VM, in input order
    objects: tuple[ObjectChange, ...]

    @property
    def changes(self) -> bool:
        return bool(self.objects) or any(vm.change in ("changed", "refused", "admitted") or vm.repin is not None
                                         or vm.refused_before != vm.refused_after for vm in self.vms)


def side_config(fn_config: Obj, side: Side) -> Obj:
    """The user's renderer config for one side: ``mode: expand``, the side's ``kubevirtVersion`` and catalog
    version (typed config or ConfigMap form); ``fn_config`` is not changed."""
    if fn_config.get("kind") == "ConfigMap":
        data = {**(fn_config.get("data") or {}), "mode": "expand", "kubevirtVersion": side.kubevirt_version}
        if side.catalog_version is not None:
            data["catalog.version"] = side.catalog_version
        return {**fn_config, "data": data}
    spec = {**(fn_config.get("spec") or {}), "mode": "expand", "kubevirtVersion": side.kubevirt_version}
    if side.catalog_version is not None:
        spec["catalog"] = {**(spec.get("catalog") or {}), "version": side.catalog_version}
    return {**fn_config, "spec": spec}


def renderer_config(fn_config: Obj) -> Config:
    """``fn_config`` loaded; FnError when it is unusable or not a renderer's."""
    try:
        config = load(fn_config)
    except ConfigError as exc:
        raise FnError("the config: " + "; ".join(f"{path}: {msg}" if path else msg
                                                 for path, msg in exc.problems)) from None
    if config.kind != KIND_RENDERER:
        raise FnError(f"upgrade-report needs a {KIND_RENDERER} config, not {config.kind}")
    return config


def catalog_shown(fn_config: Obj) -> str:
    """The catalog a renderer config looks missing objects up in: ``NAME@VERSION``, a file, or ``none``."""
    config = renderer_config(fn_config)
    catalog = config.spec.catalog
    if catalog.path is not None:
        return str(catalog.path)
    if catalog.builtin == "none":
        return "none"
    name = catalog.builtin or "common-instancetypes"
    version = catalog.version or default_builtin_version(name, config.spec.kubevirt_version)
    return f"{name}@{version}" if version else name


class Rendered(NamedTuple):
    items: list[Any]
    errors: dict[ResourceRef, tuple[str, ...]]  # error results by object


def render(rl: ResourceList, fn_config: Obj, options: Options) -> Rendered:
    """``rl`` rendered with ``fn_config`` (one process: the items come back as objects); an error about the
    config itself (or about no object) makes the run unusable: FnError."""
    items, results = run(dataclasses.replace(rl, function_config=fn_config), options)
    if len(items) != len(rl.items):  # expand emits one item per input item; migrate may rewrite the list
        raise FnError("upgrade-report compares the inputs item by item: render them without migrate "
                      "(run mode: migrate first, docs/migrate.md)")
    config_ref = ResourceRef.of(fn_config)
    errors: dict[ResourceRef, list[str]] = {}
    for r in results:
        if r.severity != "error" or r.follows:  # one line per mistake: KubeVirt's verdict on it follows from it
            continue
        if r.resource_ref is None or r.resource_ref == config_ref:
            raise FnError(r.summary().removeprefix("error: "))
        errors.setdefault(r.resource_ref, []).append(_said(r))
    return Rendered(list(items), {ref: tuple(said) for ref, said in errors.items()})


def _said(r: Result) -> str:
    """A result's words, its field first unless the message starts with it."""
    if r.field_path and not r.message.startswith(r.field_path):
        return f"{r.field_path}: {r.message}"
    return r.message


def report(config: Source, sources: Sequence[Source], before: Side, after: Side, options: Options) -> Report:
    """The inputs rendered for ``before`` and ``after`` and compared (pinned VMs also repinned on ``after``)."""
    source = stream_input(config, sources)
    renderer_config(source.function_config)
    configs = [side_config(source.function_config, side) for side in (before, after)]
    shown = [catalog_shown(c) for c in configs]  # an unusable config stops here, before the inputs are read
    rl = parse(source, options.fast_yaml)
    old, new = (render(rl, c, options) for c in configs)
    pinned = {i for i, item in enumerate(rl.items) if is_vm(item) and unpinned(item) is not item}
    repinned: dict[int, tuple[Any, tuple[str, ...]]] = {}
    if pinned:
        # the objects VMs use and the pinned VMs without their pins: what repin would make of them
        keep = [i for i, item in enumerate(rl.items) if not is_vm(item) or i in pinned]
        items = [unpinned(rl.items[i]) if i in pinned else rl.items[i] for i in keep]
        moved = render(dataclasses.replace(rl, items=items), configs[1], options)
        repinned = {i: (out, moved.errors.get(ResourceRef.of(rl.items[i]), ()))
                    for i, out in zip(keep, moved.items) if i in pinned}
    files = [_file(rl, item) for item in rl.items]
    vms, objects = compare(rl.items, files, old, new, repinned)
    return Report((before.kubevirt_version, shown[0]), (after.kubevirt_version, shown[1]), vms, objects)


def _file(rl: ResourceList, item: Obj) -> str | None:
    origin = origin_of(rl, item)
    return origin.file if origin is not None and origin.is_file else None


def compare(items: Sequence[Any], files: Sequence[str | None], old: Rendered, new: Rendered,
            repinned: dict[int, tuple[Any, tuple[str, ...]]]) -> tuple[tuple[VmChange, ...], tuple[ObjectChange, ...]]:
    """Each input VM's change and each other object's, from the two renders (their items in input order) and
    the repinned pinned VMs (by index: the expansion and the errors)."""
    vms: list[VmChange] = []
    objects: list[ObjectChange] = []
    for i, item in enumerate(items):
        ref = ResourceRef.of(item)
        was, now = old.errors.get(ref, ()), new.errors.get(ref, ())
        if is_vm(item):
            vms.append(_vm_change(ref, files[i], (old.items[i], was), (new.items[i], now), repinned.get(i)))
        elif now and not was:
            objects.append(ObjectChange(ref, files[i], "refused", now))
        elif was and not now:
            objects.append(ObjectChange(ref, files[i], "admitted", was))
    return tuple(vms), tuple(objects)


def _fields(before: Any, after: Any) -> tuple[FieldChange, ...]:
    if before == after:  # the common case, compared in C
        return ()
    return tuple(FieldChange(keypath(path), a, b) for path, a, b in field_changes(before, after))


def _vm_change(ref: ResourceRef, file: str | None, old: tuple[Any, tuple[str, ...]], new: tuple[Any, tuple[str, ...]],
               repinned: tuple[Any, tuple[str, ...]] | None) -> VmChange:
    (before, was), (after, now) = old, new
    fields: tuple[FieldChange, ...] = ()
    if was or now:
        change = "still refused" if was and now else "refused" if now else "admitted"
    else:
        fields = _fields(before, after)
        change = "changed" if fields else "unchanged"
    repin = None
    if repinned is not None:
        moved, refused = repinned
        if now:
            repin = None if refused else Repin((), (), True)
        elif refused:
            repin = Repin((), refused, False)
        else:
            moved_fields = _fields(after, moved)
            repin = Repin(moved_fields, (), False) if moved_fields else None
    return VmChange(ref, file, change, fields, was, now, repin)


__all__ = ["FieldChange", "ObjectChange", "Repin", "Report", "Side", "VmChange", "catalog_shown",
           "compare", "report", "side_config"]
