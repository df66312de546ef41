"""Byte-for-byte proof that a refactor changes no output.

    python tools/compare_outputs.py write /tmp/engine-before    # with the code before the change
    python tools/compare_outputs.py check /tmp/engine-before    # with the code after: exit 1 on any difference

Renders, and writes one file per case (output bytes, then stderr and the exit code for the command runs):

* the benchmark fleet (``bench/synth.py``, 10k VMs by default) through the command (``python -m krm_fn``,
  KRM mode on stdin, two processes as users run it) in the revisions, expand and validate modes, and in the
  standalone mode (``python -m krm_fn CONFIG FILE``: the stream core, two processes) in revisions mode;
* every golden example (``examples/<name>/`` with ``.expected/output.yaml``) in-process as
  ``tests/test_examples.py`` runs it, with its own functionConfig and, for a ``VirtualMachineRenderer``, once
  more in each other mode.
"""

from __future__ import annotations

import argparse
import copy
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from run import RENDERER, STANDALONE_RENDERER  # noqa: E402
from synth import manifests, resource_list  # noqa: E402

from krm_fn.process import Options, process  # noqa: E402
from tests.kpt_source import fn_config, source  # noqa: E402

MODES = ("revisions", "expand", "validate", "migrate")
FLEET_MODES = ("revisions", "expand", "validate")


def _command(name: str, args: list[str], data: bytes | None = None) -> tuple[str, bytes]:
    proc = subprocess.run([sys.executable, "-m", "krm_fn", *args], input=data, capture_output=True, check=False,
                          cwd=REPO)
    return name, proc.stdout + b"\n--- stderr\n" + proc.stderr + f"\n--- exit {proc.returncode}\n".encode()


def fleet_cases(vms: int) -> Iterator[tuple[str, bytes]]:
    for mode in FLEET_MODES:
        data = resource_list(vms, function_config=RENDERER.format(mode=mode)).encode()
        yield _command(f"fleet-{vms}-{mode}.yaml", [], data)
    with tempfile.TemporaryDirectory() as tmp:
        config, stream = Path(tmp) / "renderer.yaml", Path(tmp) / "vms.yaml"
        config.write_text(STANDALONE_RENDERER.format(mode="revisions"))
        stream.write_text(manifests(vms))
        yield _command(f"fleet-{vms}-standalone-revisions.yaml", [str(config), str(stream)])


def example_cases() -> Iterator[tuple[str, bytes]]:
    for expected in sorted((REPO / "examples").glob("*/.expected/output.yaml")):
        pkg = expected.parent.parent
        config = fn_config(pkg)
        configs = {"own": config}
        if isinstance(config, dict) and config.get("kind") == "VirtualMachineRenderer":
            own_mode = (config.get("spec") or {}).get("mode", "revisions")
            for mode in MODES:
                if mode != own_mode:
                    other = copy.deepcopy(config)
                    other.setdefault("spec", {})["mode"] = mode
                    configs[mode] = other
        for label, cfg in configs.items():
            out = process(source(pkg, cfg).encode(), Options(base_dir=pkg))
            yield f"example-{pkg.name}-{label}.yaml", out.data + f"\n--- exit {out.exit_code}\n".encode()


def cases(vms: int) -> Iterator[tuple[str, bytes]]:
    yield from example_cases()
    yield from fleet_cases(vms)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("write", "check"))
    ap.add_argument("directory", type=Path)
    ap.add_argument("--vms", type=int, default=10_000)
    args = ap.parse_args()
    directory: Path = args.directory
    if args.action == "write":
        directory.mkdir(parents=True, exist_ok=True)
    differ, seen = [], 0
    for name, data in cases(args.vms):
        seen += 1
        target = directory / name
        if args.action == "write":
            target.write_bytes(data)
        elif not target.exists() or target.read_bytes() != data:
            differ.append(name)
            target.with_suffix(".after").write_bytes(data)
    if args.action == "check":
        expected = {p.name for p in directory.glob("*.yaml")}
        print(f"{seen} cases, {len(expected)} recorded, {len(differ)} differ")
        for name in differ:
            print(f"  differs: {name} (new output in {name[:-5]}.after)")
        return 1 if differ or seen != len(expected) else 0
    print(f"{seen} cases written to {directory}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
