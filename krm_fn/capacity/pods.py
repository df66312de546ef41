"""``PodUse``: the launcher pod of one VM KubeVirt would start, as the renderer computes it for each VM it admits.

The pod is :func:`krm_fn.kubevirt.launcher.template.launcher_pod` of the VMI virt-controller makes of the VM's
template.
A VM whose VMI would be refused has no pod.
A pool's template counts once per replica.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from krm_fn.kube.identity import name_of, namespace_of
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kubevirt.launcher.manifest import POD_NOT_CREATED
from krm_fn.kubevirt.launcher.namespace import Namespaces
from krm_fn.kubevirt.launcher.template import launcher_pod
from krm_fn.kubevirt.pipeline import VmStages
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.results import Result


RUNS: Final = ("Always", "RerunOnFailure", "Once")


def runs(vm: Obj) -> bool:
    """Whether virt-controller starts ``vm`` once it is stored (``runStrategy`` Always, RerunOnFailure, Once, or
    ``running: true``)."""
    spec = as_map(vm.get("spec"))
    return spec.get("runStrategy") in RUNS or spec.get("running") is True


class PodUse(NamedTuple):
    """One VM's launcher pod: where it runs, whether KubeVirt starts it, how many (a pool's replicas), the pod
    (shared/conformance-vms' ``pod`` shape), and a result about the VM to word its findings on."""

    namespace: str
    name: str
    runs: bool
    replicas: int
    pod: Obj
    anchor: Result


def vm_pod_use(vm: Obj, stages: VmStages, config: WebhookConfig, namespaces: Namespaces,
               complete: bool = False) -> PodUse | None:
    """The launcher pod of ``vm`` once admitted (``stages``), or None when it has none (refused, or its VMI
    would be)."""
    if stages.vmi is None or stages.rejection is not None or any(c.type != POD_NOT_CREATED for c in stages.start):
        return None
    template = stages.vmi
    annotations = as_map(as_map(template.get("metadata")).get("annotations"))
    spec = as_map(vm.get("spec"))
    claims = {str(as_map(t.get("metadata")).get("name")) for t in as_list(spec.get("dataVolumeTemplates"))
              if isinstance(t, dict)}
    namespace = namespace_of(vm)
    pod = launcher_pod(template["spec"], annotations, namespace, config, namespaces, claims, complete)
    return PodUse(namespace, name_of(vm), runs(vm), 1, pod, Result.for_object("", vm))


def replicas(pool: Obj) -> int:
    """The VMs a VirtualMachinePool keeps: ``spec.replicas``, 1 when unset (``calcDiff`` in
    ``pkg/virt-controller/watch/pool/pool.go``)."""
    count = as_map(pool.get("spec")).get("replicas")
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else 1
