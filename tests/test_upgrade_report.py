"""``kubevirt-krm upgrade-report`` (issue 27): the example's report, checked against renders of the same inputs
done separately for each release (KRM mode, the renderer config in expand mode with that release's
``kubevirtVersion``), field for field; so it stays true whatever each release's rendering becomes.

The example's expected reports are golden files: ``UPDATE_GOLDEN=1 pytest tests/test_upgrade_report.py``
rewrites them (and fails, so a regeneration is always reviewed), e.g. when a release's semantics change.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.index import is_vm
from krm_fn.kube.api import FAMILIES
from krm_fn.results import ResourceRef
from krm_fn.upgrade.report import Rendered, compare
from tests import builders
from tests.builders import REPO, run_fn
from tests.integration_support import Golden

EXAMPLE = REPO / "examples" / "upgrade-report"
CONFIG = "examples/upgrade-report/fn-config.yaml"
REPORT = ["upgrade-report", "--from", "v1.8", "--to", "v1.9", CONFIG, "examples/upgrade-report/"]


def report(args: list[str]) -> tuple[int, str]:
    done = run_fn(args, cwd=REPO)
    assert done.returncode in (0, 1), done.stderr.decode()
    assert done.stderr == b""
    return done.returncode, done.stdout.decode()


def example_objects() -> list[dict[str, Any]]:
    """The example's objects in the order the command reads them (the directory's files in path order)."""
    return [o for p in sorted(EXAMPLE.glob("*.yaml")) if p.name != "fn-config.yaml"
            for o in yaml.safe_load_all(p.read_text()) if o]


def render_alone(objects: list[dict[str, Any]], release: str) -> tuple[list[Any], dict[tuple[str, str], list[str]]]:
    """The objects rendered in expand mode for ``release`` on their own (KRM mode: the list comes back with
    its results even when a VM is refused): the items and each VM's error messages, by (namespace, name)."""
    config = yaml.safe_load((EXAMPLE / "fn-config.yaml").read_text())
    config["spec"] = {**config["spec"], "mode": "expand", "kubevirtVersion": release}
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": objects, "functionConfig": config}
    done = run_fn([], stdin=json.dumps(rl), cwd=REPO)
    assert done.returncode in (0, 1), done.stderr.decode()
    out = yaml.safe_load(done.stdout)
    errors: dict[tuple[str, str], list[str]] = {}
    for r in out.get("results") or []:
        ref = r.get("resourceRef") or {}
        # one entry per mistake, as the report says them: KubeVirt's verdict that follows from a cause is left out
        if r["severity"] == "error" and ref.get("kind") == "VirtualMachine" and \
                "follows-from" not in (r.get("tags") or {}):
            path = (r.get("field") or {}).get("path")
            said = f"{path}: {r['message']}" if path and not r["message"].startswith(path) else r["message"]
            errors.setdefault((ref.get("namespace", ""), ref["name"]), []).append(said)
    return out["items"], errors


_STEP = re.compile(r'\.?([^.\[\]"]+)|\["([^"]*)"\]|\[(\d+)\]')


def steps(path: str) -> list[str | int]:
    """``spec.a["x.y"][0]`` -> ``["spec", "a", "x.y", 0]`` (the report's field paths)."""
    out: list[str | int] = []
    for m in _STEP.finditer(path):
        out.append(int(m.group(3)) if m.group(3) is not None else m.group(1) or m.group(2))
    assert "".join(_joined(out)) == path, path
    return out


def _joined(parts: list[str | int]) -> list[str]:
    return [f"[{p}]" if isinstance(p, int) else f'["{p}"]' if "." in p or " " in p else ("." if i else "") + p
            for i, p in enumerate(parts)]


_MISSING = object()


def value_at(obj: Any, path: list[str | int]) -> Any:
    for step in path:
        if isinstance(step, int) and isinstance(obj, list) and step < len(obj):
            obj = obj[step]
        elif isinstance(step, str) and isinstance(obj, dict) and step in obj:
            obj = obj[step]
        else:
            return _MISSING
    return obj


def applied(obj: Any, fields: list[dict[str, Any]]) -> Any:
    """``obj`` with the report's changes made, each change's ``from`` checked against ``obj`` first."""
    out = json.loads(json.dumps(obj))
    for change in fields:
        path = steps(change["path"])
        assert value_at(out, path) == change.get("from", _MISSING), change
        parent = value_at(out, path[:-1])
        if "to" in change:
            if parent is _MISSING:  # a map the old expansion lacks altogether
                parent = out
                for step in path[:-1]:
                    parent = parent.setdefault(step, {})
            parent[path[-1]] = change["to"]
        else:
            del parent[path[-1]]
    return out


def unpinned(vm: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(vm))
    for family in FAMILIES:
        (out["spec"].get(family) or {}).pop("revisionName", None)
    return out


