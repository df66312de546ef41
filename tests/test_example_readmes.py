"""Example READMEs (issue 16, point 6): every example directory has one, and what they tell a new user to
read or run exists: no file outside the repository, no install from a package index that does not serve us."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO

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
