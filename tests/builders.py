"""What the tests share: where ../shared lives, objects to test with, and the function run in each mode.

Objects have fixed names and no randomness. A runner returns what a user would see of a run.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import pytest
import yaml

from krm_fn.kube.paths import Obj
from krm_fn.io.inputs import Source
from krm_fn.process import Options, Output, process, process_stream

REPO = Path(__file__).resolve().parents[1]
RENDERER_API = "kubevirt-krm.dev/v1alpha1"
NO_CATALOG: Obj = {"builtin": "none"}  # a renderer's catalog that holds nothing


# --- where things are -----------------------------------------------------------------------------------

def bench_module(name: str) -> ModuleType:
    """A module of bench/: ``synth`` (the synthetic fleets) or ``run`` (the benchmark's renderer config)."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def shared_dir() -> Path:
    """``$KUBEVIRT_KRM_SHARED`` or the repo's sibling ``../shared``."""
    return Path(os.environ.get("KUBEVIRT_KRM_SHARED", REPO.parent / "shared"))


def require_shared(sub: str = "") -> Path:
    """The shared dir (or a sub path); skip when absent, except in CI where it must exist."""
    path = shared_dir() / sub
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing in CI (set KUBEVIRT_KRM_SHARED)")
        pytest.skip(f"{path} not found: the shared conformance/reference data is not in this clone "
                    "(set KUBEVIRT_KRM_SHARED to enable these tests)")
    return path


def fn_command() -> list[str]:
    exe = shutil.which("kubevirt-krm")
    return [exe] if exe else [sys.executable, "-m", "krm_fn"]


def run_fn(args: list[str], stdin: bytes | str = b"", env: dict[str, str] | None = None,
           cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}
    full_env.update(env or {})
    return subprocess.run(fn_command() + args, input=data, capture_output=True, env=full_env, cwd=cwd,
                          timeout=120)


def assert_clean_failure(proc: subprocess.CompletedProcess[bytes], message: str) -> None:
    """Exit 1, the message on stderr in one line, no traceback anywhere."""
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert message in err, err
    assert "Traceback" not in err and b"Traceback" not in proc.stdout
    assert len([line for line in err.splitlines() if line.strip()]) >= 1



# --- objects --------------------------------------------------------------------------------------------

MEMORY: Final[Obj] = {"resources": {"requests": {"memory": "1Gi"}}}  # what a VM without an instancetype must request


def vm(name: str = "vm", namespace: str | None = "ns", *, annotations: Mapping[str, str] | None = None,
       **spec: Any) -> Obj:
    """A bare VirtualMachine: ``spec`` as given, then (unless ``spec`` has one) a template of one empty domain
    (with a memory request when there is no instancetype)."""
    md: Obj = {"name": name}
    if namespace:
        md["namespace"] = namespace
    if annotations:
        md["annotations"] = dict(annotations)
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": md,
            "spec": {**spec, "template": spec.get("template", {"spec": {"domain": {
                "devices": {}, **({} if "instancetype" in spec else MEMORY)}}})}}


