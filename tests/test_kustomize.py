"""kubectl kustomize with the legacy exec plugin laid out by ``kubevirt-krm install-plugin`` (real tool)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from tests.builders import REPO, line_with, run_fn
from tests.integration_support import MISSING_TYPE_STDERR, MISSING_TYPE_VM, Golden, require_tool, tool_env

pytestmark = pytest.mark.integration
KUBECTL = shutil.which("kubectl")


@pytest.fixture(scope="module")
def plugin_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("plugins")
    proc = run_fn(["install-plugin", str(home)])
    assert proc.returncode == 0, proc.stderr
    return home


def kustomize(directory: Path, plugin_home: Path) -> subprocess.CompletedProcess[str]:
    if KUBECTL is None:
        if os.environ.get("CI") == "true":
            pytest.fail("kubectl is required in CI")
        pytest.skip("kubectl not installed")
    env = {**os.environ, "KUSTOMIZE_PLUGIN_HOME": str(plugin_home)}
    return subprocess.run([KUBECTL, "kustomize", "--enable-alpha-plugins", str(directory)], capture_output=True,
                          text=True, env=env, timeout=300)


def test_install_plugin_layout(plugin_home: Path) -> None:
    for kind in ("InstancetypeCatalog", "VirtualMachineRenderer"):
        exe = plugin_home / "kubevirt-krm.dev" / "v1alpha1" / kind.lower() / kind
        assert exe.exists() and os.access(exe, os.X_OK)


def test_repo_kustomization_builds_the_default_catalog(plugin_home: Path) -> None:
    proc = kustomize(REPO, plugin_home)
    assert proc.returncode == 0, proc.stderr
    got = sorted(yaml.safe_load_all(proc.stdout), key=lambda o: (o["kind"], o["metadata"]["name"]))
    expected = sorted(generate(CatalogSpec(), None), key=lambda o: (o["kind"], o["metadata"]["name"]))
    assert len(got) == 2 * (65 + 54)  # common-instancetypes v1.7.0, what the default KubeVirt release deploys
    assert got == expected


def test_plugin_failure_shows_our_message(plugin_home: Path, tmp_path: Path) -> None:
    (tmp_path / "kustomization.yaml").write_text("generators:\n- gen.yaml\n")
    (tmp_path / "gen.yaml").write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\n"
                                       "metadata:\n  name: bad\nspec:\n  scope: Galaxy\n")
    proc = kustomize(tmp_path, plugin_home)
    assert proc.returncode != 0
    assert "spec.scope: must be one of Cluster, Namespaced, Both" in proc.stderr
    assert "Traceback" not in proc.stderr


# --- examples/kustomize-plugin: generator + transformer in one kustomization (issue 6 parts 1 and 2) ----------

EXAMPLE = REPO / "examples" / "kustomize-plugin"
CATALOG_KINDS = {"VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference"}

CONFLICTING_VM = """\
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: greedy
  namespace: apps
spec:
  runStrategy: Always
  instancetype:
    name: u1.small
  template:
    spec:
      domain:
        cpu:
          cores: 4
        devices: {}
