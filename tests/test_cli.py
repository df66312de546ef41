"""The console script end to end (subprocess): modes, exit codes, one-line errors, no tracebacks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from tests.builders import assert_clean_failure, run_fn


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  flag: 'yes'\n"
RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n" \
     "  metadata:\n    name: cm\n  data:\n    flag: 'yes'\n"


def test_help_and_version() -> None:
    proc = run_fn(["--help"])
    assert proc.returncode == 0 and b"usage: kubevirt-krm" in proc.stdout and b"VirtualMachineRenderer" in proc.stdout
    proc = run_fn(["--version"])
    assert proc.returncode == 0 and proc.stdout.startswith(b"kubevirt-krm ")


def test_krm_mode_passes_unowned_items_through_unchanged() -> None:
    proc = run_fn([], RL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == RL


def test_krm_mode_output_is_deterministic() -> None:
    assert run_fn([], RL).stdout == run_fn([], RL).stdout


@pytest.mark.reliability
@pytest.mark.parametrize(("stdin", "message"), [
    (b"", "empty input"),
    (b"   \n", "empty input"),
    (b"kind: ResourceList\nitems: [\n", "malformed YAML"),
    (b"kind: ResourceList\nitems: 5\n", "items must be a list"),
    (b"kind: ResourceList\nitems:\n- {apiVersion: v1, kind: X, metadata: {name: a, name: b}}\n", "duplicate mapping key"),
    (b"kind: ResourceList\nitems:\n- !!python/object/apply:os.system [echo pwned]\n", "unsupported YAML tag"),
    (b"kind: ResourceList\n---\nkind: ResourceList\n", "expected one ResourceList document"),
    (b"kind: ResourceList\nitems:\n- \xff\xfe\n", "not valid UTF-8"),
    (b"kind: ResourceList\nitems: " + b"[" * 50000 + b"]" * 50000 + b"\n", "nested deeper"),
])
def test_bad_input_is_one_line_exit_1_no_stdout(stdin: bytes, message: str) -> None:
    proc = run_fn([], stdin)
    assert_clean_failure(proc, message)
    assert proc.stdout == b""
    assert len(proc.stderr.decode().strip().splitlines()) == 1


@pytest.mark.reliability
@pytest.mark.parametrize(("item", "message"), [
    (b"just a string", "items[1] must be a mapping"),
    (b"{kind: X, metadata: {name: a}}", "items[1]: X 'a': missing or empty apiVersion"),
    (b"{apiVersion: v1, kind: X, metadata: {}}", "items[1]: missing or empty metadata.name"),
])
def test_an_unusable_item_is_one_result_and_the_list_is_still_written(item: bytes, message: str) -> None:
    good = b"- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"
    proc = run_fn([], b"kind: ResourceList\nitems:\n" + good + b"- " + item + b"\n" + good.replace(b"a}", b"b}"))
    assert_clean_failure(proc, message)
    assert len(proc.stderr.decode().strip().splitlines()) == 1
    out = yaml.safe_load(proc.stdout)  # the full ResourceList: every item back in its place, and the result
    assert [i if not isinstance(i, dict) else i["metadata"].get("name") for i in out["items"]] == \
        ["a", yaml.safe_load(item) if b"string" in item else yaml.safe_load(item)["metadata"].get("name"), "b"]
    assert [(r["severity"], r["message"].startswith(message)) for r in out["results"]] == [("error", True)]


@pytest.mark.reliability
def test_not_a_resource_list_without_plugin_config() -> None:
    assert_clean_failure(run_fn([], CM), "expected kind ResourceList")


def test_config_errors_are_results_and_exit_1() -> None:
    rl = RL + "functionConfig:\n  apiVersion: kubevirt-krm.dev/v1alpha1\n  kind: VirtualMachineRenderer\n" \
              "  metadata:\n    name: r\n  spec:\n    mode: sideways\n    bogus: 1\n"
    proc = run_fn([], rl)
    assert proc.returncode == 1
    out = yaml.safe_load(proc.stdout)
    assert out["items"][0]["data"] == {"flag": "yes"}
    messages = {r["field"]["path"]: r["message"] for r in out["results"]}
    assert set(messages) == {"spec.mode", "spec.bogus"}
    assert all(r["severity"] == "error" and r["resourceRef"]["name"] == "r" for r in out["results"])
    err = proc.stderr.decode().strip().splitlines()
    assert len(err) == 2 and all(line.startswith("kubevirt-krm: error: VirtualMachineRenderer r") for line in err)
    assert "Traceback" not in proc.stderr.decode()


def test_unknown_config_kind() -> None:
    rl = RL + "functionConfig:\n  apiVersion: kubevirt-krm.dev/v1alpha1\n  kind: Nope\n  metadata:\n    name: n\n"
    proc = run_fn([], rl)
    assert proc.returncode == 1 and b"kind 'Nope' is not supported" in proc.stderr


def test_stream_mode_reads_files_and_dirs(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n  mode: validate\n")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.yaml").write_text(CM)
    (tmp_path / "in" / "b.yml").write_text(CM.replace("name: cm", "name: cm2"))
    proc = run_fn([str(cfg), str(tmp_path / "in")])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == CM + "---\n" + CM.replace("name: cm", "name: cm2")


def test_stream_mode_reads_stdin_with_dash(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {}\n")
    proc = run_fn([str(cfg), "-"], CM)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == CM


def test_legacy_plugin_mode_config_from_env_only() -> None:
    cfg = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  mode: validate\n"
    proc = run_fn([], CM, env={"KUSTOMIZE_PLUGIN_CONFIG_STRING": cfg})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == CM


def test_a_fleet_on_the_legacy_plugin_route_gets_one_warning_line(tmp_path: Path) -> None:
    """Past krm_fn.fleet's limit the legacy plugin run (config file in argv[1] and in the environment, as
    kustomize runs it) warns on stderr, naming the faster routes, and still succeeds with the same output; the
    same input piped into standalone mode (no plugin environment) is the faster route and is not warned."""
    from krm_fn.stream import LEGACY_PLUGIN_MAX_RESOURCES

    cfg = "apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\n"
    (tmp_path / "cfg.yaml").write_text(cfg)
    vm = ("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm-{}\nspec:\n  runStrategy: Halted\n"
          "  template:\n    spec:\n      domain:\n        devices: {{}}\n        resources: {{requests: {{memory: 1Gi}}}}\n")
    vms = LEGACY_PLUGIN_MAX_RESOURCES + 1
    stream = "---\n".join(vm.format(i) for i in range(vms))  # no matchers: passed through, nothing generated
    proc = run_fn([str(tmp_path / "cfg.yaml")], stream, env={"KUSTOMIZE_PLUGIN_CONFIG_STRING": cfg})
    assert proc.returncode == 0 and proc.stdout.decode() == stream
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"kubevirt-krm: warning: {vms} resources ({vms} VirtualMachines)"), lines
    assert "kubectl kustomize DIR | kubevirt-krm CONFIG.yaml -" in lines[0] and "kpt fn render" in lines[0]
    piped = run_fn([str(tmp_path / "cfg.yaml"), "-"], stream)
    assert piped.returncode == 0 and piped.stderr == b"" and piped.stdout == proc.stdout


def test_resource_list_on_stdin_wins_over_leaked_plugin_env() -> None:
    proc = run_fn([], RL, env={"KUSTOMIZE_PLUGIN_CONFIG_STRING": "kind: Broken"})
    assert proc.returncode == 0 and proc.stdout.decode() == RL


@pytest.mark.reliability
def test_stream_mode_errors(tmp_path: Path) -> None:
    assert_clean_failure(run_fn([str(tmp_path / "missing.yaml"), "-"]), "cannot read config file")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\n"
                   "spec:\n  mode: 3\n")
    proc = run_fn([str(cfg), "-"], CM)
    assert_clean_failure(proc, "spec.mode")
    assert proc.stdout == b""  # nothing a pipeline could mistake for success
    assert_clean_failure(run_fn([str(cfg), str(tmp_path / "nope.yaml")]), "cannot read")


def test_unknown_option() -> None:
    proc = run_fn(["--frobnicate"])
    assert proc.returncode == 2 and b"unknown option --frobnicate" in proc.stderr


def test_two_workers_unless_told_otherwise_or_memory_is_short(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.cli import resources

    monkeypatch.delenv("KUBEVIRT_KRM_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(resources, "memory_limit", lambda: None)
    assert resources.workers(10 << 20) == 2
    monkeypatch.setattr(resources, "memory_limit", lambda: 512 << 20)  # a 512 MiB container
    assert resources.workers(1 << 20) == 2
    assert resources.workers(14 << 20) == 1  # 10k VMs: two processes would need ~2 x 300 MB
    monkeypatch.setenv("KUBEVIRT_KRM_WORKERS", "1")
    monkeypatch.setattr(resources, "memory_limit", lambda: None)
    assert resources.workers(10 << 20) == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    monkeypatch.delenv("KUBEVIRT_KRM_WORKERS")
    assert resources.workers(10 << 20) == 1


def test_no_yaml_rs_under_an_address_space_cap_it_could_hit(monkeypatch: pytest.MonkeyPatch) -> None:
    """yaml-rs aborts the process when an allocation fails (a Rust panic: seen under ``ulimit -v`` in CI);
    our loader raises MemoryError and the run ends with one line."""
    import resource

    from krm_fn.cli.resources import fast_yaml_fits

    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert fast_yaml_fits(100 << 20)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (512 << 20, resource.RLIM_INFINITY))
    assert fast_yaml_fits(1 << 20)
    assert not fast_yaml_fits(100 << 20)
