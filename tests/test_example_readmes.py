"""Example READMEs (issue 16, point 6): every example directory has one, and what they tell a new user to
read or run exists: no file outside the repository, no install from a package index that does not serve us.
What they tell a user to run leaves the checkout as it was (issue 26, point 6), and the sample output that
revisions-validate shows is the real one."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.builders import REPO, run_fn
from tests.integration_support import tool_env

EXAMPLE_DIRS = sorted(p for p in (REPO / "examples").iterdir() if p.is_dir() and not p.name.startswith("."))
# the examples' READMEs are for users; the top README also points developers at the spec checkout next to it
READMES = [d / "README.md" for d in EXAMPLE_DIRS if (d / "README.md").is_file()]

_LINK = re.compile(r"\]\(([^)\s]+)\)")                            # [text](target)
_MD_PATH = re.compile(r"(?<![\w/.:-])((?:\.{1,2}/|[\w.-]+/)*[\w.-]+\.md)\b")  # docs/x.md, ../../README.md
_ABSOLUTE = re.compile(r"(?<![\w.~$-])/(?:work|home|root|Users)/")
# installing the package by name: no index serves kubevirt-krm, only this repository does (pip install .)
_PIP_BY_NAME = re.compile(r"pip3? install(?:\s+-\S+)*\s+['\"]?kubevirt-krm\b")


def test_the_examples_are_found() -> None:
    assert len(EXAMPLE_DIRS) >= 20 and (REPO / "examples" / "quickstart") in EXAMPLE_DIRS


@pytest.mark.parametrize("example", EXAMPLE_DIRS, ids=[d.name for d in EXAMPLE_DIRS])
def test_every_example_has_a_readme_with_a_title(example: Path) -> None:
    readme = example / "README.md"
    assert readme.is_file(), f"{example.relative_to(REPO)} has no README.md"
    assert readme.read_text(encoding="utf-8").startswith("# "), f"{readme.relative_to(REPO)}: no title"


def _inside_repository(target: Path) -> bool:
    return target.resolve().is_relative_to(REPO.resolve()) and target.exists()


def references(text: str) -> list[str]:
    """Relative links and mentioned ``.md`` files (URLs and in-page anchors left out)."""
    found = [t.split("#")[0] for t in _LINK.findall(text) if "://" not in t and not t.startswith(("#", "mailto:"))]
    return [t for t in found if t] + [m for m in _MD_PATH.findall(text) if "://" not in m]


@pytest.mark.parametrize("readme", READMES, ids=[str(r.relative_to(REPO)) for r in READMES])
def test_a_readme_names_only_files_of_the_repository(readme: Path) -> None:
    text = readme.read_text(encoding="utf-8")
    for ref in references(text):
        assert _inside_repository(readme.parent / ref) or _inside_repository(REPO / ref), \
            f"{readme.relative_to(REPO)} refers to {ref}, which is not a file of this repository"
    assert not _ABSOLUTE.search(text), f"{readme.relative_to(REPO)} names an absolute path of some machine"


@pytest.mark.parametrize("readme", [REPO / "README.md", *READMES], ids=lambda r: str(r.relative_to(REPO)))
def test_a_readme_installs_from_the_repository(readme: Path) -> None:
    match = _PIP_BY_NAME.search(readme.read_text(encoding="utf-8"))
    assert match is None, f"{readme.relative_to(REPO)}: {match.group(0)!r} (no package index serves it; pip install .)"


@pytest.mark.parametrize(("text", "found"), [
    ("Gotchas (from shared/docs/krm-integration.md §2.2):", ["shared/docs/krm-integration.md"]),
    ("see [docs/revisions.md](../../docs/revisions.md#scope)", ["../../docs/revisions.md", "docs/revisions.md",
                                                               "../../docs/revisions.md"]),
    ("[kubevirt](https://github.com/kubevirt/x.md) and [top](#what)", []),
])
def test_references_are_found(text: str, found: list[str]) -> None:
    assert references(text) == found


@pytest.mark.parametrize(("text", "by_name"), [
    ("pip install kubevirt-krm", True), ("pip install -q kubevirt-krm==0.1", True), ("pip3 install 'kubevirt-krm'", True),
    ("pip install .", False), ("pip install -e '.[test]'", False), ("pip install ./kubevirt-krm-checkout", False),
])
def test_an_install_by_name_is_recognised(text: str, by_name: bool) -> None:
    assert (_PIP_BY_NAME.search(text) is not None) == by_name


# --- what a README tells a user to run leaves the checkout clean (issue 26, point 6) ----------------------------
_SHELL_BLOCK = re.compile(r"^```(?:bash|sh)\n(.*?)^```", re.S | re.M)
# not run here: installs (the tests run this checkout's code), image builds and pushes, a live cluster
_NOT_RUN = re.compile(r"(pip3?|podman|docker) |kubectl -n ")


def shell_commands(text: str) -> list[str]:
    """The command lines of a Markdown text's ``bash``/``sh`` blocks, but for those :data:`_NOT_RUN`."""
    return [line for block in _SHELL_BLOCK.findall(text) for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#") and not _NOT_RUN.match(line.lstrip())]


COMMANDS = {r: shell_commands(r.read_text(encoding="utf-8")) for r in READMES}


def _repository_copy(target: Path) -> Path:
    """A git repository holding this checkout's files as they are now (tracked and new, not ignored)."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted in the working tree
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name, follow_symlinks=False)
    return target


def _git(copy: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", "-C", str(copy), *args], capture_output=True, check=True, env=env).stdout.decode()


@pytest.mark.parametrize("readme", [r for r in READMES if COMMANDS[r]], ids=lambda r: str(r.relative_to(REPO)))
def test_a_readmes_commands_leave_the_checkout_clean(readme: Path, tmp_path: Path) -> None:
    """Every command of the README, from the root of a copy of the repository (tools that are not installed
    just fail), then ``git status``: nothing modified, nothing new."""
    copy = _repository_copy(tmp_path / "repo")
    env = tool_env(tmp_path, {"HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp")})
    (tmp_path / "tmp").mkdir()
    _git(copy, env, "init", "-q")
    _git(copy, env, "add", "-A")
    _git(copy, env, "commit", "-q", "-m", "checkout")
    proc = subprocess.run(["bash", "-c", "\n".join(COMMANDS[readme])], cwd=copy, env=env, capture_output=True,
                          timeout=600)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()[-2000:]
    assert _git(copy, env, "status", "--porcelain") == "", (
        f"{readme.relative_to(REPO)}'s commands changed the checkout:\n{_git(copy, env, 'status', '--porcelain')}")


def test_commands_are_found() -> None:
    text = "x\n```bash\npip install .\n# a comment\nkpt fn render a \\\n  --b\n\n```\n```yaml\nkind: X\n```\n"
    assert shell_commands(text) == ["kpt fn render a \\", "  --b"]
    assert COMMANDS[REPO / "examples" / "quickstart" / "README.md"] == [
        "kubevirt-krm examples/quickstart/fn-config.yaml examples/quickstart/vms.yaml"]


def test_the_validate_examples_sample_lines_are_its_output() -> None:
    """examples/revisions-validate/README.md shows the command and what it prints: the lines are the real ones."""
    text = (REPO / "examples" / "revisions-validate" / "README.md").read_text(encoding="utf-8")
    sample = re.search(r"```console\n\$ kubevirt-krm (.*?)\n(.*?)```", text, re.S)
    assert sample is not None
    proc = run_fn(sample.group(1).split(), cwd=REPO)
    assert proc.returncode == 1 and proc.stderr.decode() == sample.group(2)


def test_the_readmes_quick_start_shows_what_it_prints(tmp_path: Path) -> None:
    """README's quick start: the excerpt of the first command's output is the real output's lines in order
    (``...`` leaves some out), and the misspelled instancetype prints the line shown next, under "What a mistake
    looks like" (issue 26, point 8; issue 38, point 7)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Quick start\n")
    quick = text[start:text.index("\n## ", start + 1)]
    mistake = text[text.index("\n## ", start + 1):]
    assert mistake.startswith("\n## What a mistake looks like\n")
    mistake = mistake[:mistake.index("\n## ", 1)]
    command = re.search(r"&& kubevirt-krm (examples/\S+ examples/\S+)\n", quick)
    excerpt = re.search(r"```yaml\n(.*?)```", quick, re.S)
    error = re.search(r"```\n(kubevirt-krm: error: .*?\n)```", mistake, re.S)
    assert "u1.meduim" in mistake and "the same command" in mistake
    assert command is not None and excerpt is not None and error is not None
    proc = run_fn(command.group(1).split(), cwd=REPO)
    assert proc.returncode == 0 and proc.stderr == b""
    output = iter(proc.stdout.decode().splitlines())
    for line in excerpt.group(1).splitlines():
        if line.strip() != "...":
            assert line in output, f"{line!r} is not in the output (in this order)"
    # misspelled in the checkout's own file, and run again with the same command (here in a copy of the example)
    copy = tmp_path / "examples" / "quickstart"
    shutil.copytree(REPO / "examples" / "quickstart", copy)
    vms = (copy / "vms.yaml").read_text()
    (copy / "vms.yaml").write_text(vms.replace("name: u1.medium ", "name: u1.meduim ", 1))
    typo = run_fn(command.group(1).split(), cwd=tmp_path)
    assert (typo.returncode, typo.stdout, typo.stderr.decode()) == (1, b"", error.group(1))


