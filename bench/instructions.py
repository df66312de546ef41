"""Instructions per VM of a render mode, counted by valgrind's callgrind: a measure a noisy machine does not move.

    python bench/instructions.py [--vms 300] [--mode revisions] [ROOT ...]

Each ROOT is a checkout (default: this one). The fleet is ``bench/synth.py``'s. The count is taken twice, after
one warm-up render and after three more, and the difference divided by the VMs rendered: start-up and imports
cancel out. Prints one line per ROOT, and each one's ratio to the first.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
import synth
from krm_fn.process import Options, process
config = "functionConfig:\\n  apiVersion: kubevirt-krm.dev/v1alpha1\\n  kind: VirtualMachineRenderer\\n" \\
    "  metadata: {name: r}\\n  spec: {mode: %s}\\n" % sys.argv[4]
text = synth.resource_list(int(sys.argv[3]), function_config=config).encode()
for _ in range(1 + int(sys.argv[5])):
    process(text, Options())
"""


def collected(root: Path, vms: int, mode: str, renders: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", sys.executable,
                               "-c", CHILD, str(root), str(Path(__file__).parent), str(vms), mode, str(renders)],
                              capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", proc.stderr).group(1))  # type: ignore[union-attr]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("roots", nargs="*", type=Path, default=[Path(__file__).resolve().parent.parent])
    ap.add_argument("--vms", type=int, default=300)
    ap.add_argument("--mode", default="revisions")
    args = ap.parse_args()
    first = None
    for root in args.roots:
        per_vm = (collected(root, args.vms, args.mode, 3) - collected(root, args.vms, args.mode, 0)) / (3 * args.vms)
        first = first or per_vm
        print(f"{args.mode} {root}: {per_vm / 1e6:.3f}M instructions per VM, {per_vm / first:.3f}x the first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
