"""The Argo CD CMP's generate script at fleet scale (issue 38, point 6), against floors measured in the same run.

    python bench/argocd.py     # 10k VMs; the kustomize route at 1k and 4k; the old route at 50, 250 and 1k
    python bench/argocd.py --repeat 1 --timeout 120 --write

Every row runs ``bash -c`` on a script in an app dir, as the CMP server does (examples/argocd/plugin.yaml), over
bench/synth.py's fleet (``manifests``: VMs over the common-instancetypes names, some inferring from a DataSource),
with the example's renderer config (revisions mode, ``stored: true``) and a catalog config of every builtin type:

* the generate script on the app as the example lays it out (a kustomization listing vms.yaml): kubevirt-krm
  reads the file itself; its floor is the renderer run alone on the same inputs, the catalog's objects on stdin
  (what the script wraps: the capture, the empty-output check and the print are the difference);
* ``kubectl kustomize`` alone on that app: the floor of any route through kustomize;
* the generate script on a kustomization that needs kustomize (``commonAnnotations``): ``kubectl kustomize . |
  kubevirt-krm``; its floor is ``kubectl kustomize`` alone on it;
* the script before this change (kustomize's legacy exec plugin, the catalog as a generator and the renderer as
  a transformer of the kustomization), and its build alone (``kubectl kustomize --enable-alpha-plugins``).

Rounds interleave the rows; a row that hits ``--timeout`` prints "> N s (stopped)" and is not run again. Every
finished row's output is checked to hold the fleet's VMs. ``--write`` puts the report into
bench/last-argocd-run.txt. Needs kubectl on PATH; without it the benchmark is skipped with a message (exit 0).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
from lastrun import host_line  # noqa: E402
from synth import manifests  # noqa: E402

LAST_RUN = BENCH / "last-argocd-run.txt"
EXAMPLE_APP = REPO / "examples" / "argocd" / "app"
RENDERER, CATALOG = "kubevirt-krm.yaml", "kubevirt-krm-catalog.yaml"
ALL_TYPES = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: all\n"
             "spec:\n  builtin: common-instancetypes\n")
PLAIN = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- vms.yaml\n"
# The renderer alone on what the script hands it: the fast route's floor.
RENDER_ALONE = f"kubevirt-krm {CATALOG} - --allow-empty < /dev/null | kubevirt-krm {RENDERER} - vms.yaml --allow-empty"
# examples/argocd/plugin.yaml's generate before this change (main e4cc19c), trimmed of its comments.
LEGACY_SCRIPT = """\
set -euo pipefail
if [ -z "${KUSTOMIZE_PLUGIN_HOME:-}" ]; then
  KUSTOMIZE_PLUGIN_HOME="$(mktemp -d)"
  trap 'rm -rf "$KUSTOMIZE_PLUGIN_HOME"' EXIT
  kubevirt-krm install-plugin "$KUSTOMIZE_PLUGIN_HOME" >&2
fi
export KUSTOMIZE_PLUGIN_HOME
if command -v kustomize >/dev/null 2>&1; then
  build=(kustomize build --enable-alpha-plugins .)
else
  build=(kubectl kustomize --enable-alpha-plugins .)
fi
echo "kubevirt-krm CMP: ${build[*]} (app ${ARGOCD_APP_NAME:-?}, revision ${ARGOCD_APP_REVISION:-?})" >&2
manifests="$("${build[@]}")"
if [ -z "${manifests//[[:space:]]/}" ] && [ "${PARAM_ALLOW_EMPTY:-false}" != "true" ]; then
  echo "kubevirt-krm CMP: the build produced no objects; refusing" >&2
  exit 1
fi
printf '%s\\n' "$manifests"
"""
LABELS = {
    "generate": "generate script, kustomization listing vms.yaml (kubevirt-krm reads it)",
    "render-alone": "floor: the renderer alone on the same inputs",
    "kustomize": "floor: `kubectl kustomize` alone",
    "generate-kustomize": "generate script, kustomization with `commonAnnotations` (`kubectl kustomize . \\| kubevirt-krm`)",
    "legacy": "old generate script (legacy exec plugin)",
    "legacy-build": "its build alone (`kubectl kustomize --enable-alpha-plugins`)",
}
FLOORS = {"generate": "render-alone", "generate-kustomize": "kustomize", "legacy": "legacy-build"}


@dataclass
class Row:
    """One command at one size: each round's wall seconds, or where it was stopped."""

    name: str
    vms: int
    app: Path
    script: str
    seconds: list[float] = field(default_factory=list)
    stopped: float | None = None


def generate_script() -> str:
    plugin = yaml.safe_load((REPO / "examples" / "argocd" / "plugin.yaml").read_text(encoding="utf-8"))
    script: str = plugin["spec"]["generate"]["args"][0]
    return script


def make_app(base: Path, name: str, vms: int, kustomization: str) -> Path:
    """The example app with ``vms`` synthetic VMs, the example's renderer config and a catalog of every type."""
    app = base / f"{name}-{vms}"
    app.mkdir(parents=True)
    fleet = base / f"fleet-{vms}.yaml"
    if not fleet.exists():
        fleet.write_text(manifests(vms), encoding="utf-8")
    shutil.copy(fleet, app / "vms.yaml")
    shutil.copy(EXAMPLE_APP / RENDERER, app / RENDERER)
    (app / CATALOG).write_text(ALL_TYPES, encoding="utf-8")
    (app / "kustomization.yaml").write_text(kustomization, encoding="utf-8")
    return app


