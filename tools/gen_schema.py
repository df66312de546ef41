#!/usr/bin/env python3
"""Regenerate ``krm_fn/kubevirt/schema/kubevirt.json`` from ``shared/schemas/kubevirt-swagger.json`` (KubeVirt
``main``, the base), and one ``releases/<tag>.json`` per other release tag of ``krm_fn.kubevirt_versions`` from
``shared/reference/kubevirt-releases/<tag>/swagger.json``: only the definitions that differ from the base (whole,
or ``null`` for one the tag lacks), so the package stays small and a release costs one small file to read.

The function runs without ``shared/`` at run time, so the part of KubeVirt's OpenAPI document that the
VirtualMachine and the four instancetype/preference kinds reach is copied into the package, trimmed to
what the validator (``krm_fn.kubevirt.schema.validation``) and the Go round trip (``krm_fn.kubevirt.schema.roundtrip``) need,
and annotated with the Go serialisation of every field (``tools/gotypes.py``).

Usage: ``python3 tools/gen_schema.py [SWAGGER] [OUT]`` (defaults: ``../shared/schemas/kubevirt-swagger.json``
next to the repository, ``krm_fn/kubevirt/schema/kubevirt.json``; each release's ``swagger.json`` is read from
``reference/kubevirt-releases/<tag>/`` of the same ``shared`` directory, its output written to ``releases/``
beside OUT). ``--check`` exits 1 when an output is stale.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gotypes import GO_FIELDS, GO_INTS, RELEASE_GO_FIELDS  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SWAGGER = REPO.parent / "shared" / "schemas" / "kubevirt-swagger.json"
DEFAULT_OUT = REPO / "krm_fn" / "kubevirt" / "schema" / "kubevirt.json"

ROOTS = (
    "v1.VirtualMachine",
    "v1beta1.VirtualMachineInstancetype",
    "v1beta1.VirtualMachineClusterInstancetype",
    "v1beta1.VirtualMachinePreference",
    "v1beta1.VirtualMachineClusterPreference",
)
KEEP_FORMATS = {"date-time", "int-or-string", "int32", "int64"}

# What the CRDs virt-operator installs check and the swagger document lacks: bounds from kubebuilder markers on
# the Go types (``staging/src/kubevirt.io/api/instancetype/v1beta1/types.go``), as they appear in
# ``pkg/virt-operator/resource/generate/components/validations_generated.go`` (the API server checks them before
# any webhook). Only the instancetype/preference kinds: virt-api validates the VM against the swagger alone.
CRD_BOUNDS: dict[tuple[str, str], dict[str, int]] = {
    ("v1beta1.MemoryInstancetype", "overcommitPercent"): {"minimum": 0, "maximum": 100},
}
# The pattern the CRDs give every ``resource.Quantity`` (``x-kubernetes-int-or-string``, controller-gen's
# ``Quantity`` schema): a string that does not match is refused by the API server before any webhook.
QUANTITY_DEF = "k8s.io.apimachinery.pkg.api.resource.Quantity"
CRD_QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                        r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _refs(node: Any) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                out.append(_ref_name(v))
            else:
                out.extend(_refs(v))
    elif isinstance(node, list):
        for v in node:
            out.extend(_refs(v))
    return out


def reachable(defs: dict[str, Any]) -> list[str]:
    seen: set[str] = set()
    stack = list(ROOTS)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(_refs(defs[name]))
    return sorted(seen)


def _compact(schema: dict[str, Any]) -> dict[str, Any]:
    """The validation-relevant part of one (property) schema."""
    out: dict[str, Any] = {}
    if "$ref" in schema:
        out["ref"] = _ref_name(schema["$ref"])
    if "type" in schema:
        t = schema["type"]
        out["type"] = t if isinstance(t, list) else [t]
    if "items" in schema:
        out["items"] = _compact(schema["items"])
    ap = schema.get("additionalProperties")
    if isinstance(ap, dict):
        out["values"] = _compact(ap)
    elif ap is False:
        out["values"] = False
    if "enum" in schema:
        out["enum"] = schema["enum"]
    if schema.get("format") in KEEP_FORMATS:
        out["format"] = schema["format"]
    if schema.get("nullable"):
        out["nullable"] = True
    if "default" in schema:
        out["hasDefault"] = True
    return out


def _go_code(defn: str, prop: str, schema: dict[str, Any], tag: str | None = None) -> str:
    table = RELEASE_GO_FIELDS.get(tag or "", {}).get(defn) or GO_FIELDS.get(defn, {})
    for code, names in table.items():
        if prop in names.split():
            return code
    if "$ref" in schema and schema.get("default") == {}:
        return "s"
    return "p"


def build(swagger: dict[str, Any], strict: bool = True, tag: str | None = None) -> dict[str, Any]:
    """The trimmed document. ``strict`` (the base): every table entry must name a real property; an older
    release's document lacks the fields it does not know, so its entries are applied where they fit, and
    ``tag``'s own entries (``RELEASE_GO_FIELDS``) replace the base's."""
    defs = swagger["definitions"]
    out_defs: dict[str, Any] = {}
    names = reachable(defs)
    for name in names:
        d = defs[name]
        props = d.get("properties", {})
        cd = _compact({k: v for k, v in d.items() if k not in ("properties", "required")})
        cprops = {}
        for pname in sorted(props):
            p = _compact(props[pname])
            p["go"] = _go_code(name, pname, props[pname], tag)
            p.update(CRD_BOUNDS.get((name, pname), {}))
            if pname in GO_INTS.get(name, {}):
                p["goType"] = GO_INTS[name][pname]
            cprops[pname] = p
        if props or d.get("type") == "object" and "additionalProperties" not in d:
            cd["properties"] = cprops
        if d.get("required"):
            cd["required"] = list(d["required"])
        if name == QUANTITY_DEF:
            cd["crdPattern"] = CRD_QUANTITY_PATTERN
        out_defs[name] = cd
    if not strict:
        return {"roots": list(ROOTS), "definitions": out_defs}
    for defn, prop in CRD_BOUNDS:  # a renamed field must not silently lose its bounds
        if prop not in out_defs.get(defn, {}).get("properties", {}):
            raise SystemExit(f"CRD_BOUNDS: {defn} has no property {prop}")
    for defn, ints in GO_INTS.items():  # likewise every Go integer type
        for prop in ints:
            if "integer" not in out_defs.get(defn, {}).get("properties", {}).get(prop, {}).get("type", ()):
                raise SystemExit(f"GO_INTS: {defn} has no integer property {prop}")
    # every Go table entry must name a real property (catches typos)
    for defn, table in GO_FIELDS.items():
        if defn not in out_defs:
            raise SystemExit(f"gotypes: unknown definition {defn}")
        for names_ in table.values():
            for prop in names_.split():
                if prop not in out_defs[defn].get("properties", {}):
                    raise SystemExit(f"gotypes: {defn} has no property {prop}")
    return {"roots": list(ROOTS), "definitions": out_defs}


def render(swagger_path: Path) -> str:
    raw = swagger_path.read_bytes()
    doc = build(json.loads(raw))
    doc = {"source": {"file": "kubevirt-swagger.json", "sha256": hashlib.sha256(raw).hexdigest()}, **doc}
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def release_tags() -> list[str]:
    """Every tag of the release table but the base's (the tag the base document, SWAGGER, is), oldest first."""
    sys.path.insert(0, str(REPO))
    from krm_fn.kubevirt.schema.tree import BASE_TAG, TAGS

    return [tag for tag in TAGS if tag != BASE_TAG]


