"""A newcomer's first hour (issue 26): what the command line says to someone who makes the usual mistakes.

Each test runs the console script as a user would, on the quickstart's files with one mistake in them; every
stderr line starts ``kubevirt-krm: error:`` or ``kubevirt-krm: warning:`` (one voice, point 4)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from tests.builders import REPO, line_with, run_fn


QUICKSTART = REPO / "examples" / "quickstart"
CONFIG = str(QUICKSTART / "fn-config.yaml")
VMS = (QUICKSTART / "vms.yaml").read_text()
NOT_FOUND = 'virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u1.meduim" not found'


def lines(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    out = proc.stderr.decode().splitlines()
    assert all(line.startswith(("kubevirt-krm: error: ", "kubevirt-krm: warning: ")) for line in out), out
    assert "Traceback" not in proc.stderr.decode()
    return out


def quickstart_with(tmp_path: Path, old: str, new: str) -> Path:
    assert old in VMS
    path = tmp_path / "vms.yaml"
    path.write_text(VMS.replace(old, new, 1))
    return path


# --- 1. the root cause leads, one line per mistake ---------------------------------------------------------------
def test_a_misspelled_instancetype_is_one_line_naming_it_with_its_did_you_mean(tmp_path: Path) -> None:
    # fedora-dev's preference requires 2Gi: KubeVirt refuses the VM for that first, as u1.meduim is not found
    vms = quickstart_with(tmp_path, "name: u1.medium ", "name: u1.meduim ")
    proc = run_fn([CONFIG, str(vms)])
    assert proc.returncode == 1 and proc.stdout == b""
    at = line_with(vms.read_text(), "  instancetype:")  # the line of the result's field
    assert lines(proc) == [f'kubevirt-krm: error: VirtualMachine fedora-dev ({vms} line {at}) spec.instancetype: '
                           f'{NOT_FOUND}: did you mean one of "u1.medium", "u1.2xmedium", "d1.medium"?']


def test_the_consequence_is_in_the_tags_of_its_cause(tmp_path: Path) -> None:
    """Issue 38: kpt prints every result of a ResourceList, so KubeVirt's verdict that follows from the cause is
    not a result of its own beside it; it is the cause's follow-on tag, in KubeVirt's words."""
    import yaml

    vms = quickstart_with(tmp_path, "name: u1.medium ", "name: u1.meduim ")
    proc = run_fn([], _resource_list([CONFIG, str(vms)]))
    results = [r for r in yaml.safe_load(proc.stdout)["results"] if r["severity"] == "error"]
    assert [r["tags"]["stage"] for r in results] == ["find"]
    assert results[0]["message"].startswith(NOT_FOUND + ": did you mean")
    # KubeVirt's own words, unchanged, with their stage
    assert results[0]["tags"]["follow-on"].endswith("insufficient Memory resources of 0 provided by "
                                                    "VirtualMachine, preference requires 2Gi")
    assert results[0]["tags"]["follow-on-stage"] == "admit"
    # KRM mode's stderr: one line, the cause
    assert lines(proc) == [f"kubevirt-krm: error: VirtualMachine fedora-dev spec.instancetype: {NOT_FOUND}: did "
                           'you mean one of "u1.medium", "u1.2xmedium", "d1.medium"?']


def test_a_misspelled_preference_is_one_line(tmp_path: Path) -> None:
    vms = quickstart_with(tmp_path, "name: fedora\n", "name: fedroa\n")
    out = lines(run_fn([CONFIG, str(vms)]))
    at = line_with(vms.read_text(), "  preference:")
    assert out == [f"kubevirt-krm: error: VirtualMachine fedora-dev ({vms} line {at}) spec.preference: "
                   'virtualmachineclusterpreferences.instancetype.kubevirt.io "fedroa" not found: did you mean '
                   '"fedora"?']


def test_a_namespaced_kind_that_is_only_the_cluster_kind_is_one_line(tmp_path: Path) -> None:
    vms = quickstart_with(tmp_path, "name: u1.medium ", "kind: VirtualMachineInstancetype\n    name: u1.medium ")
    out = lines(run_fn([CONFIG, str(vms)]))
    assert len(out) == 1 and out[0].endswith(
        '"u1.medium" exists as a VirtualMachineClusterInstancetype: set spec.instancetype.kind to '
        "VirtualMachineClusterInstancetype (or leave it out)"), out


# --- 2. no silence where a word is expected ----------------------------------------------------------------------
def test_a_misspelled_kubevirt_kind_is_a_warning_with_did_you_mean(tmp_path: Path) -> None:
    vms = quickstart_with(tmp_path, "kind: VirtualMachine\n", "kind: VirtualMachin\n")
    proc = run_fn([CONFIG, str(vms)])
    assert proc.returncode == 0 and b"kind: VirtualMachin\n" in proc.stdout  # passed through, exit code kept
    at = line_with(vms.read_text(), "kind: VirtualMachin")
    assert lines(proc) == [
        f"kubevirt-krm: warning: VirtualMachin fedora-dev ({vms} line {at}) kind: unknown kind 'VirtualMachin' in "
        "KubeVirt's API group kubevirt.io, passed through unchanged (a cluster refuses it: no matches for kind): "
        'did you mean one of "VirtualMachine", "VirtualMachineInstance", "VirtualMachineInstancePreset"?']


def test_a_kind_of_another_kubevirt_group_names_the_group(tmp_path: Path) -> None:
    (tmp_path / "pool.yaml").write_text("apiVersion: kubevirt.io/v1\nkind: VirtualMachinePool\nmetadata:\n"
                                        "  name: pool\n")
    out = lines(run_fn([CONFIG, str(tmp_path / "pool.yaml")]))
    assert len(out) == 1 and out[0].endswith("VirtualMachinePool is served by pool.kubevirt.io: set apiVersion to "
                                             "that group"), out


@pytest.mark.parametrize("files", [[], ["notes.txt", "vms.json"]], ids=["empty", "no-yaml"])
def test_a_directory_without_yaml_is_an_error_unless_allowed(tmp_path: Path, files: list[str]) -> None:
    """Issue 38, point 4: a run that checked nothing does not pass (a generator's run says --allow-empty)."""
    for name in files:
        (tmp_path / name).write_text("{}\n")
    warning = (f"kubevirt-krm: warning: {tmp_path}: no .yaml or .yml file in this directory (hidden ones left out): "
               "nothing read from it")
    proc = run_fn([CONFIG, str(tmp_path)])
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert lines(proc) == [warning, f"kubevirt-krm: error: {tmp_path}: no manifest in the inputs, so nothing was "
                                    "rendered or checked (--allow-empty allows it)"]
    proc = run_fn([CONFIG, str(tmp_path), "--allow-empty"])
    assert (proc.returncode, proc.stdout, lines(proc)) == (0, b"", [warning])


def test_a_file_without_a_manifest_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("# nothing yet\n")
    proc = run_fn([CONFIG, str(QUICKSTART / "vms.yaml"), str(tmp_path / "empty.yaml")])
    assert proc.returncode == 0 and proc.stdout.count(b"kind: VirtualMachine\n") == 3
    assert lines(proc) == [f"kubevirt-krm: warning: {tmp_path / 'empty.yaml'}: holds no manifest: nothing read "
                           "from it"]


# --- 3. where exactly --------------------------------------------------------------------------------------------
def test_a_config_error_names_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "render.yaml"
    config.write_text((QUICKSTART / "fn-config.yaml").read_text().replace("  mode: revisions", "  mdoe: revisions"))
    out = lines(run_fn([str(config), str(QUICKSTART / "vms.yaml")]))
    at = line_with(config.read_text(), "  mdoe:")
    assert out == [f"kubevirt-krm: error: VirtualMachineRenderer quickstart (config file {config} line {at}) spec.mdoe: "
                   "unknown field (known: capacity, catalog, cluster, kubevirtVersion, migrate, mode, revisions, stored, templateParameters, validateOutput)"]


@pytest.mark.parametrize("vms", [VMS, VMS.split("---\n")[0]], ids=["three-vms", "one-vm"])
def test_swapped_arguments_say_the_first_is_the_config_file(tmp_path: Path, vms: str) -> None:
    (tmp_path / "vms.yaml").write_text(vms)
    out = lines(run_fn([str(tmp_path / "vms.yaml"), CONFIG]))
    assert len(out) == 1 and out[0].endswith(
        "; the first argument is the config file (kubevirt-krm CONFIG.yaml [FILE|DIR|-]...)"), out


@pytest.mark.parametrize(("old", "new", "said"), [
    ("  name: fedora-dev\n", "\tname: fedora-dev\n", "found character that cannot start any token at line 6, "
     "column 1 (a tab in the indentation: YAML indents with spaces)"),
    ("  labels:\n", "\tlabels:\n", "found a tab character that violates indentation at line 7, column 1"),
], ids=["first-key", "next-key"])
def test_a_tab_in_the_indentation_says_tab(tmp_path: Path, old: str, new: str, said: str) -> None:
    vms = quickstart_with(tmp_path, old, new)
    assert lines(run_fn([CONFIG, str(vms)])) == [f"kubevirt-krm: error: {vms}: malformed YAML: {said}"]


# --- 5. a subcommand does not depend on the current directory ----------------------------------------------------
def test_catalog_subcommands_in_a_directory_holding_catalog(tmp_path: Path) -> None:
    (tmp_path / "catalog").mkdir()
    helped = run_fn(["catalog", "--help"], cwd=tmp_path)
    assert helped.returncode == 0 and helped.stdout.startswith(b"usage: kubevirt-krm catalog docs")
    bare = run_fn(["catalog"], cwd=tmp_path)
    assert bare.returncode == 2 and lines(bare) == [
        "kubevirt-krm: error: a catalog command is missing: use catalog docs or catalog diff (see kubevirt-krm "
        "catalog --help)"]


# --- 7. catalog docs takes NAME@VERSION, as catalog diff does ----------------------------------------------------
def test_catalog_docs_of_a_version() -> None:
    older = run_fn(["catalog", "docs", "--builtin", "common-instancetypes@v1.3.1"])
    default = run_fn(["catalog", "docs", "--builtin", "common-instancetypes"])
    assert older.returncode == default.returncode == 0
    assert b"| `d1." in default.stdout and b"| `d1." not in older.stdout  # v1.3.1 has no d1 series
    unknown = run_fn(["catalog", "docs", "--builtin", "common-instancetypes@v9"])
    assert unknown.returncode == 1 and "has no version 'v9'" in lines(unknown)[0]


def _resource_list(args: list[str]) -> bytes:
    """The ResourceList kpt would hand over for ``kubevirt-krm CONFIG FILE``: its items, its functionConfig."""
    import yaml

    config = yaml.safe_load(Path(args[0]).read_text())
    items = [d for d in yaml.safe_load_all(Path(args[1]).read_text()) if d]
    return yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items,
                           "functionConfig": config}, sort_keys=False).encode()