def rows_for(base: Path, args: argparse.Namespace) -> list[Row]:
    script, rows = generate_script(), []
    app = make_app(base, "plain", args.vms, PLAIN)
    rows += [Row("generate", args.vms, app, script), Row("render-alone", args.vms, app, RENDER_ALONE),
             Row("kustomize", args.vms, app, "kubectl kustomize .")]
    for n in sizes(args.kustomize_sizes):
        app = make_app(base, "kustomize", n, PLAIN + "commonAnnotations:\n  team: platform\n")
        rows += [Row("generate-kustomize", n, app, script), Row("kustomize", n, app, "kubectl kustomize .")]
    for n in sizes(args.legacy_sizes):
        app = make_app(base, "legacy", n, PLAIN + f"generators:\n- {CATALOG}\ntransformers:\n- {RENDERER}\n")
        rows += [Row("legacy", n, app, LEGACY_SCRIPT),
                 Row("legacy-build", n, app, "kubectl kustomize --enable-alpha-plugins .")]
    return rows


def sizes(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s.strip()]


def measure(row: Row, timeout: float, env: dict[str, str], out: Path) -> None:
    """One round of ``row``: wall seconds of ``bash -c SCRIPT`` in its app dir (its process group killed when it
    hits ``timeout``), and its output checked to hold the fleet's VMs."""
    if row.stopped is not None:
        return
    start = time.perf_counter()
    with out.open("wb") as sink:
        proc = subprocess.Popen(["bash", "-c", row.script], cwd=row.app, env=env, stdin=subprocess.DEVNULL,
                                stdout=sink, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            row.stopped = timeout
            return
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{row.name} at {row.vms} VMs failed ({proc.returncode}): {err.decode()[-800:]}")
    found = sum(1 for line in out.open(encoding="utf-8") if line == "kind: VirtualMachine\n")
    if found != row.vms:
        raise SystemExit(f"{row.name} at {row.vms} VMs printed {found} VMs")
    row.seconds.append(elapsed)


def report(rows: list[Row], header: str) -> str:
    by = {(r.name, r.vms): r for r in rows}
    lines = [header, "", "| command | VMs | seconds | × its floor |", "|---|---:|---:|---:|"]
    for r in rows:
        if not r.seconds:
            lines.append(f"| {LABELS[r.name]} | {r.vms:,} | > {r.stopped:.0f} (stopped) | |")
            continue
        floor = by.get((FLOORS.get(r.name, ""), r.vms))
        ratio = (f"{statistics.median(t / f for t, f in zip(r.seconds, floor.seconds)):.2f}"
                 if floor and floor.seconds else "")
        lines.append(f"| {LABELS[r.name]} | {r.vms:,} | {_secs(statistics.median(r.seconds))} | {ratio} |")
    return "\n".join(lines) + "\n"


def _secs(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds < 10 else f"{seconds:.1f}"


def cmp_env(tmp: Path) -> dict[str, str]:
    """This machine's environment as a CMP's: kubevirt-krm of this checkout first, the ``ARGOCD_APP_*``
    variables the script logs, and the plugin tree the old sidecar image had (its ``KUSTOMIZE_PLUGIN_HOME``; the
    new script and plain kustomize builds do not read it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KUSTOMIZE_PLUGIN", "ARGOCD_", "PARAM_"))}
    beside = Path(sys.executable).parent
    env.update(PATH=f"{beside}{os.pathsep}{env.get('PATH', '')}", TMPDIR=str(tmp), ARGOCD_APP_NAME="bench",
               ARGOCD_APP_REVISION="0" * 40, KUSTOMIZE_PLUGIN_HOME=str(tmp / "plugins"))
    subprocess.run(["kubevirt-krm", "install-plugin", env["KUSTOMIZE_PLUGIN_HOME"]], env=env, check=True,
                   capture_output=True)
    return env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vms", type=int, default=10_000, help="the fleet of the generate script and its floors")
    ap.add_argument("--kustomize-sizes", default="1000,4000", help="fleets for the route through kustomize")
    ap.add_argument("--legacy-sizes", default="50,250,1000", help="fleets for the script before this change")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=150.0, help="per run; a row that hits it is not rerun")
    ap.add_argument("--write", action="store_true", help=f"put the report into {LAST_RUN.relative_to(REPO)}")
    args = ap.parse_args()
    if shutil.which("kubectl") is None:
        print("argocd: skipped: kubectl is not installed", file=sys.stderr)
        return 0
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        rows = rows_for(base, args)
        env = cmp_env(base)
        for n in range(args.repeat):
            for row in rows:
                measure(row, args.timeout, env, base / "out.yaml")
            print(f"# round {n + 1} done", file=sys.stderr, flush=True)
    header = (host_line("Argo CD CMP generate (issue 38)", args.repeat, load_start) + "\n"
              "# bash -c on each script in the app dir; × its floor: the median of each round's ratio to the floor "
              "row of the same size; Argo CD stops a CMP command after ARGOCD_EXEC_TIMEOUT (90 s by default)")
    text = report(rows, header)
    sys.stdout.write(text)
    if args.write:
        LAST_RUN.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
