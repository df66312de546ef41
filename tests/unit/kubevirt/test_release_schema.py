"""Schema per release (issue 24 item 3): each row of ``krm_fn.kubevirt_versions`` reads objects with its own
tag's packaged schema (``tools/gen_schema.py``: ``shared/reference/kubevirt-releases/<tag>/swagger.json``): the
VM validator, the Go round trip, the specs the engine decodes, the object admission, the output checks and the
generator. Checked against ``shared/conformance-releases`` where a case shows it."""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.index import Index
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.find.object import find_object
from krm_fn.kubevirt.rejection import STAGE_PREFIX
from krm_fn.kubevirt.pipeline import vm_stages
from krm_fn.kubevirt.revision import revision_data
from krm_fn.kubevirt.schema.tree import BASE_TAG, TAGS, document, open_schema, release_diff, spec_schema
from krm_fn.kubevirt.schema.crd import definition, unknown_fields
from krm_fn.kubevirt.schema.roundtrip import encode_object
from krm_fn.kubevirt.schema.strict import problems
from krm_fn.kubevirt.schema.validation import validate_vm
from krm_fn.kubevirt.webhooks.admission import decide
from krm_fn.kubevirt_versions import RELEASES
from krm_fn.process import Options, process
from krm_fn.render.output import release_results
from tests.builders import instancetype, make_vm, preference, require_shared, shared_dir
from tests.engine_support import diff_paths
from tests.release_objects import release_differences

PREF = "VirtualMachineClusterPreference"
# a field, the object it is set on, and the first release line whose swagger.json has it (docs/kubevirt-releases.md
# section 7 and its Addendum)
FIELDS: list[tuple[str, Obj, str]] = [
    ("spec.devices.preferredVideoType", preference(devices={"preferredVideoType": "virtio"}), "v1.9"),
    ("spec.preferredLaunchSecurity", preference(preferredLaunchSecurity={"sev": {}}), "v1.9"),
    ("spec.devices.preferredPanicDeviceModel", preference(devices={"preferredPanicDeviceModel": "hyperv"}), "v1.6"),
    ("spec.preferredArchitecture", preference(preferredArchitecture="arm64"), "v1.7"),
    ("spec.requirements.architecture", preference(requirements={"architecture": "arm64"}), "v1.7"),
    ("spec.ioThreads", instancetype(ioThreads={"supplementalPoolThreadCount": 2}), "v1.7"),
    ("spec.launchSecurity.snp", instancetype(launchSecurity={"snp": {}}), "v1.7"),
]
LINES = list(RELEASES)


def _knows(line: str, since: str) -> bool:
    return LINES.index(line) >= LINES.index(since)


# --- the packaged documents ----------------------------------------------------------------------------------
def test_every_release_has_a_packaged_schema_compiled_once() -> None:
    assert set(TAGS) == {row.tag for row in RELEASES.values()}
    for tag in TAGS:
        assert spec_schema(tag) is spec_schema(tag) and open_schema(tag) is open_schema(tag)
        assert document(tag)["definitions"]["v1.VirtualMachineSpec"]


def test_v1_9_0_differs_from_main_only_outside_instancetypes() -> None:
    """docs/kubevirt-releases.md section 7: main equals v1.9.0 for everything instancetypes touch; the tags'
    swagger.json differ only in the VMI backup status (a changed-block-tracking status, not instancetype)."""
    assert set(release_diff("v1.9.0")) == {"v1.VirtualMachineInstanceBackupStatus", "v1alpha1.BackupVolumeInfo",
                                           "v1.VirtualMachineInstanceBackupVolumeInfo"}
    for name in ("v1beta1.VirtualMachineInstancetypeSpec", "v1beta1.VirtualMachinePreferenceSpec",
                 "v1.VirtualMachineSpec", "v1.DomainSpec", "v1.Devices"):
        assert document("v1.9.0")["definitions"][name] == document(BASE_TAG)["definitions"][name]


