"""``launcher_pod``: the resources of the virt-launcher pod virt-controller renders for a VMI (``RenderLaunchManifest``
in ``pkg/virt-controller/services/template.go``), in the shape of shared/conformance-vms' ``pod`` stage.

The pod is the compute container (:mod:`krm_fn.kubevirt.launcher.renderresources`) and the support containers
(:mod:`krm_fn.kubevirt.launcher.support`); its QoS class and totals are the API server's
(:mod:`krm_fn.kube.pod`).
Where virt-controller would not create the pod, ``error`` says why in its words and the rest is None.
What the cluster's configuration decides is always judged (:func:`krm_fn.kubevirt.launcher.manifest.pod_causes`).
A missing PVC, NetworkAttachmentDefinition or default StorageClass is judged only when the inputs are said to hold
every such object (``complete``): GitOps repositories seldom do.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from krm_fn.kube.amount import is_memory, text
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.pod import described
from krm_fn.kubevirt.launcher.manifest import RENDER_FAILED, pod_causes
from krm_fn.kubevirt.launcher.namespace import Namespaces
from krm_fn.kubevirt.launcher.overhead import dedicated, memory_overhead, wants_guaranteed
from krm_fn.kubevirt.launcher.renderresources import Amounts, PodContext, compute_resources
from krm_fn.kubevirt.launcher.support import console_log, container_disks, sidecars, virtiofs
from krm_fn.kubevirt.webhooks.config import WebhookConfig

RESOURCE_NAME: Final = "k8s.v1.cni.cncf.io/resourceName"
NO_STORAGE_CLASS: Final = "backend storage: no default storage class found"


def launcher_pod(spec: Obj, annotations: Obj, namespace: str, config: WebhookConfig, namespaces: Namespaces,
                 claims: Collection[str] = (), complete: bool = False) -> Obj:
    """The pod of the VMI spec ``spec`` (after the VMI mutating webhook) with ``annotations``, in ``namespace``.
    ``claims``: the PVCs the VM's dataVolumeTemplates make."""
    error = _pre_check(spec, config, namespaces, complete)
    multus: list[str] = []
    if error is None:
        error = _volumes_error(spec, namespace, namespaces, claims) if complete else None
    if error is None:
        found = _multus_resources(spec, namespace, config, namespaces, complete)
        error, multus = (found, []) if isinstance(found, str) else (None, found)
    if error is None:
        causes = pod_causes(spec, config)
        error = causes[0].message if causes else None
    if error is not None:
        return {"error": error, "containers": None, "initContainers": None, "overhead": None, "qosClass": None,
                "totals": None}
    labels = namespaces.labels(namespace)
    context = PodContext(annotations, labels, namespaces.quota_tracks(namespace, "limits.cpu"),
                         namespaces.quota_tracks(namespace, "limits.memory"), tuple(multus))
    requests, limits = compute_resources(spec, memory_overhead(spec, config), config, context)
    guaranteed = dedicated(spec) or wants_guaranteed(spec, config)
    disks, disk_inits = container_disks(spec, config, guaranteed)
    console = console_log(spec, config, guaranteed)
    containers = [{"name": "compute", "requests": _printed(requests), "limits": _printed(limits)}, *disks,
                  *virtiofs(spec, config, guaranteed)]
    inits = list(disk_inits)
    if console is not None:
        if config.release.console_log_sidecar:
            inits.insert(0, console)
        else:
            containers.append(console)
    containers += sidecars(spec, annotations, config, guaranteed)
    pod: Obj = {"error": None, "containers": containers, "initContainers": inits, "overhead": None}
    pod["qosClass"], pod["totals"] = described(pod)
    return pod


def _printed(amounts: Amounts) -> dict[str, str]:
    return {k: text(v, is_memory(k)) for k, v in amounts.items()}


def _pre_check(spec: Obj, config: WebhookConfig, namespaces: Namespaces, complete: bool) -> str | None:
    """The backend storage of a persistent TPM or EFI needs a storage class: the CR's ``vmStateStorageClass``,
    else the cluster's default one."""
    if not complete:
        return None
    domain = spec["domain"]
    tpm = as_map(as_map(domain.get("devices")).get("tpm"))
    efi = as_map(as_map(as_map(domain.get("firmware")).get("bootloader")).get("efi"))
    if tpm.get("persistent") is not True and efi.get("persistent") is not True:
        return None
    if config.cluster.configuration.get("vmStateStorageClass") or namespaces.has_default_storage_class():
        return None
    return NO_STORAGE_CLASS


def _volumes_error(spec: Obj, namespace: str, namespaces: Namespaces, claims: Collection[str]) -> str | None:
    """A volume's claim that is not among the inputs (a DataVolume or a dataVolumeTemplate makes one)."""
    for volume in as_list(spec.get("volumes")):
        volume = as_map(volume)
        name = as_map(volume.get("persistentVolumeClaim")).get("claimName") or \
            as_map(volume.get("dataVolume")).get("name")
        if not isinstance(name, str) or name in claims:
            continue
        if namespaces.named("PersistentVolumeClaim", namespace, name) is None and \
                namespaces.named("DataVolume", namespace, name) is None:
            return f"{RENDER_FAILED}didn't find PVC {name}"
    return None


def _multus_resources(spec: Obj, namespace: str, config: WebhookConfig, namespaces: Namespaces,
                      complete: bool) -> list[str] | str:
    """The device-plugin resource each Multus network's NetworkAttachmentDefinition names (none when the
    ExternalNetResourceInjection gate leaves them to an injector), or the error of a missing one."""
    if config.gate("ExternalNetResourceInjection") and config.release.reserved_overhead:
        return []
    found = []
    for network in as_list(spec.get("networks")):
        ref = as_map(as_map(network).get("multus")).get("networkName")
        if not isinstance(ref, str) or not ref:
            continue
        ns, _, name = ref.rpartition("/")
        nad = namespaces.named("NetworkAttachmentDefinition", ns or namespace, name)
        if nad is None:
            if complete:
                return f"{RENDER_FAILED}failed to locate network attachment definition {ns or namespace}/{name}"
            continue
        resource = as_map(as_map(nad.get("metadata")).get("annotations")).get(RESOURCE_NAME)
        if resource:
            found.append(str(resource))
    return found
