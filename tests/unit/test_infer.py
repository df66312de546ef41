"""Matcher validation and ``inferFromVolume`` (resolution chain and failure policies)."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.index import Index
from krm_fn.kubevirt.infer import InferError, infer_matchers
from krm_fn.kubevirt.webhooks.vm.mutator import validate_matchers
from tests.builders import make_object, make_vm

IT_LABEL = "instancetype.kubevirt.io/default-instancetype"
IT_KIND = "instancetype.kubevirt.io/default-instancetype-kind"
PREF_LABEL = "instancetype.kubevirt.io/default-preference"


def _pvc(name: str, labels: dict[str, str] | None, ns: str = "ns1") -> dict[str, Any]:
    return make_object("PersistentVolumeClaim", name, {}, namespace=ns, labels=labels)


def _vm(volume: dict[str, Any], policy: str | None = None, memory: bool = False, **extra: Any) -> dict[str, Any]:
    matcher: dict[str, Any] = {"inferFromVolume": "root"}
    if policy:
        matcher["inferFromVolumeFailurePolicy"] = policy
    domain: dict[str, Any] = {"devices": {}}
    if memory:
        domain["memory"] = {"guest": "1Gi"}
    return make_vm({"domain": domain, "volumes": [{"name": "root", **volume}]}, instancetype=matcher, **extra)


def _infer(vm: dict[str, Any], objects: list[dict[str, Any]]) -> dict[str, Any]:
    infer_matchers(vm, Index(objects))
    return vm


def test_pvc_labels_replace_the_matcher() -> None:
    vm = _infer(_vm({"persistentVolumeClaim": {"claimName": "c"}}), [_pvc("c", {IT_LABEL: "u1.medium", IT_KIND: "x"})])
    assert vm["spec"]["instancetype"] == {"name": "u1.medium", "kind": "x"}


def test_missing_kind_label_gives_an_empty_kind() -> None:
    vm = _infer(_vm({"persistentVolumeClaim": {"claimName": "c"}}), [_pvc("c", {IT_LABEL: "u1.medium"})])
    assert vm["spec"]["instancetype"] == {"name": "u1.medium", "kind": ""}


def test_ignore_success_deletes_memory_reject_keeps_it() -> None:
    objects = [_pvc("c", {IT_LABEL: "u1"})]
    ignored = _infer(_vm({"persistentVolumeClaim": {"claimName": "c"}}, "Ignore", memory=True), objects)
    assert "memory" not in ignored["spec"]["template"]["spec"]["domain"]
    kept = _infer(_vm({"persistentVolumeClaim": {"claimName": "c"}}, "Reject", memory=True), objects)
    assert kept["spec"]["template"]["spec"]["domain"]["memory"] == {"guest": "1Gi"}


@pytest.mark.parametrize(("volume", "objects", "message"), [
    pytest.param({"persistentVolumeClaim": {"claimName": "c"}}, [_pvc("c", None)],
                 f"unable to find required {IT_LABEL} label on the volume", id="no label"),
    pytest.param({"containerDisk": {"image": "x"}}, [],
                 "unable to infer defaults from volume root as type is not supported", id="unsupported volume"),
    pytest.param({"dataVolume": {"name": "dv"}},
                 [make_object("DataVolume", "dv", {"source": {"http": {"url": "u"}}}, namespace="ns1")],
                 "unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported",
                 id="unsupported DataVolume source"),
    pytest.param({"dataVolume": {"name": "dv"}},
                 [make_object("DataVolume", "dv", {"sourceRef": {"kind": "Other", "name": "x"}}, namespace="ns1")],
                 "unable to infer defaults from DataVolumeSourceRef as Kind Other is not supported",
                 id="unsupported sourceRef kind"),
    pytest.param({"dataVolume": {"name": "dv"}},
                 [make_object("DataVolume", "dv", {"sourceRef": {"kind": "DataSource", "name": "ds"}}, namespace="ns1"),
                  make_object("DataSource", "ds", {"source": {}}, namespace="ns1")],
                 "unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC or "
                 "DataVolumeSourceSnapshot", id="DataSource without source"),
])
def test_ignorable_errors(volume: dict[str, Any], objects: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(InferError) as err:
        _infer(_vm(volume, "Reject"), objects)
    assert err.value.message == message and err.value.ignorable
    with pytest.raises(InferError):
        _infer(_vm(volume), objects)  # absent policy behaves like Reject
    vm = _infer(_vm(volume, "Ignore"), objects)
    assert "instancetype" not in vm["spec"]


@pytest.mark.parametrize(("volume", "objects", "message"), [
    pytest.param({"persistentVolumeClaim": {"claimName": "nope"}}, [], 'persistentvolumeclaims "nope" not found',
                 id="missing PVC"),
    pytest.param({"dataVolume": {"name": "gone"}}, [], 'persistentvolumeclaims "gone" not found',
                 id="missing DataVolume falls back to its PVC"),
    pytest.param({"dataVolume": {"name": "dv"}},
                 [make_object("DataVolume", "dv", {"sourceRef": {"kind": "DataSource", "name": "ds"}}, namespace="ns1")],
                 'datasources.cdi.kubevirt.io "ds" not found', id="missing DataSource"),
])
def test_not_found_is_never_ignorable(volume: dict[str, Any], objects: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(InferError) as err:
        _infer(_vm(volume, "Ignore"), objects)
    assert err.value.message == message and not err.value.ignorable


def test_missing_volume_is_never_ignorable() -> None:
    vm = make_vm(instancetype={"inferFromVolume": "absent", "inferFromVolumeFailurePolicy": "Ignore"})
    with pytest.raises(InferError) as err:
        _infer(vm, [])
    assert err.value.message == "unable to find volume absent to infer defaults"


def test_chains() -> None:
    objects = [
        make_object("DataVolume", "dv", {"source": {"pvc": {"name": "src", "namespace": "os"}}}, namespace="ns1"),
        _pvc("src", {IT_LABEL: "from-src"}, ns="os"),
        make_object("DataSource", "ds", {"source": {"pvc": {"name": "src", "namespace": "os"}}}, namespace="os"),
        make_object("VolumeSnapshot", "snap", {}, namespace="os", labels={IT_LABEL: "from-snap"}),
    ]
    assert _infer(_vm({"dataVolume": {"name": "dv"}}), objects)["spec"]["instancetype"]["name"] == "from-src"
    dvt = [{"metadata": {"name": "dv"}, "spec": {"sourceRef": {"kind": "DataSource", "name": "ds", "namespace": "os"}}}]
    vm = _infer(_vm({"dataVolume": {"name": "dv"}}, dataVolumeTemplates=dvt), objects)
    assert vm["spec"]["instancetype"]["name"] == "from-src"  # the template wins over the DataVolume object
    dvt = [{"metadata": {"name": "x"}, "spec": {"source": {"snapshot": {"name": "snap", "namespace": "os"}}}}]
    vm = _infer(_vm({"dataVolume": {"name": "x"}}, dataVolumeTemplates=dvt), objects)
    assert vm["spec"]["instancetype"]["name"] == "from-snap"


def test_data_volume_labels_before_spec() -> None:
    objects = [make_object("DataVolume", "dv", {"source": {"http": {"url": "u"}}}, namespace="ns1",
                           labels={IT_LABEL: "from-dv"})]
    assert _infer(_vm({"dataVolume": {"name": "dv"}}), objects)["spec"]["instancetype"]["name"] == "from-dv"


def test_preference_uses_its_own_labels() -> None:
    vm = make_vm({"domain": {"devices": {}}, "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": "c"}}]},
                 preference={"inferFromVolume": "root"})
    _infer(vm, [_pvc("c", {PREF_LABEL: "fedora", IT_LABEL: "u1"})])
    assert vm["spec"]["preference"] == {"name": "fedora", "kind": ""}


@pytest.mark.parametrize(("it", "pref", "causes"), [
    pytest.param({}, None, [("spec.instancetype", "Either Name or InferFromVolume should be provided within the "
                                                  "InstancetypeMatcher")], id="empty instancetype matcher"),
    pytest.param({"name": "a", "kind": "k", "inferFromVolume": "v"}, None,
                 [("spec.instancetype.name", "Name already set, should be cleared before setting inferFromVolume"),
                  ("spec.instancetype.kind", "Kind already set, should be cleared before setting inferFromVolume")],
                 id="name and kind with inferFromVolume"),
    pytest.param({"name": "a", "inferFromVolumeFailurePolicy": "Sometimes"}, None,
                 [("spec.instancetype.inferFromVolumeFailurePolicy",
                   "Invalid value 'Sometimes' for InferFromVolumeFailurePolicy")], id="bad policy"),
    pytest.param({"name": "a"}, {}, [("spec.preference", "Either Name or InferFromVolume should be provided within "
                                                         "the PreferenceMatcher")], id="empty preference matcher"),
    pytest.param({}, {}, [("spec.instancetype", "Either Name or InferFromVolume should be provided within the "
                                                "InstancetypeMatcher")], id="instancetype causes first, alone"),
    pytest.param({"name": "a", "inferFromVolumeFailurePolicy": "Ignore"}, None, [],
                 id="policy without inferFromVolume is fine"),
])
def test_validate_matchers(it: Any, pref: Any, causes: list[tuple[str, str]]) -> None:
    vm = make_vm(instancetype=it, preference=pref)
    assert [(c.field, c.message) for c in validate_matchers(vm)] == causes