@pytest.mark.parametrize(("field", "obj", "since"), FIELDS, ids=[f[0] for f in FIELDS])
@pytest.mark.parametrize("line", LINES)
def test_fields_each_release_knows(field: str, obj: Obj, since: str, line: str) -> None:
    root = definition(f"v1beta1.{obj['kind']}", RELEASES[line].tag)
    assert (field not in unknown_fields(obj, root)) == _knows(line, since)


# --- the VM validator -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("key", "value", "since"), [
    ("video", {"type": "virtio"}, "v1.6"),
    ("panicDevices", [{"model": "hyperv"}], "v1.6"),
])
@pytest.mark.parametrize("line", LINES)
def test_vm_with_a_device_its_release_does_not_know_is_refused_at_schema(key: str, value: Any, since: str,
                                                                          line: str) -> None:
    vm = make_vm({"domain": {"devices": {key: value}}})
    want = [] if _knows(line, since) else \
        [f"spec.template.spec.domain.devices.{key} in body is a forbidden property"]
    assert validate_vm(vm, RELEASES[line].tag) == want
    # the devices' gates on (off by default before v1.9): what is judged here is the schema
    gates = ClusterConfig(feature_gates=("VideoConfig", "PanicDevices"))
    rejection = vm_stages(vm, Index([]), gates, release=RELEASES[line]).rejection
    assert (rejection is None) == _knows(line, since)
    if rejection is not None:
        assert (rejection.stage, rejection.message) == ("schema", STAGE_PREFIX["schema"] + want[0])


def test_v1_5_refuses_the_video_device_of_a_conformance_case() -> None:
    """shared/conformance-releases/v1.5.3 182-overrides-everything-user: refused at schema (main expands it)."""
    docs, expected = _conformance_case("v1.5.3", "182-overrides-everything-user")
    vm = next(d for d in docs if d.get("kind") == "VirtualMachine")
    for line in ("v1.5", "v1.6"):
        rejection = vm_stages(vm, Index(docs), ClusterConfig(), release=RELEASES[line]).rejection
        if line == "v1.5":
            assert expected[0]["errorStage"] == "schema" and rejection is not None
            assert (rejection.stage, rejection.message) == ("schema", STAGE_PREFIX["schema"] + expected[0]["error"])
        else:
            assert rejection is None or rejection.stage != "schema"


# --- the engine's decode and the Go round trip ----------------------------------------------------------------
def test_round_trip_drops_what_the_release_does_not_know() -> None:
    pref = preference(devices={"preferredVideoType": "virtio", "preferredDiskBus": "virtio"},
                      preferredArchitecture="arm64")
    for line in LINES:
        spec = encode_object(pref, f"v1beta1.{PREF}", RELEASES[line].tag)["spec"]
        assert ("preferredVideoType" in spec["devices"]) == _knows(line, "v1.9")
        assert ("preferredArchitecture" in spec) == _knows(line, "v1.7")
        assert spec["devices"]["preferredDiskBus"] == "virtio"


# shared/conformance-releases cases whose only difference from main is a field the release does not know
# (differences.yaml): preferredVideoType and preferredLaunchSecurity (v1.8), preferredArchitecture and ioThreads
# (v1.6)
SCHEMA_CASES = [
    ("v1.8", "108-catalog-preference-windows.2k12.virtio"),
    ("v1.8", "114-catalog-preference-windows.2k22.virtio"),
    ("v1.8", "504-features-launchsecurity-pref"),
    ("v1.6", "075-catalog-preference-fedora.arm64"),
    ("v1.6", "193-conflicts-none"),
]


