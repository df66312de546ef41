"""End-to-end benchmark: kubevirt-krm against YAML floors measured in the same run.

    python bench/run.py                       # 1k, 10k and 50k VMs, median of 3
    python bench/run.py --sizes 1000,10000 --repeat 3

For each size a synthetic ResourceList (bench/synth.py: common-instancetypes names, dataVolumeTemplates,
cloud-init blocks, some inferFromVolume) is written to a temp dir, then every measurement runs in its own
subprocess (so peak RSS is per measurement):

* floors: load + dump of the same list with PyYAML's C loader/dumper and with yaml-rs (Rust), in-process
  time (no interpreter start-up: the floor is the library alone);
* kubevirt-krm, end to end (``kubevirt-krm < list > /dev/null``, start-up included): an empty list, catalog
  generation, I/O only (no VMs changed), validate, revisions, expand;
* the standalone mode (Argo CD CMP) on the same objects as a plain manifest file (``bench/synth.py
  manifests``): ``kubevirt-krm renderer.yaml vms.yaml > /dev/null``, revisions, next to KRM mode's row
  (target: within 10% of it at 10k VMs);
* both again with the leaves as flow maps (``instancetype: {name: u1.medium}``, as PyYAML writes them by default:
  ``bench/synth.py flow_leaves``), KRM and standalone revisions (target: the standalone mode no slower than the
  KRM mode on any layout, issue 22);
* up to 10k VMs: expand for older releases (``kubevirtVersion: v1.8`` and ``v1.5``, each with its catalog), run
  right after the default release's expand in every round (v1.8, issue 24: within 10% of it; v1.5 is
  reported with no target, issue 35), and ``kubevirt-krm
  upgrade-report --from v1.8 --to v1.9`` on the plain manifest file (two expand renders and their comparison;
  issue 27: within 2.5x one expand render), and ``kubevirt-krm resources --output json`` on it (every launcher
  pod and the namespaces' sums; issue 37: within 1.3x validate);
* ``kubevirt-krm check`` of the standalone revisions render against its own output, committed (issue 38:
  within 1.2x the render).

The rows of one size run in rounds (each round runs every row once), so a host whose speed drifts slows a
round's floor and rows alike. The table shows the median wall time, the median over rounds of the ratio to
the fastest floor in the same round, peak RSS (summed over a process tree) and its ratio to the fastest
floor's, and the scaling factors 10k/1k and 50k/10k. Targets (issue 7) are checked at the end.
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
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lastrun import Tee, write_keeping_block  # noqa: E402
from synth import flow_leaves, manifests, resource_list  # noqa: E402

RENDERER = """\
functionConfig:
  apiVersion: kubevirt-krm.dev/v1alpha1
  kind: VirtualMachineRenderer
  metadata:
    name: bench
  spec:
    mode: {mode}
"""
CATALOG = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
functionConfig:
  apiVersion: kubevirt-krm.dev/v1alpha1
  kind: InstancetypeCatalog
  metadata:
    name: bench
  spec:
    builtin: common-instancetypes
"""
# the standalone mode's config file: the same renderer as a plain document
STANDALONE_RENDERER = "\n".join(line[2:] for line in RENDERER.splitlines()[1:]) + "\n"
STANDALONE_MODES = ("revisions",)
# older releases' expand rows (issue 24): v1.8, the release before the default, and v1.5, the slowest (its older
# bundle makes the writer splice more of the expansions into the source text)
OLDER = ("v1.8", "v1.5")
OLDER_ROWS = {version: f"kubevirt-krm expand, kubevirtVersion {version}" for version in OLDER}
UPGRADE_ROW = "kubevirt-krm upgrade-report v1.8 -> v1.9"
RESOURCES_ROW = "kubevirt-krm resources --output json"
CHECK_ROW = "kubevirt-krm check, up to date"
UPGRADE_MAX = 10000  # the rows above up to this size (the report holds two renders of the fleet)
FLOW = "flow-map leaves"  # the layout of bench/synth.py flow_leaves
EMPTY = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"

