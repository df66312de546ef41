"""What keeps virt-controller from creating a VMI's launcher pod (``RenderLaunchManifest`` in
``pkg/virt-controller/services/template.go``), of what the cluster's configuration alone decides: an interface
whose binding plugin the KubeVirt CR does not configure, and containerPath volumes without their gate (v1.8+).

What the cluster's other objects decide (a PVC, a NetworkAttachmentDefinition, a default StorageClass) is not
judged: GitOps repositories seldom hold them.
"""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig

RENDER_FAILED: Final = "failed to render launch manifest: "
POD_PREFIX: Final = "stored, but its launcher pod would not be created: "  # our words before each cause
POD_NOT_CREATED: Final = "PodNotCreated"  # the type of these causes: no webhook's, virt-controller's event


def pod_causes(spec: Obj, config: WebhookConfig) -> list[Cause]:
    """The first reason the pod of the VMI spec ``spec`` is not created, at the VM's field; [] when it is."""
    plugins = as_map(as_map(config.cluster.configuration.get("network")).get("binding"))
    interfaces = as_list(as_map(as_map(spec.get("domain")).get("devices")).get("interfaces"))
    for idx, iface in enumerate(interfaces):
        name = as_map(as_map(iface).get("binding")).get("name")
        if name is not None and name not in plugins:
            word = "binding" if config.release.binding_word_fixed else "bindining"
            return [Cause(POD_NOT_CREATED, f"spec.template.spec.domain.devices.interfaces[{idx}].binding.name",
                          f"{RENDER_FAILED}couldn't find configuration for network {word}: {name}")]
    for idx, volume in enumerate(as_list(spec.get("volumes"))):
        if as_map(volume).get("containerPath") is not None and not config.gate("ContainerPathVolumes"):
            return [Cause(POD_NOT_CREATED, f"spec.template.spec.volumes[{idx}].containerPath",
                          "VMI has ContainerPath volumes but the ContainerPathVolumes feature gate is disabled")]
    return []