"""
BAD_VMS = {
    "missing-instancetype": (MISSING_TYPE_VM, MISSING_TYPE_STDERR),
    "conflict": (CONFLICTING_VM, "kubevirt-krm: error: VirtualMachine apps/greedy "
                 "spec.template.spec.domain.cpu.cores: "
                 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: VM field(s) '
                 "spec.template.spec.domain.cpu.cores conflicts with selected instance type"),
}


def docker_shim(tmp: Path) -> tuple[Path, Path]:
    """A fake ``docker`` (shared/docs/krm-integration.md §2.4): answers ``version``, logs ``run`` arguments and
    runs the local ``kubevirt-krm`` in place of the image's ENTRYPOINT with the ``-e`` variables kustomize passes.
    Proves the KRM-function protocol of the ``container:`` annotation without a container engine."""
    shim_dir, log = tmp / "fake-docker", tmp / "docker-args.log"
    shim_dir.mkdir()
    (shim_dir / "docker").write_text(
        "#!/bin/bash\n"
        'case "${1:-}" in version) echo 28.2.2; exit 0;; run) ;; *) exit 0;; esac\n'
        f'echo "$*" >> "{log}"\n'
        'envs=(); prev=; for a in "$@"; do [ "$prev" = -e ] && envs+=("$a"); prev=$a; done\n'
        'exec env "${envs[@]}" kubevirt-krm\n')
    (shim_dir / "docker").chmod(0o755)
    return shim_dir, log


def as_container_functions(directory: Path, image: str) -> None:
    """Turn the ``exec:`` annotations of a krm-function copy into ``container:`` ones."""
    for name in ("catalog.yaml", "prerender.yaml"):
        f = directory / name
        text = f.read_text()
        assert "exec:\n        path: kubevirt-krm" in text
        f.write_text(text.replace("exec:\n        path: kubevirt-krm", f"container:\n        image: {image}"))


def kinds(stream: str) -> list[str]:
    return [d["kind"] for d in yaml.safe_load_all(stream) if d]


def test_example_generator_and_transformer_in_one_kustomization(plugin_home: Path) -> None:
    golden = Golden()
    proc = kustomize(EXAMPLE, plugin_home)
    assert proc.returncode == 0, proc.stderr
    golden.check(EXAMPLE / "expected.yaml", proc.stdout, normalise=lambda s: s)
    golden.done()
    docs = list(yaml.safe_load_all(proc.stdout))
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("VirtualMachineClusterInstancetype", "u1.medium"), ("VirtualMachineClusterInstancetype", "u1.small"),
        ("VirtualMachineClusterPreference", "fedora"), ("VirtualMachine", "db"), ("VirtualMachine", "web")]
    for vm in docs[3:]:  # expanded: the references are gone, the instancetype's CPU/memory are in the spec
        assert "instancetype" not in vm["spec"] and "preference" not in vm["spec"]
    assert docs[3]["spec"]["template"]["spec"]["domain"]["memory"] == {"guest": "4Gi"}


@pytest.mark.parametrize("bad", sorted(BAD_VMS))
def test_example_bad_vm_fails_the_build(plugin_home: Path, tmp_path: Path, bad: str) -> None:
    vm, message = BAD_VMS[bad]
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE, app)
    with (app / "vms" / "vms.yaml").open("a") as f:
        f.write(vm)
    proc = kustomize(app, plugin_home)
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert message in proc.stderr, proc.stderr                     # our one line, shown by kustomize
    assert "Traceback" not in proc.stderr


def test_a_config_error_names_the_users_file_not_kustomizes_copy(plugin_home: Path, tmp_path: Path) -> None:
    """Issue 38, point 5: kustomize hands a legacy plugin its config in /tmp/kust-plugin-config-NNN; our line names
    the kustomization's entry that holds it."""
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE, app)
    config = app / "prerender.yaml"
    config.write_text(config.read_text().replace("\n  mode: expand\n", "\n  mdoe: expand\n"))
    proc = kustomize(app, plugin_home)
    assert proc.returncode != 0 and proc.stdout == ""
    at = line_with(config.read_text(), "  mdoe:")  # the line in the user's file, not in kustomize's copy
    assert f"kubevirt-krm: error: VirtualMachineRenderer expand (config file {config} line {at}) spec.mdoe: " \
           "unknown field" in proc.stderr, proc.stderr


def test_a_bad_vm_names_its_file_with_origin_annotations(plugin_home: Path, tmp_path: Path) -> None:
    """kubectl kustomize hands a legacy plugin no path annotation; with ``buildMetadata: [originAnnotations]``
    the origin annotation names the file, and so does our line (issue 26, point 3)."""
    vm, message = BAD_VMS["missing-instancetype"]
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE, app)
    with (app / "vms" / "vms.yaml").open("a") as f:
        f.write(vm)
    with (app / "kustomization.yaml").open("a") as f:
        f.write("buildMetadata: [originAnnotations]\n")
    proc = kustomize(app, plugin_home)
    assert proc.returncode != 0 and proc.stdout == ""
    # the file, and the field's line in it: kustomize runs the plugin in the kustomization's directory
    at = line_with((app / "vms" / "vms.yaml").read_text(), "  instancetype:", after="name: broken")
    assert message.replace("apps/broken ", f"apps/broken (vms/vms.yaml line {at}) ") in proc.stderr, proc.stderr


