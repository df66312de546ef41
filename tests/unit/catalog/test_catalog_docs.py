"""``render_docs`` and the generated ``catalog/README.md``."""

from __future__ import annotations

from pathlib import Path

from krm_fn.catalog.docs import render as render_docs

from krm_fn.catalog.generate import load_catalog_file

from krm_fn.catalog.spec import CatalogSpec, Selection
from krm_fn.catalog.docs import readme_path, render_readme
REPO = Path(__file__).resolve().parents[3]


def test_committed_readme_is_up_to_date() -> None:
    committed = (REPO / "catalog" / "README.md").read_text(encoding="utf-8")
    assert committed == render_readme(), "regenerate with: python3 -m krm_fn.catalog.docs --write"
    assert readme_path().resolve() == (REPO / "catalog" / "README.md").resolve()


def test_series_tables_and_preferences() -> None:
    text = render_docs(CatalogSpec(version="main"))
    assert text.startswith("# Catalog `common-instancetypes`\n")
    assert "\nVersion `main`.\n" in text
    assert "65 instancetypes in 7 series, 57 preferences" in text
    assert "#### `cx1`: Compute Exclusive" not in text and "### `cx1`: Compute Exclusive" in text
    assert "| `cx1.medium1gi` | 1 | 2Gi | maxSockets 1; hugepages 1Gi |" in text
    assert "Traits: dedicated CPUs; isolated emulator thread; NUMA passthrough; ioThreadsPolicy auto." in text
    assert ("| `rhel.9.dpdk` | Red Hat Enterprise Linux 9 DPDK (amd64) | linux | amd64 | 8 vCPU, 1.5Gi "
            "| upstream, linux, rhel, iothread, rhel9, secureboot, amd64, dpdk |") in text


def test_selection_applies() -> None:
    text = render_docs(CatalogSpec(builtin="classic", include=Selection(series=("g",), preferences=("linux.*",))))
    assert "3 instancetypes in 1 series, 3 preferences" in text
    assert "`m.xsmall`" not in text and "`windows.windows10`" not in text
    assert "| `gpuDeviceName` | `nvidia.com/TU104GL_Tesla_T4` |" in text


def test_file_catalog(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("description: Mine.\nsizes: {s: {cpu: 1, memory: 1Gi}}\nseries: {a: {sizes: [s]}}\n")
    text = render_docs(load_catalog_file(path))
    assert text.splitlines()[:3] == ["# Catalog `mine`", "", "Mine."]
    assert "| `a.s` | 1 | 1Gi |" in text


def test_versions() -> None:
    text = render_docs(CatalogSpec())  # the default: what the default KubeVirt release deploys
    assert "\nVersion `v1.7.0` (label `v1.7.0`).\n" in text
    assert "65 instancetypes in 7 series, 54 preferences" in text and "`fedora.s390x.secex`" not in text
    assert "| `windows.10` | Microsoft Windows 10 | windows |  | 1 vCPU, 2Gi | upstream, windows, secureboot |" in text
    assert ("| `v1.7.0` | `v1.7.0` | v1.9, v1.10 | the upstream release virt-operator embeds and deploys "
            "cluster-wide | preferences[\"fedora.s390x.secex\"]: removed; preferences[\"rhel.9.s390x.secex\"]: "
            "removed; preferences[\"rhel.10.s390x.secex\"]: removed; preferences[\"windows.10\"]: changed |") in text
    assert "Version `" not in render_docs(CatalogSpec(builtin="classic"))  # no versions: no version line
