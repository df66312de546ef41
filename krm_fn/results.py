"""KRM function results (kpt SDK ``result.go``): data, never exceptions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from krm_fn.kube.api import ANN_INDEX, ANN_LEGACY_INDEX, ANN_LEGACY_PATH, ANN_PATH
from krm_fn.kube.paths import Obj

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class ResourceRef:
    api_version: str
    kind: str
    name: str
    namespace: str | None = None

    @staticmethod
    def of(obj: Obj) -> ResourceRef:
        raw_md = obj.get("metadata")
        md: Obj = raw_md if isinstance(raw_md, dict) else {}
        ns = md.get("namespace")
        return ResourceRef(
            api_version=str(obj.get("apiVersion", "")),
            kind=str(obj.get("kind", "")),
            name=str(md.get("name", "")),
            namespace=str(ns) if ns else None,
        )

    def to_obj(self) -> Obj:
        out: Obj = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}
        if self.namespace:
            out["namespace"] = self.namespace
        return out


@dataclass(frozen=True, slots=True)
class FileRef:
    path: str
    index: int | None = None

    @staticmethod
    def of(obj: Obj) -> FileRef | None:
        md = obj.get("metadata")
        ann = md.get("annotations") if isinstance(md, dict) else None
        if not isinstance(ann, dict):
            return None
        path = ann.get(ANN_PATH) or ann.get(ANN_LEGACY_PATH)
        if not path:
            return None
        raw_index = ann.get(ANN_INDEX, ann.get(ANN_LEGACY_INDEX))
        try:
            index = int(raw_index) if raw_index is not None else None
        except (TypeError, ValueError):
            index = None
        return FileRef(str(path), index)

    def to_obj(self) -> Obj:
        out: Obj = {"path": self.path}
        if self.index is not None:
            out["index"] = self.index
        return out


@dataclass(frozen=True, slots=True)
class Result:
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

    def summary(self) -> str:
        """The one-line stderr form: ``error: VirtualMachine ns/vm (vms/vm.yaml) spec.x: message``."""
        parts = [f"{self.severity}:"]
        if self.resource_ref is not None:
            ref = self.resource_ref
            parts.append(f"{ref.kind} {ref.namespace + '/' if ref.namespace else ''}{ref.name}")
        if self.file is not None:
            parts.append(f"({self.file.path})")
        if self.field_path and not self.message.startswith(self.field_path):
            parts.append(f"{self.field_path}:")
        elif len(parts) > 1:
            parts[-1] += ":"
        parts.append(" ".join(self.message.split()))
        return " ".join(parts)


def not_yet_said(said: list[Result], more: list[Result]) -> list[Result]:
    """``more`` without the results about an (object, field) that ``said`` already has an error for: one problem
    found by two checks (admission and ``validateOutput``) is reported once, by the first."""
    seen = {(r.resource_ref, r.field_path) for r in said if r.severity == "error"}
    return [r for r in more if (r.resource_ref, r.field_path) not in seen]


def exit_code(results: list[Result]) -> int:
    return 1 if any(r.severity == "error" for r in results) else 0
