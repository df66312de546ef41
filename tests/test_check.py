"""``kubevirt-krm check`` (issue 38, point 1): a pull request that edits a VM without re-rendering the committed
file fails with a unified diff, and passes once the file is re-rendered; the same for a generated catalog.
Run as a user runs it: the console script in a subprocess."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.builders import REVISIONS_RENDERER, run_fn, web_vm_text


def _repo(tmp_path: Path, instancetype: str = "u1.medium") -> tuple[Path, Path, Path]:
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "render.yaml").write_text(yaml.safe_dump(REVISIONS_RENDERER), encoding="utf-8")
    (tmp_path / "src" / "web.yaml").write_text(web_vm_text(instancetype), encoding="utf-8")
    return tmp_path / "render.yaml", tmp_path / "src", tmp_path / "rendered.yaml"


def _check(config: Path, src: Path, out: Path) -> tuple[int, str, str]:
    proc = run_fn(["check", str(config), str(src), "--output", str(out)])
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_an_edit_without_a_render_fails_and_passes_once_rendered(tmp_path: Path) -> None:
    config, src, out = _repo(tmp_path)
    assert run_fn([str(config), str(src), "--output", str(out)]).returncode == 0
    code, diff, said = _check(config, src, out)
    assert (code, diff) == (0, "") and said == f"kubevirt-krm: check: {out} is what the render gives\n"

    _repo(tmp_path, "u1.large")  # the pull request edits the source VM and does not re-render
    code, diff, said = _check(config, src, out)
    assert code == 1
    assert diff.startswith(f"--- {out} (in Git)\n+++ {out} (rendered)\n")
    assert "-    name: u1.medium\n" in diff and "+    name: u1.large\n" in diff
    assert "+    revisionName: web-u1.large-v1beta1-" in diff
    assert said.startswith(f"kubevirt-krm: check: {out} is not what the render gives (")
    assert f"run kubevirt-krm {config} {src} --output {out} and commit it" in said

    assert run_fn([str(config), str(src), "--output", str(out)]).returncode == 0
    assert _check(config, src, out)[0] == 0


def test_a_missing_file_is_not_what_the_render_gives(tmp_path: Path) -> None:
    config, src, out = _repo(tmp_path)
    code, diff, said = _check(config, src, out)
    assert code == 1 and "+kind: VirtualMachine\n" in diff and "the file is missing" in said


def test_a_render_with_errors_fails_without_a_diff(tmp_path: Path) -> None:
    config, src, out = _repo(tmp_path, "u1.nosuch")
    out.write_text("", encoding="utf-8")
    code, diff, said = _check(config, src, out)
    assert (code, diff) == (1, "")
    assert "u1.nosuch" in said and "Traceback" not in said


def test_a_generated_catalog_is_checked_too(tmp_path: Path) -> None:
    catalog = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "InstancetypeCatalog", "metadata": {"name": "c"},
               "spec": {"builtin": "classic", "include": {"series": ["m"]}}}
    config = tmp_path / "catalog.yaml"
    config.write_text(yaml.safe_dump(catalog), encoding="utf-8")
    out = tmp_path / "instancetypes.yaml"
    assert run_fn([str(config), "--output", str(out)]).returncode == 0  # a generator's run: no inputs
    gate = ["check", str(config), "--output", str(out)]
    assert run_fn(gate).returncode == 0
    out.write_text(out.read_text(encoding="utf-8").replace("guest: 1", "guest: 2", 1), encoding="utf-8")
    assert run_fn(gate).returncode == 1


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    config, src, _ = _repo(tmp_path)
    for args in (["check", str(config), str(src)], ["check", str(config), str(src), "--output"],
                 ["check", "--bogus", str(config), str(src), "--output", "x.yaml"]):
        proc = run_fn(args)
        assert proc.returncode == 2, args
        assert proc.stderr.decode().count("\n") == 1 and b"Traceback" not in proc.stderr


def _declare(config: Path, output: str, inputs: str | None = None) -> None:
    """Annotate a config with the file its render is committed to (and its inputs), relative to it."""
    obj = yaml.safe_load(config.read_text(encoding="utf-8"))
    annotations = obj["metadata"].setdefault("annotations", {})
    annotations["kubevirt-krm.dev/output"] = output
    if inputs is not None:
        annotations["kubevirt-krm.dev/inputs"] = inputs
    config.write_text(yaml.safe_dump(obj), encoding="utf-8")


def test_without_arguments_every_declared_render_is_checked(tmp_path: Path) -> None:
    """What a pre-commit hook without arguments runs: the configs annotated with their output, found under the
    current directory (paths relative to each config; hidden directories not searched)."""
    (tmp_path / "vms").mkdir()
    config, src, out = _repo(tmp_path / "vms")
    _declare(config, "rendered.yaml", "src/")
    catalog = tmp_path / "catalog" / "catalog.yaml"
    catalog.parent.mkdir()
    catalog.write_text(yaml.safe_dump({"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "InstancetypeCatalog",
                                       "metadata": {"name": "c"},
                                       "spec": {"builtin": "classic", "include": {"series": ["m"]}}}))
    _declare(catalog, "out/instancetypes.yaml")
    (tmp_path / "catalog" / "out").mkdir()
    hidden = tmp_path / ".hidden"
    hidden.mkdir()
    (hidden / "render.yaml").write_text(config.read_text().replace("rendered.yaml", "never.yaml"))
    assert run_fn([str(config), str(src), "--output", str(out)]).returncode == 0
    assert run_fn([str(catalog), "--output", str(catalog.parent / "out" / "instancetypes.yaml")]).returncode == 0

    proc = run_fn(["check"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.decode().splitlines() == [
        "kubevirt-krm: check: catalog/out/instancetypes.yaml is what the render gives",
        "kubevirt-krm: check: vms/rendered.yaml is what the render gives"]
    _repo(tmp_path / "vms", "u1.large")  # the source VM edited, not re-rendered (the config written again)
    _declare(config, "rendered.yaml", "src/")
    proc = run_fn(["check"], cwd=tmp_path)
    assert proc.returncode == 1 and "+    name: u1.large\n" in proc.stdout.decode()
    assert "run kubevirt-krm vms/render.yaml vms/src --output vms/rendered.yaml and commit it" in proc.stderr.decode()


def test_without_arguments_and_nothing_declared_is_a_usage_error(tmp_path: Path) -> None:
    _repo(tmp_path)
    proc = run_fn(["check"], cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.decode().count("\n") == 1
    assert b"is annotated kubevirt-krm.dev/output" in proc.stderr


def test_a_declaring_file_that_cannot_be_used_is_a_usage_error(tmp_path: Path) -> None:
    """A config that names its output but is not YAML, or shares its file, would leave its render unchecked:
    one line naming the file, exit 2."""
    config, _, _ = _repo(tmp_path)
    _declare(config, "rendered.yaml", "src/")
    text = config.read_text(encoding="utf-8")
    config.write_text(text + "spec: [\n", encoding="utf-8")
    proc = run_fn(["check"], cwd=tmp_path)
    said = proc.stderr.decode()
    assert proc.returncode == 2 and said.count("\n") == 1 and "render.yaml line " in said and "not YAML" in said
    config.write_text(text + "---\n" + text, encoding="utf-8")
    proc = run_fn(["check"], cwd=tmp_path)
    said = proc.stderr.decode()
    assert proc.returncode == 2 and said.count("\n") == 1 and "must be the only object in its file" in said
