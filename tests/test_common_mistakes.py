"""A new user's common mistakes, each one line naming the field's line, under every route (issue 38, point 5).

Each mistake is the quickstart's ``vms.yaml`` with one edit. The expected line is that of the edited key in the
edited file, found by text (``line_with``), not by the product. The routes are the real tools: the standalone
command on the file, ``kpt fn render`` on a package (kpt hands the function a file and an index, and the
function reads the file again for the line), and ``kubectl kustomize`` with the legacy exec plugin and
kustomize's origin annotations (the plugin runs in the kustomization's directory).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Final

import pytest

from tests.builders import REPO, line_with, run_fn
from tests.integration_support import require_tool, run, tool_env

QUICKSTART: Final = REPO / "examples" / "quickstart"
VMS: Final = (QUICKSTART / "vms.yaml").read_text()
DOMAIN: Final = "      domain:\n        devices: {}\n"
VOLUMES: Final = "      volumes:\n        - name: rootdisk\n"


def _domain(more: str) -> tuple[str, str]:
    """The first VM's ``domain`` with ``more`` (lines at its indentation) instead of its empty devices."""
    return DOMAIN, "      domain:\n" + more


# mistake -> (old text, new text, what the line of the result's field holds)
MISTAKES: Final = {
    "instancetype-typo": ("name: u1.medium ", "name: u1.meduim ", "  instancetype:"),
    "preference-typo": ("    name: fedora\n", "    name: fedorra\n", "  preference:"),
    "run-strategy-typo": ("runStrategy: Always", "runStrategy: Allways", "runStrategy: Allways"),
    "bus-typo": (*_domain("        devices:\n          disks:\n            - name: rootdisk\n"
                          "              disk:\n                bus: sataa\n"), "bus: sataa"),
    "disk-without-volume": (*_domain("        devices:\n          disks:\n            - name: datadisk\n"
                                     "              disk: {}\n"), "name: datadisk"),
    "unknown-field": (*_domain("        devices: {}\n        devicez: {}\n"), "devicez:"),
    "wrong-type": (*_domain("        devices: {}\n        cpu:\n          cores: two\n"), "cores: two"),
    "conflicts-with-instancetype": (*_domain("        devices: {}\n        memory:\n          guest: 2Gi\n"),
                                    "guest: 2Gi"),
    "interface-without-network": (*_domain("        devices:\n          interfaces:\n            - name: nic1\n"
                                           "              bridge: {}\n"), "name: nic1"),
    "network-without-interface": (VOLUMES, "      networks:\n        - name: default\n          pod: {}\n"
                                  + VOLUMES, "name: default"),
    "request-above-limit": (*_domain("        devices: {}\n        resources:\n          requests:\n"
                                     "            cpu: '2'\n          limits:\n            cpu: '1'\n"), "cpu: '2'"),
}


def _mistaken(name: str) -> tuple[str, int]:
    """The quickstart's VMs with mistake ``name``, and the 1-based line its result must name."""
    old, new, holds = MISTAKES[name]
    assert VMS.count(old) >= 1, name
    text = VMS.replace(old, new, 1)
    return text, line_with(text, holds)


def _errors(stderr: str) -> list[str]:
    """Our error lines, wherever the tool puts them (kpt quotes them, kubectl indents them)."""
    return re.findall(r"kubevirt-krm: error: [^\n\"]*", stderr)


def _one_line_at(stderr: str, file: str, line: int) -> None:
    errors = _errors(stderr)
    assert len(errors) == 1, stderr
    assert re.match(rf"kubevirt-krm: error: VirtualMachine fedora-dev \({re.escape(file)} line {line}\) "
                    r"spec\.[\w.\[\]]+: ", errors[0]), (errors[0], line)


def _folder(root: Path, marker: str, body: str, vms: str) -> Path:
    """A folder with the quickstart's config, ``vms`` as vms.yaml, and ``marker`` (a Kptfile, a kustomization)."""
    root.mkdir()
    (root / marker).write_text(body)
    (root / "fn-config.yaml").write_text((QUICKSTART / "fn-config.yaml").read_text())
    (root / "vms.yaml").write_text(vms)
    return root


def test_there_are_ten_or_more_mistakes() -> None:
    assert len(MISTAKES) >= 10


@pytest.mark.parametrize("name", MISTAKES)
def test_standalone(name: str, tmp_path: Path) -> None:
    text, line = _mistaken(name)
    (tmp_path / "vms.yaml").write_text(text)
    proc = run_fn([str(QUICKSTART / "fn-config.yaml"), "vms.yaml"], cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == b""
    _one_line_at(proc.stderr.decode(), "vms.yaml", line)


KPTFILE: Final = """apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
    - exec: kubevirt-krm
      configPath: fn-config.yaml
"""


@pytest.mark.integration
@pytest.mark.parametrize("name", MISTAKES)
def test_kpt_fn_render(name: str, tmp_path: Path) -> None:
    kpt = require_tool("kpt", "needed for the kpt integration tests")
    text, line = _mistaken(name)
    _folder(tmp_path / "pkg", "Kptfile", KPTFILE, text)
    proc = run([kpt, "fn", "render", "pkg", "--allow-exec", "--truncate-output=false"], tmp_path, tool_env(tmp_path))
    assert proc.returncode == 1
    _one_line_at(proc.stdout + proc.stderr, "vms.yaml", line)
    # kpt prints each result too: one, the root cause (what follows from it is in its tags)
    assert len(re.findall(r"\[error\] kubevirt\.io/v1/VirtualMachine/fedora-dev ", proc.stdout + proc.stderr)) == 1


KUSTOMIZATION: Final = """resources:
- vms.yaml
transformers:
- fn-config.yaml
buildMetadata: [originAnnotations]
"""


@pytest.mark.integration
@pytest.mark.parametrize("name", MISTAKES)
def test_kubectl_kustomize_legacy_plugin(name: str, tmp_path: Path) -> None:
    kubectl = require_tool("kubectl", "needed for the kustomize integration tests")
    home = tmp_path / "plugins"
    assert run_fn(["install-plugin", str(home)]).returncode == 0
    text, line = _mistaken(name)
    app = _folder(tmp_path / "app", "kustomization.yaml", KUSTOMIZATION, text)
    proc = subprocess.run([kubectl, "kustomize", "--enable-alpha-plugins", str(app)], capture_output=True,
                          text=True, env=tool_env(tmp_path, {"KUSTOMIZE_PLUGIN_HOME": str(home)}), timeout=300)
    assert proc.returncode != 0 and proc.stdout == ""
    _one_line_at(proc.stderr, "vms.yaml", line)
