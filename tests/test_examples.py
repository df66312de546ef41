"""Golden examples: every ``examples/<name>/`` package is rendered in-process as kpt would feed it.

Layout: the package's resources, an optional ``fn-config.yaml`` (the functionConfig), and
``.expected/output.yaml`` (the full output ResourceList, compared byte for byte). ``UPDATE_GOLDEN=1``
rewrites the expected files *and fails*, so a regeneration can never pass silently. Each example is also
rendered a second time from its own output: nothing may change (kpt feeds our output back to us).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from krm_fn.io.loader import load_documents
from krm_fn.io.resourcelist import dump_resource_list, parse_resource_list
from krm_fn.process import Options, process
from tests.builders import REPO
from tests.kpt_source import fn_config, source

EXAMPLES = sorted(p.parent.parent for p in (REPO / "examples").glob("*/.expected/output.yaml"))


def test_examples_exist() -> None:
    assert EXAMPLES, "no examples/<name>/.expected/output.yaml found"


def render(pkg: Path, data: bytes) -> tuple[bytes, int]:
    out = process(data, Options(base_dir=pkg))
    return out.data, out.exit_code


@pytest.mark.parametrize("pkg", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example(pkg: Path) -> None:
    data = source(pkg, fn_config(pkg)).encode()
    out, code = render(pkg, data)
    expected_file = pkg / ".expected" / "output.yaml"
    if os.environ.get("UPDATE_GOLDEN"):
        expected_file.write_bytes(out)
        pytest.fail(f"rewrote {expected_file.relative_to(REPO)}; review the diff and rerun without UPDATE_GOLDEN")
    assert out.decode() == expected_file.read_text(), f"output of {pkg.name} differs from {expected_file}"
    has_errors = any(r.get("severity") == "error" for r in (load_documents(out.decode())[0].value.get("results") or []))
    assert code == (1 if has_errors else 0)


@pytest.mark.parametrize("pkg", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_is_idempotent(pkg: Path) -> None:
    first, _ = render(pkg, source(pkg, fn_config(pkg)).encode())
    rl = parse_resource_list(first.decode())
    again_input = dump_resource_list(rl, rl.items, []).encode()  # kpt drops results between runs
    second, _ = render(pkg, again_input)
    rl2 = parse_resource_list(second.decode())
    assert dump_resource_list(rl2, rl2.items, []) == again_input.decode()


@pytest.mark.parametrize("pkg", EXAMPLES, ids=lambda p: p.name)
def test_kpt_skips_the_expected_output(pkg: Path) -> None:
    """Issue 38: `kpt fn eval` on an example folder read `.expected/` as resources and failed; each folder's
    .krmignore leaves it out."""
    assert ".expected" in (pkg / ".krmignore").read_text().split(), pkg


@pytest.mark.integration
def test_kpt_fn_eval_runs_on_an_example_folder(tmp_path: Path) -> None:
    import shutil
    import subprocess

    from tests.integration_support import require_tool, tool_env

    kpt = require_tool("kpt", "needed for the kpt integration tests")
    pkg = tmp_path / "catalog-common"
    shutil.copytree(REPO / "examples" / "catalog-common", pkg)
    proc = subprocess.run([kpt, "fn", "eval", "--exec", "kubevirt-krm", "--fn-config", "fn-config.yaml", "-o",
                           "stdout", "."], cwd=pkg, env=tool_env(tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "kind: VirtualMachineClusterInstancetype" in proc.stdout
