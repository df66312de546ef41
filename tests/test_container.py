"""The container image with the real engine (issue 6 part 5, issue 8 container hardening).

Runs ``$KUBEVIRT_KRM_IMAGE`` (default ``kubevirt-krm:ci``, built by ``.ci/container.sh``) with
``$KUBEVIRT_KRM_ENGINE`` (default podman), always hardened the way kpt/kustomize start functions: read-only root
filesystem, no network, an unprivileged uid without a HOME, no-new-privileges. kustomize (`container:` annotation)
and kpt (`--image`) are run for real, with a `docker` shim on PATH that forwards to the engine.

Skips with the reason when the engine is missing, cannot run containers, or the image is not built (or is older
than the sources). With ``KUBEVIRT_KRM_CONTAINER_TESTS=1`` (set by ``.ci/container.sh``) those are failures.
``UPDATE_GOLDEN=1`` rewrites ``examples/container/expected.yaml`` and fails.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.builders import REPO, run_fn


pytestmark = pytest.mark.integration

IMAGE = os.environ.get("KUBEVIRT_KRM_IMAGE", "kubevirt-krm:ci")
ENGINE = os.environ.get("KUBEVIRT_KRM_ENGINE", "podman")
FORCED = os.environ.get("KUBEVIRT_KRM_CONTAINER_TESTS") == "1"
HARDENED = ["--read-only", "--network=none", "--user", "65534", "--security-opt=no-new-privileges"]
EXAMPLE = REPO / "examples" / "container"
CATALOGS = sorted((REPO / "catalog").glob("*.yaml"))

CONFIGMAP_RL = b"""\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    namespace: apps
    annotations:
      config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'settings.yaml'
  data:
    # a comment
    mode: "fast"
    replicas: '3'
"""

CATALOG_RL = b"""\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
functionConfig:
  apiVersion: kubevirt-krm.dev/v1alpha1
  kind: InstancetypeCatalog
  metadata:
    name: c
  spec:
    builtin: common-instancetypes
"""


def unavailable(reason: str) -> None:
    if FORCED:
        pytest.fail(f"{reason} (KUBEVIRT_KRM_CONTAINER_TESTS=1, so this is an error, not a skip)")
    pytest.skip(reason)


def _newest_source_mtime() -> float:
    files = [REPO / "pyproject.toml", REPO / "Containerfile", *REPO.joinpath("krm_fn").rglob("*.py"), *CATALOGS]
    return max(f.stat().st_mtime for f in files if f.exists())


@pytest.fixture(scope="module")
def engine() -> str:
    """Absolute path of the engine, once it is known to run the image."""
    exe = shutil.which(ENGINE)
    if exe is None:
        unavailable(f"{ENGINE} is not installed (the container tests need it; see .ci/container.sh)")
    assert exe is not None
    found = subprocess.run([exe, "image", "inspect", "--format", "{{.Id}}", IMAGE],
                           capture_output=True, text=True, timeout=60)
    if found.returncode != 0:
        unavailable(f"image {IMAGE} not found in {ENGINE}: build it with .ci/container.sh "
                    f"({' '.join(found.stderr.strip().splitlines()[-1:])})")
    # podman: .Created is a time (docker: a string, then this check is skipped)
    created = subprocess.run([exe, "image", "inspect", "--format", "{{.Created.Unix}}", IMAGE],
                             capture_output=True, text=True, timeout=60).stdout.strip()
    if not FORCED and created.isdigit() and int(created) < _newest_source_mtime():
        pytest.skip(f"image {IMAGE} is older than the sources: rebuild it with .ci/container.sh")
    probe = subprocess.run([exe, "run", "--rm", "--network=none", "--entrypoint", "python3", IMAGE, "-c", "pass"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        unavailable(f"{ENGINE} cannot run containers here (rc {probe.returncode}: {last}); "
                    ".ci/container.sh shows a working setup")
    return exe


def crun(engine: str, args: list[str], stdin: bytes = b"", *, options: list[str] | None = None,
         entrypoint: str | None = None) -> subprocess.CompletedProcess[bytes]:
    cmd = [engine, "run", "-i", "--rm", *(HARDENED if options is None else options)]
    if entrypoint:
        cmd += ["--entrypoint", entrypoint]
    return subprocess.run([*cmd, IMAGE, *args], input=stdin, capture_output=True, timeout=180)


def test_help(engine: str) -> None:
    proc = crun(engine, ["--help"])
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.startswith(b"usage: kubevirt-krm"), proc.stdout[:200]


def test_the_image_carries_the_version(engine: str) -> None:
    """Issue 38, point 3: the OCI version label, a tag of the version, and --version in the image agree with the
    package's version."""
    from krm_fn import __version__

    labels = subprocess.run([engine, "image", "inspect", "--format", "{{json .Config.Labels}}", IMAGE],
                            capture_output=True, text=True, check=True).stdout
    found = json.loads(labels)
    assert found["org.opencontainers.image.version"] == __version__
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", found["org.opencontainers.image.revision"])
    tagged = subprocess.run([engine, "image", "inspect", "--format", "{{.Id}}", f"kubevirt-krm:{__version__}"],
                            capture_output=True, text=True)
    image = subprocess.run([engine, "image", "inspect", "--format", "{{.Id}}", IMAGE], capture_output=True, text=True)
    assert tagged.returncode == 0 and tagged.stdout == image.stdout
    proc = crun(engine, ["--version"])
    assert proc.stdout.decode() == f"kubevirt-krm {__version__}\n"