def make_vm(template_spec: Obj | None = None, *, name: str = "vm", namespace: str | None = "ns1",
            instancetype: Obj | None = None, preference: Obj | None = None, template_metadata: Obj | None = None,
            status: Obj | None = None, **spec_extra: Any) -> Obj:
    """A VirtualMachine with one containerDisk volume unless ``template_spec`` says otherwise; without an
    instancetype, it requests memory (a VMI must, or the VMI webhook refuses to start it)."""
    domain: Obj = {"devices": {}} if instancetype is not None else {"devices": {}, **MEMORY}
    tspec = template_spec if template_spec is not None else {
        "domain": domain,
        "volumes": [{"name": "containerdisk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}],
    }
    spec: Obj = {"runStrategy": "Always", **spec_extra}
    if instancetype is not None:
        spec["instancetype"] = instancetype
    if preference is not None:
        spec["preference"] = preference
    template: Obj = {"spec": tspec}
    if template_metadata is not None:
        template["metadata"] = template_metadata
    spec["template"] = template
    md: Obj = {"name": name}
    if namespace:
        md["namespace"] = namespace
    vm: Obj = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": md, "spec": spec}
    if status is not None:
        vm["status"] = status
    return vm


def make_object(kind: str, name: str, spec: Obj, *, namespace: str | None = None, uid: str = "uid-1",
                generation: int = 1, labels: dict[str, str] | None = None) -> Obj:
    """An instancetype/preference (any of the four kinds) or another object with a ``spec``."""
    groups = {
        "VirtualMachineInstancetype": "instancetype.kubevirt.io/v1beta1",
        "VirtualMachineClusterInstancetype": "instancetype.kubevirt.io/v1beta1",
        "VirtualMachinePreference": "instancetype.kubevirt.io/v1beta1",
        "VirtualMachineClusterPreference": "instancetype.kubevirt.io/v1beta1",
        "PersistentVolumeClaim": "v1",
        "DataVolume": "cdi.kubevirt.io/v1beta1",
        "DataSource": "cdi.kubevirt.io/v1beta1",
        "VolumeSnapshot": "snapshot.storage.k8s.io/v1",
        "ControllerRevision": "apps/v1",
    }
    md: Obj = {"name": name, "uid": uid, "generation": generation}
    if namespace:
        md["namespace"] = namespace
    if labels:
        md["labels"] = labels
    return {"apiVersion": groups[kind], "kind": kind, "metadata": md, "spec": spec}


def instancetype(name: str = "it", cpu: int = 2, memory: str = "2Gi", **spec: Any) -> Obj:
    body: Obj = {"cpu": {"guest": cpu}, "memory": {"guest": memory}}
    for key, value in spec.items():
        if key in ("cpu", "memory"):
            body[key] = {**body[key], **value}
        else:
            body[key] = value
    return make_object("VirtualMachineClusterInstancetype", name, body)


def preference(name: str = "pref", **spec: Any) -> Obj:
    return make_object("VirtualMachineClusterPreference", name, dict(spec))


def renderer(mode: str = "revisions", name: str = "render", **spec: Any) -> Obj:
    """A ``VirtualMachineRenderer`` functionConfig in ``mode``, with ``spec``'s other fields."""
    return {"apiVersion": RENDERER_API, "kind": "VirtualMachineRenderer", "metadata": {"name": name},
            "spec": {"mode": mode, **spec}}


def resource_list(items: list[Any], config: Obj | None = None) -> bytes:
    """The ResourceList of ``items`` and ``config`` as kpt sends it (JSON is YAML)."""
    rl: Obj = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    if config is not None:
        rl["functionConfig"] = config
    return json.dumps(rl).encode()


# --- runs -----------------------------------------------------------------------------------------------

def run_krm(items: list[Any], config: Obj | None = None, options: Options | None = None) -> tuple[Obj, int]:
    """The ResourceList the function writes for ``items`` (KRM mode, in-process) and its exit code."""
    import yaml

    out = process(resource_list(items, config), options or Options())
    return yaml.safe_load(out.data), out.exit_code


def problems(rl: Obj) -> list[Obj]:
    """The error and warning results of a written ResourceList."""
    return [r for r in rl.get("results") or [] if r.get("severity") in ("error", "warning")]


def run_stream(files: Mapping[str, str], config: str, options: Options | None = None,
               directory: bool = False) -> Output:
    """The standalone mode's output (``kubevirt-krm CONFIG FILE...``, in-process) for ``files`` by name."""
    sources = [Source(name, text.encode(), in_directory=directory) for name, text in files.items()]
    return process_stream(Source("config file cfg.yaml", config.encode()), sources, options or Options())


def names_its_field(text: str, result: Any) -> bool:
    """Whether the line a result points at (its ``file.line`` in ``text``) holds a key of its field (the deepest
    the document has), or a list item of it: stderr names the field's line, not the document's."""
    from krm_fn.io.fieldline import steps

    line = text.splitlines()[result.file.line - 1].strip().removeprefix("- ")
    keys = [s for s in steps(result.field_path or "") if isinstance(s, str)]
    return any(line.startswith(f"{key}:") for key in keys) or line.startswith("-") or not keys


def line_with(text: str, needle: str, after: str = "") -> int:
    """The 1-based line of the first line holding ``needle`` after the first one holding ``after``: where a result
    about a field points (its key's line)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    return next(i for i in range(start, len(lines)) if needle in lines[i]) + 1


# --- pods (the shape of shared/conformance-vms' pod stage) -----------------------------------------------

def pod_container(name: str, requests: Obj | None = None, limits: Obj | None = None, sidecar: bool = False) -> Obj:
    """A container with only what is given: its requests, its limits, ``restartPolicy: Always`` for a sidecar."""
    container: Obj = {"name": name}
    if requests is not None:
        container["requests"] = requests
    if limits is not None:
        container["limits"] = limits
    if sidecar:
        container["restartPolicy"] = "Always"
    return container


def pod_of(containers: list[Obj], init: list[Obj] | None = None, overhead: Obj | None = None, **extra: Any) -> Obj:
    """A pod of ``containers`` and init containers ``init``."""
    return {"containers": containers, "initContainers": init or [], "overhead": overhead, **extra}


# --- a GitOps repository's source VM (tests/test_check.py, tests/test_ci_recipes.py) --------------------------

REVISIONS_RENDERER: Final[Obj] = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
                                  "metadata": {"name": "r"}, "spec": {"mode": "revisions", "kubevirtVersion": "v1.9"}}


def web_vm_text(instancetype: str) -> str:
    """The source file of VM ``apps/web`` (runs, the fedora preference) with ``instancetype``."""
    return yaml.safe_dump({
        "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "web", "namespace": "apps"},
        "spec": {"runStrategy": "Always", "instancetype": {"name": instancetype}, "preference": {"name": "fedora"},
                 "template": {"spec": {"domain": {"devices": {}}}}}}, sort_keys=False)
