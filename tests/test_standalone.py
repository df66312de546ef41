"""The standalone mode through the command, as Argo CD's CMP and people run it (docs/standalone.md):
``kubevirt-krm CONFIG.yaml FILE|DIR|-...``."""

from __future__ import annotations

from pathlib import Path

import yaml
from tests.builders import assert_clean_failure, line_with, run_fn


CATALOG = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: c\n"
           "  annotations:\n    config.kubernetes.io/local-config: \"true\"\nspec:\n  builtin: common-instancetypes\n"
           "  include:\n    series: [u1]\n    sizes: [small]\n    preferences: [fedora]\n")
RENDERER = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\n"
            "  annotations:\n    config.kubernetes.io/local-config: \"true\"\nspec:\n  mode: revisions\n"
            "  catalog:\n    builtin: none\n")
VM = ("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: {name}\n  namespace: apps\nspec:\n"
      "  runStrategy: Halted\n  instancetype:\n    name: u1.small\n    kind: VirtualMachineClusterInstancetype\n  preference:\n"
      "    name: fedora\n    kind: VirtualMachineClusterPreference\n  template:\n    spec:\n      domain:\n"
      "        devices: {{}}\n")


def _app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    (app / "vms").mkdir(parents=True)
    (app / "catalog.yaml").write_text(CATALOG)
    (app / "prerender.yaml").write_text(RENDERER)
    (app / "vms" / "a.yaml").write_text(VM.format(name="a") + "---\n" + VM.format(name="b"))
    (app / "vms" / "kustomization.yaml").write_text("resources:\n- a.yaml\n")
    return app


def test_piped_runs_print_manifests_only(tmp_path: Path) -> None:
    """``kubevirt-krm catalog.yaml vms | kubevirt-krm prerender.yaml -``: no kpt annotation leaks from the first
    run into the second's output, the configs are not printed, the directory's kustomization.yaml is skipped."""
    app = _app(tmp_path)
    first = run_fn([str(app / "catalog.yaml"), str(app / "vms")])
    assert first.returncode == 0, first.stderr
    assert b"internal.config.kubernetes.io" not in first.stdout
    second = run_fn([str(app / "prerender.yaml"), "-"], first.stdout)
    assert second.returncode == 0, second.stderr
    out = second.stdout.decode()
    assert "config.kubernetes.io/" not in out and "kubevirt-krm.dev" not in out
    kinds = sorted(d["kind"] for d in yaml.safe_load_all(out))
    # one instancetype and one preference (cluster-wide and namespaced: the catalog's default scope), a
    # revision of each for each of the two VMs
    assert kinds == ["ControllerRevision"] * 4 + ["VirtualMachine"] * 2 + [
        "VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference", "VirtualMachineInstancetype",
        "VirtualMachinePreference"]


def test_a_directory_given_twice_is_one_line_naming_both_files(tmp_path: Path) -> None:
    app = _app(tmp_path)
    proc = run_fn([str(app / "catalog.yaml"), str(app / "vms"), str(app / "vms")])
    assert_clean_failure(proc, f"{app / 'vms' / 'a.yaml'} line 1: VirtualMachine.kubevirt.io apps/a is already in "
                               f"{app / 'vms' / 'a.yaml'} line 1")
    # one line per object given twice (each judged on its own: the two VMs of vms/a.yaml)
    assert proc.stdout == b"" and len(proc.stderr.decode().splitlines()) == 2


def test_an_earlier_output_in_the_directory_is_refused(tmp_path: Path) -> None:
    app = _app(tmp_path)
    out = app / "vms" / "rendered.yaml"
    assert run_fn([str(app / "prerender.yaml"), str(app / "vms"), str(app / "catalog.yaml"), "-o", str(out)]
                  ).returncode == 1  # the renderer finds no types without the catalog's output: nothing written
    assert not out.exists()
    assert run_fn([str(app / "catalog.yaml"), str(app / "vms"), "-o", str(out)]).returncode == 0
    proc = run_fn([str(app / "catalog.yaml"), str(app / "vms")])
    assert_clean_failure(proc, f"{out} line 1: VirtualMachine.kubevirt.io apps/a is already in "
                               f"{app / 'vms' / 'a.yaml'} line 1")


def test_errors_name_the_file_and_its_line(tmp_path: Path) -> None:
    app = _app(tmp_path)
    (app / "vms" / "z.yaml").write_text(VM.format(name="c") + "  extra: [\n")
    proc = run_fn([str(app / "catalog.yaml"), str(app / "vms")])
    assert_clean_failure(proc, f"{app / 'vms' / 'z.yaml'}: malformed YAML")
    assert "line 19" in proc.stderr.decode()


