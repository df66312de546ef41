"""Issue 15, point 1, end to end through ``krm_fn.process.process``: an instancetype or preference KubeVirt would
refuse gets an error result naming it (resourceRef, field path, KubeVirt's message) in every mode, a VM using it
gets one too (that object will not exist in the cluster), and the run exits 1; warnings exit 0.

Expected causes are upstream's texts: ``pkg/instancetype/webhooks/admitter.go`` and
``pkg/instancetype/preference/webhooks/admitter.go``; the webhook names are those of
``pkg/virt-operator/resource/generate/components/webhooks.go``; the API server frames a rejection by an admission
webhook as ``admission webhook "<name>" denied the request: <causes>``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.process import Options, process
from tests import builders

V1BETA1 = "instancetype.kubevirt.io/v1beta1"
IT_WEBHOOK = 'admission webhook "virtualmachineclusterinstancetype-validator.instancetype.kubevirt.io" denied ' \
             'the request: '
PREF_WEBHOOK = 'admission webhook "virtualmachineclusterpreference-validator.instancetype.kubevirt.io" denied ' \
               'the request: '
MODES = ("revisions", "expand", "validate", "migrate")


def instancetype(name: str = "it", cpu: Any = None, **memory: Any) -> dict[str, Any]:
    return {"apiVersion": V1BETA1, "kind": "VirtualMachineClusterInstancetype", "metadata": {"name": name},
            "spec": {"cpu": {"guest": 4} if cpu is None else cpu, "memory": {"guest": "2Gi", **memory}}}


def preference(name: str = "pref", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": V1BETA1, "kind": "VirtualMachineClusterPreference", "metadata": {"name": name},
            "spec": spec}


def vm(name: str = "vm", **matchers: Any) -> dict[str, Any]:
    return builders.vm(name, **matchers, runStrategy="Halted")


def renderer(mode: str, **spec: Any) -> dict[str, Any]:
    return builders.renderer(mode, **{"catalog": builders.NO_CATALOG, **spec})


def run(items: list[Any], config: dict[str, Any], base_dir: Path | None = None) -> tuple[list[dict[str, Any]], int]:
    rl, code = builders.run_krm(items, config, Options(base_dir=base_dir))
    return builders.problems(rl), code


def about(results: list[dict[str, Any]], kind: str, name: str) -> list[dict[str, Any]]:
    """The results about one object, but those of the migrate step (its own rewrites, tagged ``migrate``)."""
    return [r for r in results if r.get("resourceRef", {}).get("kind") == kind
            and r.get("resourceRef", {}).get("name") == name and r.get("tags", {}).get("stage") != "migrate"]


IT_INVALID = 'VirtualMachineClusterInstancetype.instancetype.kubevirt.io "it" is invalid: '
OVER_100 = (IT_INVALID + "spec.memory.overcommitPercent: Invalid value: 150: spec.memory.overcommitPercent in body "
                         "should be less than or equal to 100")
# the issue's examples: (object, field, message the object is refused with)
CASES = [
    # the CRD bounds it (0..100): the API server refuses it before the webhook, in its words (issue 23, item 6)
    pytest.param(instancetype(overcommitPercent=150), "spec.memory.overcommitPercent", OVER_100,
                 id="overcommit-150"),
    pytest.param(instancetype(overcommitPercent=10, hugepages={"pageSize": "2Mi"}), "spec.memory.overcommitPercent",
                 IT_WEBHOOK + "spec.memory.overcommitPercent and spec.memory.hugepages should not be requested "
                              "together.", id="overcommit-with-hugepages"),
    # the CRD (required: [guest]) refuses it before the webhook, in the API server's words
    pytest.param(instancetype(cpu={}), "spec.cpu.guest", IT_INVALID + "spec.cpu.guest: Required value",
                 id="no-cpu.guest"),
    pytest.param(preference(cpu={"preferredCPUTopology": "bogus"}), "spec.cpu.preferredCPUTopology",
                 PREF_WEBHOOK + "unknown preferredCPUTopology bogus", id="topology-bogus"),
    pytest.param(preference(cpu={"preferredCPUTopology": "spread", "spreadOptions": {"across": "Nowhere"}}),
                 "spec.cpu.spreadOptions.across", PREF_WEBHOOK + "across Nowhere is not supported",
                 id="across-nowhere"),
    pytest.param(preference(cpu={"preferredCPUTopology": "spread",
                                 "spreadOptions": {"across": "CoresThreads", "ratio": 3}}),
                 "spec.cpu.spreadOptions.ratio",
                 PREF_WEBHOOK + "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores "
                                "and threads", id="cores-threads-ratio-3"),
    pytest.param(preference(preferSpreadSocketToCoreRatio=3,
                            cpu={"preferredCPUTopology": "preferSpread", "spreadOptions": {"across": "CoresThreads"}}),
                 "spec.cpu.spreadOptions.ratio",
                 PREF_WEBHOOK + "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores "
                                "and threads", id="cores-threads-legacy-ratio-3"),
]


def _uses(obj: dict[str, Any]) -> dict[str, Any]:
    family = "instancetype" if "Instancetype" in obj["kind"] else "preference"
    return {family: {"name": obj["metadata"]["name"]}}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("obj", "field", "message"), CASES)
def test_refused_object_and_the_vm_using_it(mode: str, obj: dict[str, Any], field: str, message: str) -> None:
    ok = vm("ok")
    results, code = run([obj, vm("uses-it", **_uses(obj)), ok], renderer(mode))
    assert code == 1
    assert about(results, obj["kind"], obj["metadata"]["name"]) == [{
        "message": message, "severity": "error",
        "resourceRef": {"apiVersion": V1BETA1, "kind": obj["kind"], "name": obj["metadata"]["name"]},
        "field": {"path": field}, "tags": {"stage": "webhook" if message.startswith("admission") else "validate"}}]
    assert about(results, "VirtualMachine", "ok") == []
    used = about(results, "VirtualMachine", "uses-it")
    if mode == "migrate":  # migrate rewrites legacy objects only; VMs are not rendered against anything
        assert used == []
        return
    family = next(iter(_uses(obj)))
    assert [(r["severity"], r["field"]["path"]) for r in used] == [("error", f"spec.{family}")]
    assert used[0]["message"] == (f"the {obj['kind']} {obj['metadata']['name']!r} this VM uses would be refused by "
                                  f"the cluster, so it will not exist there: {message}")


def test_every_problem_of_an_object_is_reported() -> None:
    it = instancetype(cpu={}, overcommitPercent=150, hugepages={"pageSize": "2Mi"})
    results, code = run([it, vm(instancetype={"name": "it"})], renderer("validate"))
    assert code == 1
    # every error of the first refusing stage (the API server's); the webhook is not reached
    assert [(r["field"]["path"], r["message"]) for r in about(results, it["kind"], "it")] == [
        ("spec.cpu.guest", IT_INVALID + "spec.cpu.guest: Required value"),
        ("spec.memory.overcommitPercent", OVER_100),
    ]
    vm_results = about(results, "VirtualMachine", "vm")
    assert len(vm_results) == 1 and vm_results[0]["message"].endswith(
        IT_INVALID + "[spec.cpu.guest: Required value, " + OVER_100.removeprefix(IT_INVALID) + "]")


@pytest.mark.parametrize("mode", ("revisions", "expand", "validate"))
def test_warnings_keep_the_exit_code_zero(mode: str) -> None:
    """KubeVirt admits these with a warning: a warning result each, the VM renders as before."""
    pref = preference(cpu={"preferredCPUTopology": "preferCores"})
    # SEV (its gate Beta, so on, in v1.9) with the UEFI firmware it needs: the VM webhook admits it
    it = {**instancetype(), "spec": {**instancetype()["spec"], "launchSecurity": {"sev": {}}}}
    uefi = {"spec": {"domain": {"devices": {}, "firmware": {"bootloader": {"efi": {"secureBoot": False}}}}}}
    results, code = run([it, pref, vm(instancetype={"name": "it"}, preference={"name": "pref"}, template=uefi)],
                        renderer(mode))
    assert code == 0
    assert [(r["severity"], r["resourceRef"]["kind"], r["field"]["path"], r["message"]) for r in results] == [
        ("warning", it["kind"], "spec.launchSecurity",
         "launchSecurity is deprecated and will be removed in a future release. Use preference instead."),
        ("warning", pref["kind"], "spec.cpu.preferredCPUTopology",
         "PreferredCPUTopology preferCores is deprecated for removal in a future release, please use cores instead"),
    ]


def test_migrate_checks_the_objects_it_would_write() -> None:
    """``migrate: true`` rewrites preferCores to cores first: what would be applied has nothing to warn about."""
    pref = preference(cpu={"preferredCPUTopology": "preferCores"})
    results, code = run([pref], renderer("validate", migrate=True))
    assert code == 0 and about(results, pref["kind"], "pref") == []


def test_objects_inside_list_wrappers_are_checked() -> None:
    obj = instancetype(overcommitPercent=150)
    results, code = run([{"apiVersion": "v1", "kind": "List", "metadata": {"name": "l"}, "items": [obj]}],
                        renderer("revisions"))
    assert code == 1 and [r["field"]["path"] for r in about(results, obj["kind"], "it")] == [
        "spec.memory.overcommitPercent"]


CATALOG = """\
sizes:
  small: {cpu: 2, memory: 2Gi}
