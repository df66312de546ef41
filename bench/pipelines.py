"""Pipelines at fleet scale (issue 16): the routes that run the VM renderer over a fleet, measured in one run.

    python bench/pipelines.py                        # 1k, 2k, 4k VMs, median of 3 rounds
    python bench/pipelines.py --sizes 1000 --repeat 1 --timeout 300 --write

Every route renders the same synthetic fleet (bench/synth.py: VMs over the common-instancetypes names, some
inferring from a DataSource) in ``revisions`` mode, against the embedded catalog:

* floor: ``kubectl kustomize`` of the VMs with no function;
* ``kubectl kustomize --enable-alpha-plugins`` with kubevirt-krm as a legacy exec plugin (a transformer), per-vm
  and shared scope: kustomize's handling of a transformer's output grows quadratically with the number of
  resources, and per-vm revisions triple them;
* ``kubectl kustomize | kubevirt-krm CONFIG.yaml -`` (the renderer in standalone stream mode), per-vm and shared;
* floor: ``kpt fn render --allow-exec`` with a no-op exec function (``cat``);
* ``kpt fn render --allow-exec`` with kubevirt-krm as an exec mutator (per-vm, shared), and a re-render of the
  per-vm package (its revisions already in it, every VM pinned).

"our share" is the wall time of the kubevirt-krm process over the route's: measured by a shell wrapper around
the executable for the plugin and kpt (both hand it its whole input at once), and for the pipe, whose
kubevirt-krm waits on kustomize from the start, by running kubevirt-krm alone on the kustomize output in the same
round. Every route's output is checked to hold the rendered fleet (VMs and ControllerRevisions counted).
Rounds interleave the routes; a route that hits ``--timeout`` prints "> N s (stopped)" and is not run again at
that size. ``--write`` puts the section into bench/last-run.txt, in its delimited block (bench/lastrun.py).
Needs kubectl and kpt on PATH; without them the benchmark is skipped with a message (exit 0).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lastrun import host_line, write_block  # noqa: E402
from synth import resource_list  # noqa: E402

SCOPES = ("per-vm", "shared")
RENDERER = """\
apiVersion: kubevirt-krm.dev/v1alpha1
kind: VirtualMachineRenderer
metadata:
  name: fleet
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  mode: revisions
  revisions:
    scope: {scope}
"""
KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: fleet
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
  - name: fleet
    exec: {exec}
{config}"""
# The wrapper the plugin and kpt run instead of kubevirt-krm: the same argv, stdin, stdout and exit code, and
# the process's start and end (ns) appended to a log.
WRAPPER = """\
#!/bin/sh
s=$(date +%s%N)
{exe} "$@"
rc=$?
echo "$s $(date +%s%N)" >> {log}
exit $rc
"""
_INTERNAL = re.compile(r"^ *(annotations:|internal\.config\.kubernetes\.io/.*)\n", re.M)


@dataclass
class Route:
    """One route at one size: each round's wall seconds and our process's seconds."""

    name: str
    vms: int
    floor: str | None  # the floor row of the same size this route is compared with
    seconds: list[float] = field(default_factory=list)
    ours: list[float] = field(default_factory=list)
    objects: str = ""
    stopped: float | None = None


def fleet_documents(vms: int) -> list[str]:
    """The synthetic fleet as plain YAML documents (bench/synth.py's items without kpt's annotations)."""
    text = resource_list(vms).split("items:\n", 1)[1]
    chunks = re.split(r"^- ", text, flags=re.M)[1:]
    return [_INTERNAL.sub("", "\n".join(line[2:] for line in ("  " + c).splitlines())) + "\n" for c in chunks]


def file_name(doc: str) -> str:
    name = re.search(r"^  name: (\S+)$", doc, re.M)
    kind = re.search(r"^kind: (\S+)$", doc, re.M)
    assert name and kind
    return f"{kind.group(1).lower()}-{name.group(1)}.yaml"


def wrapper(directory: Path, exe: str, log: Path) -> Path:
    path = directory / "kubevirt-krm-timed"
    path.write_text(WRAPPER.format(exe=exe, log=log))
    path.chmod(0o755)
    return path


def build(base: Path, vms: int, exe: str, timed: Path) -> dict[str, Path]:
    """The directories of one size: kustomizations (plain, plugin per scope), kpt packages (no-op, per scope)."""
    docs = fleet_documents(vms)
    fleet = base / f"fleet{vms}"
    dirs: dict[str, Path] = {}
    plain = fleet / "plain"
    plain.mkdir(parents=True)
    (plain / "fleet.yaml").write_text("---\n".join(docs))
    (plain / "kustomization.yaml").write_text("resources:\n- fleet.yaml\n")
    dirs["plain"] = plain
    for scope in SCOPES:
        plugin = fleet / f"plugin-{scope}"
        plugin.mkdir()
        (plugin / "renderer.yaml").write_text(RENDERER.format(scope=scope))
        (plugin / "kustomization.yaml").write_text("resources:\n- ../plain\ntransformers:\n- renderer.yaml\n")
        dirs[f"plugin-{scope}"] = plugin
        (fleet / f"config-{scope}.yaml").write_text(RENDERER.format(scope=scope))
        dirs[f"config-{scope}"] = fleet / f"config-{scope}.yaml"
    for name, runner, config in (("noop", "/bin/cat", ""),
                                 *((f"kpt-{s}", str(timed), "    configPath: renderer.yaml\n") for s in SCOPES)):
        pkg = fleet / f"pkg-{name}"
        (pkg / "vms").mkdir(parents=True)
        for doc in docs:
            (pkg / "vms" / file_name(doc)).write_text(doc)
        (pkg / "Kptfile").write_text(KPTFILE.format(exec=runner, config=config))
        if config:
            (pkg / "renderer.yaml").write_text(RENDERER.format(scope=name.removeprefix("kpt-")))
        dirs[name] = pkg
    return dirs