def test_krm_function_exec_annotation_is_silently_skipped_by_kubectl(tmp_path: Path) -> None:
    """The documented trap (shared/docs/krm-integration.md §2.4): kubectl kustomize has no --enable-exec, and
    with --enable-alpha-plugins it drops ``exec:`` functions WITHOUT an error. Checking rc is not enough."""
    require_tool("kubectl", "needed for the kustomize integration tests")
    proc = subprocess.run([shutil.which("kubectl") or "kubectl", "kustomize", "--enable-alpha-plugins",
                           str(EXAMPLE / "krm-function")], capture_output=True, text=True,
                          env=tool_env(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr                       # "success" ...
    assert kinds(proc.stdout) == ["VirtualMachine", "VirtualMachine"]  # ... with no instancetypes generated
    for vm in yaml.safe_load_all(proc.stdout):                     # ... and no VM expanded
        assert "instancetype" in vm["spec"]
    assert proc.stdout != (EXAMPLE / "expected.yaml").read_text()


def test_krm_function_container_annotation_matches_the_legacy_plugin(tmp_path: Path) -> None:
    """kustomize's KRM-function path (``container:`` annotation), with a fake docker that runs the local
    function: same manifests as the legacy exec plugin (examples/kustomize-plugin/expected.yaml)."""
    kubectl = require_tool("kubectl", "needed for the kustomize integration tests")
    example = tmp_path / "kustomize-plugin"
    shutil.copytree(EXAMPLE, example)
    as_container_functions(example / "krm-function", "example.invalid/kubevirt-krm:test")
    shim_dir, log = docker_shim(tmp_path)
    env = tool_env(tmp_path)
    env["PATH"] = f"{shim_dir}{os.pathsep}{env['PATH']}"
    proc = subprocess.run([kubectl, "kustomize", "--enable-alpha-plugins", str(example / "krm-function")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (EXAMPLE / "expected.yaml").read_text()
    runs = log.read_text().splitlines()
    assert len(runs) == 2                                          # the generator, then the transformer
    for args in runs:
        for flag in ("--network none", "--user nobody", "--security-opt=no-new-privileges",
                     "example.invalid/kubevirt-krm:test"):
            assert flag in args, args


def test_krm_function_container_annotation_bad_vm_fails(tmp_path: Path) -> None:
    kubectl = require_tool("kubectl", "needed for the kustomize integration tests")
    vm, message = BAD_VMS["missing-instancetype"]
    example = tmp_path / "kustomize-plugin"
    shutil.copytree(EXAMPLE, example)
    with (example / "vms" / "vms.yaml").open("a") as f:
        f.write(vm)
    as_container_functions(example / "krm-function", "example.invalid/kubevirt-krm:test")
    shim_dir, _ = docker_shim(tmp_path)
    env = tool_env(tmp_path)
    env["PATH"] = f"{shim_dir}{os.pathsep}{env['PATH']}"
    proc = subprocess.run([kubectl, "kustomize", "--enable-alpha-plugins", str(example / "krm-function")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert message in proc.stderr, proc.stderr   # the function's stderr is attached to kustomize's (-a STDERR)
    assert "Traceback" not in proc.stderr


def test_krm_function_exec_annotation_with_standalone_kustomize(tmp_path: Path) -> None:
    """``exec:`` needs standalone kustomize with --enable-exec. It is not part of this project's toolset (kubectl
    embeds kustomize without that flag), so this only runs where a ``kustomize`` binary happens to be on PATH."""
    exe = shutil.which("kustomize")
    if exe is None:
        pytest.skip("standalone kustomize is not installed (kubectl's embedded kustomize has no --enable-exec); "
                    "the exec: annotation is documented in docs/integrations.md")
    proc = subprocess.run([exe, "build", "--enable-alpha-plugins", "--enable-exec", str(EXAMPLE / "krm-function")],
                          capture_output=True, text=True, env=tool_env(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (EXAMPLE / "expected.yaml").read_text()


# --- docs/revisions.md "Namespaces and the order of functions": namespace: + generator + renderer (issue 15) ----

def _recipe(directory: Path, vms: str, namespace: str | None) -> Path:
    """The documented kustomization: ``namespace:`` (when given), the catalog generator, the renderer pinning
    with shared revisions; the VMs and the generator config from examples/kustomize-plugin."""
    directory.mkdir()
    shutil.copy(EXAMPLE / "catalog.yaml", directory / "catalog.yaml")
    (directory / "vms.yaml").write_text(vms)
    (directory / "prerender.yaml").write_text(
        "apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: prerender\n"
        "spec:\n  mode: revisions\n  revisions:\n    scope: shared\n  catalog:\n    builtin: none\n")
    head = f"namespace: {namespace}\n" if namespace else ""
    (directory / "kustomization.yaml").write_text(
        f"{head}resources: [vms.yaml]\ngenerators: [catalog.yaml]\ntransformers: [prerender.yaml]\n")
    return directory


def test_documented_namespace_recipe_pins_the_vms(plugin_home: Path, tmp_path: Path) -> None:
    """kustomize stamps ``namespace:`` on the generated cluster instancetypes too (it does not know the kinds are
    cluster-scoped). The API server would store them without it; so does the renderer: the build succeeds and
    gives exactly what the same VMs written in that namespace give, without the stamp."""
    vms = (EXAMPLE / "vms" / "vms.yaml").read_text()
    stamped = kustomize(_recipe(tmp_path / "stamped", vms, "team-b"), plugin_home)
    assert stamped.returncode == 0, stamped.stderr
    reference = kustomize(_recipe(tmp_path / "plain", vms.replace("namespace: apps", "namespace: team-b"), None),
                          plugin_home)
    assert reference.returncode == 0, reference.stderr
    assert stamped.stdout == reference.stdout
    docs = list(yaml.safe_load_all(stamped.stdout))
    for doc in docs:
        if doc["kind"] in CATALOG_KINDS:
            assert "namespace" not in doc["metadata"]
        else:
            assert doc["metadata"]["namespace"] == "team-b"
    revisions = {d["metadata"]["name"] for d in docs if d["kind"] == "ControllerRevision"}
    pins = {vm["spec"][f]["revisionName"] for vm in docs if vm["kind"] == "VirtualMachine"
            for f in ("instancetype", "preference") if f in vm["spec"]}
    assert pins == revisions and len(revisions) == 3  # u1.medium, u1.small, fedora: shared by db and web


def test_shared_revisions_of_vms_with_and_without_a_namespace(plugin_home: Path, tmp_path: Path) -> None:
    """kustomize takes an object without a namespace to be in ``default`` (its resource ids): a VM without one
    and a VM in ``default`` share one revision, or kustomize refuses the output (one id twice)."""
    vms = (EXAMPLE / "vms" / "vms.yaml").read_text()
    vms = vms.replace("  namespace: apps\n", "", 1).replace("namespace: apps", "namespace: default")
    proc = kustomize(_recipe(tmp_path / "app", vms, None), plugin_home)
    assert proc.returncode == 0, proc.stderr
    docs = list(yaml.safe_load_all(proc.stdout))
    namespaces = {d["metadata"]["name"]: d["metadata"].get("namespace") for d in docs if d["kind"] == "VirtualMachine"}
    assert namespaces == {"db": None, "web": "default"}
    assert len([d for d in docs if d["kind"] == "ControllerRevision"]) == 3


# --- examples/cluster-objects: local-config copies of cluster objects (issue 25 item 5) ------------------------

def test_local_config_copies_of_cluster_objects_are_read_by_the_plugin_and_never_emitted(
        plugin_home: Path, tmp_path: Path) -> None:
    example = REPO / "examples" / "cluster-objects"
    shutil.copy(example / "vms.yaml", tmp_path)
    shutil.copytree(example / "cluster", tmp_path / "cluster")
    (tmp_path / "prerender.yaml").write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\n"
                                             "metadata:\n  name: prerender\nspec:\n  mode: revisions\n")
    (tmp_path / "kustomization.yaml").write_text("resources:\n- vms.yaml\n- cluster/datasources.yaml\n"
                                                 "- cluster/pvcs.yaml\ntransformers:\n- prerender.yaml\n")
    proc = kustomize(tmp_path, plugin_home)
    assert proc.returncode == 0, proc.stderr
    out = list(yaml.safe_load_all(proc.stdout))
    assert sorted(o["kind"] for o in out) == ["ControllerRevision"] * 4 + ["VirtualMachine"] * 2
    vms = {o["metadata"]["name"]: o["spec"] for o in out if o["kind"] == "VirtualMachine"}
    assert (vms["rhel"]["instancetype"]["name"], vms["win"]["preference"]["name"]) == ("u1.medium", "windows.2k22")
