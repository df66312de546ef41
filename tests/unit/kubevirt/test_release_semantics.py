"""Semantics per release (issue 24 item 4): the behaviour switches of ``krm_fn.kubevirt_versions.Release``, one
test per row of the summary table (``shared/docs/kubevirt-releases.md`` section 6) that the per-release
conformance (``tests/test_conformance_releases.py``) does not already show, and the table itself."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from krm_fn.index import Index
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.apply.vmi import VM_BASE, apply_to_vmi
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.expand import expand
from krm_fn.kubevirt.find.found import FindError, Found
from krm_fn.kubevirt.find.spec import find_spec
from krm_fn.kubevirt.pipeline import vm_stages
from krm_fn.kubevirt.revision import revision_data
from krm_fn.kubevirt.schema.roundtrip import encode_object
from krm_fn.kubevirt.preference.apply.vmi import apply_preference
from krm_fn.kubevirt.webhooks.admission import decide
from krm_fn.kubevirt_versions import RELEASES, Release
from tests.builders import instancetype, make_object, make_vm, preference
from tests.engine_support import as_stored

LINES = list(RELEASES)
# every switch and the release lines where it is on (the summary table; v1.10 answers as v1.9)
SWITCHES: dict[str, set[str]] = {
    "alpha_versions_served": {"v1.5"},
    "alpha_revisions_decoded": {"v1.5", "v1.6"},
    "matcher_kind_defaulted": {"v1.5", "v1.6"},
    "missing_reference_refused": {"v1.5"},
    "expand_memory_request": {"v1.5"},
    # shared/conformance-vms case 278 (vmMutate's machine type)
    "ppc64le_machine_type": {"v1.5", "v1.6"},
    "memory_conflict_whole": {"v1.5", "v1.6"},
    "infer_matcher_message": {"v1.5", "v1.6"},
    "panic_device_model": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    "architecture_preference": {"v1.7", "v1.8", "v1.9", "v1.10"},
    "io_threads": {"v1.7", "v1.8", "v1.9", "v1.10"},
    "panic_device_created": {"v1.9", "v1.10"},
    "video_type": {"v1.9", "v1.10"},
    "launch_security_pref": {"v1.9", "v1.10"},
    "launch_security_warning": {"v1.9", "v1.10"},
    "infer_snapshot_sources": {"v1.9", "v1.10"},
    # shared/conformance-vms case 170 (each release's answer)
    "block_size_bus_checked": {"v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms case 093
    "acpi_msdm": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms case 011
    "wait_as_receiver": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms case 068 (v1.5), 288-292 (v1.6, whose code panics on 068)
    "dedicated_memory_sources": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/docs/kubevirt-releases.md 4.6; shared/conformance-vms case 119 (PasstBinding, Beta, no KubeVirt CR)
    "beta_gates_on": {"v1.9", "v1.10"},
    # shared/docs/pod-resources.md (vmRolloutStrategy); shared/conformance-vms case 040
    "live_update_default": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms case 046
    "hugepages_page_size_field": {"v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms cases 266, 269
    "launch_security_arch": {"v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms case 172
    "empty_cdrom": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms cases 117, 118
    "discontinued_bindings": {"v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms cases 114, 115
    "binding_required": {"v1.9", "v1.10"},
    # shared/conformance-vms case 138
    "port_field": {"v1.9", "v1.10"},
    # shared/conformance-vms cases 153, 154
    "dra_pairs_checked": {"v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms case 154
    "resource_claims_checked": {"v1.9", "v1.10"},
    # shared/conformance-vms cases 250, 251
    "grace_checked": {"v1.9", "v1.10"},
    # shared/conformance-vms case 282; the vmMutate objects of every case (uuid, annotation)
    "datasource_architecture": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    "firmware_uuid_stored": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    "pci_topology_annotation": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/reference/kubevirt-releases/v1.6.6/swagger.json: VirtualMachinePoolSpec.maxUnavailable
    "pool_max_unavailable": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/conformance-vms case 146 (pod.error)
    "binding_word_fixed": {"v1.7", "v1.8", "v1.9", "v1.10"},
    # shared/docs/pod-resources.md section 7 (rows 4, 5, 6, 7, 12, 13, 19, 20, 22); the pod stage of every case
    "video_overhead_doubled": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    "console_log_sidecar": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    "device_claims": {"v1.6", "v1.7", "v1.8", "v1.9", "v1.10"},
    "reserved_overhead": {"v1.8", "v1.9", "v1.10"},
    "passt_memory": {"v1.8", "v1.9", "v1.10"},
    "image_digest_init": {"v1.7", "v1.8", "v1.9", "v1.10"},
    "tdx_iommufd_devices": {"v1.9", "v1.10"},
    "qemu_overhead_raised": {"v1.10"},
}


def test_the_switches_are_on_where_the_summary_table_says() -> None:
    switches = [f for f in Release._fields if f not in ("object_version", "builtins", "tag")]
    assert sorted(switches) == sorted(SWITCHES)
    for field, lines in SWITCHES.items():
        assert {line for line, row in RELEASES.items() if getattr(row, field)} == lines, field


def _vmi(template_spec: Obj) -> tuple[Obj, Obj]:
    return json.loads(json.dumps(template_spec)), {}


# --- served versions: v1.5 serves the alphas with a deprecation warning, v1.6 refuses them ---------------------
@pytest.mark.parametrize(("api_version", "kind", "plural"), [
    ("instancetype.kubevirt.io/v1alpha1", "VirtualMachineInstancetype", "VirtualMachineInstancetypes"),
    ("instancetype.kubevirt.io/v1alpha2", "VirtualMachineClusterInstancetype", "VirtualMachineClusterInstanceTypes"),
    ("instancetype.kubevirt.io/v1alpha2", "VirtualMachinePreference", "VirtualMachinePreferences"),
])
def test_v1_5_serves_the_alpha_versions_with_a_deprecation_warning(api_version: str, kind: str, plural: str) -> None:
    spec = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}} if "Instancetype" in kind else {}
    obj = {**make_object(kind, "x", spec, namespace=None if "Cluster" in kind else "ns1"), "apiVersion": api_version}
    decision = decide(obj, RELEASES["v1.5"].tag)
    assert decision.allowed
    assert [w.message for w in decision.warnings] == \
        [f"{api_version} {plural} is now deprecated and will be removed in v1."]
    for line in ("v1.6", "v1.9"):
        refused = decide(obj, RELEASES[line].tag)
        assert refused.stage == "version" and f'no matches for kind "{kind}" in version "{api_version}"' \
            in str(refused.message), line


# --- revisions holding alpha data: decoded (and converted) by v1.5 and v1.6, a decode error from v1.7 ----------
def _pinned_vm(data: Obj) -> tuple[Obj, Index]:
    cr = make_object("ControllerRevision", "rev", {}, namespace="ns1")
    del cr["spec"]
    cr["data"] = data
    vm = make_vm(instancetype={"name": "it", "kind": "VirtualMachineClusterInstancetype", "revisionName": "rev"})
    return vm, Index([cr])


ALPHA_OBJECT: Obj = {"apiVersion": "instancetype.kubevirt.io/v1alpha2", "kind": "VirtualMachineClusterInstancetype",
                     "metadata": {"name": "it"},
                     "spec": {"cpu": {"guest": 2, "model": "", "dedicatedCPUPlacement": False},
                              "memory": {"guest": "1Gi"}}}
SPEC_REVISION: Obj = {"apiVersion": "instancetype.kubevirt.io/v1alpha1",
                      "spec": base64.b64encode(json.dumps(ALPHA_OBJECT["spec"]).encode()).decode()}


@pytest.mark.parametrize("data", [ALPHA_OBJECT, SPEC_REVISION], ids=["object", "spec-revision"])
def test_alpha_revisions_decode_up_to_v1_6_converted(data: Obj) -> None:
    vm, index = _pinned_vm(data)
    for line in ("v1.5", "v1.6"):
        found = find_spec(vm, "instancetype", index, tag=RELEASES[line].tag)
        assert isinstance(found, Found) and found.kind == "VirtualMachineClusterInstancetype", line
        # the alphas' zero values meant unset: v1beta1's pointers stay empty (a VM may set them)
        assert found.spec == {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}}, line
    for line in ("v1.7", "v1.9"):
        with pytest.raises(FindError) as err:
            find_spec(vm, "instancetype", index, tag=RELEASES[line].tag)
        assert err.value.message.startswith("failed to decode object in ControllerRevision: "), line


# --- an empty matcher kind: filled by v1.5/v1.6's mutating webhook, left empty from v1.7 -----------------------
def test_v1_5_and_v1_6_default_an_empty_matcher_kind() -> None:
    vm = make_vm(instancetype={"name": "it"}, preference={"name": "pref"})
    index = Index([instancetype(), preference()])
    kinds = {line: [(vm_stages(vm, index, ClusterConfig(), release=row).mutated or {})["spec"][f].get("kind")
                    for f in ("instancetype", "preference")] for line, row in RELEASES.items()}
    assert kinds["v1.5"] == kinds["v1.6"] == ["virtualmachineclusterinstancetype", "virtualmachineclusterpreference"]
    assert kinds["v1.7"] == kinds["v1.9"] == [None, None]
    assert "kind" not in vm["spec"]["instancetype"]  # the input is never changed


# --- memory conflicts: any domain.memory in v1.5/v1.6, field-level from v1.7 -----------------------------------
@pytest.mark.parametrize("memory", [{}, {"hugepages": {"pageSize": "2Mi"}}])
def test_any_domain_memory_conflicts_before_v1_7(memory: Obj) -> None:
    for line, row in RELEASES.items():
        vmi, meta = _vmi({"domain": {"memory": memory}})
        conflicts = apply_to_vmi(VM_BASE, instancetype()["spec"], None, vmi, meta, row)
        if row.memory_conflict_whole:
            assert [str(c) for c in conflicts] == ["spec.template.spec.domain.memory"], line
        else:
            assert conflicts == [] and vmi["domain"]["memory"] == {**memory, "guest": "2Gi"}, line


# --- preferredPanicDeviceModel: unknown in v1.5, fills existing devices v1.6+, creates one v1.9+ ----------------
@pytest.mark.parametrize("devices", [[], [{}], [{"model": "isa"}, {}]], ids=["none", "one", "two"])
def test_preferred_panic_device_model_per_release(devices: list[Obj]) -> None:
    pref = preference(devices={"preferredPanicDeviceModel": "hyperv"})["spec"]
    for line, row in RELEASES.items():
        vmi, meta = _vmi({"domain": {"devices": {"panicDevices": devices} if devices else {}}})
        apply_preference(pref, vmi, meta, row)
        got = vmi["domain"]["devices"].get("panicDevices")
        if not row.panic_device_model:
            want: Any = devices or None
        elif not devices:
            want = [{"model": "hyperv"}] if row.panic_device_created else None
        else:
            want = [{"model": d.get("model", "hyperv")} for d in devices]
        assert got == want, line


# --- preferences the older appliers do not have (even when a field reaches them) -------------------------------
def test_video_launch_security_and_architecture_preferences_per_release() -> None:
    pref = preference(devices={"preferredVideoType": "virtio"}, preferredLaunchSecurity={"sev": {}},
                      preferredArchitecture="arm64")["spec"]
    for line, row in RELEASES.items():
        vmi, meta = _vmi({"domain": {}})
        apply_preference(pref, vmi, meta, row)
        assert ("video" in vmi["domain"].get("devices", {})) is row.video_type, line
        assert ("launchSecurity" in vmi["domain"]) is row.launch_security_pref, line
        assert (vmi.get("architecture") == "arm64") is row.architecture_preference, line


# --- the instancetype's launchSecurity draws the deprecation warning from v1.9 only ----------------------------
def test_launch_security_warning_from_v1_9() -> None:
    obj = instancetype(launchSecurity={"sev": {}})
    for line, row in RELEASES.items():
        decision = decide(obj, row.tag)
        assert decision.allowed
        assert bool(decision.warnings) is row.launch_security_warning, line


# --- inferFromVolume: a DataSource with a VolumeSnapshot source before v1.9 -----------------------------------
def test_data_source_with_snapshot_before_v1_9_is_an_ignorable_error_in_the_old_words() -> None:
    ds = make_object("DataSource", "ds", {"source": {"snapshot": {"name": "snap", "namespace": "ns1"}}},
                     namespace="ns1")
    snap = make_object("VolumeSnapshot", "snap", {}, namespace="ns1",
                       labels={"instancetype.kubevirt.io/default-instancetype": "it"})
    vm = make_vm(instancetype={"inferFromVolume": "root"},
                 dataVolumeTemplates=[{"metadata": {"name": "dv"},  # a storage target, as CDI requires
                                       "spec": {"sourceRef": {"kind": "DataSource", "name": "ds"},
                                                "storage": {"resources": {"requests": {"storage": "1Gi"}}}}}])
    vm["spec"]["template"]["spec"]["volumes"] = [{"name": "root", "dataVolume": {"name": "dv"}}]
    index = Index([ds, snap, instancetype()])
    messages = {line: (vm_stages(vm, index, ClusterConfig(), release=row).rejection or None)
                for line, row in RELEASES.items()}
    assert messages["v1.9"] is None
    old = messages["v1.8"]
    assert old is not None and old.stage == "mutate" and old.message.endswith(
        "the request: unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC")


@pytest.mark.parametrize("field", ["name", "kind"])
def test_infer_from_volume_with_a_name_or_kind_in_each_release_words(field: str) -> None:
    matcher = {"inferFromVolume": "root", field: "x"}
    vm = make_vm(preference=matcher)
    for line, row in RELEASES.items():
        rejection = vm_stages(vm, Index([]), ClusterConfig(), release=row).rejection
        assert rejection is not None and rejection.field_path == f"spec.preference.{field}", line
        word = field.title()
        assert rejection.message.endswith(
            f"{word} should not be provided when InferFromVolume is used within the PreferenceMatcher"
            if row.infer_matcher_message else f"{word} already set, should be cleared before setting inferFromVolume")


# --- v1.5's VMI defaults: a memory request, from the limit first ----------------------------------------------
# the memory part of setDefaultResourceRequests that PR #15681 removed (kubevirt-releases.md 1.6; read in the
# upstream tree where it still lived in pkg/virt-api/webhooks/defaults.go, the v1.5.3 file itself was not at
# hand): a non-zero limit replaces a *zero* request too (``!Limits.Memory().IsZero() &&
# Requests.Memory().IsZero()``); the guest memory is taken only when it is set and ``Value() > 0`` (no fallback
# to the page size then); a page size that does not parse gives nothing
@pytest.mark.parametrize(("resources", "memory", "want"), [
    ({"limits": {"memory": "3Gi"}}, {"guest": "2Gi"}, "3Gi"),
    ({}, {"hugepages": {"pageSize": "1Gi"}}, "1Gi"),
    ({"requests": {"memory": "1Gi"}}, {"guest": "2Gi"}, "1Gi"),
    ({"requests": {"memory": "0"}, "limits": {"memory": "3Gi"}}, {"guest": "2Gi"}, "3Gi"),
    ({"requests": {"memory": "0"}}, {"guest": "2Gi"}, "0"),
    ({}, {"guest": "0", "hugepages": {"pageSize": "2Mi"}}, None),
    ({}, {"guest": "-1Gi"}, None),
    ({}, {"hugepages": {"pageSize": "huge"}}, None),
])
def test_v1_5_expand_sets_a_memory_request(resources: Obj, memory: Obj, want: str) -> None:
    for line, row in RELEASES.items():
        vm = make_vm({"domain": {"devices": {}, "resources": dict(resources), "memory": dict(memory)}},
                     preference={"name": "pref"})
        expanded = expand(vm, None, {}, ClusterConfig(), row)
        assert isinstance(expanded, dict)
        got = expanded["spec"]["template"]["spec"]["domain"]["resources"].get("requests", {}).get("memory")
        assert got == (want if row.expand_memory_request else resources.get("requests", {}).get("memory")), line


# --- v1.5's Go types: a GPU's or host device's deviceName has no omitempty (v1.5.3 swagger.json requires it;
# --- kubevirt-releases.md addendum: "v1.5 always writes deviceName: ''") ----------------------------------------
def test_v1_5_writes_an_empty_device_name() -> None:
    it = instancetype(gpus=[{"name": "gpu1", "claimName": "c", "requestName": "r"}],
                      hostDevices=[{"name": "hd", "deviceName": "intel.com/qat"}])
    # the gates the webhook wants for hostDevices and DRA GPUs, and the claim declared (v1.6+ knows resourceClaims)
    claimed = make_vm(instancetype={"name": "it"})
    claimed["spec"]["template"]["spec"]["resourceClaims"] = [{"name": "c", "resourceClaimName": "x"}]
    gates = ClusterConfig(feature_gates=("HostDevices", "GPUsWithDRA"))
    for line, row in RELEASES.items():
        vm = make_vm(instancetype={"name": "it"}) if line == "v1.5" else claimed
        stages = vm_stages(vm, Index(as_stored([it], row.tag)), gates, release=row)
        assert stages.rejection is None and stages.expanded is not None, line
        devices = stages.expanded["spec"]["template"]["spec"]["domain"]["devices"]
        gpu = {"name": "gpu1", "deviceName": ""} if line == "v1.5" else {"name": "gpu1", "claimName": "c",
                                                                           "requestName": "r"}
        assert (devices["gpus"], devices["hostDevices"]) == ([gpu], [{"name": "hd", "deviceName": "intel.com/qat"}]), \
            line
        found = stages.found["instancetype"]
        assert isinstance(found, Found) and found.obj is not None
        assert revision_data(found.obj, found.kind, row.tag)["spec"]["gpus"] == [gpu], line


def test_v1_5_and_v1_6_write_a_zero_custom_block_size() -> None:
    """v1.5.3's and v1.6.6's swagger.json require ``logical`` and ``physical`` (with ``default: 0``): no
    ``omitempty`` before v1.7, whose ``discardGranularity`` came with it, so a zero is written back."""
    disk = {"name": "d", "blockSize": {"custom": {"logical": 0, "physical": 512}}}
    vm = make_vm({"domain": {"devices": {"disks": [disk]}}})
    for line, row in RELEASES.items():
        got = encode_object(vm, "v1.VirtualMachine", row.tag)["spec"]["template"]["spec"]["domain"]["devices"]
        custom = {"logical": 0, "physical": 512} if line in ("v1.5", "v1.6") else {"physical": 512}
        assert got["disks"] == [{"name": "d", "blockSize": {"custom": custom}}], line


# --- which refusal comes first, per release (kubevirt-releases.md 8.1; 1.2 for v1.5's lookup refusal) ---------
def _answers(vm: Obj, objects: list[Obj]) -> dict[str, tuple[str, str] | None]:
    out: dict[str, tuple[str, str] | None] = {}
    for line, row in RELEASES.items():
        r = vm_stages(vm, Index(objects), ClusterConfig(), release=row).rejection
        out[line] = (r.stage, r.error) if r is not None else None
    return out


MISSING_IT = 'virtualmachineclusterinstancetypes.instancetype.kubevirt.io "nope" not found'
MISSING_PREF = 'virtualmachineclusterpreferences.instancetype.kubevirt.io "nope" not found'


def test_v1_5_names_the_missing_instancetype_before_the_missing_preference() -> None:
    """1.2: the preference is looked up only once the instancetype was found; v1.6+ fail at expand, on the
    instancetype first as well."""
    answers = _answers(make_vm(instancetype={"name": "nope"}, preference={"name": "nope"}), [])
    assert answers.pop("v1.5") == ("admit", f"Failure to find instancetype: {MISSING_IT}")
    assert set(answers.values()) == {("expand", MISSING_IT)}


def test_v1_5_refuses_a_failed_lookup_before_spread_conflicts_and_requirements() -> None:
    """8.1: the lookup comes first in v1.5's ApplyToVM; v1.6+ ignore it there and judge what was found."""
    pref = preference(requirements={"memory": {"guest": "8Gi"}}, cpu={"preferredCPUTopology": "spread"})
    vm = make_vm({"domain": {"devices": {}, "cpu": {"sockets": 2}}}, instancetype={"name": "it", "kind": "bogus"},
                 preference={"name": "pref"})
    answers = _answers(vm, [instancetype(cpu=3), pref])
    assert answers.pop("v1.5") == ("admit", "Failure to find instancetype: got unexpected kind in "
                                            "InstancetypeMatcher: bogus")
    # the instancetype is absent for v1.6+: no spread check, no conflict; the memory requirement fails on the
    # VM's own (defaulted) memory (1.2 "Consequence")
    assert set(answers.values()) == {("admit", "failure checking preference requirements: insufficient Memory "
                                               "resources of 0 provided by VirtualMachine, preference requires 8Gi")}
    vm["spec"]["instancetype"] = {"name": "it"}
    vm["spec"]["preference"] = {"name": "nope"}
    answers = _answers(vm, [instancetype(cpu=3), pref])
    assert answers.pop("v1.5") == ("admit", f"Failure to find preference: {MISSING_PREF}")
    assert set(answers.values()) == {("admit", "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with "
                                               "selected instance type")}