def test_a_generate_name_vm_and_a_bad_document_each_judged_on_their_own(tmp_path: Path) -> None:
    """``kubectl create``-style VMs (Tekton's create-vm task): rendered; a bad document among them is one line,
    the rest rendered, nothing printed (issue 25 item 4)."""
    app = _app(tmp_path)
    nameless = VM.format(name="x").replace("  name: x\n", "  generateName: web-\n")
    (app / "vms" / "a.yaml").write_text(nameless + "---\n" + nameless)
    generated = run_fn([str(app / "catalog.yaml"), str(app / "vms")])
    assert generated.returncode == 0, generated.stderr
    (app / "all.yaml").write_bytes(generated.stdout)
    # per-vm revisions: left unpinned, each with the warning in the one voice of the stream modes (which of the
    # two VMs sharing a generateName a result is about is not known: their file, no line)
    pinned = run_fn([str(app / "prerender.yaml"), str(app / "all.yaml")])
    assert pinned.returncode == 0, pinned.stderr
    assert [o["spec"] for o in yaml.safe_load_all(pinned.stdout) if o["kind"] == "VirtualMachine"] == \
        [yaml.safe_load(nameless)["spec"]] * 2
    assert pinned.stderr.decode().splitlines() == [
        f"kubevirt-krm: warning: VirtualMachine apps/web-* ({app / 'all.yaml'}) metadata.name: not pinned: this "
        f"VirtualMachine has no metadata.name (only generateName) and per-vm revisions are named after their VM, "
        f"a name the API server makes only on create; it is left as it is, and KubeVirt pins it in the cluster "
        f"when it is created (revisions.scope: shared names revisions after their content only, and pins it)"] * 2
    expanded = app / "expand.yaml"
    expanded.write_text(RENDERER.replace("mode: revisions", "mode: expand"))
    proc = run_fn([str(expanded), str(app / "all.yaml")])
    assert proc.returncode == 0, proc.stderr
    vms = [o for o in yaml.safe_load_all(proc.stdout) if o["kind"] == "VirtualMachine"]
    assert [(v["metadata"]["generateName"], "instancetype" in v["spec"]) for v in vms] == [("web-", False)] * 2
    (app / "broken.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n")
    proc = run_fn([str(expanded), str(app / "all.yaml"), str(app / "broken.yaml")])
    assert_clean_failure(proc, f"error: {app / 'broken.yaml'} line 1: missing or empty metadata.name")
    assert proc.stdout == b"" and len(proc.stderr.decode().splitlines()) == 1


def test_results_name_the_file_of_the_vm(tmp_path: Path) -> None:
    app = _app(tmp_path)
    (app / "vms" / "bad.yaml").write_text(VM.format(name="c").replace("u1.small", "u1.huge"))
    generated = run_fn([str(app / "catalog.yaml"), str(app / "vms")])
    assert generated.returncode == 0, generated.stderr
    rendered = app / "all.yaml"
    rendered.write_bytes(generated.stdout)
    proc = run_fn([str(app / "prerender.yaml"), str(rendered)])
    # the file and the line of the result's field in it (issue 26, point 3; issue 36)
    line = line_with(generated.stdout.decode(), "  instancetype:", after="name: c")
    assert_clean_failure(proc, f"VirtualMachine apps/c ({rendered} line {line}) spec.instancetype")


def test_a_volume_object_of_the_cluster_not_given_is_one_line_per_vm_with_the_way_out() -> None:
    """examples/cluster-objects without its local-config copies: the lookup that fails is the root cause, with
    the hint, on the matcher that infers; KubeVirt's refusal follows it in the results, not on stderr."""
    example = Path(__file__).resolve().parent.parent / "examples" / "cluster-objects"
    proc = run_fn([str(example / "fn-config.yaml"), str(example / "vms.yaml")])
    assert proc.returncode == 1 and proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    vms = example / "vms.yaml"
    rhel, win = (line_with(vms.read_text(), "inferFromVolume:", after=f"name: {name}") for name in ("rhel", "win"))
    assert [line.split(" if it lives in the cluster")[0] for line in lines] == [
        f'kubevirt-krm: error: VirtualMachine apps/rhel ({vms} line {rhel}) spec.instancetype.inferFromVolume: '
        f'datasources.cdi.kubevirt.io "rhel9" not found:',
        f'kubevirt-krm: error: VirtualMachine apps/win ({vms} line {win}) spec.instancetype.inferFromVolume: '
        f'persistentvolumeclaims "win2k22-upload" not found:']
    assert all(line.endswith('config.kubernetes.io/local-config: "true" among the inputs') for line in lines)


def test_the_comments_at_the_top_of_a_file_are_kept(tmp_path: Path) -> None:
    """Issue 38, point 4: the quick start's header comment is printed above its VM, and a render of the output
    prints the same bytes (kpt and `check` feed the output back)."""
    from tests.builders import REPO

    quickstart = REPO / "examples" / "quickstart"
    header = (quickstart / "vms.yaml").read_text().split("apiVersion:")[0]
    assert header.startswith("# ")
    first = run_fn([str(quickstart / "fn-config.yaml"), str(quickstart / "vms.yaml")])
    assert first.returncode == 0 and first.stdout.decode().startswith(header + "apiVersion: kubevirt.io/v1\n")
    (tmp_path / "out.yaml").write_bytes(first.stdout)
    again = run_fn([str(quickstart / "fn-config.yaml"), str(tmp_path / "out.yaml")])
    assert again.returncode == 0 and again.stdout == first.stdout
