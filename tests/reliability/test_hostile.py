"""Hostile and malformed input through the console script: a one-line error on stderr, exit 1, no traceback,
and nothing on stdout a pipeline could mistake for success; bounded time and memory (RLIMIT_AS in the child).

``tests/test_cli.py`` already covers the basic cases (malformed YAML, items not a list / not maps, missing
identity, duplicate keys, one unsafe tag, two ResourceLists, bad UTF-8, 50k-deep flow nesting); this extends
them. Known bugs are ``xfail(strict=True)`` with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.builders import bench_module, run_fn
from tests.reliability.support import assert_one_line_failure, parse, renderer, resource_list, run_limited

pytestmark = pytest.mark.reliability

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: 'yes'\n"
DOMAIN: dict[str, Any] = {"domain": {"devices": {}}}
GiB = 1 << 30


def vm(spec: Any = None, **metadata: Any) -> dict[str, Any]:
    md = {"name": "vm", "namespace": "ns", **metadata}
    body = spec if spec is not None else {"runStrategy": "Halted", "instancetype": {"name": "u1.medium"},
                                          "template": {"spec": DOMAIN}}
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": md, "spec": body}


def stream(*objects: dict[str, Any]) -> bytes:
    """Objects as a plain ``---`` stream (standalone / legacy plugin input)."""
    docs = []
    for obj in objects:
        text = resource_list([obj]).decode().split("items:\n", 1)[1]
        docs.append("\n".join(line[2:] for line in text.splitlines()) + "\n")
    return "---\n".join(docs).encode()


def config_file(tmp_path: Path, text: str, name: str = "cfg.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


RENDERER_CFG = "apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\n"


# --- several documents on stdin ---------------------------------------------------------------------------
@pytest.mark.parametrize(("stdin", "message"), [
    pytest.param((RL + "items: []\n---\n" + CM).encode(), "expected one ResourceList document", id="rl-then-object"),
    pytest.param((RL + "items: []\n---\n" + RL + "---\n" + RL).encode(), "got 3 documents", id="three-rls"),
    pytest.param(b'{"kind": "ResourceList", "items": []}\n{"kind": "ResourceList"}\n', "malformed JSON",
                 id="json-then-json"),
    pytest.param((RL + "items: []\n...\n---\nkind: ResourceList\n").encode(), "expected one ResourceList",
                 id="document-end-marker"),
])
def test_several_documents_on_stdin(stdin: bytes, message: str) -> None:
    assert_one_line_failure(run_fn([], stdin), message)


def test_several_documents_are_fine_in_stream_mode(tmp_path: Path) -> None:
    cfg = config_file(tmp_path, RENDERER_CFG + "spec:\n  mode: validate\n")
    proc = run_fn([str(cfg), "-"], (CM + "---\n" + CM.replace("name: cm", "name: cm2") + "---\n").encode())
    assert proc.returncode == 0 and proc.stdout.count(b"kind: ConfigMap") == 2


# --- wrong types anywhere in a VM's spec: an error result for that VM, exit 1, never a crash ---------------------
WRONG_VM_SPECS = {
    "sockets-string": {"instancetype": {"name": "u1.medium"},
                       "template": {"spec": {"domain": {"cpu": {"sockets": "two"}, "devices": {}}}}},
    "instancetype-list": {"instancetype": [], "template": {"spec": DOMAIN}},
    "instancetype-string": {"instancetype": "u1.medium", "template": {"spec": DOMAIN}},
    "preference-kind-number": {"preference": {"name": "fedora", "kind": 5}, "template": {"spec": DOMAIN}},
    "revision-name-map": {"instancetype": {"name": "u1.medium", "revisionName": {"a": 1}}, "template": {"spec": DOMAIN}},
    "spec-string": "x",
    "spec-list": [1, 2],
    "template-number": {"instancetype": {"name": "u1.medium"}, "template": 5},
    "domain-list": {"instancetype": {"name": "u1.medium"}, "template": {"spec": {"domain": []}}},
    "disks-string": {"instancetype": {"name": "u1.medium"},
                     "template": {"spec": {"domain": {"devices": {"disks": "vda"}}}}},
    "disk-bus-number": {"preference": {"name": "fedora"},
                        "template": {"spec": {"domain": {"devices": {"disks": [{"name": "a", "disk": {"bus": 1}}]}}}}},
    "memory-guest-list": {"template": {"spec": {"domain": {"memory": {"guest": [1]}, "devices": {}}}},
                          "preference": {"name": "fedora"}},
    "memory-guest-garbage": {"template": {"spec": {"domain": {"memory": {"guest": "lots"}, "devices": {}}}},
                             "preference": {"name": "fedora"}},
    "volumes-map": {"instancetype": {"name": "u1.medium"}, "template": {"spec": {**DOMAIN, "volumes": {"a": 1}}}},
    "infer-volume-number": {"instancetype": {"inferFromVolume": 7}, "template": {"spec": DOMAIN}},
    "data-volume-templates-map": {"instancetype": {"name": "u1.medium"}, "dataVolumeTemplates": {"a": 1},
                                  "template": {"spec": DOMAIN}},
    "features-bool": {"preference": {"name": "windows.11"},
                      "template": {"spec": {"domain": {"features": True, "devices": {}}}}},
    "huge-int": {"instancetype": {"name": "u1.medium"},
                 "template": {"spec": {"domain": {"cpu": {"cores": 10**30}, "devices": {}}}}},
    "float": {"instancetype": {"name": "u1.medium"},
              "template": {"spec": {"domain": {"cpu": {"cores": 1.5}, "devices": {}}}}},
}


@pytest.mark.parametrize("mode", ["revisions", "expand", "validate"])
def test_wrong_types_in_a_vm_spec_are_an_error_result_for_that_vm(mode: str) -> None:
    """One ResourceList with every broken VM (one subprocess per mode) and a good one: an error result for each
    broken VM by name, none for the good one, exit 1, one stderr line per error, no traceback."""
    broken = [vm(spec, name=f"bad-{case}") for case, spec in sorted(WRONG_VM_SPECS.items())]
    proc = run_fn([], resource_list([*broken, vm(name="ok")], renderer(mode)))
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "internal error" not in err
    out = parse(proc.stdout)  # KRM mode: the ResourceList with its results is still written (kpt reads them)
    errors = [r for r in out["results"] if r["severity"] == "error"]
    by_vm = {r["resourceRef"]["name"] for r in errors}
    assert by_vm == {f"bad-{case}" for case in WRONG_VM_SPECS}, sorted(by_vm ^ {f"bad-{c}" for c in WRONG_VM_SPECS})
    lines = err.strip().splitlines()
    assert len(lines) == len(errors)
    assert all(line.startswith("kubevirt-krm: error: VirtualMachine ns/bad-") for line in lines)
    assert [i["metadata"]["name"] for i in out["items"]][:len(broken) + 1] == [b["metadata"]["name"] for b in broken] + [
        "ok"]


def test_wrong_types_in_a_vm_spec_stream_mode_writes_nothing(tmp_path: Path) -> None:
    cfg = config_file(tmp_path, RENDERER_CFG + "spec: {}\n")
    proc = run_fn([str(cfg), "-"], stream(vm(WRONG_VM_SPECS["sockets-string"]), vm(name="ok")))
    assert_one_line_failure(proc, "spec.template.spec.domain.cpu.sockets")


def test_wrong_types_in_a_referenced_instancetype_are_an_error_result() -> None:
    it = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype",
          "metadata": {"name": "it", "namespace": "ns"}, "spec": {"cpu": {"guest": "two"}, "memory": {"guest": "1Gi"}}}
    spec = {"instancetype": {"name": "it", "kind": "VirtualMachineInstancetype"}, "template": {"spec": DOMAIN}}
    proc = run_fn([], resource_list([it, vm(spec)], renderer("expand")))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr.decode()
    assert b"internal error" not in proc.stderr
    # the instancetype itself is refused (issue 15: the cluster would not store it), and so is the VM using it
    assert [(r["resourceRef"]["name"], r["field"]["path"]) for r in parse(proc.stdout)["results"]] == [
        ("it", "spec.cpu.guest"), ("vm", "spec.instancetype")]


def test_wrong_generation_of_a_referenced_instancetype_is_an_error_result() -> None:
    it = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype",
          "metadata": {"name": "it", "namespace": "ns", "generation": "x"},
          "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}
    spec = {"instancetype": {"name": "it", "kind": "VirtualMachineInstancetype"}, "template": {"spec": DOMAIN}}
    proc = run_fn([], resource_list([it, vm(spec)], renderer("revisions")))
    assert proc.returncode == 1 and b"internal error" not in proc.stderr


def test_out_of_range_integers_in_a_vm_spec_are_an_error_result() -> None:
    spec = {"instancetype": {"name": "u1.medium"},
            "template": {"spec": {**DOMAIN, "terminationGracePeriodSeconds": 10**30}}}
    proc = run_fn([], resource_list([vm(spec)], renderer("revisions")))
    assert proc.returncode == 1 and [r["resourceRef"]["name"] for r in parse(proc.stdout)["results"]] == ["vm"]


def test_wrong_types_in_vm_metadata_are_an_error() -> None:
    proc = run_fn([], resource_list([vm(namespace=["a"])], renderer("revisions")))
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr


# --- wrong types in the config --------------------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "problems"), [
    ("{revisions: 5}", ["spec.revisions: must be a mapping"]),
    ("{cluster: []}", ["spec.cluster: must be a mapping"]),
    ("{catalog: {include: {series: 5}}}", ["spec.catalog.include.series: must be a list of strings"]),
    ("{catalog: {parameters: {a: b}}}", ["spec.catalog.parameters: must be a list of strings"]),
    ("{validateOutput: 'yes'}", ["spec.validateOutput: must be true or false"]),
    ("[]", ["spec: must be a mapping"]),
    ("{mode: null}", ["spec.mode: must be one of"]),
    ("{revisions: {scope: shared2, repin: 3}}", ["spec.revisions.scope: must be one of",
                                                  "spec.revisions.repin: must be true or false"]),
    ("{cluster: {architecture: [amd64]}}", ["spec.cluster.architecture"]),
])
def test_wrong_types_in_the_renderer_config(spec: str, problems: list[str]) -> None:
    text = RL + "items: []\nfunctionConfig:\n  apiVersion: kubevirt-krm.dev/v1alpha1\n" \
                "  kind: VirtualMachineRenderer\n  metadata: {name: r}\n  spec: " + spec + "\n"
    proc = run_fn([], text)
    err = proc.stderr.decode()
    assert proc.returncode == 1 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == len(problems)
    for line, problem in zip(lines, problems):
        assert line.startswith("kubevirt-krm: error: VirtualMachineRenderer r " + problem), lines
    results = parse(proc.stdout)["results"]
    assert all(r["resourceRef"]["kind"] == "VirtualMachineRenderer" and r["field"]["path"] for r in results)


@pytest.mark.parametrize(("text", "message"), [
    ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata: {name: c}\nspec: {scope: 5}\n",
     "spec.scope"),
    ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata: {name: c}\nspec: {include: x}\n",
     "spec.include"),
    ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata: {name: c}\n"
     "spec: {builtin: ../../etc/passwd}\n", "unknown builtin catalog"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {validateOutput: maybe}\n", "validateOutput"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: [a]\n", "data: must be a mapping"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {revisions.scope: {a: b}}\n", "revisions.scope"),
    ("- a\n- b\n", "exactly one object"),
    ("just a string\n", "exactly one object"),
])
def test_wrong_types_in_the_config_file(tmp_path: Path, text: str, message: str) -> None:
    cfg = config_file(tmp_path, text)
    assert_one_line_failure(run_fn([str(cfg), "-"], CM), message)


def test_configmap_with_validate_output_selects_the_generator(tmp_path: Path) -> None:
    cfg = config_file(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
                                "data: {builtin: classic, validateOutput: 'true'}\n")
    proc = run_fn([str(cfg), "-"], b"")
    assert proc.returncode == 0, proc.stderr
    assert b"VirtualMachineClusterInstancetype" in proc.stdout


# --- YAML bombs and deep nesting: bounded time and memory -------------------------------------------------------
def _billion_laughs() -> bytes:
    lines = [RL.strip(), "items:", "- apiVersion: v1", "  kind: ConfigMap", "  metadata: {name: lol}",
             '  data: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for name in "bcdefghij":
        lines.append(f"- &{name} [" + ",".join([f"*{prev}"] * 10) + "]")
        prev = name
    return ("\n".join(lines) + "\n").encode()


def test_alias_bomb_is_refused_quickly_in_bounded_memory() -> None:
    start = time.monotonic()
    proc = run_limited([], _billion_laughs(), address_space=2 * GiB, timeout=60)
    assert_one_line_failure(proc, "excessive aliasing")
    assert time.monotonic() - start < 20


def test_alias_bomb_of_long_scalars_is_refused() -> None:
    big = "x" * (1 << 20)
    text = (RL + "items:\n- apiVersion: kubevirt.io/v1\n  kind: VirtualMachine\n  metadata:\n    name: vm\n"
            f"    annotations:\n      a: &big {big}\n  spec:\n    instancetype: {{name: u1.medium}}\n"
            "    template:\n      spec:\n        domain: {devices: {}}\n        nodeSelector: {"
            + ", ".join(f"k{i}: *big" for i in range(2000)) + "}\n")
    proc = run_limited([], text.encode(), address_space=2 * GiB, timeout=120)
    assert_one_line_failure(proc, "alias")


@pytest.mark.parametrize("shape", ["flow-map", "json", "block-seq", "in-function-config", "stream-mode"])
def test_10k_deep_nesting_is_refused_in_bounded_time_and_memory(shape: str, tmp_path: Path) -> None:
    depth = 10_000
    args: list[str] = []
    if shape == "flow-map":
        data = (RL + "items:\n- " + "{a: " * depth + "1" + "}" * depth + "\n").encode()
    elif shape == "json":
        data = b'{"kind": "ResourceList", "items": [' + b'{"a": ' * depth + b"1" + b"}" * depth + b"]}"
    elif shape == "block-seq":
        data = (RL + "items:\n- " + "- " * depth + "x\n").encode()
    elif shape == "in-function-config":
        data = (RL + "items: []\nfunctionConfig: " + "[" * depth + "]" * depth + "\n").encode()
    else:
        args = [str(config_file(tmp_path, RENDERER_CFG + "spec: {}\n")), "-"]
        data = ("a: " + "[" * depth + "]" * depth + "\n").encode()
    start = time.monotonic()
    proc = run_limited(args, data, address_space=2 * GiB, timeout=60)
    assert_one_line_failure(proc, "nested")
    assert time.monotonic() - start < 20


@pytest.mark.parametrize("where", [
    "vm-status",
    pytest.param("function-config"),
])
def test_nesting_just_under_the_limit_works_or_fails_cleanly(where: str) -> None:
    deep = "{a: " * 990 + "1" + "}" * 990
    item = ("- apiVersion: kubevirt.io/v1\n  kind: VirtualMachine\n  metadata: {name: vm, namespace: ns}\n"
            "  spec:\n    instancetype: {name: u1.medium}\n    template: {spec: {domain: {devices: {}}}}\n")
    fn = "functionConfig: {apiVersion: kubevirt-krm.dev/v1alpha1, kind: VirtualMachineRenderer, metadata: {name: r}"
    if where == "vm-status":
        text = RL + "items:\n" + item + f"  status: {deep}\n" + fn + "}\n"
    else:
        text = RL + "items:\n" + item + fn + f", x: {deep}}}\n"
    proc = run_limited([], text.encode(), address_space=2 * GiB, timeout=60)
    assert proc.returncode in (0, 1) and b"internal error" not in proc.stderr, proc.stderr[-300:]


@pytest.mark.parametrize("depth", [1_000, 30_000])
def test_deeply_nested_catalog_file_fails_cleanly(tmp_path: Path, depth: int) -> None:
    (tmp_path / "cat.yaml").write_text("a: " + "[" * depth + "]" * depth + "\n")
    cfg = config_file(tmp_path, "apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\n"
                                "metadata: {name: c}\nspec: {path: cat.yaml}\n")
    assert_one_line_failure(run_limited([str(cfg), "/dev/null"], address_space=2 * GiB, timeout=60))


# --- a 100 MB input --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def input_100mb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    synth = bench_module("synth")
    path = tmp_path_factory.mktemp("big") / "rl-100mb.yaml"
    n = 70_000  # ~1.44 KB per VM
    path.write_text(synth.resource_list(n))
    assert path.stat().st_size >= 100_000_000
    return path


def test_100mb_input_under_a_memory_cap_fails_cleanly(input_100mb: Path) -> None:
    """A full 100 MB render needs ~2.3 GB and ~20 s (see docs/reliability.md); under a 512 MiB cap it must stop
    with one line, exit 1, and no partial output, within seconds."""
    start = time.monotonic()
    proc = run_limited([], input_100mb, address_space=512 << 20, timeout=120)
    assert time.monotonic() - start < 60
    assert_one_line_failure(proc, "memory")


def test_a_frame_allocation_failure_is_reported_as_out_of_memory() -> None:
    """CPython 3.11 raises SystemError('error return without exception set') when pushing a frame fails for
    lack of memory (seen in CI under the cap above): one line, exit 1, as for a MemoryError."""
    code = ("import sys\nfrom krm_fn.cli import main\n"
            "def fail(args):\n    raise SystemError('error return without exception set')\n"
            "main.dispatch = fail\nsys.exit(main.main([]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, check=False)
    assert_one_line_failure(proc, "out of memory")


@pytest.mark.skipif(os.environ.get("KUBEVIRT_KRM_BIG_INPUT") != "1",
                    reason="~20 s and ~2.3 GB: set KUBEVIRT_KRM_BIG_INPUT=1 (numbers in docs/reliability.md)")
def test_100mb_input_works_with_enough_memory(input_100mb: Path) -> None:
    proc = run_limited([], input_100mb, address_space=4 * GiB, timeout=600)
    assert proc.returncode == 0  # every synthetic VM meets its preference (bench/synth.py)
    assert b"Traceback" not in proc.stderr and proc.stdout.startswith(b"apiVersion: config.kubernetes.io/v1")


# --- bytes that are not UTF-8 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("data", [
    pytest.param(CM.encode().replace(b"'yes'", b"'\xc3\x28'"), id="invalid-continuation"),
    pytest.param(CM.encode().replace(b"'yes'", b"'\xed\xa0\x80'"), id="surrogate"),
    pytest.param(CM.encode().replace(b"'yes'", b"'\xc0\xaf'"), id="overlong"),
    pytest.param("kind: ResourceList\nitems: []\n".encode("utf-16"), id="utf-16"),
])
def test_non_utf8_stdin(data: bytes) -> None:
    assert_one_line_failure(run_fn([], data), "not valid UTF-8")


def test_non_utf8_files(tmp_path: Path) -> None:
    cfg = config_file(tmp_path, RENDERER_CFG + "spec: {}\n")
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(CM.encode().replace(b"'yes'", b"'\xff'"))
    assert_one_line_failure(run_fn([str(cfg), str(bad)]), "not valid UTF-8")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "bad.yaml").write_bytes(b"\xfe\xff")
    assert_one_line_failure(run_fn([str(cfg), str(tmp_path / "dir")]), "not valid UTF-8")
    bad_cfg = tmp_path / "badcfg.yaml"
    bad_cfg.write_bytes(RENDERER_CFG.encode() + b"spec: {mode: \xff}\n")
    assert_one_line_failure(run_fn([str(bad_cfg), "-"], CM), "cannot read config file")
    assert_one_line_failure(run_fn([], b"\xff\xfe", env={"KUSTOMIZE_PLUGIN_CONFIG_STRING": RENDERER_CFG}),
                            "not valid UTF-8")


def test_non_utf8_catalog_file(tmp_path: Path) -> None:
    (tmp_path / "cat.yaml").write_bytes(b"series: \xff\n")
    cfg = config_file(tmp_path, "apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\n"
                                "metadata: {name: c}\nspec: {path: cat.yaml}\n")
    assert_one_line_failure(run_fn([str(cfg), "/dev/null"]), "cannot read catalog")


# --- unsafe tags: refused, never constructed ---------------------------------------------------------------------
def _open_tag(target: Path, style: str) -> str:
    if style == "apply":
        return f'!!python/object/apply:builtins.open ["{target}", "w"]'
    if style == "new":
        return f'!!python/object/new:builtins.open ["{target}", "w"]'
    if style == "verbatim":
        return f'!<tag:yaml.org,2002:python/object/apply:builtins.open> ["{target}", "w"]'
    return f'!!python/object/apply:os.system ["touch {target}"]'


@pytest.mark.parametrize("style", ["apply", "new", "verbatim", "system"])
@pytest.mark.parametrize("where", ["item", "nested-value", "function-config", "stream-file", "config-file",
                                   "catalog-file", "plugin-env"])
def test_unsafe_tags_are_refused_and_nothing_is_constructed(tmp_path: Path, where: str, style: str) -> None:
    target = tmp_path / "pwned"
    tag = _open_tag(target, style)
    args: list[str] = []
    env: dict[str, str] = {}
    stdin = b""
    message = "unsupported YAML tag"
    if where == "item":
        stdin = (RL + f"items:\n- {tag}\n").encode()
    elif where == "nested-value":
        stdin = (RL + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
                 f"  data:\n    a: {tag}\n").encode()
    elif where == "function-config":
        stdin = (RL + f"items: []\nfunctionConfig: {tag}\n").encode()
    elif where == "stream-file":
        cfg = config_file(tmp_path, RENDERER_CFG + "spec: {}\n")
        (tmp_path / "in.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\ndata: {tag}\n")
        args = [str(cfg), str(tmp_path / "in.yaml")]
    elif where == "config-file":
        args = [str(config_file(tmp_path, RENDERER_CFG + f"spec: {tag}\n")), "-"]
        stdin = CM.encode()
    elif where == "catalog-file":
        (tmp_path / "cat.yaml").write_text(f"series: {tag}\n")
        args = [str(config_file(tmp_path, "apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\n"
                                          "metadata: {name: c}\nspec: {path: cat.yaml}\n")), "/dev/null"]
        message = "python/object"
    else:
        env = {"KUSTOMIZE_PLUGIN_CONFIG_STRING": RENDERER_CFG + f"spec: {tag}\n"}
        stdin = CM.encode()
    proc = run_fn(args, stdin, env=env, cwd=tmp_path)
    assert_one_line_failure(proc, message)
    assert not target.exists(), "an unsafe tag was constructed"


@pytest.mark.parametrize("tag", ["!!set {a, b}", "!!omap [a: 1]", "!Ref x", "!!python/name:os.system ''",
                                 "!!python/module:os ''", "!<!custom> x", "!!js/function 'x'"])
def test_non_standard_tags_are_refused(tag: str) -> None:
    assert_one_line_failure(run_fn([], (RL + f"items:\n- {tag}\n").encode()), "unsupported YAML tag")


# --- catalog/config paths that escape the package -----------------------------------------------------------------
@pytest.mark.parametrize(("path", "message"), [
    ("../outside.yaml", "'..' is not allowed"),
    ("sub/../../outside.yaml", "'..' is not allowed"),
    ("/etc/passwd", "not absolute"),
    ("//etc/passwd", "not absolute"),
    ("C:\\\\x.yaml", "not absolute"),
    ("link.yaml", "outside the package directory"),
    ("linkdir/cat.yaml", "outside the package directory"),
    ("''", "must not be empty"),
    ("missing.yaml", "not found"),
])
@pytest.mark.parametrize("kind", ["InstancetypeCatalog", "VirtualMachineRenderer"])
def test_catalog_paths_that_escape_the_package_are_refused(tmp_path: Path, path: str, message: str,
                                                            kind: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "cat.yaml").write_text("series: {}\n")
    (tmp_path / "outside.yaml").write_text("series: {}\n")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "link.yaml").symlink_to(outside / "cat.yaml")
    (pkg / "linkdir").symlink_to(outside)
    (pkg / "sub").mkdir()
    spec = f"{{path: {path}}}" if kind == "InstancetypeCatalog" else f"{{catalog: {{path: {path}}}}}"
    cfg = config_file(pkg, f"apiVersion: kubevirt-krm.dev/v1alpha1\nkind: {kind}\nmetadata: {{name: c}}\n"
                           f"spec: {spec}\n")
    other_vm = stream(vm({"instancetype": {"name": "nope"}, "template": {"spec": DOMAIN}}))
    proc = run_fn([str(cfg), "-"], other_vm if kind == "VirtualMachineRenderer" else b"", cwd=tmp_path)
    assert_one_line_failure(proc, message)


def test_catalog_path_in_krm_mode_is_resolved_inside_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "outside.yaml").write_text("series: {}\n")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    text = RL + "items: []\nfunctionConfig:\n  apiVersion: kubevirt-krm.dev/v1alpha1\n  kind: InstancetypeCatalog\n" \
                "  metadata: {name: c}\n  spec: {path: ../outside.yaml}\n"
    proc = run_fn([], text, cwd=pkg)
    assert proc.returncode == 1 and b"'..' is not allowed" in proc.stderr and b"Traceback" not in proc.stderr


# --- names that would make invalid ControllerRevision names -----------------------------------------------------------
def _pin(vm_name: str, it_name: str, scope: str) -> tuple[int, list[dict[str, Any]], str]:
    it = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
          "metadata": {"name": it_name}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}
    spec = {"runStrategy": "Halted", "instancetype": {"name": it_name}, "template": {"spec": DOMAIN}}
    proc = run_fn([], resource_list([it, vm(spec, name=vm_name)], renderer("revisions", revisions={"scope": scope})))
    crs = [o for o in parse(proc.stdout)["items"] if o["kind"] == "ControllerRevision"]
    return proc.returncode, crs, proc.stderr.decode()


@pytest.mark.parametrize("scope", ["per-vm", "shared"])
@pytest.mark.parametrize(("vm_name", "it_name"), [
    ("v" * 253, "u1"), ("a" * 200, "b" * 60), ("a.b.c", "x.y.z"), ("vm-" + "9" * 250, "a-" * 30 + "b"),
    ("v" * 253, "c" * 63),
])
def test_long_and_dotted_names_make_valid_revision_names(vm_name: str, it_name: str, scope: str) -> None:
    from krm_fn.kubevirt.schema.strict import validate_object

    code, crs, err = _pin(vm_name, it_name, scope)
    assert code == 0, err
    assert len(crs) == 1
    name = crs[0]["metadata"]["name"]
    assert len(name) <= 253
    assert validate_object(crs[0]) == []


def test_long_names_do_not_collide() -> None:
    _, first, _ = _pin("v" * 250 + "a", "u1", "per-vm")
    _, second, _ = _pin("v" * 250 + "b", "u1", "per-vm")
    assert first[0]["metadata"]["name"] != second[0]["metadata"]["name"]


@pytest.mark.parametrize("scope", ["per-vm", "shared"])
def test_instancetype_names_longer_than_63_make_valid_revisions_or_an_error(scope: str) -> None:
    from krm_fn.kubevirt.schema.strict import validate_object

    code, crs, _ = _pin("vm", "i" * 64, scope)
    assert code == 1 or all(validate_object(cr) == [] for cr in crs)


@pytest.mark.parametrize(("vm_name", "it_name"), [("WebServer", "u1"), ("vm", "U1.Medium"), ("vm_1", "u1")])
def test_invalid_vm_or_instancetype_names_are_an_error(vm_name: str, it_name: str) -> None:
    from krm_fn.kubevirt.schema.strict import validate_object

    code, crs, err = _pin(vm_name, it_name, "per-vm")
    assert code == 1 or all(validate_object(cr) == [] for cr in crs), err
