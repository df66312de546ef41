"""The Argo CD Config Management Plugin (examples/argocd/plugin.yaml), run as the CMP server would (issue 6 part 4,
issue 38 point 6).

Argo CD itself is not runnable here. So the ``generate`` command is read from plugin.yaml and run with ``bash -c``
in a temp checkout of the app dir: the repo files have their exec bits cleared (``preserveFileMode: false``), the
environment is what a CMP gets (``ARGOCD_APP_*``, ``ARGOCD_ENV_*``, ``KUBE_VERSION``, ``PARAM_*``), and the tools
are the real kubectl and kubevirt-krm. stdout must be a plain manifest stream and nothing else, and every failure
must exit non-zero with nothing on stdout (with auto-prune, an empty output deletes the app's resources).

The script has two routes to the same objects: kubevirt-krm reads the files of a kustomization that only lists
local YAML files, and any other kustomization is built by kustomize and piped into kubevirt-krm. A 10,000-VM
fleet must render within Argo CD's 90 s exec timeout; kustomize alone takes minutes for that many objects.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import lupa  # type: ignore[import-untyped]
import pytest
import yaml

from tests.builders import bench_module
from tests.integration_support import (
    EXAMPLES,
    MISSING_TYPE_MESSAGE,
    MISSING_TYPE_VM,
    Golden,
    clear_exec_bits,
    require_tool,
    run,
    tool_env,
)

pytestmark = pytest.mark.integration

EXAMPLE = EXAMPLES / "argocd"
PLUGIN = yaml.safe_load((EXAMPLE / "plugin.yaml").read_text())
GENERATE_SCRIPT: str = PLUGIN["spec"]["generate"]["args"][0]
RENDERER, CATALOG = "kubevirt-krm.yaml", "kubevirt-krm-catalog.yaml"
ARGO_CD_EXEC_TIMEOUT = 90          # seconds: ARGOCD_EXEC_TIMEOUT's default, per command
FAST_ROUTE = "kubevirt-krm CMP: kubevirt-krm reads the "
KUSTOMIZE_ROUTE = " . | kubevirt-krm ("           # after "kustomize build" or "kubectl kustomize"
PLAIN_KUSTOMIZATION = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- vms.yaml\n"
Objects = list[dict[str, Any]]


def cmp_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The environment of a CMP command (docs: build-environment, config-management-plugins)."""
    revision = "4f1c2a9e0b7d3c5e8a6f1d2b9c0e7a3f5b8d4c1e"
    env = tool_env(tmp, {
        "HOME": str(tmp / "home"),
        "TMPDIR": str(tmp / "cmp-tmp"),             # the sidecar's own /tmp emptyDir
        "ARGOCD_APP_NAME": "vms",
        "ARGOCD_APP_NAMESPACE": "apps",
        "ARGOCD_APP_PROJECT_NAME": "default",
        "ARGOCD_APP_REVISION": revision,
        "ARGOCD_APP_REVISION_SHORT": revision[:7],
        "ARGOCD_APP_REVISION_SHORT_8": revision[:8],
        "ARGOCD_APP_SOURCE_PATH": "clusters/prod/vms",
        "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/infra/fleet.git",
        "ARGOCD_APP_SOURCE_TARGET_REVISION": "main",
        "ARGOCD_APP_PARAMETERS": "[]",
        "ARGOCD_ENV_TEAM": "platform",               # an Application plugin.env entry
        "KUBE_VERSION": "1.32.4",
        "KUBE_API_VERSIONS": "v1,apps/v1,kubevirt.io/v1,instancetype.kubevirt.io/v1beta1",
    })
    env.update(extra)
    for d in ("home", "cmp-tmp"):
        (tmp / d).mkdir(exist_ok=True)
    return env


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """A checkout of the app as the CMP server unpacks it: under the repo path, exec bits cleared."""
    repo = tmp_path / "repo"
    app_dir = repo / "clusters" / "prod" / "vms"
    shutil.copytree(EXAMPLE / "app", app_dir)
    clear_exec_bits(repo)
    return app_dir


@pytest.fixture
def kubectl() -> str:
    return require_tool("kubectl", "the CMP's kustomize route runs kubectl kustomize")


