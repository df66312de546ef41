"""``PodUse``: the launcher pod of one VM KubeVirt would start, as the renderer computes it for each VM it admits.

The pod is :func:`krm_fn.kubevirt.launcher.template.launcher_pod` of the VMI virt-controller makes of the VM's
template.
A VM whose VMI would be refused has no pod.
A pool's template counts once per replica.
"""

from __future__ import annotations

import json
from typing import Any, Final, NamedTuple

from krm_fn.kube.identity import name_of, namespace_of
from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kubevirt.launcher.manifest import POD_NOT_CREATED
from krm_fn.kubevirt.launcher.namespace import Namespaces
from krm_fn.kubevirt.launcher.renderresources import PARITY
from krm_fn.kubevirt.launcher.template import launcher_pod
from krm_fn.kubevirt.pipeline import VmStages
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vmi.metadata import SIDECARS
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
    pod: Obj | None  # None: KubeVirt renders none (the VM, or its VMI, is refused: ``refused`` says why)
    anchor: Result
    refused: str | None = None


def vm_pod_use(vm: Obj, stages: VmStages, config: WebhookConfig, namespaces: Namespaces,
               complete: bool = False, memo: dict[Any, Obj] | None = None) -> PodUse | None:
    """The launcher pod of ``vm`` once admitted (``stages``), or None when it has none (refused, or its VMI
    would be). ``memo``: the render's pods by :func:`pod_key` (shared: not to be changed)."""
    if stages.vmi is None or stages.rejection is not None or any(c.type != POD_NOT_CREATED for c in stages.start):
        return None
    template = stages.vmi
    annotations = as_map(as_map(template.get("metadata")).get("annotations"))
    spec = as_map(vm.get("spec"))
    claims = {str(as_map(t.get("metadata")).get("name")) for t in as_list(spec.get("dataVolumeTemplates"))
              if isinstance(t, dict)} if complete else set()
    namespace = namespace_of(vm)
    key = pod_key(template["spec"], annotations, namespace, claims, complete) if memo is not None else None
    pod = memo.get(key) if memo is not None else None
    if pod is None:
        pod = launcher_pod(template["spec"], annotations, namespace, config, namespaces, claims, complete)
        if memo is not None:
            memo[key] = pod
    return PodUse(namespace, name_of(vm), runs(vm), 1, pod, Result.for_object("", vm))


def refused_use(vm: Obj, reason: str) -> PodUse:
    """The entry of a VM KubeVirt makes no launcher pod for, and why."""
    return PodUse(namespace_of(vm), name_of(vm), runs(vm), 1, None, Result.for_object("", vm), reason)


def pod_key(spec: Obj, annotations: Obj, namespace: str, claims: set[str], complete: bool) -> tuple[Any, ...]:
    """What a launcher pod is made of: the VMI's domain, networks, probes and architecture whole; of each volume its
    kind, with its name where a container is named after it (a container disk, a containerPath) and the claim it
    names where missing claims are judged (``complete``), not its content (a cloud-init disk's user data asks for
    nothing); the annotations of hooks and emulator-thread parity; the namespace; the claims the VM makes."""
    volumes = tuple(_volume_key(v, complete) for v in as_list(spec.get("volumes")) if isinstance(v, dict))
    body = json.dumps([spec.get("domain"), spec.get("networks"), spec.get("livenessProbe"),
                       spec.get("readinessProbe"), spec.get("architecture")], default=str)
    return (body, volumes, annotations.get(SIDECARS), annotations.get(PARITY), namespace, tuple(sorted(claims)))


def _volume_key(volume: Obj, complete: bool) -> tuple[Any, ...]:
    kinds = tuple(k for k in volume if k != "name")
    named = "containerDisk" in volume or "containerPath" in volume
    claim = (as_map(volume.get("persistentVolumeClaim")).get("claimName"),
             as_map(volume.get("dataVolume")).get("name")) if complete else ()
    return (volume.get("name") if named else None, kinds, claim)


def replicas(pool: Obj) -> int:
    """The VMs a VirtualMachinePool keeps: ``spec.replicas``, 1 when unset (``calcDiff`` in
    ``pkg/virt-controller/watch/pool/pool.go``)."""
    count = as_map(pool.get("spec")).get("replicas")
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else 1