# --- what README.md and docs/ point at exists; no heading twice (issue 26, after the merges) ----------------------
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "catalog" / "README.md",
        REPO / "bench" / "README.md", *READMES]
_HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$", re.M)
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def headings(text: str) -> list[str]:
    """The Markdown headings of a text, code blocks left out."""
    return [m.group(2) for m in _HEADING.finditer(_FENCE.sub("", text))]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but ``-`` dropped, spaces as ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(REPO)))
def test_every_relative_link_points_to_a_file_and_heading_that_exist(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for target in _LINK.findall(_FENCE.sub("", text)):
        if "://" in target or target.startswith("mailto:"):
            continue
        path, _, fragment = target.partition("#")
        linked = (doc.parent / path) if path else doc
        assert linked.exists(), f"{doc.relative_to(REPO)} links to {target}: no such file"
        if fragment and linked.suffix == ".md":
            known = [anchor(h) for h in headings(linked.read_text(encoding="utf-8"))]
            assert fragment in known, f"{doc.relative_to(REPO)} links to {target}: no such heading"


def sections(text: str) -> list[tuple[str, ...]]:
    """Each heading with the headings it is under (``("Catalog classic", "Preferences")``)."""
    found: list[tuple[str, ...]] = []
    under: list[tuple[int, str]] = []
    for m in _HEADING.finditer(_FENCE.sub("", text)):
        level = len(m.group(1))
        under = [(lv, h) for lv, h in under if lv < level] + [(level, m.group(2))]
        found.append(tuple(h for _, h in under))
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(REPO)))
def test_no_two_sections_share_a_heading(doc: Path) -> None:
    """Two sections with one heading under the same parent: the same topic told twice (README after merges)."""
    seen = sections(doc.read_text(encoding="utf-8"))
    twice = sorted({h for h in seen if seen.count(h) > 1})
    assert not twice, f"{doc.relative_to(REPO)}: headings used twice: {twice}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(REPO)))
def test_sample_error_lines_speak_in_the_programs_voice(doc: Path) -> None:
    """A sample stderr line is what the program prints: ``kubevirt-krm: error: …``, never a bare ``error: …``."""
    bare = [line for block in _FENCE.findall(doc.read_text(encoding="utf-8")) for line in block.splitlines()
            if re.match(r"(error|warning): ", line)]
    assert not bare, f"{doc.relative_to(REPO)}: {bare}"


def test_headings_and_anchors_are_found() -> None:
    text = "# T\n```bash\n# not a heading\n```\n## Configuration (functionConfig)\n### `kubevirtVersion` a/b\n"
    assert headings(text) == ["T", "Configuration (functionConfig)", "`kubevirtVersion` a/b"]
    assert [anchor(h) for h in headings(text)] == ["t", "configuration-functionconfig", "kubevirtversion-ab"]
    nested = "# T\n## A\n### X\n## B\n### X\n## A\n"
    assert sections(nested) == [("T",), ("T", "A"), ("T", "A", "X"), ("T", "B"), ("T", "B", "X"), ("T", "A")]