def generate(app_dir: Path, env: dict[str, str]) -> tuple[int, str, str]:
    proc = run(["bash", "-c", GENERATE_SCRIPT], app_dir, env)
    return proc.returncode, proc.stdout, proc.stderr


def assert_plain_manifest_stream(stdout: str) -> Objects:
    """Only Kubernetes objects: no ResourceList, no logs, no empty or scalar documents."""
    assert stdout.strip(), "empty output"
    docs = list(yaml.safe_load_all(stdout))
    for doc in docs:
        assert isinstance(doc, dict), f"not an object on stdout: {doc!r}"
        assert doc.get("apiVersion") and doc.get("kind") and (doc.get("metadata") or {}).get("name"), doc
        assert doc["kind"] not in ("ResourceList", "List"), doc["kind"]
    return docs


def by_identity(docs: Objects) -> Objects:
    """The objects in one order whatever the route (kustomize sorts by kind, kubevirt-krm keeps its input's)."""
    return sorted(docs, key=lambda d: (d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"]))


def needs_kustomize(app_dir: Path) -> None:
    """The app's kustomization with a transformer: the script must build it with kustomize."""
    (app_dir / "kustomization.yaml").write_text(PLAIN_KUSTOMIZATION + "commonAnnotations:\n  team: platform\n")


# --- plugin.yaml ----------------------------------------------------------------------------------------------

def test_plugin_yaml_is_a_cmp_v2_config() -> None:
    assert PLUGIN["apiVersion"] == "argoproj.io/v1alpha1" and PLUGIN["kind"] == "ConfigManagementPlugin"
    spec = PLUGIN["spec"]
    assert spec["generate"]["command"] == ["bash", "-c"] and len(spec["generate"]["args"]) == 1
    assert GENERATE_SCRIPT.lstrip().startswith("set -euo pipefail")
    assert spec["discover"] == {"fileName": f"./{RENDERER}"}
    assert [p["name"] for p in spec["parameters"]["static"]] == ["allow-empty"]
    assert "preserveFileMode" not in spec                # the default (false): repo files lose their exec bits
    assert "--enable-alpha-plugins" not in GENERATE_SCRIPT and "KUSTOMIZE_PLUGIN_HOME" not in GENERATE_SCRIPT


def test_the_app_keeps_its_configs_out_of_the_kustomization() -> None:
    kustomization = yaml.safe_load((EXAMPLE / "app" / "kustomization.yaml").read_text())
    assert set(kustomization) == {"apiVersion", "kind", "resources"}
    assert RENDERER not in kustomization["resources"] and CATALOG not in kustomization["resources"]
    assert yaml.safe_load((EXAMPLE / "app" / RENDERER).read_text())["kind"] == "VirtualMachineRenderer"
    assert yaml.safe_load((EXAMPLE / "app" / CATALOG).read_text())["kind"] == "InstancetypeCatalog"


# --- generate -------------------------------------------------------------------------------------------------

def test_generate_prints_only_the_manifests(app: Path, tmp_path: Path) -> None:
    code, out, err = generate(app, cmp_env(tmp_path))
    assert code == 0, err
    docs = assert_plain_manifest_stream(out)
    golden = Golden()
    golden.check(EXAMPLE / "expected.yaml", out, normalise=lambda s: s)
    golden.done()
    assert sorted({d["kind"] for d in docs}) == ["ControllerRevision", "VirtualMachine",
                                                 "VirtualMachineClusterInstancetype",
                                                 "VirtualMachineClusterPreference"]
    for vm in (d for d in docs if d["kind"] == "VirtualMachine"):   # pinned (revisions mode)
        assert vm["spec"]["instancetype"]["revisionName"]
    assert err == (f"{FAST_ROUTE}1 resource file(s) of kustomization.yaml (app vms, revision "
                   "4f1c2a9e0b7d3c5e8a6f1d2b9c0e7a3f5b8d4c1e)\n")
    assert not any((tmp_path / "cmp-tmp").iterdir())       # nothing left in the sidecar's /tmp


def test_both_routes_print_the_objects_of_the_legacy_plugin_route(app: Path, tmp_path: Path, kubectl: str) -> None:
    """The example's objects did not change when it left kustomize's legacy exec plugin: the same catalog and
    renderer configs as a generator and a transformer of the kustomization give the same objects."""
    env = cmp_env(tmp_path)
    legacy = tmp_path / "legacy"
    shutil.copytree(app, legacy)
    (legacy / "kustomization.yaml").write_text(PLAIN_KUSTOMIZATION + f"generators:\n- {CATALOG}\n"
                                               f"transformers:\n- {RENDERER}\n")
    plugins = tmp_path / "plugins"
    assert run(["kubevirt-krm", "install-plugin", str(plugins)], tmp_path, env).returncode == 0
    built = run([kubectl, "kustomize", "--enable-alpha-plugins", str(legacy)], tmp_path,
                {**env, "KUSTOMIZE_PLUGIN_HOME": str(plugins)})
    assert built.returncode == 0, built.stderr
    want = by_identity(list(yaml.safe_load_all(built.stdout)))
    code, fast, err = generate(app, env)
    assert code == 0 and FAST_ROUTE in err, err
    needs_kustomize(app)
    code, piped, err = generate(app, env)
    assert code == 0 and KUSTOMIZE_ROUTE in err, err
    assert by_identity(assert_plain_manifest_stream(fast)) == want
    piped_docs = by_identity(assert_plain_manifest_stream(piped))
    for doc in piped_docs:
        if doc["kind"] == "VirtualMachine":
            assert doc["metadata"].pop("annotations") == {"team": "platform"}
    assert piped_docs == want


@pytest.mark.parametrize("standalone", [True, False], ids=["kustomize-build", "kubectl-kustomize"])
def test_a_kustomization_beyond_plain_files_is_built_by_kustomize(app: Path, tmp_path: Path, kubectl: str,
                                                                  standalone: bool) -> None:
    """The sidecar image ships kustomize (examples/argocd/Containerfile): the script then uses it, else kubectl's.
    kustomize is a shim onto kubectl's embedded kustomize here."""
    env = cmp_env(tmp_path)
    if not standalone and shutil.which("kustomize", path=env["PATH"]):
        pytest.skip("a standalone kustomize is on PATH: the script takes it over kubectl's")
    log = tmp_path / "kustomize.log"
    if standalone:
        shim_dir = tmp_path / "kustomize-bin"
        shim_dir.mkdir()
        (shim_dir / "kustomize").write_text(
            f'#!/bin/bash\necho "$*" >> "{log}"\n[ "${{1:-}}" = build ] && shift\nexec "{kubectl}" kustomize "$@"\n')
        (shim_dir / "kustomize").chmod(0o755)
        env["PATH"] = f"{shim_dir}{os.pathsep}{env['PATH']}"
    needs_kustomize(app)
    code, out, err = generate(app, env)
    assert code == 0, err
    build = "kustomize build" if standalone else "kubectl kustomize"
    assert err.startswith(f"kubevirt-krm CMP: {build}{KUSTOMIZE_ROUTE}app vms, revision 4f1c2a9"), err
    assert log.exists() == standalone and (not standalone or log.read_text() == "build .\n")
    vms = [d for d in assert_plain_manifest_stream(out) if d["kind"] == "VirtualMachine"]
    assert [vm["metadata"]["annotations"] for vm in vms] == [{"team": "platform"}] * 2


BOTH = ["db", "web"]


@pytest.mark.parametrize(("kustomization", "fast", "vms"), [
    pytest.param(PLAIN_KUSTOMIZATION, True, BOTH, id="plain"),
    pytest.param("# the fleet\nresources:\n  - ./vms.yaml   \n\n# end\n", True, BOTH, id="indented-comments-dot-slash"),
    pytest.param("resources:\r\n- vms.yaml\r\n", True, BOTH, id="crlf"),
    pytest.param("resources: [vms.yaml]\n", False, BOTH, id="flow-style"),
    pytest.param("resources:\n- 'vms.yaml'\n", False, BOTH, id="quoted"),
    pytest.param(PLAIN_KUSTOMIZATION + "namespace: apps\n", False, BOTH, id="a-transformer"),
    pytest.param("resources:\n- vms.yaml\n- base\n", False, BOTH, id="a-base-directory"),
    pytest.param("resources:\n- linked.yaml\n", False, BOTH, id="a-symlink"),
    # kustomize keeps the last of two keys: only more.yaml, which is empty
    pytest.param("resources:\n- vms.yaml\nresources:\n- more.yaml\n", False, [], id="two-resources-keys"),
    pytest.param("resources:\n- vms.yaml\n  - more.yaml\n", False, None, id="uneven-indentation"),
    pytest.param("resources:\n- ../outside.yaml\n", False, None, id="out-of-the-app-dir"),
])
def test_which_kustomizations_kubevirt_krm_reads_itself(app: Path, tmp_path: Path, kubectl: str,
                                                        kustomization: str, fast: bool, vms: list[str] | None) -> None:
    """Only a kustomization that kustomize would merely join takes the fast route; any other one is kustomize's
    to read (or refuse: ``vms`` None)."""
    (app / "base").mkdir()
    (app / "base" / "kustomization.yaml").write_text("resources: []\n")
    (app / "linked.yaml").symlink_to("vms.yaml")
    (app / "more.yaml").write_text("")
    shutil.copy(app / "vms.yaml", app.parent / "outside.yaml")
    (app / "kustomization.yaml").write_text(kustomization)
    code, out, err = generate(app, cmp_env(tmp_path))
    assert (FAST_ROUTE in err) == fast, err
    if vms is None:
        assert code != 0 and out == "", err
        return
    assert code == 0, err
    names = [d["metadata"]["name"] for d in assert_plain_manifest_stream(out) if d["kind"] == "VirtualMachine"]
    assert sorted(names) == vms


@pytest.mark.parametrize("route", ["fast", "kustomize"])
def test_generate_bad_vm_fails_with_nothing_on_stdout(app: Path, tmp_path: Path, kubectl: str, route: str) -> None:
    with (app / "vms.yaml").open("a") as f:
        f.write(MISSING_TYPE_VM)
    if route == "kustomize":
        needs_kustomize(app)
    code, out, err = generate(app, cmp_env(tmp_path))
    assert code != 0
    assert out == ""
    assert MISSING_TYPE_MESSAGE in err
    assert ("VirtualMachine apps/broken (vms.yaml line " in err) == (route == "fast")   # the file, when read
    assert "Traceback" not in err


def test_generate_broken_kustomization_fails(app: Path, tmp_path: Path, kubectl: str) -> None:
    (app / "vms.yaml").unlink()                     # not a file: kustomize builds it, and refuses
    code, out, err = generate(app, cmp_env(tmp_path))
    assert code != 0 and out == ""
    assert KUSTOMIZE_ROUTE in err and "vms.yaml" in err


def test_a_failing_catalog_stage_fails_the_pipe(app: Path, tmp_path: Path) -> None:
    catalog = app / CATALOG
    catalog.write_text(catalog.read_text().replace("scope: Cluster", "scope: Everywhere"))
    code, out, err = generate(app, cmp_env(tmp_path))
    assert code != 0 and out == ""
    assert "kubevirt-krm: error: " in err and "scope" in err


@pytest.mark.parametrize(("what", "message"), [
    pytest.param(RENDERER, f"no {RENDERER} (the VirtualMachineRenderer config) in the app dir", id="no-renderer"),
    pytest.param("kustomization.yaml", "no kustomization in the app dir: list the app's objects under resources: in "
                 "kustomization.yaml", id="no-kustomization"),
])
def test_generate_needs_the_renderer_config_and_a_kustomization(app: Path, tmp_path: Path, what: str,
                                                                message: str) -> None:
    (app / what).unlink()
    code, out, err = generate(app, cmp_env(tmp_path))
    assert (code, out, err) == (1, "", f"kubevirt-krm CMP: {message}\n")


@pytest.mark.parametrize("route", ["fast", "kustomize"])
def test_generate_refuses_an_empty_stream_unless_allowed(app: Path, tmp_path: Path, kubectl: str, route: str) -> None:
    """An app whose objects were removed by mistake (the catalog too: it would print its instancetypes)."""
    (app / CATALOG).unlink()
    (app / "vms.yaml").write_text("# nothing here any more\n")
    if route == "kustomize":
        (app / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1beta1\n"
                                                "kind: Kustomization\nnamePrefix: prod-\n")
    code, out, err = generate(app, cmp_env(tmp_path))
    assert code == 1 and out == ""
    assert "the app rendered no objects; refusing" in err
    params = json.dumps([{"name": "allow-empty", "string": "true"}])
    code, out, err = generate(app, cmp_env(tmp_path, ARGOCD_APP_PARAMETERS=params, PARAM_ALLOW_EMPTY="true"))
    assert (code, out) == (0, ""), err


# --- a fleet within Argo CD's exec timeout ----------------------------------------------------------------------

def test_generate_renders_a_10k_vm_fleet_within_argo_cds_timeout(app: Path, tmp_path: Path) -> None:
    """A correctness bound, not a benchmark (bench/argocd.py times it): Argo CD kills a CMP command after
    ARGOCD_EXEC_TIMEOUT, 90 s by default. The fleet is bench/synth.py's, its catalog every builtin type."""
    vms = 10_000
    (app / "vms.yaml").write_text(bench_module("synth").manifests(vms))
    (app / CATALOG).write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\n"
                               "metadata:\n  name: all\nspec:\n  builtin: common-instancetypes\n")
    try:
        proc = subprocess.run(["bash", "-c", GENERATE_SCRIPT], cwd=app, env=cmp_env(tmp_path), capture_output=True,
                              text=True, timeout=ARGO_CD_EXEC_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"generate took more than Argo CD's {ARGO_CD_EXEC_TIMEOUT} s on {vms} VMs")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert FAST_ROUTE in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines.count("kind: VirtualMachine") == vms
    assert lines.count("kind: ControllerRevision") == 2 * vms        # per-vm revisions: instancetype, preference


# --- discover ---------------------------------------------------------------------------------------------------

def discovered(directory: Path) -> bool:
    """Argo CD's ``discover.fileName``: ``filepath.Glob(filepath.Join(appPath, fileName))`` matches something
    (cmpserver/plugin/plugin.go); Python's glob reads the pattern the same way for this name."""
    return bool(glob.glob(str(directory / PLUGIN["spec"]["discover"]["fileName"])))


def test_discover_matches_only_apps_with_the_renderer_config(app: Path, tmp_path: Path) -> None:
    assert discovered(app)
    plain = tmp_path / "plain-kustomize"
    plain.mkdir()
    (plain / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    (plain / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert not discovered(plain)
    catalog_only = tmp_path / "catalog-only"
    catalog_only.mkdir()
    shutil.copy(app / CATALOG, catalog_only / CATALOG)
    assert not discovered(catalog_only)
    nested = tmp_path / "nested"
    shutil.copytree(app, nested / "sub")
    assert not discovered(nested)                   # the app dir itself, not a subdir of it


# --- the sidecar recipe ---------------------------------------------------------------------------------------

def test_sidecar_recipe() -> None:
    patch = yaml.safe_load((EXAMPLE / "sidecar.yaml").read_text())
    assert (patch["kind"], patch["metadata"]["name"]) == ("Deployment", "argocd-repo-server")
    (container,) = patch["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert container["securityContext"]["runAsUser"] == 999
    assert {e["name"] for e in container["env"]} == {"ARGOCD_EXEC_TIMEOUT"}
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    assert mounts["/var/run/argocd"] == "var-files"
    assert mounts["/home/argocd/cmp-server/plugins"] == "plugins"
    tmp_volume = mounts["/tmp"]
    assert {"name": tmp_volume, "emptyDir": {}} in patch["spec"]["template"]["spec"]["volumes"]
    containerfile = (EXAMPLE / "Containerfile").read_text()
    assert "COPY examples/argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml" in containerfile
    assert "USER 999:999" in containerfile
    assert "KUSTOMIZE_PLUGIN_HOME" not in containerfile and "install-plugin" not in containerfile


# --- the health checks (issue 38, point 6): a stopped VM is Healthy, so a multi-wave sync finishes -----------------
HEALTH = yaml.safe_load((EXAMPLE / "argocd-cm-health.yaml").read_text(encoding="utf-8"))["data"]


def _health(kind_key: str, obj: dict[str, Any]) -> tuple[str, str]:
    """The check run as Argo CD runs it: Lua with the object as the global ``obj``, a table back."""
    lua = lupa.LuaRuntime(unpack_returned_tuples=True)
    lua.globals().obj = lua.table_from(obj, recursive=True)
    answer = lua.execute(HEALTH[f"resource.customizations.health.{kind_key}"])
    return str(answer["status"]), str(answer["message"])


def _vm_status(printable: str | None, *, ready: str | None = None, observed: int = 1) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
                           "metadata": {"name": "vm", "generation": 1}, "spec": {}}
    if printable is not None:
        obj["status"] = {"printableStatus": printable, "observedGeneration": observed}
        if ready is not None:
            obj["status"]["conditions"] = [{"type": "Ready", "status": ready, "message": "booting"}]
    return obj


@pytest.mark.parametrize(("obj", "expected"), [
    pytest.param(_vm_status("Stopped"), "Healthy", id="stopped-is-healthy"),
    pytest.param(_vm_status("Running", ready="True"), "Healthy", id="running-ready"),
    pytest.param(_vm_status("Running", ready="False"), "Progressing", id="running-not-ready"),
    pytest.param(_vm_status("Paused"), "Suspended", id="paused"),
    pytest.param(_vm_status("Starting"), "Progressing", id="starting"),
    pytest.param(_vm_status("ErrorUnschedulable"), "Degraded", id="unschedulable"),
    pytest.param(_vm_status("CrashLoopBackOff"), "Degraded", id="crash-loop"),
    pytest.param(_vm_status(None), "Progressing", id="no-status-yet"),
    pytest.param({**_vm_status("Stopped", observed=1), "metadata": {"name": "vm", "generation": 2}}, "Progressing",
                 id="spec-not-seen-yet"),
])
def test_the_vm_health_check(obj: dict[str, Any], expected: str) -> None:
    assert _health("kubevirt.io_VirtualMachine", obj)[0] == expected


@pytest.mark.parametrize(("spec", "ready", "expected"), [
    pytest.param({"replicas": 3}, 3, "Healthy", id="all-ready"),
    pytest.param({"replicas": 3}, 2, "Progressing", id="one-short"),
    pytest.param({}, 1, "Healthy", id="one-by-default"),
    pytest.param({"replicas": 2, "virtualMachineTemplate": {"spec": {"runStrategy": "Halted"}}}, 0, "Healthy",
                 id="stopped-by-its-template"),
    pytest.param({"replicas": 2, "paused": True}, 0, "Suspended", id="paused"),
])
def test_the_pool_health_check(spec: dict[str, Any], ready: int, expected: str) -> None:
    pool = {"apiVersion": "pool.kubevirt.io/v1beta1", "kind": "VirtualMachinePool", "metadata": {"name": "p"},
            "spec": spec, "status": {"readyReplicas": ready}}
    assert _health("pool.kubevirt.io_VirtualMachinePool", pool)[0] == expected


def _vm(name: str, strategy: str) -> dict[str, Any]:
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"runStrategy": strategy, "instancetype": {"name": "u1.small"},
                     "template": {"spec": {"domain": {"devices": {}}}}}}


@pytest.mark.parametrize(("wave", "strategies", "warned"), [
    pytest.param(-1, ["Always", "Halted", "Halted"], "b", id="wave-and-stopped-vms"),
    pytest.param(-1, ["Always", "RerunOnFailure"], None, id="wave-every-vm-runs"),
    pytest.param(None, ["Halted"], None, id="no-wave"),
])
def test_sync_waves_meeting_a_stopped_vm_are_a_warning(wave: int | None, strategies: list[str],
                                                       warned: str | None) -> None:
    from krm_fn.render.spec import RendererSpec, RevisionsSpec
    from tests.render_support import render

    vms = [_vm(name, strategy) for name, strategy in zip("abc", strategies)]
    _, results = render(vms, RendererSpec(mode="revisions", revisions=RevisionsSpec(sync_wave=wave)))
    said = [r for r in results if ("stage", "argocd") in r.tags]
    if warned is None:
        assert said == []
        return
    assert len(said) == 1 and said[0].severity == "warning" and said[0].resource_ref is not None
    assert said[0].resource_ref.name == warned and "and 1 more does not run" in said[0].message
