"""Catalog generation vs ``kubectl kustomize`` of the upstream tree, measured in one run (target: >= 20x faster).

    python bench/catalog_vs_kustomize.py [--repeat 5] [--write]

* kubevirt-krm: the whole command, start-up included: ``kubevirt-krm CONFIG.yaml`` generating the builtin
  common-instancetypes at version ``main`` (upstream 7c1e305b, both scopes: 244 objects) as a plain stream.
  The checkout's modules are byte-compiled first, as ``pip install`` does (with PYTHONDONTWRITEBYTECODE=1 an
  editable install would otherwise compile every module on every run).
* kubectl kustomize of the upstream kustomize tree at 7c1e305b (``$KUBEVIRT_KRM_SHARED``, default ``../shared``,
  ``reference/common-instancetypes-src``): what upstream runs to build the same objects.
* kubectl kustomize of upstream's four built bundles as plain resources: kustomize's floor on this output (no
  patches, no components), for scale.

The three run in interleaved rounds; each figure is the median of the wall-clock time and, because a shared
machine's load stretches wall-clock time, of the CPU time (user + system) each command used. The run also
checks that kustomize's output and ours are the same objects, object for object, ignoring only the kpt/kustomize
bookkeeping annotations (``internal.config.kubernetes.io/*``, ``config.kubernetes.io/*``; tests/
test_catalog_vs_kustomize.py runs that check too), and compares the source lines (our compact catalog vs the
upstream tree). ``--write`` saves the report to bench/last-catalog-run.txt. Without kubectl or the shared tree
the benchmark is skipped with a message (exit 0).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
OURS = REPO / "catalog" / "common-instancetypes.yaml"
CONFIG = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: bench\n"
          "spec:\n  builtin: common-instancetypes\n  version: main\n")


def shared_dir() -> Path:
    return Path(os.environ.get("KUBEVIRT_KRM_SHARED") or REPO.parent / "shared")


def upstream_tree() -> Path:
    return shared_dir() / "reference" / "common-instancetypes-src"


def upstream_bundles() -> Path:
    return shared_dir() / "reference" / "common-instancetypes"


def missing() -> str | None:
    """Why the benchmark cannot run here, or ``None``."""
    if shutil.which("kubectl") is None:
        return "kubectl is not installed"
    for path in (upstream_tree(), upstream_bundles()):
        if not path.is_dir():
            return f"{path} not found (set KUBEVIRT_KRM_SHARED to the shared directory)"
    return None


def fn_command() -> list[str]:
    exe = shutil.which("kubevirt-krm")
    return [exe] if exe else [sys.executable, "-m", "krm_fn"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str]) -> tuple[str, float, float]:
    """The command's stdout, wall-clock seconds and CPU seconds (it and its children)."""
    cpu, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False, timeout=600)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr[-500:]}")
    return proc.stdout, elapsed, cpu


def ours_command(workdir: Path) -> list[str]:
    config = workdir / "catalog.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    return [*fn_command(), str(config)]


def kustomize_command(directory: Path) -> list[str]:
    return [shutil.which("kubectl") or "kubectl", "kustomize", str(directory)]


def bundles_kustomization(workdir: Path) -> Path:
    """A kustomization whose resources are upstream's four built bundles (copied: kustomize wants them below)."""
    target = workdir / "bundles"
    target.mkdir()
    files = sorted(p.name for p in upstream_bundles().glob("*.yaml"))
    for name in files:
        shutil.copy(upstream_bundles() / name, target / name)
    (target / "kustomization.yaml").write_text("resources:\n" + "".join(f"- {n}\n" for n in files))
    return target


def without_bookkeeping(obj: Any) -> Any:
    """``obj`` without the kpt/kustomize annotations that say where an item goes (not object content)."""
    annotations = obj.get("metadata", {}).get("annotations")
    if isinstance(annotations, dict):
        kept = {k: v for k, v in annotations.items()
                if not k.startswith(("internal.config.kubernetes.io/", "config.kubernetes.io/"))}
        if kept:
            obj["metadata"]["annotations"] = kept
        else:
            del obj["metadata"]["annotations"]
    return obj