FLOOR_CODE = {
    "PyYAML C": (
        "import yaml,time,sys\n"
        "t=time.perf_counter(); text=open(sys.argv[1]).read()\n"
        "d=yaml.load(text, Loader=yaml.CSafeLoader)\n"
        "out=yaml.dump(d, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False)\n"
        "print(time.perf_counter()-t)\n"
    ),
    "yaml-rs": (
        "import yaml_rs,time,sys\n"
        "t=time.perf_counter(); text=open(sys.argv[1]).read()\n"
        "d=yaml_rs.loads(text, parse_datetime=False)\n"
        "out=yaml_rs.dumps(d)\n"
        "print(time.perf_counter()-t)\n"
    ),
}
FLOOR_MODULE = {"PyYAML C": "yaml", "yaml-rs": "yaml_rs"}
# Not a floor (the floors are the libraries as anyone calls them), printed so the table hides nothing: the same
# yaml-rs load+dump with Python's cyclic GC off, which is how the kubevirt-krm command runs (cli.py).
GC_OFF_ROW = "yaml-rs load+dump, GC off (not a floor)"
GC_OFF_CODE = "import gc; gc.disable()\n" + FLOOR_CODE["yaml-rs"]
# kubevirt-krm's own I/O layer on the same list, in-process like the floors (issue 2's 1.2x target), with the
# cyclic GC off as the command runs it: "emit all" writes every item through the emitter; "pass-through" is
# what a no-op run does.
IO_CODE = {
    "kubevirt-krm I/O: load + emit all": (
        "import gc,time,sys\ngc.disable()\n"
        "from krm_fn.io.resourcelist import parse_resource_list\nfrom krm_fn.io.emitter import Emitter\n"
        "t=time.perf_counter(); text=open(sys.argv[1]).read()\nrl=parse_resource_list(text)\n"
        "e=Emitter(); e.document({'apiVersion': 'config.kubernetes.io/v1', 'kind': 'ResourceList', 'items': rl.items}); out=e.text()\n"
        "print(time.perf_counter()-t)\n"
    ),
    "kubevirt-krm I/O: load + pass-through": (
        "import gc,time,sys\ngc.disable()\n"
        "from krm_fn.io.resourcelist import parse_resource_list, dump_resource_list\n"
        "t=time.perf_counter(); text=open(sys.argv[1]).read()\nrl=parse_resource_list(text)\n"
        "out=dump_resource_list(rl, rl.items, [])\nprint(time.perf_counter()-t)\n"
    ),
}


@dataclass
class Row:
    """One measurement: every run's seconds and peak RSS (MB); rounds interleave the rows of a size."""

    name: str
    vms: int
    argv: list[str]
    stdin: Path | None
    seconds: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def peak(self) -> float:
        return max(self.rss_mb)


