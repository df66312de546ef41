"""The revisions-mode examples (``examples/quickstart``, ``examples/revisions-*``) beyond the golden harness.

* every VirtualMachine and ControllerRevision they emit is valid (``krm_fn.kubevirt.schema.strict``: the packaged KubeVirt
  schema, object metadata, the ``apps/v1`` ControllerRevision check with ``data`` as a v1beta1 object) and
  every generated revision has exactly the layout KubeVirt needs (labels, ``revision: 0``, no owner, the VM's
  namespace, a content-addressed DNS-subdomain name);
* every pinned VM references revisions that are in the output, in its namespace, of the kind it names;
* the behaviours the examples describe: a missing pinned revision is an error, ``revisionName: ""`` re-pins
  without ``repin``, validate changes nothing, VMs without a namespace get revisions without one, and the
  quickstart command of the README works as written.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

from krm_fn.index import WRAPPER_KINDS
from krm_fn.io.emitter import Emitter
from krm_fn.io.loader import load_documents
from krm_fn.kube.api import (
    LABEL_OBJECT_GENERATION,
    LABEL_OBJECT_KIND,
    LABEL_OBJECT_NAME,
    LABEL_OBJECT_UID,
    LABEL_OBJECT_VERSION,
)
from krm_fn.render.revisions import content_digest
from krm_fn.process import Options, process
from krm_fn.kubevirt.schema.strict import validate_object
from tests.builders import REPO, require_shared
from tests.kpt_source import fn_config, source

EXAMPLES = REPO / "examples"
PACKAGES = sorted([EXAMPLES / "quickstart", *EXAMPLES.glob("revisions-*")])
TYPE_KINDS = {"VirtualMachineInstancetype", "VirtualMachineClusterInstancetype", "VirtualMachinePreference",
              "VirtualMachineClusterPreference"}
PINNED_NAME = re.compile(r"^(?P<prefix>.+)-v1beta1-(?P<hash>[0-9a-f]{16})-(?P<generation>[0-9]+)$")
CR_METADATA_KEYS = {"name", "namespace", "labels", "annotations"}
ARGO_WAVE = "argocd.argoproj.io/sync-wave"


def _flatten(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, dict) and item.get("kind") in WRAPPER_KINDS and isinstance(item.get("items"), list):
            out += _flatten(item["items"])
        else:
            out.append(item)
    return out


def _emit(rl: dict[str, Any]) -> bytes:
    e = Emitter()
    e.document(rl)
    return e.text().encode()


def _process(pkg: Path, rl: dict[str, Any]) -> tuple[dict[str, Any], int]:
    out = process(_emit(rl), Options(base_dir=pkg))
    doc = load_documents(out.data.decode())[0].value
    assert isinstance(doc, dict)
    return doc, out.exit_code


def _render(pkg: Path, config: dict[str, Any] | None = None, drop: Collection[str] = ()) -> tuple[dict[str, Any], int]:
    """The package as kpt feeds it (optionally with another functionConfig or without some items), rendered."""
    rl = load_documents(source(pkg, config if config is not None else fn_config(pkg)))[0].value
    rl["items"] = [i for i in rl["items"] if i["metadata"]["name"] not in drop]
    return _process(pkg, rl)


def _input_items(pkg: Path) -> list[Any]:
    return list(load_documents(source(pkg))[0].value["items"])


def _errors(rl: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for r in rl.get("results") or []:
        if r.get("severity") == "error":
            ref = r.get("resourceRef") or {}
            out.setdefault((ref.get("namespace") or "", ref.get("name") or ""), []).append(r["message"])
    return out


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    md = obj.get("metadata") or {}
    return md.get("namespace") or "", md.get("name") or ""


def _revision_problems(cr: dict[str, Any]) -> list[str]:
    """What KubeVirt needs from a GitOps-supplied revision (kubevirt-semantics §12.1, §12.8), beyond the schema,
    and the content-addressed name of a generated one."""
    problems: list[str] = []
    md, data = cr["metadata"], cr["data"]
    labels = md.get("labels") or {}
    if cr.get("revision") != 0 or type(cr.get("revision")) is not int:
        problems.append(f"revision is {cr.get('revision')!r}, not 0")
    if set(md) - CR_METADATA_KEYS:
        problems.append(f"unexpected metadata {sorted(set(md) - CR_METADATA_KEYS)} (no ownerReferences offline)")
    if labels.get(LABEL_OBJECT_VERSION) != "v1beta1":
        problems.append("no object-version: v1beta1 label (KubeVirt's upgrade step would replace the revision)")
    if data.get("apiVersion") != "instancetype.kubevirt.io/v1beta1" or data.get("kind") not in TYPE_KINDS:
        problems.append(f"data is {data.get('apiVersion')}/{data.get('kind')}")
    if labels.get(LABEL_OBJECT_KIND) != data.get("kind"):
        problems.append(f"object-kind label {labels.get(LABEL_OBJECT_KIND)!r} != data.kind {data.get('kind')!r}")
    if labels.get(LABEL_OBJECT_NAME) != (data.get("metadata") or {}).get("name"):
        problems.append("object-name label differs from data.metadata.name")
    if not str(labels.get(LABEL_OBJECT_GENERATION, "")).isdigit():
        problems.append("object-generation label is not a decimal number")
    if set(data) != {"apiVersion", "kind", "metadata", "spec"}:
        problems.append(f"data keys {sorted(data)}")
    stripped = {"labels", "annotations", "finalizers", "ownerReferences", "managedFields"}
    if stripped & set(data.get("metadata") or {}):
        problems.append(f"data.metadata keeps {sorted(stripped & set(data['metadata']))}")
    uid = (data.get("metadata") or {}).get("uid")  # only when the input object had one (exported from a cluster)
    if labels.get(LABEL_OBJECT_UID) != uid:
        problems.append(f"object-uid label {labels.get(LABEL_OBJECT_UID)!r} but data.metadata.uid {uid!r}")
    m = PINNED_NAME.match(md["name"])
    if m is None:
        problems.append(f"name {md['name']!r} is not <prefix>-v1beta1-<hash>-<generation>")
    else:
        if m["hash"] != content_digest(data):
            problems.append(f"name hash {m['hash']} is not the content hash {content_digest(data)}")
        if m["generation"] != labels.get(LABEL_OBJECT_GENERATION):
            problems.append("name generation differs from the object-generation label")
    if len(md["name"]) > 253:
        problems.append("name longer than 253")
    return problems


@pytest.mark.parametrize("pkg", PACKAGES, ids=[p.name for p in PACKAGES])
def test_emitted_objects_are_valid_and_pins_resolve(pkg: Path) -> None:
    rl, _ = _render(pkg)
    items = _flatten(rl["items"])
    before = {(o["kind"], *_key(o)) for o in _flatten(_input_items(pkg))}
    revisions = {_key(o): o for o in items if o.get("kind") == "ControllerRevision"}
    errors = _errors(rl)
    problems: list[str] = []
    checked = 0
    for obj in items:
        if obj.get("kind") not in ("VirtualMachine", "ControllerRevision"):
            continue
        checked += 1
        where = f"{obj['kind']} {'/'.join(p for p in _key(obj) if p)}"
        problems += [f"{where}: {p}" for p in validate_object(obj)]
        if obj["kind"] == "ControllerRevision":
            if ("ControllerRevision", *_key(obj)) not in before:  # ours; input revisions are only validated
                problems += [f"{where}: {p}" for p in _revision_problems(obj)]
            continue
        if errors.get(_key(obj)) or (fn_config(pkg) or {}).get("spec", {}).get("mode") == "validate":
            continue
        ns = _key(obj)[0]
        for family in ("instancetype", "preference"):
            matcher = obj["spec"].get(family)
            if not matcher:
                continue
            cr = revisions.get((ns, matcher.get("revisionName") or ""))
            if cr is None:
                problems.append(f"{where}: spec.{family}.revisionName {matcher.get('revisionName')!r} "
                                "not in the output")
                continue
            if matcher.get("kind") and cr["data"]["kind"] != matcher["kind"]:
                problems.append(f"{where}: spec.{family}.kind {matcher['kind']} but the revision holds "
                                f"{cr['data']['kind']}")
            if cr["data"]["metadata"]["name"] != matcher["name"]:
                problems.append(f"{where}: spec.{family}.name {matcher['name']} but the revision holds "
                                f"{cr['data']['metadata']['name']}")
    assert checked, f"{pkg.name}: no VirtualMachine or ControllerRevision in the output"
    assert not problems, "\n".join(problems)


def test_conformance_revisions_are_valid() -> None:
    """Every revision and pinned VM of the shared conformance corpus validates too (not only the examples)."""
    from tests.engine_support import case_dirs, rendered

    require_shared("conformance")
    cases = case_dirs()
    assert cases, "the conformance corpus holds no case"
    problems: list[str] = []
    for path in cases:
        run = rendered(path, "revisions")  # the spec's default mode, shared with tests/test_conformance.py
        items, out, results = run.items, run.out, run.results
        rejected = {r.resource_ref.name for r in results if r.severity == "error" and r.resource_ref}
        changed = [o for o in out if all(o is not i for i in items)]
        for obj in changed:
            if obj.get("kind") == "VirtualMachine" and _key(obj)[1] in rejected:
                continue
            problems += [f"{path.name}: {obj['kind']} {_key(obj)[1]}: {p}" for p in validate_object(obj)]
            if obj.get("kind") == "ControllerRevision":
                problems += [f"{path.name}: {_key(obj)[1]}: {p}" for p in _revision_problems(obj)]
    assert not problems, "\n".join(problems[:40])


def test_missing_pinned_revision_is_an_error() -> None:
    pkg = EXAMPLES / "revisions-drift"
    rl, code = _render(pkg, drop={"app-standard-v1beta1-aa5ab54c40cadf0e-1"})
    assert code == 1
    errors = _errors(rl)
    assert list(errors) == [("shop", "app")]
    assert len(errors[("shop", "app")]) == 1
    assert errors[("shop", "app")][0].startswith(
        'controllerrevisions.apps "app-standard-v1beta1-aa5ab54c40cadf0e-1" not found: spec.instancetype.revisionName')
    app = next(o for o in rl["items"] if o["kind"] == "VirtualMachine" and o["metadata"]["name"] == "app")
    assert app["spec"]["instancetype"]["revisionName"] == "app-standard-v1beta1-aa5ab54c40cadf0e-1"  # unchanged


def test_cleared_revision_name_repins_without_the_repin_setting() -> None:
    pkg = EXAMPLES / "revisions-repin"
    config = fn_config(pkg)
    assert config is not None
    config = {**config, "spec": {}}  # repin: false
    rl, code = _render(pkg, config)
    assert code == 0
    vms = {o["metadata"]["name"]: o for o in rl["items"] if o["kind"] == "VirtualMachine"}
    assert vms["db"]["spec"]["instancetype"]["revisionName"] == "db-standard-v1beta1-16c9f27df7d92707-1"
    assert vms["app"]["spec"]["instancetype"]["revisionName"] == "app-standard-v1beta1-aa5ab54c40cadf0e-1"
    assert [(r["severity"], r["resourceRef"]["name"]) for r in rl["results"]] == [("info", "app")]


def test_repin_moves_every_pin() -> None:
    rl, _ = _render(EXAMPLES / "revisions-repin")
    vms = {o["metadata"]["name"]: o for o in rl["items"] if o["kind"] == "VirtualMachine"}
    assert vms["app"]["spec"]["instancetype"]["revisionName"] == "app-standard-v1beta1-16c9f27df7d92707-1"
    assert vms["app"]["spec"]["preference"]["revisionName"] == "app-fedora-v1beta1-7ebda14f12be7b05-1"
    assert "results" not in rl or not rl["results"]


def test_validate_changes_nothing() -> None:
    pkg = EXAMPLES / "revisions-validate"
    rl, code = _render(pkg)
    assert code == 1
    assert rl["items"] == _input_items(pkg)
    assert sorted(name for _, name in _errors(rl)) == ["conflict", "missing-pin", "too-small"]


def test_vms_without_namespace_get_revisions_without_one() -> None:
    rl, _ = _render(EXAMPLES / "quickstart")
    crs = [o for o in rl["items"] if o["kind"] == "ControllerRevision"]
    assert len(crs) == 6 and all("namespace" not in cr["metadata"] for cr in crs)


def test_a_namespace_setter_after_the_render_keeps_the_pins() -> None:
    """kustomize's namespace / kpt set-namespace after the renderer: VMs and revisions move together, and a
    render of the result changes nothing."""
    pkg = EXAMPLES / "quickstart"
    rl, _ = _render(pkg)
    for item in rl["items"]:
        item["metadata"]["namespace"] = "dev"
    rl.pop("results", None)
    doc, code = _process(pkg, rl)
    assert code == 0 and not doc.get("results")
    assert doc["items"] == rl["items"]


def test_shared_scope_fleet_needs_three_revisions() -> None:
    rl, _ = _render(EXAMPLES / "revisions-shared")
    vms = [o for o in rl["items"] if o["kind"] == "VirtualMachine"]
    crs = [o for o in rl["items"] if o["kind"] == "ControllerRevision"]
    assert len(vms) == 10 and len(crs) == 3
    assert all(cr["metadata"]["annotations"][ARGO_WAVE] == "-1" for cr in crs)


def test_quickstart_command_from_the_readme() -> None:
    """``kubevirt-krm examples/quickstart/fn-config.yaml examples/quickstart/vms.yaml``: a plain stream, exit 0,
    and rendering that stream again gives the same stream."""
    cmd = [sys.executable, "-m", "krm_fn", "examples/quickstart/fn-config.yaml"]
    first = subprocess.run([*cmd, "examples/quickstart/vms.yaml"], cwd=REPO, capture_output=True, check=False)
    assert first.returncode == 0, first.stderr.decode()
    docs = [d.value for d in load_documents(first.stdout.decode())]
    assert [d["kind"] for d in docs] == ["VirtualMachine"] * 3 + ["ControllerRevision"] * 6
    assert "python3 -m venv .venv && . .venv/bin/activate && pip install . && kubevirt-krm " \
           "examples/quickstart/fn-config.yaml examples/quickstart/vms.yaml" in (REPO / "README.md").read_text()
    second = subprocess.run([*cmd, "-"], cwd=REPO, input=first.stdout, capture_output=True, check=False)
    assert second.returncode == 0 and second.stdout == first.stdout