def test_passthrough_is_byte_identical_hardened(engine: str) -> None:
    local = run_fn([], CONFIGMAP_RL)
    assert local.returncode == 0 and local.stdout == CONFIGMAP_RL, local.stderr.decode()
    proc = crun(engine, [], CONFIGMAP_RL)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == CONFIGMAP_RL


def test_runs_as_non_root(engine: str) -> None:
    user = subprocess.run([engine, "image", "inspect", "--format", "{{.Config.User}}", IMAGE],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert user and user.split(":")[0] not in ("0", "root"), f"image User is {user!r}"
    # the image's own default user, no --user override: not root
    proc = crun(engine, ["-c", "import os; print(os.getuid(), os.getgid())"], options=["--network=none"],
                entrypoint="python3")
    assert proc.returncode == 0, proc.stderr.decode()
    uid, gid = map(int, proc.stdout.split())
    assert uid != 0 and gid != 0


def test_nothing_needs_writing_or_network(engine: str) -> None:
    """Read-only rootfs, no HOME, no network, kustomize's ``--user nobody`` and env: still works, and the
    filesystem really is read-only (so the success above is not an accident of a writable layer)."""
    opts = ["--read-only", "--network", "none", "--user", "nobody", "--security-opt=no-new-privileges",
            "-e", "LOG_TO_STDERR=true", "-e", "STRUCTURED_RESULTS=true", "-e", "HOME=/nonexistent"]
    proc = crun(engine, [], CONFIGMAP_RL, options=opts)
    assert proc.returncode == 0 and proc.stdout == CONFIGMAP_RL, proc.stderr.decode()
    code = ("import pathlib, socket\n"
            "for d in ('/', '/opt/kubevirt-krm', '/tmp'):\n"
            "    try: pathlib.Path(d, 'probe').write_text('x'); print('writable', d)\n"
            "    except OSError: pass\n"
            "try: socket.create_connection(('1.1.1.1', 443), timeout=3); print('network')\n"
            "except OSError: pass\n")
    probe = crun(engine, ["-c", code], options=opts, entrypoint="python3")
    assert probe.returncode == 0, probe.stderr.decode()
    # podman mounts a tmpfs on /tmp with --read-only (--read-only-tmpfs); nothing else may be writable
    assert [line for line in probe.stdout.decode().splitlines() if line != "writable /tmp"] == []


def test_malformed_input_fails_cleanly(engine: str) -> None:
    proc = crun(engine, [], b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [\n")
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert "Traceback" not in err
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert err.startswith("kubevirt-krm: error:"), err
    assert proc.stdout == b""


def test_builtin_catalog_matches_local(engine: str) -> None:
    local = run_fn([], CATALOG_RL)
    assert local.returncode == 0, local.stderr.decode()
    proc = crun(engine, [], CATALOG_RL)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"kind: VirtualMachineClusterInstancetype" in proc.stdout
    assert proc.stdout == local.stdout, "the image's builtin catalog output differs from the local kubevirt-krm"


# --- kustomize's container-function path, with a `docker` shim that forwards to the engine ------------------

@pytest.fixture
def kubectl() -> str:
    exe = shutil.which("kubectl")
    if exe is None:
        pytest.skip("kubectl is not installed (needed for the kustomize container-function test)")
    return exe


def _write_shim(shim_dir: Path, log: Path, engine: str) -> None:
    """A ``docker`` that logs its arguments, answers ``version`` (kpt checks it) and turns ``run`` into
    ``ENGINE run`` with the same arguments (podman accepts docker's run flags)."""
    shim_dir.mkdir(exist_ok=True)
    conf = os.environ.get("CONTAINERS_CONF")
    (shim_dir / "docker").write_text(
        "#!/bin/bash\n"
        f"echo \"docker $*\" >> {shlex.quote(str(log))}\n"
        'case "${1:-}" in version) echo 28.2.2; exit 0;; run) shift;; *) exit 0;; esac\n'
        + (f"export CONTAINERS_CONF={shlex.quote(conf)}\n" if conf else "")
        + f'exec {shlex.quote(engine)} run "$@"\n')
    (shim_dir / "docker").chmod(0o755)


def kustomize(engine: str, kubectl: str, pkg: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], str]:
    """``kubectl kustomize --enable-alpha-plugins pkg`` with ``docker`` on PATH forwarding to ``engine run``.
    Returns the process and the shim's log of the docker command lines kustomize issued."""
    shim_dir, log = tmp_path / "shim", tmp_path / "docker.log"
    _write_shim(shim_dir, log, engine)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}
    env["PATH"] = f"{shim_dir}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run([kubectl, "kustomize", "--enable-alpha-plugins", str(pkg)], capture_output=True,
                          text=True, env=env, timeout=300)
    return proc, log.read_text() if log.exists() else ""


