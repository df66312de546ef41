"""An upgrade report (:class:`krm_fn.upgrade.report.Report`) as text for a terminal or as JSON for a pipeline:
the summary first (counts by kind of change), then each VM and object that changes, in input order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from krm_fn.kube.changes import ABSENT, shown_value
from krm_fn.kube.paths import Obj
from krm_fn.results import ResourceRef
from krm_fn.upgrade.report import FieldChange, ObjectChange, Report, VmChange

# the summary's rows: key (JSON), words (text)
VM_KINDS = (("changed", "changed", "what KubeVirt runs differs (the expanded spec, field by field below)"),
            ("refused", "refused", "the new release refuses them"),
            ("admitted", "admitted", "the old release refuses them, the new one admits them"),
            ("stillRefused", "still refused", "both releases refuse them"),
            ("unchanged", "unchanged", ""))
REPIN = ("repin", "repin changes", "pinned VMs keep their revisions; a repin on the new release would change them")
OBJECT_KINDS = (("objectsRefused", "refused", "objects the new release's API or webhooks refuse"),
                ("objectsAdmitted", "admitted", "objects only the old release refuses"))


def summary(report: Report) -> dict[str, int]:
    counts = {key: sum(vm.change == change for vm in report.vms) for key, change, _ in VM_KINDS}
    counts[REPIN[0]] = sum(vm.repin is not None for vm in report.vms)
    for key, change, _ in OBJECT_KINDS:
        counts[key] = sum(o.change == change for o in report.objects)
    return {"vms": len(report.vms), **counts}


def _side(side: tuple[str, str]) -> str:
    return f"KubeVirt {side[0]} (catalog {side[1]})"


def text(report: Report) -> str:
    counts = summary(report)
    lines = [f"upgrade from {_side(report.before)} to {_side(report.after)}: {counts['vms']} VMs"]
    rows = [(counts[key], f"{words} VMs" if key != "unchanged" else "unchanged VMs", why)
            for key, words, why in VM_KINDS]
    rows.append((counts[REPIN[0]], REPIN[1], REPIN[2]))
    rows += [(counts[key], f"{words} objects", why) for key, words, why in OBJECT_KINDS]
    lines += [f"  {n:>5} {label:<18} {why}".rstrip() for n, label, why in rows]
    lines.append("changes: " + ("yes (exit 1)" if report.changes else "none (exit 0)"))
    for vm in report.vms:
        lines += _vm_lines(vm, report)
    for obj in report.objects:
        lines.append("")
        lines.append(f"{obj.change} {_named(obj.ref, obj.file)}")
        lines += [f"  {report.after[0] if obj.change == 'refused' else report.before[0]}: {m}" for m in obj.messages]
    return "\n".join(lines) + "\n"


def _named(ref: ResourceRef, file: str | None) -> str:
    where = f" ({file})" if file else ""
    return f"{ref.shown()}{where}"


def _vm_lines(vm: VmChange, report: Report) -> Iterator[str]:
    if vm.change == "unchanged" and vm.repin is None:
        return
    yield ""
    pinned = vm.change == "unchanged"  # listed for its repin only
    yield f"{'pinned' if pinned else vm.change} {_named(vm.ref, vm.file)}" + (": unchanged while pinned" if pinned else "")
    yield from _field_lines(vm.fields)
    yield from (f"  {report.before[0]}: {m}" for m in vm.refused_before)
    yield from (f"  {report.after[0]}: {m}" for m in vm.refused_after)
    if vm.repin is not None:
        release = report.after[0]
        if vm.repin.admitted:
            yield f"  repin: {release} refuses its revisions; a repin on {release} would be admitted"
        elif vm.repin.refused:
            yield f"  repin on {release} would be refused:"
            yield from (f"    {m}" for m in vm.repin.refused)
        else:
            yield f"  repin on {release} would change:"
            yield from _field_lines(vm.repin.fields, "    ")


def _field_lines(fields: tuple[FieldChange, ...], indent: str = "  ") -> Iterator[str]:
    return (f"{indent}{f.path}: {shown_value(f.before)} -> {shown_value(f.after)}" for f in fields)


def as_json(report: Report) -> str:
    out = {"from": {"kubevirtVersion": report.before[0], "catalog": report.before[1]},
           "to": {"kubevirtVersion": report.after[0], "catalog": report.after[1]},
           "changes": report.changes, "summary": summary(report),
           "vms": [_vm_obj(vm) for vm in report.vms if vm.change != "unchanged" or vm.repin is not None],
           "objects": [_object_obj(o) for o in report.objects]}
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def _ref_obj(ref: ResourceRef, file: str | None) -> Obj:
    return {**ref.to_obj(), **({"file": file} if file else {})}


def _fields_obj(fields: tuple[FieldChange, ...]) -> list[Obj]:
    """Each change as ``{path, from, to}``, a side without the field left out."""
    out: list[Obj] = []
    for f in fields:
        entry: dict[str, Any] = {"path": f.path}
        if f.before is not ABSENT:
            entry["from"] = f.before
        if f.after is not ABSENT:
            entry["to"] = f.after
        out.append(entry)
    return out


def _vm_obj(vm: VmChange) -> Obj:
    out: Obj = {**_ref_obj(vm.ref, vm.file), "change": vm.change}
    if vm.fields:
        out["fields"] = _fields_obj(vm.fields)
    if vm.refused_before or vm.refused_after:
        out["refused"] = {"from": list(vm.refused_before), "to": list(vm.refused_after)}
    if vm.repin is not None:
        out["repin"] = {"fields": _fields_obj(vm.repin.fields), "refused": list(vm.repin.refused),
                        "admitted": vm.repin.admitted}
    return out


def _object_obj(obj: ObjectChange) -> Obj:
    return {**_ref_obj(obj.ref, obj.file), "change": obj.change, "messages": list(obj.messages)}