def objects(stream: str) -> dict[tuple[str, str], Any]:
    out: dict[tuple[str, str], Any] = {}
    for doc in map(without_bookkeeping, filter(None, yaml.safe_load_all(stream))):
        if doc:
            key = (doc["kind"], doc["metadata"]["name"])
            if key in out:
                raise ValueError(f"{key[0]} {key[1]} appears twice")
            out[key] = doc
    return out


def compare_outputs(ours: str, theirs: str) -> list[str]:
    """Every object that is not in both streams or differs (with its first differing fields); [] when equal."""
    from krm_fn.catalog.diff import differences

    mine, upstream = objects(ours), objects(theirs)
    problems = [f"{k} {n}: only in kustomize's output" for k, n in sorted(upstream.keys() - mine.keys())]
    problems += [f"{k} {n}: only in ours" for k, n in sorted(mine.keys() - upstream.keys())]
    for key in sorted(upstream.keys() & mine.keys()):
        if upstream[key] != mine[key]:
            fields = list(differences(upstream[key], mine[key]))[:3]
            problems.append(f"{key[0]} {key[1]}: " + "; ".join(fields))
    return problems


def source_lines() -> tuple[int, int, int, int]:
    """(our catalog lines, upstream files, upstream YAML files, upstream YAML lines)."""
    ours = len(OURS.read_text(encoding="utf-8").splitlines())
    files = [p for p in upstream_tree().rglob("*") if p.is_file()]
    yamls = [p for p in files if p.suffix in (".yaml", ".yml")]
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in yamls)
    return ours, len(files), len(yamls), lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--write", action="store_true", help="save the report to bench/last-catalog-run.txt")
    args = ap.parse_args()
    why = missing()
    if why is not None:
        print(f"catalog_vs_kustomize: skipped: {why}", file=sys.stderr)
        return 0
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "krm_fn")], check=True)
    times: dict[str, list[float]] = {"ours": [], "tree": [], "bundles": []}
    cpus: dict[str, list[float]] = {"ours": [], "tree": [], "bundles": []}
    with tempfile.TemporaryDirectory() as tmp:
        commands = {"ours": ours_command(Path(tmp)), "tree": kustomize_command(upstream_tree()),
                    "bundles": kustomize_command(bundles_kustomization(Path(tmp)))}
        outputs: dict[str, str] = {}
        for _ in range(args.repeat):
            for name, argv in commands.items():
                outputs[name], seconds, cpu = run(argv)
                times[name].append(seconds)
                cpus[name].append(cpu)
    problems = compare_outputs(outputs["ours"], outputs["tree"])
    median = {name: statistics.median(t) for name, t in times.items()}
    median_cpu = {name: statistics.median(t) for name, t in cpus.items()}
    ratio = median["tree"] / median["ours"]
    cpu_ratio = median_cpu["tree"] / median_cpu["ours"]
    load = os.getloadavg()[0]
    ours_lines, files, yaml_files, yaml_lines = source_lines()
    report = [
        f"# {time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, median of {args.repeat} interleaved rounds, load average {load:.1f} at the end",
        "seconds: wall clock, and CPU (user + system) in brackets",
        f"kubevirt-krm generation of common-instancetypes main ({len(objects(outputs['ours']))} objects, end to end): "
        f"{median['ours']:.3f} s [{median_cpu['ours']:.3f} s]",
        f"kubectl kustomize of the upstream tree at 7c1e305b: {median['tree']:.3f} s [{median_cpu['tree']:.3f} s]",
        f"kubectl kustomize of the four built bundles as plain resources (floor): {median['bundles']:.3f} s "
        f"[{median_cpu['bundles']:.3f} s]",
        f"ratio (upstream tree / kubevirt-krm): {ratio:.1f}x wall clock, {cpu_ratio:.1f}x CPU "
        f"(target >= 20x: {'met' if ratio >= 20 else 'NOT met'} on wall clock)",
        f"outputs: {'identical, object for object' if not problems else f'{len(problems)} objects differ'}",
        *[f"  {p}" for p in problems[:20]],
        f"source: ours {ours_lines} lines in 1 file (both versions); upstream tree {files} files, {yaml_files} YAML "
        f"files, {yaml_lines} lines of YAML ({yaml_lines / ours_lines:.1f}x)",
    ]
    text = "\n".join(report) + "\n"
    sys.stdout.write(text)
    if args.write:
        (REPO / "bench" / "last-catalog-run.txt").write_text(text, encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
