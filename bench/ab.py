"""Before/after timing of a refactor: the render rows of ``bench/run.py`` for two source trees, interleaved.

    git archive <base commit> | tar -x -C /tmp/before          # the tree to compare against
    python bench/ab.py /tmp/before                              # 10k VMs, 7 rounds
    python bench/ab.py /tmp/before --vms 1000 --rounds 11 --modes revisions,expand
    python bench/ab.py /tmp/before --flow-leaves --modes revisions   # leaves as flow maps (bench/synth.py)

Each round runs every mode once with each tree (``python -m krm_fn`` in the tree's directory, so that tree's
``krm_fn`` is imported; same interpreter, same input bytes, KRM mode on stdin), alternating which tree goes
first. The host's speed drifts (``bench/README.md``), so only rows measured in the same minutes compare:
the table gives each tree's median wall time and the median over rounds of after/before, for the wall time
and for the CPU time of the command and its children (less disturbed by other load on a shared host).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import RENDERER  # noqa: E402
from synth import flow_leaves, resource_list  # noqa: E402

AFTER = Path(__file__).resolve().parent.parent


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(tree: Path, data: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one run."""
    with open(data, "rb") as stdin:
        cpu = _children_cpu()
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "krm_fn"], cwd=tree, stdin=stdin, capture_output=True,
                              check=False)
        seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{tree}: exit {proc.returncode}: {proc.stderr.decode()[-800:]}")
    return seconds, _children_cpu() - cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path, help="the source tree to compare against (holds krm_fn/)")
    ap.add_argument("--after", type=Path, default=AFTER, help="default: this checkout")
    ap.add_argument("--vms", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--modes", default="validate,revisions,expand")
    ap.add_argument("--flow-leaves", action="store_true", help="mappings of scalars as flow maps (issue 22)")
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    modes = args.modes.split(",")
    times: dict[tuple[str, str], list[tuple[float, float]]] = {(m, t): [] for m in modes for t in trees}
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {}
        for mode in modes:
            inputs[mode] = Path(tmp) / f"{mode}.yaml"
            text = resource_list(args.vms, function_config=RENDERER.format(mode=mode))
            inputs[mode].write_text(flow_leaves(text) if args.flow_leaves else text)
        for r in range(args.rounds):
            order = list(trees) if r % 2 == 0 else list(reversed(trees))
            for mode in modes:
                for name in order:
                    times[(mode, name)].append(run_once(trees[name], inputs[mode]))
    layout = ", flow-map leaves" if args.flow_leaves else ""
    print(f"# {args.vms} VMs{layout}, {args.rounds} rounds; before: {trees['before']}, after: {trees['after']}")
    print("| mode | before s | after s | after/before wall | before CPU s | after CPU s | after/before CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode in modes:
        before, after = times[(mode, "before")], times[(mode, "after")]
        cells = []
        for i in (0, 1):
            ratio = statistics.median(a[i] / b[i] for a, b in zip(after, before))
            cells += [f"{statistics.median(b[i] for b in before):.3f}", f"{statistics.median(a[i] for a in after):.3f}",
                      f"{ratio:.3f}"]
        print(f"| {mode} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