def run(argv: list[str], timeout: float, env: dict[str, str] | None = None,
        stdout: Path | None = None) -> float | None:
    """Wall seconds of ``argv`` (output to ``stdout`` or discarded), or ``None`` when it hit the timeout (its
    process group is then killed: kustomize's plugin runs are its children)."""
    start = time.perf_counter()
    with open(stdout or os.devnull, "wb") as out:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                                env=env, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err.decode()[-800:]}")
    return elapsed


def counted(text: str) -> str:
    vms, revisions = text.count("\nkind: VirtualMachine\n"), text.count("\nkind: ControllerRevision\n")
    return f"{vms} VMs, {revisions} revisions"


def package_text(pkg: Path) -> str:
    return "\n".join("\n" + p.read_text() for p in sorted(pkg.rglob("*.yaml")))


def ours_since(log: Path, mark: int) -> float:
    """Seconds our wrapped processes ran since the log had ``mark`` lines."""
    lines = log.read_text().splitlines()[mark:] if log.exists() else []
    return sum((int(e) - int(s)) / 1e9 for s, e in (line.split() for line in lines))


def log_lines(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


class Bench:
    def __init__(self, base: Path, timeout: float) -> None:
        self.base, self.timeout = base, timeout
        self.kubectl, self.kpt = shutil.which("kubectl") or "kubectl", shutil.which("kpt") or "kpt"
        self.exe = fn_command()
        self.log = base / "ours.log"
        self.loads: list[float] = []  # the 1-minute load average after every run
        self.timed = wrapper(base, self.exe, self.log)
        self.plugins = base / "plugins"
        subprocess.run([self.exe, "install-plugin", str(self.plugins)], check=True, capture_output=True)
        kind_dir = self.plugins / "kubevirt-krm.dev" / "v1alpha1" / "virtualmachinerenderer"
        (kind_dir / "VirtualMachineRenderer").unlink()
        (kind_dir / "VirtualMachineRenderer").symlink_to(self.timed)

    def measure(self, route: Route, dirs: dict[str, Path]) -> None:
        if route.stopped is not None:
            return
        out = self.base / "out.yaml"
        mark = log_lines(self.log)
        ours: float | None = None
        kind, _, scope = route.name.partition(" ")
        if kind == "kustomize":
            seconds = run([self.kubectl, "kustomize", str(dirs["plain"])], self.timeout, stdout=out)
        elif kind == "plugin":
            env = {**os.environ, "KUSTOMIZE_PLUGIN_HOME": str(self.plugins)}
            seconds = run([self.kubectl, "kustomize", "--enable-alpha-plugins", str(dirs[f"plugin-{scope}"])],
                          self.timeout, env, stdout=out)
        elif kind == "pipe":
            script = f'"{self.kubectl}" kustomize "{dirs["plain"]}" | "{self.exe}" "{dirs[f"config-{scope}"]}" -'
            seconds = run(["sh", "-c", script], self.timeout, stdout=out)
            if seconds is not None:
                fleet = self.base / "fleet-kustomized.yaml"
                run([self.kubectl, "kustomize", str(dirs["plain"])], self.timeout, stdout=fleet)
                ours = run(["sh", "-c", f'"{self.exe}" "{dirs[f"config-{scope}"]}" - < "{fleet}"'], self.timeout)
        else:  # kpt: a fresh copy of the package; the re-render renders the per-vm route's rendered copy again
            name = "noop" if kind == "noop" else f"kpt-{scope.split()[0]}"
            pkg = self.base / f"run-{name}"
            if "rerender" not in scope or not pkg.exists():
                shutil.rmtree(pkg, ignore_errors=True)
                shutil.copytree(dirs[name], pkg)
                if "rerender" in scope:
                    run([self.kpt, "fn", "render", str(pkg), "--allow-exec"], self.timeout)
                    mark = log_lines(self.log)
            seconds = run([self.kpt, "fn", "render", str(pkg), "--allow-exec"], self.timeout)
            if seconds is not None:
                out.write_text(package_text(pkg))
        self.loads.append(os.getloadavg()[0])
        if seconds is None:
            route.stopped = self.timeout
            return
        route.seconds.append(seconds)
        if kind in ("plugin", "kpt"):
            ours = ours_since(self.log, mark)
        if ours is not None:
            route.ours.append(ours)
        route.objects = counted("\n" + out.read_text())


def fn_command() -> str:
    beside = Path(sys.executable).with_name("kubevirt-krm")
    found = str(beside) if beside.exists() else shutil.which("kubevirt-krm")
    if found is None:
        raise SystemExit("kubevirt-krm is not installed: pip install -e .")
    return found


def routes_for(vms: int) -> list[Route]:
    rows = [Route("kustomize (no function)", vms, None)]
    rows += [Route(f"plugin {s}", vms, "kustomize (no function)") for s in SCOPES]
    rows += [Route(f"pipe {s}", vms, "kustomize (no function)") for s in SCOPES]
    rows += [Route("noop (kpt, no-op exec)", vms, None)]
    rows += [Route(f"kpt {s}", vms, "noop (kpt, no-op exec)") for s in SCOPES]
    rows += [Route("kpt per-vm rerender", vms, "noop (kpt, no-op exec)")]
    return rows


LABELS = {
    "kustomize (no function)": "floor: `kubectl kustomize`, no function",
    "plugin per-vm": "`kubectl kustomize`, legacy exec plugin, per-vm",
    "plugin shared": "`kubectl kustomize`, legacy exec plugin, shared",
    "pipe per-vm": "`kubectl kustomize \\| kubevirt-krm CONFIG -`, per-vm",
    "pipe shared": "`kubectl kustomize \\| kubevirt-krm CONFIG -`, shared",
    "noop (kpt, no-op exec)": "floor: `kpt fn render`, no-op exec (`cat`)",
    "kpt per-vm": "`kpt fn render`, exec function, per-vm",
    "kpt shared": "`kpt fn render`, exec function, shared",
    "kpt per-vm rerender": "`kpt fn render` again (per-vm, revisions in the package)",
}


def report(rows: list[Route], header: str) -> str:
    by = {(r.name, r.vms): r for r in rows}
    lines = [header, "",
             "| route | VMs | output | seconds | × its floor | our process s | our share |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        if r.stopped is not None and not r.seconds:
            lines.append(f"| {LABELS[r.name]} | {r.vms} | | > {r.stopped:.0f} s (stopped) | | | |")
            continue
        wall = statistics.median(r.seconds)
        floor = by.get((r.floor, r.vms)) if r.floor else None
        ratio = (f"{statistics.median(t / f for t, f in zip(r.seconds, floor.seconds)):.1f}"
                 if floor and floor.seconds else "")
        ours = statistics.median(r.ours) if r.ours else None
        share = (f"{statistics.median(o / t for o, t in zip(r.ours, r.seconds)):.0%}" if r.ours else "")
        lines.append(f"| {LABELS[r.name]} | {r.vms} | {r.objects} | {_secs(wall)} | {ratio} | "
                     f"{'' if ours is None else _secs(ours)} | {share} |")
    sizes = sorted({r.vms for r in rows})
    if len(sizes) > 1:
        lines += ["", f"growth per doubling of the fleet ({' → '.join(f'{s:,}' for s in sizes)}), wall time:"]
        for name, label in LABELS.items():
            times = [by[(name, s)] for s in sizes if (name, s) in by]
            steps = [f"{b_med / a_med:.1f}×" for a, b in zip(times, times[1:])
                     if a.seconds and b.seconds for a_med, b_med in [(statistics.median(a.seconds),
                                                                       statistics.median(b.seconds))]]
            if steps:
                lines.append(f"  {label}: {', '.join(steps)}")
    return "\n".join(lines) + "\n"


def _secs(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds < 10 else f"{seconds:.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,2000,4000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0, help="per run; a route that hits it is not rerun")
    ap.add_argument("--write", action="store_true", help="put the section into bench/last-run.txt")
    args = ap.parse_args()
    for tool in ("kubectl", "kpt"):
        if shutil.which(tool) is None:
            print(f"pipelines: skipped: {tool} is not installed", file=sys.stderr)
            return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    load_start = os.getloadavg()[0]
    rows: list[Route] = []
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(Path(tmp), args.timeout)
        for n in sizes:
            dirs = build(Path(tmp), n, bench.exe, bench.timed)
            sized = routes_for(n)
            for _ in range(args.repeat):
                for route in sized:
                    bench.measure(route, dirs)
            rows += sized
            print(f"# {n} done", file=sys.stderr, flush=True)
            shutil.rmtree(dirs["plain"].parent)
            for pkg in Path(tmp).glob("run-*"):
                shutil.rmtree(pkg)
    versions = subprocess.run(["kpt", "version"], capture_output=True, text=True).stdout.strip()
    header = (host_line("pipelines (issue 16)", args.repeat, load_start, f", kpt {versions}",
                        f", {max(bench.loads, default=0):.1f} at most after a run (a shared host: other jobs ran)")
              + "\n"
              "# revisions mode; × its floor: against kustomize (no function) or kpt with a no-op exec in the "
              "same round; our share: kubevirt-krm's process time / the route's")
    text = report(rows, header)
    sys.stdout.write(text)
    if args.write:
        write_block(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