def copy_example(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    shutil.copytree(EXAMPLE, pkg, ignore=shutil.ignore_patterns("expected.yaml", "README.md"))
    fn = pkg / "catalog.yaml"
    text = fn.read_text()
    assert "image: localhost/kubevirt-krm:dev" in text
    fn.write_text(text.replace("image: localhost/kubevirt-krm:dev", f"image: {IMAGE}"))
    return pkg


def assert_kustomize_protocol(log: str) -> None:
    runs = [line for line in log.splitlines() if line.startswith("docker run ")]
    assert len(runs) == 1, log
    for flag in ("-i", "-a STDIN -a STDOUT -a STDERR", "--network none", "--user nobody",
                 "--security-opt=no-new-privileges", "-e LOG_TO_STDERR=true"):
        assert f" {flag} " in runs[0], (flag, runs[0])
    assert runs[0].endswith(f" {IMAGE}"), runs[0]


def test_kustomize_container_function(engine: str, kubectl: str, tmp_path: Path) -> None:
    proc, log = kustomize(engine, kubectl, copy_example(tmp_path), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_kustomize_protocol(log)
    # the function's effect, not just rc 0 (an ignored annotation also gives rc 0 and an empty stream)
    assert "kind: VirtualMachineClusterInstancetype" in proc.stdout and "name: u1.small" in proc.stdout
    assert "kind: InstancetypeCatalog" not in proc.stdout  # local-config: the generator config is not emitted
    expected = EXAMPLE / "expected.yaml"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(proc.stdout)
        pytest.fail(f"rewrote {expected.relative_to(REPO)}; review the diff and rerun without UPDATE_GOLDEN")
    assert proc.stdout == expected.read_text(), f"kustomize output differs from {expected.relative_to(REPO)}"


def test_kustomize_container_function_error(engine: str, kubectl: str, tmp_path: Path) -> None:
    """A ConfigMap functionConfig with an unknown key: kustomize must fail with our message on stderr."""
    pkg = tmp_path / "bad"
    pkg.mkdir()
    (pkg / "kustomization.yaml").write_text("generators:\n- fn.yaml\n")
    (pkg / "fn.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  annotations:\n"
        "    config.kubernetes.io/function: |\n      container:\n"
        f"        image: {IMAGE}\n"
        "data:\n  kind: InstancetypeCatalog\n  bogusKey: \"1\"\n")
    proc, log = kustomize(engine, kubectl, pkg, tmp_path)
    assert proc.returncode != 0, proc.stdout
    assert_kustomize_protocol(log)
    assert "data.bogusKey" in proc.stderr and "unknown field" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


# --- kpt's container path (`fn eval --image`), same shim ---------------------------------------------------

def test_kpt_image_matches_exec(engine: str, tmp_path: Path) -> None:
    """``kpt fn eval --image`` runs the image (``docker run ... --pull never IMAGE``) and gives the same package
    as ``kpt fn eval --exec`` with the local console script."""
    kpt = shutil.which("kpt")
    if kpt is None:
        pytest.skip("kpt is not installed")
    # kpt prefixes a name without a registry with gcr.io/kpt-fn/; podman stores local builds under localhost/
    image = IMAGE
    if "/" not in IMAGE.split(":")[0]:
        if os.path.basename(engine) != "podman":
            pytest.skip(f"kpt needs a registry-qualified image name; set KUBEVIRT_KRM_IMAGE (now {IMAGE})")
        image = f"localhost/{IMAGE}"
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "settings.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
                                       "data:\n  mode: fast\n")
    fn_config = tmp_path / "catalog.yaml"
    fn_config.write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: c\n"
                         "spec:\n  builtin: common-instancetypes\n  scope: Cluster\n"
                         "  include: {series: [u1], sizes: [small], preferences: [fedora]}\n")
    common = ["--fn-config", str(fn_config), "--output", "unwrap"]
    local_fn = shutil.which("kubevirt-krm")
    if local_fn is None:
        pytest.skip("the kubevirt-krm console script is not installed (needed for kpt --exec)")
    exec_run = subprocess.run([kpt, "fn", "eval", str(pkg), "--exec", local_fn, *common], capture_output=True,
                              text=True, timeout=300)
    assert exec_run.returncode == 0, exec_run.stderr
    shim_dir, log = tmp_path / "shim", tmp_path / "docker.log"
    _write_shim(shim_dir, log, engine)
    env = dict(os.environ, PATH=f"{shim_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    image_run = subprocess.run([kpt, "fn", "eval", str(pkg), "--image", image, "--image-pull-policy", "never",
                                *common], capture_output=True, text=True, env=env, timeout=300)
    assert image_run.returncode == 0, image_run.stderr
    runs = [line for line in log.read_text().splitlines() if line.startswith("docker run ")]
    assert len(runs) == 1 and " --network none --user nobody " in runs[0] and runs[0].endswith(f" {image}"), runs
    assert "name: u1.small" in image_run.stdout and "name: settings" in image_run.stdout
    assert image_run.stdout == exec_run.stdout