@pytest.mark.parametrize(("line", "case"), SCHEMA_CASES, ids=[f"{line}-{case}" for line, case in SCHEMA_CASES])
def test_release_answers_of_schema_only_cases(line: str, case: str) -> None:
    """The release's expanded VMs and revision data, exactly as its own code wrote them."""
    tag = RELEASES[line].tag
    docs, expected = _conformance_case(tag, case)
    index = Index(docs)
    vms = [d for d in docs if d.get("kind") == "VirtualMachine"]
    assert len(vms) == len(expected)
    for vm, entry in zip(vms, expected):
        stages = vm_stages(vm, index, ClusterConfig(), release=RELEASES[line])
        # the expand-spec API this corpus records does not run the VM webhook's template rules
        refused = stages.rejection is not None and stages.rejection.stage != "template"
        assert entry["error"] is None and not refused and stages.expanded is not None
        assert diff_paths(entry["expanded"], stages.expanded) == []
        want = {r["data"]["kind"]: r["data"] for r in entry["revisions"]}
        assert stages.mutated is not None
        for family in ("instancetype", "preference"):
            if family in stages.mutated["spec"]:
                kind, obj = find_object(stages.mutated, family, index)
                assert diff_paths(want[kind], revision_data(obj, kind, tag)) == []


def _conformance_case(tag: str, case: str) -> tuple[list[Any], list[Any]]:
    given = require_shared(f"conformance/cases/{case}/input.yaml")
    expected = require_shared(f"conformance-releases/{tag}/cases/{case}/expected.yaml")
    return ([d for d in yaml.safe_load_all(given.read_text()) if d],
            yaml.safe_load(expected.read_text()))


@pytest.mark.parametrize("line", ["v1.8", "v1.9"])
def test_v1_8_drops_preferred_video_type_from_the_revision_and_does_not_apply_it(line: str) -> None:
    """shared/conformance-releases/v1.8.4: the preference's preferredVideoType vanishes from the revision data,
    and the expanded VM gets no video device; v1.9 (main's case) keeps both."""
    tag = RELEASES[line].tag
    docs, expected = _conformance_case("v1.8.4", "108-catalog-preference-windows.2k12.virtio")
    if line == "v1.9":
        main = shared_dir() / "conformance" / "cases" / "108-catalog-preference-windows.2k12.virtio"
        expected = yaml.safe_load((main / "expected.yaml").read_text())
    index = Index(docs)
    vm = next(d for d in docs if d.get("kind") == "VirtualMachine")
    stages = vm_stages(vm, index, ClusterConfig(), release=RELEASES[line])
    assert stages.rejection is None and stages.expanded is not None
    assert diff_paths(expected[0]["expanded"], stages.expanded) == []
    devices = stages.expanded["spec"]["template"]["spec"]["domain"]["devices"]
    assert ("video" in devices) == (line == "v1.9")
    want = {r["data"]["kind"]: r["data"] for r in expected[0]["revisions"]}
    assert ("preferredVideoType" in want[PREF]["spec"]["devices"]) == (line == "v1.9")
    for family in ("instancetype", "preference"):
        kind, obj = find_object(vm, family, index)
        assert diff_paths(want[kind], revision_data(obj, kind, tag)) == []


# --- the object admission ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("field", "obj", "since"), FIELDS, ids=[f[0] for f in FIELDS])
@pytest.mark.parametrize("line", ["v1.5", "v1.6", "v1.7", "v1.8", "v1.9"])
def test_object_with_a_field_its_release_does_not_know_is_refused_at_decode(field: str, obj: Obj, since: str,
                                                                             line: str) -> None:
    decision = decide(obj, RELEASES[line].tag)
    if _knows(line, since):
        assert decision.stage != "decode"
    else:
        assert decision.stage == "decode"
        assert decision.message is not None and f'strict decoding error: unknown field "{field}"' in decision.message
        assert [c.field for c in decision.causes] == [field]