# --- 8. README: the user's path, then Development; the reference in docs/reference.md (issue 38, point 7) --------
README = (REPO / "README.md").read_text(encoding="utf-8")
REFERENCE = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
_FENCED = re.compile(r"^```.*?^```", re.S | re.M)
# the user's path: what it does (the text above the first section), then these, then the how-tos
PATH = ["Install", "Quick start", "What a mistake looks like"]
TOP = [line[3:] for line in _FENCED.sub("", README).splitlines() if line.startswith("## ")]
HOW_TOS = TOP[len(PATH):TOP.index("CI")]
REFERENCE_TOP = re.findall(r"^#{2,3} (.+)$", _FENCED.sub("", REFERENCE), re.M)
# what moved to docs/reference.md: a heading there, none in README
MOVED = ["Generating and pre-rendering", "How it is invoked", "Configuration (functionConfig)", "What is rendered",
         "Builtin catalog versions and the target KubeVirt version", "Exit codes and errors",
         "Which route for which fleet size", "YAML fidelity", "Reliability"]
# a duration: "2.5 minutes", "10–15 minutes", "4.2 s"
_DURATION = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?:[–-]\d+(?:\.\d+)?)?\s?(?:minutes?|mins?|seconds?|s|hours?)\b")


def _words(text: str) -> int:
    return len(text.split())