def render_release(swagger_path: Path, base: dict[str, Any]) -> str:
    """One tag's differences from the base document: each definition that differs, whole; ``null`` for a
    definition of the base the tag lacks."""
    raw = swagger_path.read_bytes()
    defs = build(json.loads(raw), strict=False, tag=swagger_path.parent.name)["definitions"]
    base_defs = base["definitions"]
    diff: dict[str, Any] = {name: d for name, d in defs.items() if base_defs.get(name) != d}
    diff.update((name, None) for name in base_defs if name not in defs)
    doc = {"source": {"file": f"{swagger_path.parent.name}/swagger.json", "sha256": hashlib.sha256(raw).hexdigest()},
           "definitions": diff}
    return json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n"


def outputs(swagger: Path, out: Path) -> dict[Path, str]:
    """Every file this tool writes, with its content."""
    text = render(swagger)
    found = {out: text}
    releases = swagger.resolve().parents[1] / "reference" / "kubevirt-releases"
    base = json.loads(text)
    for tag in release_tags():
        found[out.parent / "releases" / f"{tag}.json"] = render_release(releases / tag / "swagger.json", base)
    return found


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    swagger = Path(args[0]) if args else DEFAULT_SWAGGER
    out = Path(args[1]) if len(args) > 1 else DEFAULT_OUT
    stale = 0
    for path, text in outputs(swagger, out).items():
        if check:
            current = path.read_text() if path.exists() else ""
            if current != text:
                print(f"{path} is out of date; run tools/gen_schema.py", file=sys.stderr)
                stale = 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path} ({len(text)} bytes)")
    return stale


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