def test_the_schema_refuses_before_v1_5_looks_anything_up() -> None:
    vm = make_vm({"domain": {"devices": {"video": {"type": "vga"}}}}, instancetype={"name": "nope"})
    answers = _answers(vm, [])
    assert answers.pop("v1.5") == ("schema", "spec.template.spec.domain.devices.video in body is a forbidden property")
    # v1.6-v1.8 admit a VM whose instancetype is missing, and judge its template: VideoConfig is off there
    # (shared/docs/kubevirt-releases.md section 6, conformance-vms case 235); from v1.9 the gate is GA
    gate_off = ("template", "Video configuration is specified but the VideoConfig feature gate is not enabled")
    assert answers == {"v1.6": gate_off, "v1.7": gate_off, "v1.8": gate_off,
                       "v1.9": ("expand", MISSING_IT), "v1.10": ("expand", MISSING_IT)}


def test_several_conflicts_with_domain_memory_per_release() -> None:
    """2.4: before v1.7 any ``domain.memory`` is the one memory conflict (the request is not reached); from v1.7
    a page size only the VM sets is not one, the memory request is; the CPU conflict comes first in both."""
    vm = make_vm({"domain": {"devices": {}, "cpu": {"sockets": 2}, "memory": {"hugepages": {"pageSize": "2Mi"}},
                             "resources": {"requests": {"memory": "1Gi"}}}}, instancetype={"name": "it"})
    answers = _answers(vm, [instancetype()])
    cpu = "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type, "
    for line, got in answers.items():
        memory = "memory" if RELEASES[line].memory_conflict_whole else "resources.requests.memory"
        assert got == ("admit", f"{cpu}VM field(s) spec.template.spec.domain.{memory} conflicts with selected "
                                "instance type"), line


