"""The VM mutating webhook's defaults on CREATE (``vm-mutator.go``, ``pkg/defaults``), beside the instancetype part
(:mod:`krm_fn.kubevirt.webhooks.vm.mutator`).

:func:`with_datasource_architecture` is what admission needs: from v1.6 an empty architecture comes from the
``template.kubevirt.io/architecture`` label of a DataSource a dataVolumeTemplate is cloned from.
:func:`stored_form` is what the webhook writes into the stored VM (the renderer's ``stored: true``): the
architecture, the machine type, the firmware uuid (v1.6+) and serial, and the PCI topology annotation (v1.6+).
KubeVirt draws the uuid and serial at random; here they are name-based UUIDs of the VM's namespace and name, so a
VM re-created from Git keeps its machine identity.
"""

from __future__ import annotations

import uuid
from typing import Any, Final

from krm_fn.index import Index
from krm_fn.kube.api import KIND_DATA_SOURCE
from krm_fn.kube.identity import namespace_of
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.defaults import machine_type_for
from krm_fn.kubevirt_versions import Release

ARCH_LABEL: Final = "template.kubevirt.io/architecture"
ARCHITECTURES: Final = ("amd64", "arm64", "s390x")  # the label values the webhook takes
PCI_TOPOLOGY: Final = "kubevirt.io/pci-topology-version"
PCI_TOPOLOGY_ARCHS: Final = ("amd64", "arm64")  # PCIe hotplug capable, unless the machine is i440fx
# the name space of the firmware identities: uuid5(DNS, "kubevirt-krm.firmware"), fixed forever
FIRMWARE_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_DNS, "kubevirt-krm.firmware")


def datasource_architecture(vm: Obj, index: Index) -> str | None:
    """The first known architecture label of a DataSource a dataVolumeTemplate clones (one ``dataSource``
    reference followed); None when there is none."""
    namespace = namespace_of(vm)
    for template in as_list(as_map(vm.get("spec")).get("dataVolumeTemplates")):
        ref = as_map(as_map(as_map(template).get("spec")).get("sourceRef"))
        if str(ref.get("kind", "")).lower() != KIND_DATA_SOURCE.lower():
            continue
        source = index.get(KIND_DATA_SOURCE, str(ref.get("namespace") or namespace), str(ref.get("name", "")))
        further = as_map(as_map(as_map(source).get("spec")).get("source")).get("dataSource")
        if source is not None and isinstance(further, dict):
            source = index.get(KIND_DATA_SOURCE, str(further.get("namespace") or namespace),
                               str(further.get("name", "")))
        label = as_map(as_map(as_map(source).get("metadata")).get("labels")).get(ARCH_LABEL)
        if label in ARCHITECTURES:
            return str(label)
    return None


def with_datasource_architecture(vm: Obj, index: Index, release: Release) -> Obj:
    """``vm`` with the architecture of :func:`datasource_architecture` when its template has none (v1.6+); ``vm``
    itself otherwise."""
    if not release.datasource_architecture or not as_map(vm.get("spec")).get("dataVolumeTemplates"):
        return vm
    template = as_map(as_map(vm.get("spec")).get("template"))
    spec = template.get("spec")
    if not isinstance(spec, dict) or spec.get("architecture"):
        return vm
    arch = datasource_architecture(vm, index)
    if arch is None:
        return vm
    return {**vm, "spec": {**vm["spec"], "template": {**template, "spec": {**spec, "architecture": arch}}}}


def stored_form(vm: Obj, index: Index, cluster: ClusterConfig, release: Release) -> Obj:
    """``vm`` (the mutating webhook's preference values already in it) with what the webhook stores on CREATE,
    each only where the VM has none: a copy of the paths it writes; ``vm`` itself when it writes nothing."""
    template = as_map(vm.get("spec")).get("template")
    if not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
        return vm
    spec = dict(template["spec"])
    arch = str(spec.get("architecture") or
               (release.datasource_architecture and datasource_architecture(vm, index)) or cluster.architecture)
    spec["architecture"] = arch
    domain = dict(as_map(spec.get("domain")))
    machine = dict(as_map(domain.get("machine")))
    machine["type"] = str(machine.get("type") or machine_type_for(cluster, arch, release))
    domain["machine"] = machine
    firmware = dict(as_map(domain.get("firmware")))
    who = f"{namespace_of(vm)}/{as_map(vm.get('metadata')).get('name', '')}"
    if release.firmware_uuid_stored and not firmware.get("uuid"):
        firmware["uuid"] = str(uuid.uuid5(FIRMWARE_NAMESPACE, who))
    if not firmware.get("serial"):
        firmware["serial"] = str(uuid.uuid5(FIRMWARE_NAMESPACE, f"serial:{who}"))
    domain["firmware"] = firmware
    spec["domain"] = domain
    metadata: Any = template.get("metadata")
    if release.pci_topology_annotation and _pci_topology(arch, machine["type"]):
        annotations = as_map(as_map(metadata).get("annotations"))
        if PCI_TOPOLOGY not in annotations:
            metadata = {**as_map(metadata), "annotations": {**annotations, PCI_TOPOLOGY: "v3"}}
    out = {**template, "spec": spec}
    if metadata is not None:
        out["metadata"] = metadata
    if out == template:
        return vm
    return {**vm, "spec": {**vm["spec"], "template": out}}


def _pci_topology(arch: str, machine: str) -> bool:
    """Whether the webhook writes the PCI topology annotation: a PCIe machine of amd64 or arm64 (not i440fx)."""
    return arch in PCI_TOPOLOGY_ARCHS and machine != "pc" and not machine.startswith("pc-i440fx")