def test_the_readme_is_at_most_2500_words() -> None:
    assert _words(README) <= 2500, _words(README)


def test_readme_is_the_users_path_then_ci_then_development() -> None:
    assert TOP[:len(PATH)] == PATH and TOP[-2:] == ["CI", "Development"], TOP
    intro = README[:README.index("\n## ")].split("\n\n")
    assert intro[0] == "# kubevirt-krm" and len(intro) == 2 and _words(intro[1]) <= 200, intro  # one paragraph
    # each everyday task is told once, as a how-to, between the user's first steps and CI
    for topic in ("Generating instancetypes", "older KubeVirt release", "Pools and templates",
                  "Objects that live in the cluster", "Planning an upgrade", "Planning capacity",
                  "Gating a pull request", "Integrations"):
        assert len([h for h in TOP if topic in h]) == 1 and any(topic in h for h in HOW_TOS), (topic, TOP)
    # each how-to is short, shows its command and links to where its detail lives
    for heading in HOW_TOS:
        section = _section(heading)
        assert _words(section) <= 400, (heading, _words(section))
        assert re.search(r"```(?:bash|console)\n|`(?:kubevirt-krm|kpt|kubectl) ", section), heading
        assert re.search(r"\]\((?:docs|examples|catalog)/", section), heading
    integrations = _section("Integrations")
    for route in ("**kpt.**", "**kustomize.**", "**Argo CD.**"):
        assert route in integrations, route