# --- revisionName: a revision of the other kind of the same family is used, of the other family refused --------
def test_a_revision_of_the_other_kind_is_used_and_one_of_a_preference_is_not() -> None:
    """0.2 / 2.6: the revision is decoded by its Go type, whatever kind the matcher names (compatibility's type
    switch takes either instancetype kind; a preference is ``unexpected type``), in every release (v1.5 refuses
    that lookup error at admission, 1.2)."""
    it_rev: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "it-rev", "namespace": "ns1"},
              "data": {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
                       "metadata": {"name": "it"}, "spec": {"cpu": {"guest": 3}, "memory": {"guest": "1Gi"}}}}
    pref_rev = {**it_rev, "metadata": {"name": "pref-rev", "namespace": "ns1"},
                "data": {**it_rev["data"], "kind": "VirtualMachineClusterPreference", "spec": {}}}
    matcher = {"name": "it", "kind": "VirtualMachineInstancetype"}
    used = make_vm(instancetype={**matcher, "revisionName": "it-rev"})
    refused = make_vm(instancetype={**matcher, "revisionName": "pref-rev"})
    for line, row in RELEASES.items():
        stages = vm_stages(used, Index([it_rev, pref_rev]), ClusterConfig(), release=row)
        assert stages.expanded is not None, line
        assert stages.expanded["spec"]["template"]["spec"]["domain"]["cpu"]["sockets"] == 3, line
        rejection = vm_stages(refused, Index([it_rev, pref_rev]), ClusterConfig(), release=row).rejection
        error = "unexpected type in ControllerRevision: *v1beta1.VirtualMachineClusterPreference"
        want = ("admit", f"Failure to find instancetype: {error}") if row.missing_reference_refused \
            else ("expand", error)
        assert rejection is not None and (rejection.stage, rejection.error) == want, line


# --- matcher kinds after inferFromVolume (2.1: v1.5/v1.6 fill them even after inference) -----------------------
def test_inferred_matchers_without_a_kind_label_get_the_cluster_kind_before_v1_7() -> None:
    labels = {"instancetype.kubevirt.io/default-instancetype": "it", "instancetype.kubevirt.io/default-preference": "pref"}
    pvc = make_object("PersistentVolumeClaim", "pvc", {}, namespace="ns1", labels=labels)
    vm = make_vm({"domain": {"devices": {}}, "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": "pvc"}}]},
                 instancetype={"inferFromVolume": "root"}, preference={"inferFromVolume": "root"})
    for line, row in RELEASES.items():
        mutated = vm_stages(vm, Index([pvc, instancetype(), preference()]), ClusterConfig(), release=row).mutated
        assert mutated is not None, line
        kinds = [mutated["spec"][f].get("kind") or "" for f in ("instancetype", "preference")]
        assert kinds == (["virtualmachineclusterinstancetype", "virtualmachineclusterpreference"]
                         if row.matcher_kind_defaulted else ["", ""]), line