def run_once(row: Row) -> None:
    """Run the row's command once in a fresh grandchild (for its own RSS) and record it."""
    with open(row.stdin or os.devnull, "rb") as fin:
        probe = subprocess.run([sys.executable, __file__, "--child", "--", *row.argv], stdin=fin,
                               capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        raise RuntimeError(f"{' '.join(row.argv[:3])}: {probe.stderr[-800:]}")
    seconds, peak = probe.stdout.split()
    row.seconds.append(float(seconds))
    row.rss_mb.append(float(peak))


def measure_rounds(rows: list[Row], repeat: int) -> None:
    """``repeat`` rounds, each running every row once: a machine whose speed drifts (a shared host) then
    slows the floor and the rows near it alike, and each round gives a ratio of its own (see report)."""
    for _ in range(repeat):
        for row in rows:
            run_once(row)


def child(argv: list[str]) -> None:
    """Run argv with our stdin; print its time (printed by a floor snippet, else wall) and peak RSS: the
    largest sum over the process and its descendants (kubevirt-krm renders long lists on two processes),
    sampled every 5 ms, and never less than the kernel's peak for the largest single process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=sys.stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak_kb = 0
    reader = threading.Thread(target=lambda: setattr(proc, "captured", proc.communicate()), daemon=True)
    reader.start()
    while reader.is_alive():
        peak_kb = max(peak_kb, _tree_rss_kb(proc.pid))
        reader.join(0.005)
    wall = time.perf_counter() - start
    out, err = proc.captured  # type: ignore[attr-defined]
    if proc.returncode not in (0, 1):
        sys.stderr.write(err.decode()[-800:])
        raise SystemExit(2)
    seconds = wall
    if argv[:2] == [sys.executable, "-c"]:
        seconds = float(out.decode().split()[-1])
    largest_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"{seconds:.4f} {max(peak_kb, largest_kb) / 1024:.1f}")


def _tree_rss_kb(pid: int) -> int:
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                total += next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def main() -> int:
    if "--child" in sys.argv:
        child(sys.argv[sys.argv.index("--") + 1:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pyyaml-max", type=int, default=10000, help="skip the slow PyYAML floor above this size")
    ap.add_argument("--write", action="store_true",
                    help="save the report to bench/last-run.txt, keeping its pipelines block (bench/pipelines.py)")
    args = ap.parse_args()
    tee = sys.stdout = Tee() if args.write else sys.stdout
    sizes = [int(s) for s in args.sizes.split(",")]
    fn = [_script()]
    floors = [name for name, mod in FLOOR_MODULE.items() if _importable(mod)]
    print(f"# kubevirt-krm benchmark — {time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; floors: {', '.join(floors)}; median of {args.repeat}")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "empty.yaml").write_text(EMPTY)
        (base / "catalog.yaml").write_text(CATALOG)
        fixed = [Row("startup (empty list)", 0, fn, base / "empty.yaml"),
                 Row("catalog generation (244 objects)", 0, fn, base / "catalog.yaml")]
        measure_rounds(fixed, args.repeat)
        rows += fixed
        for n in sizes:
            body = resource_list(n)
            plain = base / f"rl{n}.yaml"
            plain.write_text(body)
            size_mb = plain.stat().st_size / 1e6
            print(f"# {n} VMs: {size_mb:.1f} MB")
            sized: list[Row] = []
            for name in floors:
                if name == "PyYAML C" and n > args.pyyaml_max:
                    continue
                sized.append(Row(f"floor: {name} load+dump", n, [sys.executable, "-c", FLOOR_CODE[name], str(plain)], None))
            if "yaml-rs" in floors:
                sized.append(Row(GC_OFF_ROW, n, [sys.executable, "-c", GC_OFF_CODE, str(plain)], None))
            for name, code in IO_CODE.items():
                sized.append(Row(name, n, [sys.executable, "-c", code, str(plain)], None))
            for mode in ("validate", "revisions", "expand"):
                f = base / f"{mode}{n}.yaml"
                f.write_text(body + RENDERER.format(mode=mode))
                sized.append(Row(f"kubevirt-krm {mode}", n, fn, f))
            if n <= UPGRADE_MAX:  # right after the expand row they are compared with, in every round
                for version, name in OLDER_ROWS.items():
                    older = base / f"expand-{version}-{n}.yaml"
                    older.write_text(body + RENDERER.format(mode="expand") + f"    kubevirtVersion: {version}\n")
                    sized.append(Row(name, n, fn, older))
            stream = base / f"manifests{n}.yaml"
            stream.write_text(manifests(n))
            flow_stream = base / f"manifests-flow{n}.yaml"
            flow_stream.write_text(flow_leaves(manifests(n)))
            for mode in STANDALONE_MODES:
                config = base / f"standalone-{mode}.yaml"
                config.write_text(STANDALONE_RENDERER.format(mode=mode))
                sized.append(Row(f"kubevirt-krm standalone {mode}", n, [*fn, str(config), str(stream)], None))
                if mode == "revisions":  # the committed render, then its gate (issue 38: within 1.2x the render)
                    committed = base / f"rendered{n}.yaml"
                    subprocess.run([*fn, str(config), str(stream), "--output", str(committed)], check=True)
                    sized.append(Row(CHECK_ROW, n, [*fn, "check", str(config), str(stream), "--output",
                                                    str(committed)], None))
                flow = base / f"{mode}-flow{n}.yaml"
                flow.write_text(flow_leaves(body + RENDERER.format(mode=mode)))
                sized.append(Row(f"kubevirt-krm {mode}, {FLOW}", n, fn, flow))
                sized.append(Row(f"kubevirt-krm standalone {mode}, {FLOW}", n, [*fn, str(config), str(flow_stream)],
                                 None))
            if n <= UPGRADE_MAX:
                expand_config = base / "standalone-expand.yaml"
                expand_config.write_text(STANDALONE_RENDERER.format(mode="expand"))
                sized.append(Row(UPGRADE_ROW, n, [*fn, "upgrade-report", "--from", "v1.8", "--to", "v1.9",
                                                  str(expand_config), str(stream)], None))
                sized.append(Row(RESOURCES_ROW, n, [*fn, "resources", "--output", "json", str(expand_config),
                                                    str(stream)], None))
            measure_rounds(sized, args.repeat)
            rows += sized
            print(f"# {n} done", flush=True)
    report(rows, sizes)
    if isinstance(tee, Tee):
        write_keeping_block(tee.kept.getvalue())
    return 0


def _script() -> str:
    """The console script next to this interpreter (a version manager's shim on PATH, such as pyenv's, adds
    ~0.1 s of its own to every run), else whatever PATH has."""
    beside = Path(sys.executable).with_name("kubevirt-krm")
    found = str(beside) if beside.exists() else shutil.which("kubevirt-krm")
    if found is None:
        raise SystemExit("kubevirt-krm is not installed: pip install -e .")
    return found


def _importable(module: str) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def report(rows: list[Row], sizes: list[int]) -> None:
    """The table: median seconds; × fastest floor is the median over rounds of (row / that floor in the same
    round); peak RSS is the largest over the runs."""
    floor: dict[int, Row] = {}
    for row in rows:
        if row.name.startswith("floor") and (row.vms not in floor or row.median < floor[row.vms].median):
            floor[row.vms] = row
    ratio = {id(row): statistics.median(t / f for t, f in zip(row.seconds, floor[row.vms].seconds))
             for row in rows if row.vms in floor}
    by = {(row.name, row.vms): row for row in rows}
    print()
    print("| measurement | VMs | seconds | × fastest floor | peak RSS MB | × floor RSS |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        r = f"{ratio[id(row)]:.2f}" if id(row) in ratio else ""
        mr = f"{row.peak / floor[row.vms].peak:.2f}" if row.vms in floor else ""
        print(f"| {row.name} | {row.vms or ''} | {row.median:.3f} | {r} | {row.peak:.0f} | {mr} |")
    print()
    names = sorted({row.name for row in rows if row.vms})
    for a, b, limit in ((1000, 10000, 11.0), (10000, 50000, 5.5)):
        if a in sizes and b in sizes:
            print(f"scaling {b // 1000}k/{a // 1000}k (target ≤ {limit}):")
            for name in names:
                if (name, a) in by and (name, b) in by:
                    print(f"  {name}: {by[(name, b)].median / by[(name, a)].median:.2f}")
    print()
    print("targets:")
    start = by.get(("startup (empty list)", 0))
    if start:
        print(f"  startup {start.median * 1000:.0f} ms (target ≤ 150 ms): {'ok' if start.median <= 0.150 else 'MISSED'}")
    for a, b, limit in ((1000, 10000, 11.0), (10000, 50000, 5.5)):
        for mode in ("validate", "revisions", "expand"):
            low, high = by.get((f"kubevirt-krm {mode}", a)), by.get((f"kubevirt-krm {mode}", b))
            if low is not None and high is not None:
                f = high.median / low.median
                print(f"  {mode} {b // 1000}k/{a // 1000}k: {f:.2f} (target ≤ {limit}): {'ok' if f <= limit else 'MISSED'}")
    for mode in STANDALONE_MODES:
        krm, alone = by.get((f"kubevirt-krm {mode}", 10000)), by.get((f"kubevirt-krm standalone {mode}", 10000))
        if krm is not None and alone is not None:
            rounds = statistics.median(a / k for a, k in zip(alone.seconds, krm.seconds))
            print(f"  standalone {mode} 10k: {rounds:.2f}× KRM mode (target ≤ 1.10): "
                  f"{'ok' if rounds <= 1.10 else 'MISSED'}")
        krm = by.get((f"kubevirt-krm {mode}, {FLOW}", 10000))
        alone = by.get((f"kubevirt-krm standalone {mode}, {FLOW}", 10000))
        if krm is not None and alone is not None:
            rounds = statistics.median(a / k for a, k in zip(alone.seconds, krm.seconds))
            print(f"  standalone {mode} 10k, {FLOW}: {rounds:.2f}× KRM mode, same layout (target ≤ 1.0, issue 22): "
                  f"{'ok' if rounds <= 1.0 else 'MISSED'}")
    targets: dict[str, tuple[float, str] | None] = {OLDER_ROWS["v1.8"]: (1.10, "issue 24"),
                                                    OLDER_ROWS["v1.5"]: None, UPGRADE_ROW: (2.5, "issue 27")}
    for name, goal in targets.items():
        older, expand = by.get((name, 10000)), by.get(("kubevirt-krm expand", 10000))
        if older is not None and expand is not None:
            rounds = statistics.median(a / e for a, e in zip(older.seconds, expand.seconds))
            verdict = "(no target)" if goal is None else \
                f"(target ≤ {goal[0]}, {goal[1]}): {'ok' if rounds <= goal[0] else 'MISSED'}"
            print(f"  {name.removeprefix('kubevirt-krm ')} 10k: {rounds:.2f}× expand for the default release "
                  f"{verdict}")
    gate, render = by.get((CHECK_ROW, 10000)), by.get(("kubevirt-krm standalone revisions", 10000))
    if gate is not None and render is not None:
        rounds = statistics.median(c / r for c, r in zip(gate.seconds, render.seconds))
        print(f"  check 10k: {rounds:.2f}× the render (target ≤ 1.2, issue 38): {'ok' if rounds <= 1.2 else 'MISSED'}")
    resources, validate = by.get((RESOURCES_ROW, 10000)), by.get(("kubevirt-krm validate", 10000))
    if resources is not None and validate is not None:
        rounds = statistics.median(r / v for r, v in zip(resources.seconds, validate.seconds))
        print(f"  resources 10k: {rounds:.2f}× validate (target ≤ 1.3, issue 37): {'ok' if rounds <= 1.3 else 'MISSED'}")
    if 10000 in floor:
        for mode, bar in (("revisions", 1.45), ("expand", 1.20)):  # issue 35
            row = by[(f"kubevirt-krm {mode}", 10000)]
            speed, memory = ratio[id(row)], row.peak / floor[10000].peak
            print(f"  {mode} 10k: {speed:.2f}× floor (target ≤ {bar}): {'ok' if speed <= bar else 'MISSED'}; "
                  f"memory {memory:.2f}× (target ≤ 1.5): {'ok' if memory <= 1.5 else 'MISSED'}")


if __name__ == "__main__":
    raise SystemExit(main())