# fields an older release requires and main does not, and the release lines that require them: each tag's
# swagger.json (shared/reference/kubevirt-releases/<tag>/): v1.5.3 ``v1.GPU`` and ``v1.HostDevice`` required
# ["name", "deviceName"] (v1.6.6 on: ["name"], deviceName optional beside claimName/requestName); v1.5.3 and
# v1.6.6 ``v1.CustomBlockSize`` required ["logical", "physical"] (v1.7.4 on: none, with discardGranularity). The
# swagger's ``default`` does not reach the CRDs, which have none (shared/conformance-objects/README.md; main's
# cases refuse a missing ``preferredCPUFeatures[].name``, whose swagger default is "" too).
REQUIRED_BEFORE: list[tuple[str, Obj, tuple[str, ...]]] = [
    ("spec.gpus.deviceName", instancetype(gpus=[{"name": "gpu1"}]), ("v1.5",)),
    ("spec.hostDevices.deviceName", instancetype(hostDevices=[{"name": "hd1"}]), ("v1.5",)),
    ("spec.devices.preferredDiskBlockSize.custom.physical",
     preference(devices={"preferredDiskBlockSize": {"custom": {"logical": 512}}}), ("v1.5", "v1.6")),
    ("spec.devices.preferredDiskBlockSize.custom.logical",
     preference(devices={"preferredDiskBlockSize": {"custom": {"physical": 4096, "logical": None}}}),
     ("v1.5", "v1.6")),
]


@pytest.mark.parametrize(("field", "obj", "lines"), REQUIRED_BEFORE, ids=[f[0] for f in REQUIRED_BEFORE])
@pytest.mark.parametrize("line", LINES)
def test_object_lacking_a_field_its_release_requires_is_refused_at_validate(field: str, obj: Obj,
                                                                           lines: tuple[str, ...], line: str) -> None:
    require_shared("reference/kubevirt-releases")  # the tag's own swagger.json says the same
    assert release_differences(obj, line) == ([], [field] if line in lines else [])
    decision = decide(obj, RELEASES[line].tag)
    if line not in lines:
        assert decision.allowed, (line, decision.message)
        return
    kind, name = obj["kind"], obj["metadata"]["name"]
    assert decision.stage == "validate"
    assert [(c.type, c.field, c.message) for c in decision.causes] == [("FieldValueRequired", field, "Required value")]
    assert decision.message == f'{kind}.instancetype.kubevirt.io "{name}" is invalid: {field}: Required value'


def test_a_required_field_given_is_admitted_by_every_release() -> None:
    for line in LINES:
        assert decide(instancetype(gpus=[{"name": "gpu1", "deviceName": "nvidia.com/A"}]), RELEASES[line].tag).allowed
        custom = {"logical": 512, "physical": 4096}
        assert decide(preference(devices={"preferredDiskBlockSize": {"custom": custom}}), RELEASES[line].tag).allowed


# v1.5 serves the alphas with the v1beta1 schema (v1.5.3 ``crds.go``: conversion ``None``,
# ``patchValidationForAllVersions``) and sends them to the object webhooks (v1.5.3 ``webhooks.go``: the
# ``…-validator.instancetype.kubevirt.io`` rules list v1alpha1, v1alpha2 and v1beta1), whose admitters decode every
# version into the v1beta1 Go type (``GetPreferenceSpecFromAdmissionRequest``): each stage answers as for v1beta1,
# the decoder naming the version asked for (shared/docs/kubevirt-releases.md 1.1).
ALPHA = "instancetype.kubevirt.io/v1alpha2"


def test_v1_5_takes_an_alpha_object_through_every_stage() -> None:
    tag = RELEASES["v1.5"].tag
    topology = {**preference(cpu={"preferredCPUTopology": "foo"}), "apiVersion": ALPHA}
    decision = decide(topology, tag)
    assert (decision.stage, decision.message) == ("webhook", "unknown preferredCPUTopology foo")
    assert [c.field for c in decision.causes] == ["spec.cpu.preferredCPUTopology"]
    unknown = {**preference(devices={"preferredVideoType": "virtio"}), "apiVersion": ALPHA}
    decision = decide(unknown, tag)
    assert decision.message == (f'{PREF} in version "v1alpha2" cannot be handled as a {PREF}: strict decoding error: '
                                'unknown field "spec.devices.preferredVideoType"')
    over = {**instancetype(memory="1Gi"), "apiVersion": ALPHA}
    over["spec"]["memory"]["overcommitPercent"] = 150
    decision = decide(over, tag)
    assert decision.stage == "validate" and [c.field for c in decision.causes] == ["spec.memory.overcommitPercent"]
    deprecated = {**preference(cpu={"preferredCPUTopology": "preferCores"}), "apiVersion": ALPHA}
    assert [w.message for w in decide(deprecated, tag).warnings] == [
        f"{ALPHA} VirtualMachineClusterPreferences is now deprecated and will be removed in v1.",
        "PreferredCPUTopology preferCores is deprecated for removal in a future release, please use cores instead"]