def test_the_reference_is_in_docs_reference_with_settings_release_table_and_exit_codes() -> None:
    for heading in MOVED:
        assert heading not in TOP and heading in REFERENCE_TOP, heading
    # the release table and the catalog versions' table, in the reference only
    for row in ("| `kubevirtVersion` (tag reproduced)", "| `spec.version` | upstream |"):
        assert row in REFERENCE and row not in README, row
    assert "\n## Exit codes and errors\n\n0 = success; 1 = " in REFERENCE
    # every setting --help names is in the reference's configuration
    from krm_fn.cli.usage import USAGE

    config = REFERENCE[REFERENCE.index("\n## Configuration (functionConfig)\n"):REFERENCE.index("\n### What is rendered")]
    settings = USAGE.split("functionConfig (")[1].split("  A ConfigMap")[0]
    names = set(re.findall(r"spec\.(\w+)", settings)) | set(re.findall(r"^ {6}(\w+):", settings, re.M))
    names |= {key for braces in re.findall(r"spec\.\w+: (\{[^}]*\})", settings) for key in re.findall(r"(\w+):", braces)}
    assert len(names) >= 30, sorted(names)
    missing = [name for name in sorted(names) if not re.search(rf"\b{name}\b", config)]
    assert not missing, missing
    # the README's how-tos link to the reference's sections
    assert "(docs/reference.md#builtin-catalog-versions-and-the-target-kubevirt-version)" in _section("Rendering for an older")
    assert "(docs/reference.md#exit-codes-and-errors)" in README


def piped_commands(markdown: str) -> list[str]:
    """The blocks of a Markdown text's shell recipes (``bash``, ``sh``, ``console``'s ``$`` lines) with a pipe at a
    command's level: a ``|`` outside quotes and comments, not ``||``; continued lines joined."""
    found = []
    for lang, block in re.findall(r"^```(bash|sh|console)\n(.*?)^```", markdown, re.S | re.M):
        text = block.replace("\\\n", " ")
        if lang == "console":
            text = "\n".join(line[2:] for line in text.splitlines() if line.startswith("$ "))
        for line in text.splitlines():
            bare = re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "''", line)
            bare = re.sub(r"(^|\s)#.*", "", bare)
            if re.search(r"(?<!\|)\|(?!\|)", bare):
                found.append(block)
                break
    return found


@pytest.mark.parametrize(("block", "piped"), [
    ("```bash\nkubectl get x -o yaml \\\n  | kubevirt-krm c.yaml -\n```\n", True),
    ("```console\n$ a | b\nout | put\n```\n", True),
    ("```console\n$ a\nout | put\n```\n", False),
    ("```bash\na || b\nc 'x|y' \"p|q\" # r | s\n```\n", False),
    ("```yaml\na: |\n  b\n```\n", False),
])
def test_piped_commands_are_found(block: str, piped: bool) -> None:
    assert bool(piped_commands(block)) == piped


