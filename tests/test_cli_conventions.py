"""Command-line conventions (issue 16, point 4): ``-h``/``--help`` on every subcommand, ``-o`` = ``--output``,
documented exit codes, one stderr line per error, config problems reported at once with their full path.

Most cases run ``krm_fn.cli.main`` in-process; a few run the console script, as a user would."""

from __future__ import annotations

import dataclasses
import gc
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from krm_fn.cli import main as cli
from krm_fn.cli.usage import USAGE
from krm_fn.config import camel
from krm_fn.kubevirt.cluster import SETTING, ClusterConfig
from krm_fn.kubevirt.defaults import MACHINE_TYPES
from tests.builders import REPO, run_fn

QUICKSTART = REPO / "examples" / "quickstart"
RENDERER = "apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\nspec:\n"


@pytest.fixture(autouse=True)
def _restore_process_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``main`` disables the cyclic GC and installs a SIGTERM handler for its one-shot process: undo both."""
    monkeypatch.setenv("KUBEVIRT_KRM_WORKERS", "1")  # no fork inside the test process
    handler = signal.getsignal(signal.SIGTERM)
    yield
    gc.enable()
    signal.signal(signal.SIGTERM, handler)


def run(args: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, str]:
    """``main(args)`` in-process: (exit code, stdout, stderr)."""
    try:
        code = cli.main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsysbinary.readouterr()
    return code, out, err.decode()


def error_lines(err: str) -> list[str]:
    lines = err.splitlines()
    assert all(line.startswith("kubevirt-krm: error: ") for line in lines), err
    return lines


HELP_CASES = [["--help"], ["-h"], ["help"], ["install-plugin", "--help"], ["install-plugin", "-h"],
              ["install-plugin", "some-dir", "--help"], ["catalog", "--help"], ["catalog", "docs", "--help"],
              ["catalog", "docs", "-h"], ["catalog", "docs", "--builtin", "classic", "-h"],
              ["catalog", "diff", "--help"], ["catalog", "diff", "--builtin", "classic", "-", "-h"],
              ["config.yaml", "vms.yaml", "--help"], ["config.yaml", "-o", "out.yaml", "-h"]]


@pytest.mark.parametrize("args", HELP_CASES, ids=" ".join)
def test_every_subcommand_prints_its_help_and_creates_nothing(
        args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(args, capsysbinary)
    assert (code, err) == (0, "")
    assert out.startswith(b"usage: kubevirt-krm"), out[:200]
    subcommand = " ".join(a for a in args[:2] if a in ("install-plugin", "catalog", "docs", "diff"))
    assert subcommand.encode() in out.splitlines()[0] or not subcommand or subcommand == "catalog"
    assert list(tmp_path.iterdir()) == []  # no directory named --help, no output file


def test_install_plugin_help_from_the_console_script_creates_no_directory(tmp_path: Path) -> None:
    proc = run_fn(["install-plugin", "--help"], cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert proc.stdout == b"usage: kubevirt-krm install-plugin DIR\n"
    assert list(tmp_path.iterdir()) == []


def test_install_plugin_options_are_refused_and_a_dash_directory_goes_after_double_dash(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["install-plugin", "--home"], capsysbinary)
    assert code == 2 and "unknown option --home" in err and len(error_lines(err)) == 1
    assert list(tmp_path.iterdir()) == []
    code, out, err = run(["install-plugin", "--", "-plugins"], capsysbinary)
    assert (code, err) == (0, "")
    assert (tmp_path / "-plugins").is_dir() and len(out.splitlines()) == 2


@pytest.mark.parametrize("option", [["-o", "{}"], ["--output", "{}"], ["--output={}"]], ids=" ".join)
def test_dash_o_is_output(option: list[str], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    config, vms = str(QUICKSTART / "fn-config.yaml"), str(QUICKSTART / "vms.yaml")
    code, expected, err = run([config, vms], capsysbinary)
    assert (code, err) == (0, "") and expected.count(b"kind: VirtualMachine\n") >= 1
    target = tmp_path / "out.yaml"
    code, out, err = run([config, *(o.format(target) for o in option), vms], capsysbinary)
    assert (code, out, err) == (0, b"", "")
    assert target.read_bytes() == expected


@pytest.mark.parametrize(("args", "message"), [
    (["c.yaml", "v.yaml", "-o"], "-o needs a file name"),
    (["c.yaml", "v.yaml", "--output"], "--output needs a file name"),
    (["c.yaml", "v.yaml", "--output="], "--output needs a file name"),
    (["c.yaml", "v.yaml", "-o", "a", "--output", "b"], "-o/--output is given twice"),
    (["c.yaml", "-x"], "unknown option -x"),
    (["--frobnicate"], "unknown option --frobnicate"),
    (["-o", "out.yaml"], "--output is for the standalone mode"),
    (["catalog", "docs", "--builtin"], "usage: kubevirt-krm catalog docs"),
    (["catalog", "diff", "--builtin", "classic"], "usage: kubevirt-krm catalog diff"),
    (["catalog", "frobnicate"], "unknown catalog command 'frobnicate'"),
    (["install-plugin"], "usage: kubevirt-krm install-plugin DIR"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_usage_errors_exit_2_with_one_line(args: list[str], message: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(args, capsysbinary)
    assert (code, out) == (2, b"")
    assert len(error_lines(err)) == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_an_internal_error_exits_2_with_one_line(monkeypatch: pytest.MonkeyPatch,
                                                 capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    def broken(args: list[str]) -> int:
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.delenv("KUBEVIRT_KRM_DEBUG", raising=False)
    from krm_fn.cli import subcommands

    monkeypatch.setattr(subcommands, "_catalog_docs", broken)
    code, out, err = run(["catalog", "docs"], capsysbinary)
    assert (code, out) == (2, b"")
    assert error_lines(err) == ["kubevirt-krm: error: internal error: RuntimeError: a bug over two lines "
                                "(set KUBEVIRT_KRM_DEBUG=1 for details)"]


def _exit_codes_in_the_code() -> set[int]:
    """Every exit status krm_fn/cli/ can end with: literal codes given to die, SystemExit, os._exit and
    returned by main, plus 128 + the signals it handles."""
    source = "\n".join(p.read_text() for p in sorted((REPO / "krm_fn" / "cli").glob("*.py")))
    codes = {int(c) for c in re.findall(r"\bdie\([^\n]*, (\d+)\)\s*$", source, re.M)}
    codes |= {int(c) for c in re.findall(r"(?:os\._exit|SystemExit)\((\d+)\)", source)}
    codes |= {int(c) for c in re.findall(r"^\s+return (\d+)\s*$", source, re.M)}
    codes |= {1}  # die's default, and exit_code() of error results
    if "signal.signal(signal.SIGTERM, terminate)" in source:
        codes.add(128 + signal.SIGTERM)
    return codes


def test_every_exit_code_is_documented_in_help_and_readme() -> None:
    codes = _exit_codes_in_the_code()
    assert {0, 1, 2, 130, 141, 143} <= codes, codes
    help_section = USAGE.split("Exit status:")[1].split("Environment:")[0]
    # the README's reference lives in docs/reference.md (issue 38, point 7); the README links to the section
    assert "(docs/reference.md#exit-codes-and-errors)" in (REPO / "README.md").read_text()
    reference = (REPO / "docs" / "reference.md").read_text()
    reference_section = reference.split("\n## Exit codes and errors\n\n")[1].split("\n\n")[0]
    for code in codes:
        assert re.search(rf"(?<!\d){code}(?!\d)", help_section), f"exit {code} missing from --help"
        assert re.search(rf"(?<!\d){code}(?!\d)", reference_section), f"exit {code} missing from docs/reference.md"


def test_the_help_lists_every_cluster_setting_without_an_ellipsis() -> None:
    config_reference = USAGE.split("functionConfig")[1].split("Exit status:")[0]
    assert "..." not in config_reference and "…" not in config_reference
    cluster = config_reference.split("spec.cluster:")[1].split("  A ConfigMap")[0]
    for f in dataclasses.fields(ClusterConfig):
        if f.metadata.get(SETTING, True):  # not the fields read from a KubeVirt item only
            assert f"{camel(f.name)}:" in cluster, f.name
    for arch in MACHINE_TYPES:
        assert arch in cluster
    for strategy in ("None", "LiveMigrate", "LiveMigrateIfPossible", "External"):
        assert strategy in cluster


def test_several_catalog_problems_are_one_line_each(tmp_path: Path,
                                                    capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    catalog = tmp_path / "mine.yaml"
    catalog.write_text("name: mine\nsizes: {}\nseries: {}\nfoo: 1\nbar: 2\n")
    code, out, err = run(["catalog", "docs", "--path", str(catalog)], capsysbinary)
    lines = error_lines(err)
    assert (code, out) == (1, b"")
    assert len(lines) == 2 and "foo: unknown key 'foo'" in lines[0] and "bar: unknown key 'bar'" in lines[1], err


@pytest.mark.parametrize("command", [["catalog", "docs"], ["catalog", "diff"]], ids=" ".join)
def test_an_unknown_builtin_on_the_command_line_names_the_option(
        command: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, err = run([*command, "--builtin", "typo", *([str(QUICKSTART / "vms.yaml")] if "diff" in command
                                                             else [])], capsysbinary)
    assert code == (2 if "diff" in command else 1) and out == b""
    assert error_lines(err) == ["kubevirt-krm: error: --builtin: unknown builtin catalog 'typo' "
                                "(available: classic, common-instancetypes)"]


def _config_errors(config_text: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> list[str]:
    config = tmp_path / "config.yaml"
    config.write_text(config_text)
    code, out, err = run([str(config), str(QUICKSTART / "vms.yaml")], capsysbinary)
    assert (code, out) == (1, b"")
    return error_lines(err)


def test_a_renderer_catalog_typo_is_reported_at_its_path_with_every_other_problem(
        tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    lines = _config_errors(RENDERER + "  mode: bad\n  catalog: {builtin: typo}\n  cluster: {architecture: z80}\n"
                                      "  revisions: {scope: everywhere}\n", tmp_path, capsysbinary)
    assert len(lines) == 4, lines
    assert any("spec.catalog.builtin: unknown builtin catalog 'typo'" in line for line in lines), lines
    assert any(" spec.mode: must be one of" in line for line in lines), lines
    assert any(" spec.cluster.architecture: must be one of" in line for line in lines), lines
    assert any(" spec.revisions.scope: must be one of" in line for line in lines), lines
    assert not any(" spec.builtin" in line for line in lines), lines


def test_builtin_and_path_together_are_reported_with_the_other_problems(
        tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    lines = _config_errors(RENDERER + "  mode: bad\n  catalog: {builtin: classic, path: mine.yaml}\n",
                           tmp_path, capsysbinary)
    assert len(lines) == 2, lines
    assert " spec.mode: must be one of" in lines[0]
    assert lines[1].endswith(" spec.catalog: set either builtin or path, not both"), lines


def test_a_generator_without_a_catalog_is_a_config_problem(tmp_path: Path,
                                                          capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    lines = _config_errors(RENDERER.replace("VirtualMachineRenderer", "InstancetypeCatalog")
                           + "  builtin: none\n  scope: Nowhere\n", tmp_path, capsysbinary)
    assert len(lines) == 2, lines
    assert any(" spec.scope: must be one of" in line for line in lines), lines
    assert any(" spec.builtin: none is only for a VirtualMachineRenderer's spec.catalog" in line
               for line in lines), lines


def test_a_configmap_catalog_typo_is_reported_at_its_key(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n"
                      "  catalog.builtin: typo\n  mode: bad\n")
    proc = run_fn([str(config), str(QUICKSTART / "vms.yaml")])
    lines = proc.stderr.decode().splitlines()
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert len(lines) == 2 and "Traceback" not in proc.stderr.decode(), lines
    # each names the config file (issue 26, point 3)
    where = f"kubevirt-krm: error: ConfigMap settings (config file {config} line "  # and the key's line
    assert lines[0].startswith(where + "6) data.catalog.builtin: unknown builtin catalog 'typo'")
    assert lines[1].startswith(where + "7) data.mode: must be one of")


def test_the_changelog_leads_with_this_version() -> None:
    """Issue 38, point 3: the release a user installs is the first one the CHANGELOG tells."""
    import re

    from krm_fn import __version__
    from tests.builders import REPO

    first = re.search(r"(?m)^## (\S+)", (REPO / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert first is not None and first.group(1) == __version__


def test_the_function_metadata_names_this_version_and_its_examples() -> None:
    """Issue 38, point 3: kpt's function catalog keeps a function's version in metadata.yaml (its image tag), as
    kpt results have no place for it; the tag is the version --version prints."""
    import yaml

    from krm_fn import __version__
    from tests.builders import REPO

    metadata = yaml.safe_load((REPO / "metadata.yaml").read_text(encoding="utf-8"))
    assert metadata["image"] == f"kubevirt-krm:{__version__}"
    assert all((REPO / example / "README.md").is_file() for example in metadata["examplePackageURLs"])
    assert metadata["license"] in (REPO / "pyproject.toml").read_text(encoding="utf-8")
    proc = run_fn(["--version"])
    assert proc.returncode == 0 and __version__ in proc.stdout.decode()