def test_managed_fields_are_arbitrary_json_at_decode() -> None:
    """Issue 22: ``fieldsV1`` is arbitrary JSON (as in strict output checks); the decode must not call its keys
    unknown fields."""
    obj = copy.deepcopy(instancetype())
    obj["metadata"]["managedFields"] = [{"manager": "kubectl", "operation": "Apply", "apiVersion": "v1",
                                         "fieldsV1": {"f:spec": {"f:cpu": {".": {}, "f:guest": {}}}}}]
    assert decide(obj).allowed, decide(obj).message
    assert problems(obj) == []


# --- the generator -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line", LINES)
def test_each_release_builtin_is_clean_against_its_schema(line: str) -> None:
    """Each release's own builtin common-instancetypes (v1.8 -> v1.6.0, ...) has no field it does not know."""
    tag = RELEASES[line].tag
    objs = generate(CatalogSpec(), None, line)
    assert objs
    assert release_results(objs, line) == []
    assert [(o["metadata"]["name"], p) for o in objs for p in problems(o, tag)] == []


def test_v1_8_render_of_the_default_catalog_knows_every_field() -> None:
    """issue 24 "done when": a v1.8 render of the default catalog (the builtin it deploys, v1.6.0) contains no
    field v1.8 does not know, while v1.7.0 (v1.9's) does."""
    objs = generate(CatalogSpec(), None, "v1.8")
    root = {kind: definition(f"v1beta1.{kind}", RELEASES["v1.8"].tag) for kind in {o["kind"] for o in objs}}
    assert {o["metadata"]["labels"]["instancetype.kubevirt.io/common-instancetypes-version"] for o in objs} == \
        {"v1.6.0"}
    assert [p for o in objs for p in unknown_fields(o, root[o["kind"]])] == []
    newer = generate(CatalogSpec(version="v1.7.0"), None, "v1.8")
    assert {r.field_path for r in release_results(newer, "v1.8")} == {"spec.devices.preferredVideoType"}


def _generator_run(tmp_path: Path, version: str | None) -> tuple[int, str]:
    (tmp_path / "my.yaml").write_text(textwrap.dedent("""\
        sizes:
          small: {cpu: 1, memory: 2Gi}
        series:
          cx:
            version: 1
            sizes: [small]
        preferences:
          my.windows: {os: windows, spec: {devices: {preferredVideoType: virtio}}}
        """))
    spec: dict[str, Any] = {"path": "my.yaml", "scope": "Cluster"}
    if version is not None:
        spec["kubevirtVersion"] = version
    config = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "InstancetypeCatalog",
              "metadata": {"name": "c"}, "spec": spec}
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [], "functionConfig": config}
    out = process(yaml.safe_dump(rl).encode(), Options(base_dir=tmp_path))
    return out.exit_code, "\n".join(r.summary() for r in out.results)


def test_a_catalog_file_using_a_field_of_a_later_release_is_an_error(tmp_path: Path) -> None:
    code, text = _generator_run(tmp_path, "v1.8")
    assert code == 1
    assert ("error: VirtualMachineClusterPreference my.windows spec.devices.preferredVideoType: field "
            "spec.devices.preferredVideoType is not known to KubeVirt v1.8 (introduced in v1.9)") in text, text
    assert text.count("preferredVideoType is not known") == 1 and "strict decoding" not in text
    assert _generator_run(tmp_path, None) == (0, "")
