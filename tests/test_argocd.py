"""The Argo CD Config Management Plugin (examples/argocd/plugin.yaml), run as the CMP server would (issue 6 part 4).

Argo CD itself is not runnable here. So the ``generate`` (and ``discover``) commands are read from plugin.yaml
and run with ``bash -c`` in a temp checkout of the app dir: the repo files have their exec bits cleared
(``preserveFileMode: false``), the environment is what a CMP gets (``ARGOCD_APP_*``, ``ARGOCD_ENV_*``,
``KUBE_VERSION``, ``PARAM_*``), and the tools are the real kubectl and kubevirt-krm. stdout must be a plain
manifest stream and nothing else, and every failure must exit non-zero with nothing on stdout (with
auto-prune, an empty output deletes the app's resources).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import lupa  # type: ignore[import-untyped]
import pytest
import yaml

from tests.integration_support import (
    EXAMPLES,
    MISSING_TYPE_STDERR,
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
BAD_VM = MISSING_TYPE_VM
BAD_VM_MESSAGE = MISSING_TYPE_STDERR


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
    require_tool("kubectl", "the CMP's generate command runs kubectl kustomize")
    repo = tmp_path / "repo"
    app_dir = repo / "clusters" / "prod" / "vms"
    shutil.copytree(EXAMPLE / "app", app_dir)
    clear_exec_bits(repo)
    return app_dir


def generate(app_dir: Path, env: dict[str, str]) -> tuple[int, str, str]:
    proc = run(["bash", "-c", GENERATE_SCRIPT], app_dir, env)
    return proc.returncode, proc.stdout, proc.stderr


def assert_plain_manifest_stream(stdout: str) -> list[dict[str, Any]]:
    """Only Kubernetes objects: no ResourceList, no logs, no empty or scalar documents."""
    assert stdout.strip(), "empty output"
    docs = list(yaml.safe_load_all(stdout))
    for doc in docs:
        assert isinstance(doc, dict), f"not an object on stdout: {doc!r}"
        assert doc.get("apiVersion") and doc.get("kind") and (doc.get("metadata") or {}).get("name"), doc
        assert doc["kind"] not in ("ResourceList", "List"), doc["kind"]
    return docs


# --- plugin.yaml ----------------------------------------------------------------------------------------------

def test_plugin_yaml_is_a_cmp_v2_config() -> None:
    assert PLUGIN["apiVersion"] == "argoproj.io/v1alpha1" and PLUGIN["kind"] == "ConfigManagementPlugin"
    spec = PLUGIN["spec"]
    assert spec["generate"]["command"] == ["bash", "-c"] and len(spec["generate"]["args"]) == 1
    assert GENERATE_SCRIPT.lstrip().startswith("set -euo pipefail")
    assert spec["discover"]["find"]["command"][:2] == ["bash", "-c"]
    assert [p["name"] for p in spec["parameters"]["static"]] == ["allow-empty"]
    assert "preserveFileMode" not in spec                # the default (false): repo files lose their exec bits


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
    assert "kubevirt-krm CMP: kubectl kustomize --enable-alpha-plugins . (app vms, revision 4f1c2a9" in err
    # the temporary plugin tree is gone (trap), nothing is left in the sidecar's /tmp
    assert not any(p.name.startswith("tmp.") for p in (tmp_path / "cmp-tmp").iterdir())


def test_generate_uses_the_sidecars_plugin_home_and_kustomize(app: Path, tmp_path: Path) -> None:
    """The sidecar image (examples/argocd/Containerfile) sets KUSTOMIZE_PLUGIN_HOME and ships kustomize: the
    script then uses both. kustomize is a shim onto kubectl's embedded kustomize here."""
    env = cmp_env(tmp_path)
    home = tmp_path / "image-plugins"
    proc = run(["kubevirt-krm", "install-plugin", str(home)], tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    shim_dir = tmp_path / "kustomize-bin"
    shim_dir.mkdir()
    log = tmp_path / "kustomize.log"
    (shim_dir / "kustomize").write_text(
        f'#!/bin/bash\necho "$* KUSTOMIZE_PLUGIN_HOME=$KUSTOMIZE_PLUGIN_HOME" >> "{log}"\n'
        '[ "${1:-}" = build ] && shift\nexec kubectl kustomize "$@"\n')
    (shim_dir / "kustomize").chmod(0o755)
    env.update(KUSTOMIZE_PLUGIN_HOME=str(home), PATH=f"{shim_dir}{os.pathsep}{env['PATH']}")
    code, out, err = generate(app, env)
    assert code == 0, err
    assert log.read_text() == f"build --enable-alpha-plugins . KUSTOMIZE_PLUGIN_HOME={home}\n"
    assert out == (EXAMPLE / "expected.yaml").read_text()


def test_generate_bad_vm_fails_with_nothing_on_stdout(app: Path, tmp_path: Path) -> None:
    with (app / "vms.yaml").open("a") as f:
        f.write(BAD_VM)
    code, out, err = generate(app, cmp_env(tmp_path))
    assert code != 0
    assert out == ""
    assert BAD_VM_MESSAGE in err
    assert "Traceback" not in err


def test_generate_broken_kustomization_fails(app: Path, tmp_path: Path) -> None:
    (app / "vms.yaml").unlink()
    code, out, err = generate(app, cmp_env(tmp_path))
    assert code != 0 and out == ""
    assert "vms.yaml" in err


def test_generate_refuses_an_empty_stream_unless_allowed(app: Path, tmp_path: Path) -> None:
    for name in ("catalog.yaml", "prerender.yaml", "vms.yaml"):
        (app / name).unlink()
    # a valid kustomization that renders nothing (e.g. after its resources were removed by mistake)
    (app / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                            "namePrefix: prod-\n")
    code, out, err = generate(app, cmp_env(tmp_path))
    assert code == 1 and out == ""
    assert "produced no objects" in err
    params = json.dumps([{"name": "allow-empty", "string": "true"}])
    code, out, err = generate(app, cmp_env(tmp_path, ARGOCD_APP_PARAMETERS=params, PARAM_ALLOW_EMPTY="true"))
    assert code == 0, err
    assert out.strip() == ""


# --- discover -------------------------------------------------------------------------------------------------

def discover(directory: Path, env: dict[str, str]) -> tuple[int, str]:
    cmd = PLUGIN["spec"]["discover"]["find"]["command"]
    proc = run(cmd, directory, env)
    return proc.returncode, proc.stdout


def test_discover_matches_only_kustomizations_using_kubevirt_krm(app: Path, tmp_path: Path) -> None:
    env = cmp_env(tmp_path)
    code, out = discover(app, env)
    assert code == 0 and out.strip() == "./catalog.yaml"
    plain = tmp_path / "plain-kustomize"
    plain.mkdir()
    (plain / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    (plain / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert discover(plain, env) == (0, "")
    no_kustomization = tmp_path / "loose"
    no_kustomization.mkdir()
    shutil.copy(app / "catalog.yaml", no_kustomization / "catalog.yaml")
    assert discover(no_kustomization, env) == (0, "")


# --- the sidecar recipe ---------------------------------------------------------------------------------------

def test_sidecar_recipe() -> None:
    patch = yaml.safe_load((EXAMPLE / "sidecar.yaml").read_text())
    assert (patch["kind"], patch["metadata"]["name"]) == ("Deployment", "argocd-repo-server")
    (container,) = patch["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert container["securityContext"]["runAsUser"] == 999
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    assert mounts["/var/run/argocd"] == "var-files"
    assert mounts["/home/argocd/cmp-server/plugins"] == "plugins"
    tmp_volume = mounts["/tmp"]
    assert {"name": tmp_volume, "emptyDir": {}} in patch["spec"]["template"]["spec"]["volumes"]
    containerfile = (EXAMPLE / "Containerfile").read_text()
    assert "COPY examples/argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml" in containerfile
    assert "USER 999:999" in containerfile
    assert "kubevirt-krm install-plugin" in containerfile


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
