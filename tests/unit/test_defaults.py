"""``SetDefaultVirtualMachineInstanceSpec``, default disks and the default pod network, per cluster config."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.defaults import (
    DefaultsError,
    set_default_network_interface,
    set_default_vmi_spec,
    set_default_volume_disks,
)

DEFAULT = ClusterConfig()


def test_default_disks_skip_existing_disks_and_filesystems() -> None:
    vmi: dict[str, Any] = {"domain": {"devices": {"disks": [{"name": "a", "cdrom": {}}],
                                                  "filesystems": [{"name": "fs", "virtiofs": {}}]}},
                           "volumes": [{"name": "a"}, {"name": "fs"}, {"name": "b"}]}
    set_default_volume_disks(vmi)
    assert vmi["domain"]["devices"]["disks"] == [{"name": "a", "cdrom": {}}, {"name": "b"}]


@pytest.mark.parametrize(("vmi", "interfaces", "networks"), [
    pytest.param({"domain": {"devices": {}}}, [{"name": "default", "bridge": {}}], [{"name": "default", "pod": {}}],
                 id="bridge by default"),
    pytest.param({"domain": {"devices": {"autoattachPodInterface": False}}}, None, None, id="opted out"),
    pytest.param({"domain": {"devices": {}}, "networks": [{"name": "n", "pod": {}}]}, None,
                 [{"name": "n", "pod": {}}], id="VM networks present"),
    pytest.param({"domain": {"devices": {"interfaces": [{"name": "i"}]}}}, [{"name": "i"}], None,
                 id="VM interfaces present"),
])
def test_default_network(vmi: dict[str, Any], interfaces: Any, networks: Any) -> None:
    set_default_network_interface(DEFAULT, vmi)
    assert vmi["domain"]["devices"].get("interfaces") == interfaces
    assert vmi.get("networks") == networks


def test_masquerade_and_errors() -> None:
    vmi: dict[str, Any] = {"domain": {"devices": {}}}
    set_default_network_interface(ClusterConfig(default_network_interface="masquerade"), vmi)
    assert vmi["domain"]["devices"]["interfaces"] == [{"name": "default", "masquerade": {}}]
    with pytest.raises(DefaultsError, match="slirp interface is deprecated as of v1.3"):
        set_default_network_interface(ClusterConfig(default_network_interface="slirp"), {"domain": {"devices": {}}})
    with pytest.raises(DefaultsError, match="bridge interface is not enabled in kubevirt-config"):
        set_default_network_interface(ClusterConfig(permit_bridge_interface_on_pod_network=False),
                                      {"domain": {"devices": {}}})


def _defaulted(vmi: dict[str, Any], cluster: ClusterConfig = DEFAULT) -> dict[str, Any]:
    vmi.setdefault("domain", {}).setdefault("devices", {})
    vmi.setdefault("networks", [{"name": "n", "pod": {}}])
    set_default_vmi_spec(cluster, vmi)
    return vmi


@pytest.mark.parametrize(("arch", "machine"), [("amd64", "q35"), ("arm64", "virt"), ("s390x", "s390-ccw-virtio")])
def test_machine_type_per_architecture(arch: str, machine: str) -> None:
    assert _defaulted({"architecture": arch})["domain"]["machine"] == {"type": machine}
    assert _defaulted({}, ClusterConfig(architecture=arch))["architecture"] == arch


def test_cluster_machine_type_override_and_user_machine_type() -> None:
    assert _defaulted({}, ClusterConfig(machine_type="pc-q35-9.0"))["domain"]["machine"] == {"type": "pc-q35-9.0"}
    assert _defaulted({"domain": {"machine": {"type": "mine"}}})["domain"]["machine"] == {"type": "mine"}


@pytest.mark.parametrize(("resources", "cpu", "guest"), [
    pytest.param({}, {"sockets": 1, "cores": 1, "threads": 1}, None, id="nothing: 1/1/1"),
    pytest.param({"limits": {"cpu": "2500m"}}, {"sockets": 3, "cores": 1, "threads": 1}, None,
                 id="sockets from limits, rounded up"),
    pytest.param({"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
                 {"sockets": 2, "cores": 1, "threads": 1}, "1Gi", id="sockets from requests, guest from requests"),
    pytest.param({"limits": {"memory": "2Gi"}}, {"sockets": 1, "cores": 1, "threads": 1}, "2Gi",
                 id="guest from limits"),
])
def test_resources(resources: dict[str, Any], cpu: dict[str, Any], guest: Any) -> None:
    vmi = _defaulted({"domain": {"resources": resources}})
    assert vmi["domain"]["cpu"] == cpu
    assert vmi["domain"]["memory"].get("guest") == guest


def test_limits_cpu_is_copied_to_requests() -> None:
    vmi = _defaulted({"domain": {"resources": {"limits": {"cpu": "2"}}}})
    assert vmi["domain"]["resources"]["requests"] == {"cpu": "2"}


def test_cluster_cpu_request() -> None:
    vmi = _defaulted({"domain": {"cpu": {"cores": 2}}}, ClusterConfig(cpu_request="500m"))
    assert vmi["domain"]["resources"]["requests"] == {"cpu": "500m"}
    vmi = _defaulted({"domain": {"cpu": {"cores": 2, "dedicatedCpuPlacement": True}}}, ClusterConfig(cpu_request="500m"))
    assert "requests" not in vmi["domain"]["resources"]


def test_guest_from_hugepages_and_existing_topology_kept() -> None:
    vmi = _defaulted({"domain": {"memory": {"hugepages": {"pageSize": "1Gi"}}, "cpu": {"cores": 4}}})
    assert vmi["domain"]["memory"]["guest"] == "1Gi"
    assert vmi["domain"]["cpu"] == {"cores": 4}


@pytest.mark.parametrize(("image", "policy"), [
    ("quay.io/containerdisks/fedora:41", "IfNotPresent"), ("quay.io/containerdisks/fedora:latest", "Always"),
    ("quay.io/containerdisks/fedora", "Always"), ("registry:5000/fedora", "IfNotPresent"),
    ("quay.io/fedora@sha256:abc", "IfNotPresent"),
])
def test_pull_policy(image: str, policy: str) -> None:
    vmi = _defaulted({"volumes": [{"name": "v", "containerDisk": {"image": image}}]})
    assert vmi["volumes"][0]["containerDisk"]["imagePullPolicy"] == policy


def test_eviction_strategy() -> None:
    assert _defaulted({})["evictionStrategy"] == "None"
    assert _defaulted({"evictionStrategy": "External"})["evictionStrategy"] == "External"
    assert "evictionStrategy" not in _defaulted({}, ClusterConfig(eviction_strategy=""))
    assert _defaulted({}, ClusterConfig(eviction_strategy="LiveMigrate"))["evictionStrategy"] == "LiveMigrate"