@pytest.mark.parametrize("doc", ["README.md", "docs/reference.md"])
def test_every_piped_recipe_fails_when_its_first_command_fails(doc: str) -> None:
    """A failed ``kubectl get`` must not hand an empty input on and exit 0 (issue 38, point 7)."""
    blocks = piped_commands((REPO / doc).read_text(encoding="utf-8"))
    assert blocks, f"{doc}: no piped recipe found (the check would check nothing)"
    for block in blocks:
        assert re.search(r"^set -(?:euo|o) pipefail$", block, re.M), f"{doc}: no set -o pipefail in\n{block}"


def test_the_test_time_is_told_under_development_not_in_the_quick_start() -> None:
    development = _section("Development")
    assert "pytest -q -n auto" in development and re.search(r"\d\s?minutes", development), development
    before = README[:README.index("\n## Development\n")]
    assert not _DURATION.findall(before), _DURATION.findall(before)
    assert not re.search(r"pytest|minutes", _section("Quick start"))


def test_ci_runs_the_readmes_test_command() -> None:
    command = re.search(r"&& (pytest -q -n auto)\n", _section("Development"))
    assert command is not None
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(rf"^tests\(\) {{ {re.escape(command.group(1))} ", ci, re.M), "the README's test command is not .ci/run's"


def _section(start: str) -> str:
    begin = README.index("\n## " + start)
    end = README.find("\n## ", begin + 1)
    return README[begin:end if end != -1 else len(README)]


def _how_to_commands() -> list[str]:
    """The ``kubevirt-krm`` lines of the how-to sections' ``bash`` blocks."""
    blocks = [block for heading in HOW_TOS for block in re.findall(r"```bash\n(.*?)```", _section(heading), re.S)]
    return [line for block in blocks for line in block.splitlines() if line.startswith("kubevirt-krm ")]


def test_readmes_how_to_commands_are_found() -> None:
    assert len(_how_to_commands()) >= 4


@pytest.mark.parametrize("command", _how_to_commands())
def test_a_how_to_command_of_the_readme_renders(command: str) -> None:
    """Run from the repository root, as the quick start's command is: exit 0, something rendered, no word but
    the count of info results (issue 38: shown with -v)."""
    proc = run_fn(command.split()[1:], cwd=REPO)
    said = proc.stderr.decode()
    assert proc.returncode == 0 and b"kind: " in proc.stdout
    assert said == "" or re.fullmatch(r"kubevirt-krm: \d+ info results? \(-v shows them\)\n", said), said


def test_the_readmes_older_release_config_renders_for_that_release(tmp_path: Path) -> None:
    """The how-to's config snippet, with the quickstart's VMs: v1.8's preference revision differs from v1.9's."""
    snippet = re.search(r"```yaml\n(.*?)```", _section("Rendering for an older"), re.S)
    assert snippet is not None
    (tmp_path / "render.yaml").write_text(snippet.group(1))
    older = run_fn([str(tmp_path / "render.yaml"), str(QUICKSTART / "vms.yaml")])
    latest = run_fn([CONFIG, str(QUICKSTART / "vms.yaml")])
    assert older.returncode == latest.returncode == 0 and older.stderr == b""
    assert b"revisionName: fedora-dev-fedora-v1beta1-7ebda14f12be7b05-1" in latest.stdout
    assert b"revisionName: fedora-dev-fedora-v1beta1-" in older.stdout
    assert b"fedora-dev-fedora-v1beta1-7ebda14f12be7b05-1" not in older.stdout


def test_info_results_are_counted_in_one_line_and_shown_with_v() -> None:
    """Issue 38, point 4: an info result reaches a person in the stream modes (the template VM not checked)."""
    args = ["examples/virt-template/fn-config.yaml", "examples/virt-template/templates.yaml"]
    quiet, verbose = run_fn(args, cwd=REPO), run_fn([*args, "-v"], cwd=REPO)
    assert quiet.returncode == verbose.returncode == 0 and quiet.stdout == verbose.stdout
    assert quiet.stderr.decode() == "kubevirt-krm: 1 info result (-v shows them)\n"
    said = verbose.stderr.decode().splitlines()
    assert len(said) == 1 and said[0].startswith("kubevirt-krm: info: ") and "was not checked" in said[0]
