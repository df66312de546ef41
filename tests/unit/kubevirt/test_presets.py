"""VirtualMachineInstancePresets (``krm_fn.kubevirt.webhooks.vmi.presets``): upstream's ``mergeDomainSpec`` fills
what the VMI leaves unset and ``checkPresetConflicts`` applies nothing when two presets disagree. The whole path
(a preset's CPU in the launcher pod's CPU request) is shared/conformance-vms case 326 in
tests/test_conformance_pods.py."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.index import Index
from krm_fn.kubevirt.webhooks.vmi.presets import apply_presets, matching_presets

Obj = dict[str, Any]


def _preset(name: str, domain: Obj, labels: Obj | None = None, namespace: str = "ns") -> Obj:
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstancePreset",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": labels or {"preset": "small"}}, "domain": domain}}


@pytest.mark.parametrize(("domain", "preset", "expected"), [
    pytest.param({}, {"cpu": {"cores": 2}}, {"cpu": {"cores": 2}}, id="cpu-filled"),
    pytest.param({"cpu": {"cores": 4}}, {"cpu": {"cores": 2}}, {"cpu": {"cores": 4}}, id="cpu-kept"),
    pytest.param({}, {"resources": {"requests": {"memory": "1Gi"}}}, {"resources": {"requests": {"memory": "1Gi"}}},
                 id="requests-filled"),
    pytest.param({"resources": {"requests": {"cpu": "1"}}}, {"resources": {"requests": {"memory": "1Gi"}}},
                 {"resources": {"requests": {"cpu": "1"}}}, id="requests-kept-whole"),
    pytest.param({"clock": {"utc": {}}}, {"clock": {"timezone": "UTC", "timer": {"hpet": {"present": False}}}},
                 {"clock": {"utc": {}, "timer": {"hpet": {"present": False}}}}, id="clock-timer-filled"),
    pytest.param({"devices": {"disks": []}}, {"devices": {"watchdog": {"name": "w", "i6300esb": {}}}},
                 {"devices": {"disks": [], "watchdog": {"name": "w", "i6300esb": {}}}}, id="watchdog-filled"),
    pytest.param({}, {"devices": {"disks": [{"name": "x"}]}}, {}, id="other-devices-ignored"),
])
def test_a_preset_fills_what_the_vmi_leaves_unset(domain: Obj, preset: Obj, expected: Obj) -> None:
    apply_presets(domain, [_preset("p", preset)])
    assert domain == expected


def test_presets_that_disagree_are_not_applied() -> None:
    domain: Obj = {}
    apply_presets(domain, [_preset("a", {"cpu": {"cores": 2}}), _preset("b", {"cpu": {"cores": 4}})])
    assert domain == {}


def test_the_presets_that_select_the_vmi_are_found_by_name_in_its_namespace() -> None:
    objects = [_preset("z", {}), _preset("a", {}), _preset("other", {}, {"preset": "big"}),
               _preset("elsewhere", {}, namespace="ns2")]
    found = matching_presets(Index(objects), "ns", {"preset": "small"})
    assert [p["metadata"]["name"] for p in found] == ["a", "z"]


def test_a_preset_keeps_the_architecture_a_cloned_data_source_gives() -> None:
    """The VMI of a VM without matchers is made again with its presets from the same VM the webhook defaulted:
    the architecture of the DataSource its dataVolumeTemplate clones (v1.6+) stays."""
    from krm_fn.kubevirt.cluster import ClusterConfig
    from krm_fn.kubevirt.pipeline import vm_stages

    source = {"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataSource",
              "metadata": {"name": "fedora", "namespace": "ns", "labels": {"template.kubevirt.io/architecture": "arm64"}},
              "spec": {"source": {"pvc": {"name": "fedora", "namespace": "ns"}}}}
    vm = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm", "namespace": "ns"},
          "spec": {"runStrategy": "Always",
                   "dataVolumeTemplates": [{"metadata": {"name": "root"},
                                            "spec": {"sourceRef": {"kind": "DataSource", "name": "fedora"},
                                                     "storage": {"resources": {"requests": {"storage": "10Gi"}}}}}],
                   "template": {"metadata": {"labels": {"preset": "small"}},
                                "spec": {"domain": {"devices": {}, "resources": {"requests": {"memory": "1Gi"}}},
                                         "volumes": [{"name": "root", "dataVolume": {"name": "root"}}]}}}}
    stages = vm_stages(vm, Index([source, _preset("small", {"cpu": {"cores": 2}})]), ClusterConfig())
    assert stages.vmi is not None
    assert stages.vmi["spec"]["architecture"] == "arm64" and stages.vmi["spec"]["domain"]["cpu"]["cores"] == 2
