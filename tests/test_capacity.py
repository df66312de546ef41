"""The ``resources`` command and the renderer's capacity report (issue 37, points 3 and 4): the example's golden
reports, what a quota and a LimitRange refuse in the API server's words, pools, and the opt-in results.

The launcher pods themselves are checked against KubeVirt's own in ``tests/test_conformance_pods.py``.
``UPDATE_GOLDEN=1`` rewrites the example's expected reports *and fails*."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.cli.capacity import Request, main
from krm_fn.io.inputs import Source
from krm_fn.process import Options
from tests.builders import REPO, run_fn

EXAMPLE = REPO / "examples" / "capacity"
CONFIG: dict[str, Any] = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer", "metadata": {"name": "r"},
          "spec": {"kubevirtVersion": "v1.9"}}


def _run(*args: str) -> tuple[str, int]:
    proc = run_fn(["resources", *args], cwd=REPO)
    assert proc.stderr == b"", proc.stderr
    return proc.stdout.decode(), proc.returncode


@pytest.mark.parametrize(("output", "golden"), [("text", "expected-report.txt"), ("json", "expected-report.json")])
def test_the_example_report_is_the_golden_one(output: str, golden: str) -> None:
    out, code = _run("--output", output, "examples/capacity/fn-config.yaml", "examples/capacity/")
    assert code == 1
    expected = EXAMPLE / golden
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(out, encoding="utf-8")
        pytest.fail(f"rewrote {expected.relative_to(REPO)}; review the diff and rerun without UPDATE_GOLDEN")
    assert out == expected.read_text(encoding="utf-8")


@pytest.mark.parametrize(("doc", "heading"), [("README.md", "## Planning capacity"),
                                              ("docs/reference.md", "## Capacity report")])
def test_the_readme_shows_a_real_excerpt_of_the_example_report(doc: str, heading: str) -> None:
    """The README's how-to and the reference's section (issue 38, point 7) each show real lines of the report."""
    readme = (REPO / doc).read_text(encoding="utf-8").split(f"\n{heading}\n", 1)[1]
    block = readme.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0] == "$ kubevirt-krm resources examples/capacity/fn-config.yaml examples/capacity/"
    report = (EXAMPLE / "expected-report.txt").read_text(encoding="utf-8").splitlines()
    shown = [line for line in block[1:] if line != "..."]
    assert len(shown) >= 4 and [line for line in shown if line not in report] == []


def _report(docs: list[dict[str, Any]], complete: bool = False) -> tuple[dict[str, Any], int]:
    text, code = main(Request("json", complete, "fn.yaml", ("in.yaml",)), Source("fn.yaml", yaml.safe_dump(CONFIG).encode()),
                      [Source("in.yaml", yaml.safe_dump_all(docs).encode())], Options())
    return json.loads(text), code


def test_the_example_names_the_vm_that_does_not_fit_and_the_quota_key() -> None:
    report = json.loads((EXAMPLE / "expected-report.json").read_text(encoding="utf-8"))
    refused = {r["name"]: r["message"] for ns in report["namespaces"].values() for r in ns["refused"]}
    assert sorted(refused) == ["db", "hooked"]
    assert refused["db"].startswith('pods "virt-launcher-db" is forbidden: exceeded quota: team-a-compute, '
                                    "requested: requests.memory=")
    assert refused["hooked"] == ('pods "virt-launcher-hooked" is forbidden: failed quota: team-b-cpu: must specify '
                                 "limits.cpu for: hook-sidecar-0")
    # the VM that does not run asks for nothing: two pods in team-a, not three
    assert report["namespaces"]["team-a"]["pods"] == 2
    assert {(vm["name"], vm["runs"]) for vm in report["vms"]} >= {("batch", False), ("web", True)}


def _vm(name: str, namespace: str = "ns", run: str = "Always", **template: Any) -> dict[str, Any]:
    spec = {"domain": {"devices": {}, "resources": {"requests": {"memory": "1Gi"}}}, **template}
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": namespace},
            "spec": {"runStrategy": run, "template": {"spec": spec}}}


def _quota(hard: dict[str, str], namespace: str = "ns") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": namespace},
            "spec": {"hard": hard}}


def test_a_quota_on_memory_limits_gives_each_pod_a_limit_of_twice_its_request() -> None:
    report, code = _report([_quota({"limits.memory": "100Gi"}), _vm("a")])
    compute = report["vms"][0]["pod"]["containers"][0]
    assert code == 0
    # KubeVirt's automatic memory limit (R6 of shared/docs/pod-resources.md): the request times 2.0
    from krm_fn.kube.amount import nanos

    assert nanos(compute["limits"]["memory"]) == 2 * nanos(compute["requests"]["memory"])


def test_the_pods_are_admitted_in_input_order_until_the_quota_is_used_up() -> None:
    report, code = _report([_quota({"requests.cpu": "250m"}), _vm("a"), _vm("b"), _vm("c")])
    ns = report["namespaces"]["ns"]
    assert code == 1
    assert [r["name"] for r in ns["refused"]] == ["c"]  # 105m each: a and b fit in 250m
    assert ns["quotas"][0]["used"] == {"requests.cpu": "210m"} and ns["quotas"][0]["refused"] == ["virt-launcher-c"]


def test_a_pool_counts_once_per_replica() -> None:
    pool = {"apiVersion": "pool.kubevirt.io/v1beta1", "kind": "VirtualMachinePool",
            "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "p"}},
                     "virtualMachineTemplate": {"metadata": {"labels": {"app": "p"}},
                                                "spec": {**_vm("x")["spec"],
                                                         "template": {"metadata": {"labels": {"app": "p"}},
                                                                      "spec": _vm("x")["spec"]["template"]["spec"]}}}}}
    report, _ = _report([pool])
    assert report["namespaces"]["ns"]["pods"] == 3
    assert [vm["replicas"] for vm in report["vms"]] == [3]


def test_a_limit_range_maximum_refuses_the_pod_in_the_api_servers_words() -> None:
    limits = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "ns"},
              "spec": {"limits": [{"type": "Container", "max": {"memory": "1Gi"}}]}}
    report, code = _report([limits, _vm("a")])
    message = report["namespaces"]["ns"]["refused"][0]["message"]
    assert code == 1
    # the LimitRange's default limit is its max (SetDefaults_LimitRangeItem), so the compute container's request
    # (1Gi of guest and 270Mi of overhead) is what exceeds it
    assert message == ('pods "virt-launcher-a" is forbidden: maximum memory usage per Container is 1Gi, but request '
                       "is 1294Mi")


def test_a_missing_claim_keeps_the_pod_only_when_the_inputs_are_complete() -> None:
    vm = _vm("a", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "nosuch"}}])
    assert _report([vm])[0]["vms"][0]["pod"]["error"] is None
    report, code = _report([vm], complete=True)
    assert report["vms"][0]["pod"]["error"] == "failed to render launch manifest: didn't find PVC nosuch"
    assert code == 1


def test_the_renderer_reports_capacity_when_asked(tmp_path: Path) -> None:
    docs = [_quota({"requests.cpu": "150m"}), _vm("a"), _vm("b")]
    (tmp_path / "in.yaml").write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    for report, expected in ((True, 1), (False, 0)):
        config = {**CONFIG, "spec": {**CONFIG["spec"], "mode": "validate", "capacity": {"report": report}}}
        (tmp_path / "fn.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        proc = run_fn([str(tmp_path / "fn.yaml"), str(tmp_path / "in.yaml")])
        err = proc.stderr.decode()
        assert proc.returncode == expected, err
        assert ("stored, but its launcher pod would not be created: pods \"virt-launcher-b\" is forbidden: exceeded "
                "quota: q" in err) is report
        assert "Traceback" not in err


MI = 2**20


@pytest.mark.parametrize(("version", "expected"), [
    # v1.5: the VMI webhook requests floor(1Gi * 100 / 150); the overhead counts its page tables (ceil(KB) * 1000
    # / 512) and 244Mi + 8Mi a vCPU (shared/docs/pod-resources.md, sections 2 and 4)
    pytest.param("v1.5", 715827882 + (-(-715827882 // 1000) * 1000 // 512) + 244 * MI + 8 * MI, id="v1.5"),
    # v1.6.4+: the renderer requests it, the VMI has none, so no page tables; 260Mi + 8Mi a vCPU
    pytest.param("v1.9", 715827882 + 260 * MI + 8 * MI, id="v1.9"),
])
def test_the_clusters_memory_overcommit_shrinks_the_request(version: str, expected: int) -> None:
    from krm_fn.kube.amount import NANO, nanos

    kubevirt = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
                "spec": {"configuration": {"developerConfiguration": {"memoryOvercommit": 150}}}}
    vm = _vm("a")
    vm["spec"]["template"]["spec"]["domain"] = {"devices": {}, "memory": {"guest": "1Gi"}}
    config = {**CONFIG, "spec": {"kubevirtVersion": version}}
    text, _ = main(Request("json", False, "fn.yaml", ("in.yaml",)), Source("fn.yaml", yaml.safe_dump(config).encode()),
                   [Source("in.yaml", yaml.safe_dump_all([kubevirt, vm]).encode())], Options())
    compute = json.loads(text)["vms"][0]["pod"]["containers"][0]
    assert nanos(compute["requests"]["memory"]) == expected * NANO


def test_a_vm_kubevirt_refuses_has_no_pod_and_says_why() -> None:
    vm = _vm("a", volumes=[{"name": "d", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}])
    vm["spec"]["template"]["spec"]["domain"]["devices"] = {"disks": [{"name": "d", "disk": {"bus": "sataa"}}]}
    report, code = _report([vm, _vm("b")])
    entries = {e["name"]: e for e in report["vms"]}
    assert code == 1
    assert entries["a"]["pod"] is None and entries["a"]["starts"] is False
    assert "is set with an unrecognized bus sataa" in entries["a"]["refused"]
    assert entries["b"]["starts"] is True and "refused" not in entries["b"]


@pytest.mark.parametrize("args", [["--output", "yaml"], ["-o", "json", "--output", "text"], ["--bogus"], []],
                         ids=["unknown-output", "output-twice", "unknown-option", "no-operands"])
def test_a_usage_error_is_one_line_and_exit_2(args: list[str]) -> None:
    operands = ["examples/capacity/fn-config.yaml", "examples/capacity/"] if args else []
    proc = run_fn(["resources", *args, *operands], cwd=REPO)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().count("\n") == 1 and proc.stderr.startswith(b"kubevirt-krm: error: ")


@pytest.mark.parametrize(("bad", "field"), [
    pytest.param(_quota({"requests.cpu": "abc"}), "spec.hard[requests.cpu]", id="quota-quantity"),
    pytest.param({**_quota({}), "spec": {"hard": ["cpu"]}}, "spec.hard", id="quota-not-a-mapping"),
    pytest.param({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "ns"},
                  "spec": {"limits": [{"type": "Container", "max": {"memory": [1]}}]}}, "spec.limits[0].max[memory]",
                 id="limitrange-quantity"),
    pytest.param({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "ns"},
                  "spec": {"limits": ["junk"]}}, "spec.limits[0]", id="limitrange-item"),
])
def test_a_quota_or_limit_range_the_api_server_refuses_is_one_line(tmp_path: Path, bad: dict[str, Any],
                                                                   field: str) -> None:
    (tmp_path / "in.yaml").write_text(yaml.safe_dump_all([bad, _vm("a")]), encoding="utf-8")
    (tmp_path / "fn.yaml").write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    proc = run_fn(["resources", str(tmp_path / "fn.yaml"), str(tmp_path / "in.yaml")])
    said = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"" and said.count("\n") == 1, said
    assert f" {field}: the API server would refuse this {bad['kind']}: " in said and "Traceback" not in said
    # in a render with the report on: an error result on the object, the rest rendered
    config = {**CONFIG, "spec": {**CONFIG["spec"], "mode": "validate", "capacity": {"report": True}}}
    (tmp_path / "fn.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    render = run_fn([str(tmp_path / "fn.yaml"), str(tmp_path / "in.yaml")])
    assert render.returncode == 1 and f"{field}: the API server would refuse" in render.stderr.decode()