def check_against_renders(reported: dict[str, Any], objects: list[dict[str, Any]], old: str, new: str) -> None:
    """Every VM: the report agrees with the two separate renders field for field (a VM the report leaves out
    renders the same on both), its refusals are each release's words, a pinned VM's repin is the new
    release's render of it without its pins."""
    (before, was), (after, now) = render_alone(objects, old), render_alone(objects, new)
    listed = {(vm.get("namespace", ""), vm["name"]): vm for vm in reported["vms"]}
    vms = [(i, o) for i, o in enumerate(objects) if is_vm(o)]
    assert set(listed) <= {(o["metadata"].get("namespace", ""), o["metadata"]["name"]) for _, o in vms}
    pinned = [o for _, o in vms if unpinned(o) != o]
    moved, moved_errors = render_alone([o for o in objects if not is_vm(o)] + [unpinned(o) for o in pinned], new)
    moved_vms = {(o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in moved if is_vm(o)}
    for i, vm in vms:
        key = (vm["metadata"].get("namespace", ""), vm["metadata"]["name"])
        entry = listed.get(key, {"change": "unchanged"})
        assert entry.get("refused", {"from": [], "to": []}) == {"from": was.get(key, []), "to": now.get(key, [])}
        if not was.get(key) and not now.get(key):
            assert applied(before[i], entry.get("fields", [])) == after[i], key
            assert entry["change"] == ("changed" if before[i] != after[i] else "unchanged"), key
        else:
            assert "fields" not in entry
        repin = entry.get("repin")
        if unpinned(vm) == vm or now.get(key):
            assert repin is None or repin == {"fields": [], "refused": [], "admitted": True}, key
            continue
        if moved_errors.get(key):
            assert repin == {"fields": [], "refused": moved_errors[key], "admitted": False}, key
        elif repin is None:
            assert moved_vms[key] == after[i], key
        else:
            assert applied(after[i], repin["fields"]) == moved_vms[key] and repin["fields"], key


def test_the_example_report_agrees_with_each_release_rendered_alone() -> None:
    golden = Golden()
    code, text = report(REPORT)
    json_code, as_json = report([*REPORT, "--output", "json"])
    golden.check(EXAMPLE / "expected-report.txt", text)
    golden.check(EXAMPLE / "expected-report.json", as_json)
    golden.done()
    reported = json.loads(as_json)
    assert code == json_code == (1 if reported["changes"] else 0)
    assert reported["from"] == {"kubevirtVersion": "v1.8", "catalog": "common-instancetypes@v1.6.0"}
    assert reported["to"] == {"kubevirtVersion": "v1.9", "catalog": "common-instancetypes@v1.7.0"}
    check_against_renders(reported, example_objects(), "v1.8", "v1.9")
    # the example shows these kinds of change today (more once each release renders exactly)
    counts = reported["summary"]
    assert counts["vms"] == 6 and counts["changed"] >= 1 and counts["refused"] >= 1 and counts["repin"] >= 1
    assert counts["stillRefused"] >= 1 and counts["unchanged"] >= 1
    assert text.index("upgrade from KubeVirt v1.8") == 0 and text.index("changes: yes (exit 1)") < text.index("\n\n")


@pytest.mark.parametrize(("doc", "heading"), [("README.md", "## Planning an upgrade"),
                                              ("docs/reference.md", "## Upgrade report")])
def test_the_readme_shows_the_example_report(doc: str, heading: str) -> None:
    """The README's how-to and the reference's section (issue 38, point 7) each show real lines of the report."""
    readme = (REPO / doc).read_text()
    section = readme[readme.index(f"\n{heading}\n"):]
    shown = section[section.index("```console"):section.index("```\n", section.index("```console") + 3)]
    expected = (EXAMPLE / "expected-report.txt").read_text()
    lines = [line for line in shown.splitlines()[2:] if line.strip() and line.strip() != "..."]
    assert lines and all(line in expected.splitlines() for line in lines), lines


def test_a_catalog_change_alone_and_newly_admitted_vms(tmp_path: Path) -> None:
    """Same release, catalog v1.5.1 -> v1.6.0: a d1 VM (the series v1.6.0 adds) is newly admitted; nothing
    else changes for a u1 VM."""
    vms = [_vm("dedicated", "d1.medium"), _vm("general", "u1.medium")]
    (tmp_path / "vms.yaml").write_text(yaml.safe_dump_all(vms))
    (tmp_path / "config.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {}\n")
    args = ["upgrade-report", "--from=v1.9", "--to=v1.9", "--catalog-from", "v1.5.1", "--catalog-to", "v1.6.0",
            "-o", "json", str(tmp_path / "config.yaml"), str(tmp_path / "vms.yaml")]
    code, out = report(args)
    reported = json.loads(out)
    assert code == 1 and reported["from"]["catalog"] == "common-instancetypes@v1.5.1"
    assert [(vm["name"], vm["change"]) for vm in reported["vms"]] == [("dedicated", "admitted")]
    assert "d1.medium" in reported["vms"][0]["refused"]["from"][0] and reported["vms"][0]["refused"]["to"] == []
    check_against_config(reported, vms, tmp_path)
    same, text = report(["upgrade-report", "--from", "v1.9", "--to", "v1.9", str(tmp_path / "config.yaml"),
                         str(tmp_path / "vms.yaml")])
    assert same == 0 and "changes: none (exit 0)" in text and "\n\n" not in text


def check_against_config(reported: dict[str, Any], vms: list[dict[str, Any]], tmp_path: Path) -> None:
    """The d1 VM is refused alone with catalog v1.5.1 and admitted with v1.6.0 (KRM mode, ConfigMap config)."""
    for version, refused in (("v1.5.1", True), ("v1.6.0", False)):
        config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                  "data": {"mode": "expand", "kubevirtVersion": "v1.9", "catalog.version": version}}
        rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": vms, "functionConfig": config}
        done = run_fn([], stdin=json.dumps(rl))
        assert (done.returncode == 1) is refused


