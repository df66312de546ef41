"""What verifying the output costs (krm_fn/io/verify.py): a render with and without the read-backs, same run.

    python bench/verify_cost.py                      # 10k VMs, revisions mode, two workers, 5 rounds
    python bench/verify_cost.py --vms 1000 --workers 1 --rounds 3

Each round renders the synthetic fleet (bench/synth.py) once with verification and once without, each in a
fresh process (``krm_fn.process.process`` in-process, the cyclic GC off as the command runs it; ``--workers``
is what ``KUBEVIRT_KRM_WORKERS`` sets for the command: 2 renders long lists on two processes). "Without" is
a switch of this script only: it replaces the read-backs (``ReadBacks.failures``, ``check_emitted``) and
the splice read-backs owed (``ReadBacks.owe``) by no-ops; the bookkeeping that feeds them (edited mappings
found while splicing, forms recorded by the emitter) stays. Wall and CPU time (this process and its
children) are medians over rounds; the ratios are medians of each round's ratio.

Also printed: what reading every written item back whole (the output through the yaml-rs lane, in one
process) would cost instead, measured in the same "with" runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import RENDERER  # noqa: E402
from synth import resource_list  # noqa: E402

CHILD = r'''
import gc, resource, sys, time
gc.disable()
from krm_fn.process import Options, process
if sys.argv[2] == "off":  # this benchmark's switch: no read-backs
    import krm_fn.io.resourcelist as rl
    import krm_fn.io.verify as verify
    import krm_fn.io.write as write
    verify.ReadBacks.failures = lambda self: set()
    verify.ReadBacks.owe = lambda self, *args: None
    rl.check_emitted = write.check_emitted = lambda owed: None

def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

data = open(sys.argv[1], "rb").read()
c, t = cpu(), time.perf_counter()
out = process(data, Options(workers=int(sys.argv[3])))
wall, used = time.perf_counter() - t, cpu() - c
assert out.exit_code == 0, out.results[:3]
whole = 0.0
if sys.argv[2] == "on":
    from krm_fn.io.fastload import load_resource_list
    text = out.data.decode()
    t = time.perf_counter()
    assert load_resource_list(text) is not None
    whole = time.perf_counter() - t
print(wall, used, whole, len(out.data))
'''


def measure(path: Path, mode: str, workers: int) -> tuple[float, float, float]:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, str(workers)], capture_output=True,
                          text=True, check=False)
    if proc.returncode:
        raise SystemExit(proc.stderr)
    wall, used, whole, _ = proc.stdout.split()
    return float(wall), float(used), float(whole)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vms", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    on: list[tuple[float, float, float]] = []
    off: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fleet.yaml"
        path.write_text(resource_list(args.vms) + RENDERER.format(mode="revisions"))
        for _ in range(args.rounds):  # alternate: a host whose speed drifts slows both alike
            on.append(measure(path, "on", args.workers))
            off.append(measure(path, "off", args.workers))

    def med(rows: list[tuple[float, float, float]], i: int) -> float:
        return statistics.median(r[i] for r in rows)

    def ratio(i: int) -> float:
        return statistics.median(a[i] / b[i] for a, b in zip(on, off, strict=True))

    print(f"# verification cost: {args.vms} VMs, revisions mode, workers={args.workers}, "
          f"median of {args.rounds} rounds")
    print("|  | wall s | CPU s |")
    print("|---|---:|---:|")
    print(f"| without read-backs | {med(off, 0):.2f} | {med(off, 1):.2f} |")
    print(f"| with read-backs | {med(on, 0):.2f} | {med(on, 1):.2f} |")
    print(f"| ratio (median of rounds) | {ratio(0):.3f} | {ratio(1):.3f} |")
    print(f"| reading the whole output back instead (one process) | {med(on, 2):.2f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