series:
  cx:
    version: 1
    sizes: [small]
preferences:
  fine: {spec: {cpu: {preferredCPUTopology: spread}}}
  threads3: {spec: {cpu: {preferredCPUTopology: spread, spreadOptions: {across: CoresThreads, ratio: 3}}}}
"""
RATIO_ERROR = "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores and threads"


def _write_catalog(tmp_path: Path) -> Path:
    (tmp_path / "catalog.yaml").write_text(textwrap.dedent(CATALOG))
    return tmp_path


def test_a_vm_using_a_refused_object_of_the_fallback_catalog(tmp_path: Path) -> None:
    base = _write_catalog(tmp_path)
    config = renderer("expand", catalog={"path": "catalog.yaml"})
    results, code = run([vm("a", instancetype={"name": "cx1.small"}, preference={"name": "threads3"}),
                         vm("b", instancetype={"name": "cx1.small"}, preference={"name": "fine"})], config, base)
    assert code == 1
    assert [(r["resourceRef"]["name"], r["field"]["path"]) for r in results] == [("a", "spec.preference")]
    assert results[0]["message"] == (
        "the VirtualMachineClusterPreference 'threads3' this VM uses would be refused by the cluster, so it will "
        f"not exist there: {PREF_WEBHOOK}{RATIO_ERROR}")


def test_the_catalog_generator_reports_every_refused_object_it_emits(tmp_path: Path) -> None:
    base = _write_catalog(tmp_path)
    config = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "InstancetypeCatalog",
              "metadata": {"name": "gen"}, "spec": {"path": "catalog.yaml"}}
    results, code = run([], config, base)
    assert code == 1
    assert [(r["resourceRef"]["kind"], r["resourceRef"]["name"], r["field"]["path"], r["message"],
             r["file"]["path"]) for r in results] == [
        ("VirtualMachineClusterPreference", "threads3", "spec.cpu.spreadOptions.ratio", PREF_WEBHOOK + RATIO_ERROR,
         "virtualmachineclusterpreferences.yaml"),
        ("VirtualMachinePreference", "threads3", "spec.cpu.spreadOptions.ratio",
         'admission webhook "virtualmachinepreference-validator.instancetype.kubevirt.io" denied the request: '
         + RATIO_ERROR, "virtualmachinepreferences.yaml"),
    ]


def test_the_builtin_catalog_generates_without_a_problem() -> None:
    config = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "InstancetypeCatalog",
              "metadata": {"name": "gen"}, "spec": {}}
    results, code = run([], config)
    assert code == 0 and results == []


def test_a_vm_whose_inferred_instancetype_is_refused() -> None:
    """``inferFromVolume`` names the object through a PVC label: the VM still gets the error."""
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "disk", "namespace": "ns",
           "labels": {"instancetype.kubevirt.io/default-instancetype": "it"}}, "spec": {}}
    inferred = vm("inferred", instancetype={"inferFromVolume": "root"})
    inferred["spec"]["template"]["spec"]["volumes"] = [{"name": "root", "persistentVolumeClaim": {"claimName": "disk"}}]
    results, code = run([instancetype(overcommitPercent=150), pvc, inferred], renderer("expand"))
    assert code == 1
    used = about(results, "VirtualMachine", "inferred")
    assert [(r["severity"], r["field"]["path"]) for r in used] == [("error", "spec.instancetype")]
    assert used[0]["message"].endswith(OVER_100)


def test_validate_output_does_not_repeat_what_admission_said() -> None:
    """A migrated object is new output, so ``validateOutput`` checks it too: each problem is reported once."""
    legacy = {**instancetype(cpu={}), "apiVersion": "instancetype.kubevirt.io/v1alpha2"}
    results, code = run([legacy], renderer("migrate", validateOutput=True))
    assert code == 1
    assert [(r["field"]["path"], r["tags"]["stage"]) for r in about(results, legacy["kind"], "it")] == [
        ("spec.cpu.guest", "validate")]


def test_not_yet_said_drops_only_a_second_error_about_the_same_object_and_field() -> None:
    from krm_fn.results import Result, not_yet_said

    it, other = instancetype(), instancetype("other")
    said = [Result.for_object("admission", it, field_path="spec.cpu.guest"),
            Result.for_object("a warning", it, "warning", field_path="spec.launchSecurity")]
    more = [Result.for_object("output", it, field_path="spec.cpu.guest"),
            Result.for_object("output", it, field_path="spec.memory.guest"),
            Result.for_object("output", other, field_path="spec.cpu.guest"),
            Result.for_object("output", it, field_path="spec.launchSecurity")]
    assert not_yet_said(said, more) == more[1:]


# --- an object an older release refuses but later releases admit ---------------------------------------------
# Written for a later release: the older cluster's API refuses it (strict decoding, or a field only it requires),
# and its own code reads the object through its Go types, which is the release's answer for the VM
# (shared/conformance-releases: the harness's objects are decoded into the release's Go types, e.g. v1.8.4's
# 108-catalog-preference-windows.2k12.virtio has no video device).
VIDEO = {"preferredVideoType": "virtio"}  # devices.preferredVideoType: from v1.9 (kubevirt-releases.md 4.1)


def _full(items: list[Any], config: dict[str, Any]) -> tuple[dict[str, Any], int]:
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items, "functionConfig": config}
    out = process(yaml.safe_dump(rl, sort_keys=False).encode(), Options())
    return yaml.safe_load(out.data), out.exit_code


def _expanded(out: dict[str, Any]) -> dict[str, Any]:
    vm_out: dict[str, Any] = next(o for o in out["items"] if o["kind"] == "VirtualMachine")
    assert "instancetype" not in vm_out["spec"] and "preference" not in vm_out["spec"]  # expanded, not refused
    return vm_out


def test_a_vm_is_rendered_as_an_older_release_reads_an_object_written_for_a_later_one() -> None:
    items = [instancetype(), preference(devices=VIDEO), vm(instancetype={"name": "it"}, preference={"name": "pref"})]
    out, code = _full(items, renderer("expand", kubevirtVersion="v1.8"))
    assert code == 1
    results = out["results"]
    pref = about(results, "VirtualMachineClusterPreference", "pref")
    assert [(r["severity"], r["field"]["path"]) for r in pref] == [("error", "spec.devices.preferredVideoType")]
    assert pref[0]["message"].endswith('strict decoding error: unknown field "spec.devices.preferredVideoType"')
    used = about(results, "VirtualMachine", "vm")
    assert [(r["severity"], r["field"]["path"], r["tags"]["follows-from"]) for r in used] == [
        ("warning", "spec.preference", "spec.devices.preferredVideoType")]
    assert "refused by KubeVirt v1.8 but admitted by later releases" in used[0]["message"]
    assert "video" not in _expanded(out)["spec"]["template"]["spec"]["domain"]["devices"]
    # v1.9 knows the field: no result at all, and the video device is there
    out, code = _full(items, renderer("expand", kubevirtVersion="v1.9"))
    assert code == 0 and not [r for r in out.get("results") or [] if r["severity"] != "info"]
    assert _expanded(out)["spec"]["template"]["spec"]["domain"]["devices"]["video"] == {"type": "virtio"}


def test_a_field_only_the_older_release_requires() -> None:
    """A GPU claimed through DRA (no deviceName): v1.5's API requires deviceName and knows no claimName; its Go
    types drop claimName/requestName and always write deviceName (kubevirt-releases.md addendum; v1.5.3's
    swagger.json), so v1.5 expands the VM with ``deviceName: ""``; later releases keep the claim."""
    gpu = {"name": "gpu1", "claimName": "claim", "requestName": "req"}
    it = instancetype()
    it["spec"]["gpus"] = [gpu]
    items = [it, vm(instancetype={"name": "it"})]
    out, code = _full(items, renderer("expand", kubevirtVersion="v1.5"))
    assert code == 1
    assert {r["field"]["path"] for r in about(out["results"], "VirtualMachineClusterInstancetype", "it")} == {
        "spec.gpus[0].claimName", "spec.gpus[0].requestName"}
    assert [r["severity"] for r in about(out["results"], "VirtualMachine", "vm")] == ["warning"]
    assert _expanded(out)["spec"]["template"]["spec"]["domain"]["devices"]["gpus"] == [
        {"name": "gpu1", "deviceName": ""}]
    # v1.6 keeps the claim, behind the GPUsWithDRA gate and with the claim declared (case 154 of
    # shared/conformance-vms refuses it otherwise)
    claimed = vm(instancetype={"name": "it"}, template={"spec": {"domain": {"devices": {}},
                                                                  "resourceClaims": [{"name": "claim"}]}})
    out, code = _full([it, claimed], renderer("expand", kubevirtVersion="v1.6",
                                              cluster={"featureGates": ["GPUsWithDRA"]}))
    assert code == 0 and _expanded(out)["spec"]["template"]["spec"]["domain"]["devices"]["gpus"] == [gpu]
    out, code = _full(items, renderer("expand", kubevirtVersion="v1.6"))
    assert code == 1 and "contains DRA enabled GPUs but feature gate is not enabled" in json.dumps(out["results"])


@pytest.mark.parametrize("version", ["v1.8", "v1.9"])
def test_an_object_no_release_admits_still_refuses_its_vm(version: str) -> None:
    """A misspelt field is refused by every release: the VM is refused too (that object will not exist)."""
    items = [instancetype(), preference(devices={"preferedVideoType": "virtio"}),
             vm(instancetype={"name": "it"}, preference={"name": "pref"})]
    results, code = run(items, renderer("expand", kubevirtVersion=version))
    assert code == 1
    used = about(results, "VirtualMachine", "vm")
    assert [(r["severity"], r["field"]["path"]) for r in used] == [("error", "spec.preference")]
    assert 'unknown field "spec.devices.preferedVideoType"' in used[0]["message"]