def _vm(name: str, instancetype: str) -> dict[str, Any]:
    return builders.vm(name, runStrategy="Always", instancetype={"name": instancetype})


def test_objects_each_release_refuses_are_reported() -> None:
    """An object only the new release refuses (a field its API no longer knows), one only the old one refuses;
    the renders stand in for two releases that differ so (the classification, not the engine)."""
    gone = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachinePreference",
            "metadata": {"name": "old", "namespace": "ns"}, "spec": {"cpu": {"preferredCPUTopology": "preferSockets"}}}
    new = {**gone, "metadata": {"name": "new", "namespace": "ns"}}
    same = {**gone, "metadata": {"name": "same", "namespace": "ns"}}
    items = [gone, new, same, _vm("vm", "u1.small")]
    old_render = Rendered(items, {ResourceRef.of(new): ("spec.x: unknown field",),
                                  ResourceRef.of(same): ("refused",)})
    new_render = Rendered(items, {ResourceRef.of(gone): ("spec.cpu: removed",), ResourceRef.of(same): ("refused",)})
    vms, objects = compare(items, ["a.yaml", None, None, "b.yaml"], old_render, new_render, {})
    assert [(o.ref.name, o.file, o.change, o.messages) for o in objects] == [
        ("old", "a.yaml", "refused", ("spec.cpu: removed",)), ("new", None, "admitted", ("spec.x: unknown field",))]
    assert [(v.ref.name, v.file, v.change) for v in vms] == [("vm", "b.yaml", "unchanged")]


@pytest.mark.parametrize("args, message", [
    (["--to", "v1.9", CONFIG, "x"], "--from is missing"),
    (["--from", "v1.4", "--to", "v1.9", CONFIG, "x"], "--from 'v1.4': not a KubeVirt release this version knows"),
    (["--from", "v1.8", "--to", "v1.9", "--output", "yaml", CONFIG, "x"], "--output 'yaml': use text or json"),
    (["--from", "v1.8", "--to", "v1.9", CONFIG], "a config file and at least one input are needed"),
    (["--from", "v1.8", "--from", "v1.7", "--to", "v1.9", CONFIG, "x"], "--from is given twice"),
    (["--from", "v1.8", "--to", "v1.9", "-o", "json", "--output=text", CONFIG, "x"], "--output is given twice"),
    (["--from", "v1.8", "--to", CONFIG, "x"], "--to '"),  # --to takes the config as its value: not a release
    (["--from", "v1.8", "--to"], "--to needs a value"),
    (["--from", "v1.8", "--to", "v1.9", "--strict", CONFIG, "x"], "unknown option --strict"),
    (["--from", "v1.8", "--to", "v1.9", "examples/catalog-common/fn-config.yaml", "examples/upgrade-report/"],
     "upgrade-report needs a VirtualMachineRenderer config, not InstancetypeCatalog"),
    (["--from", "v1.8", "--to", "v1.9", "--catalog-to", "v0.1", CONFIG, "examples/upgrade-report/"], "v0.1"),
    (["--from", "v1.8", "--to", "v1.9", CONFIG, "examples/upgrade-report/nonexistent.yaml"], "cannot read"),
])
def test_usage_and_unusable_input_exit_2(args: list[str], message: str) -> None:
    done = run_fn(["upgrade-report", *args], cwd=REPO)
    err = done.stderr.decode()
    assert done.returncode == 2 and message in err and done.stdout == b"", err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_help() -> None:
    done = run_fn(["upgrade-report", "--help"])
    assert done.returncode == 0 and b"Exit 0: nothing changes; 1: something changes" in done.stdout
    assert b"upgrade-report" in run_fn(["--help"]).stdout
