"""Apply an instancetype and a preference to a VMI spec (``pkg/instancetype/apply/vmi.go``).

Every instancetype group runs and its conflicts are collected; preferences are applied only when there
is none. Paths in conflicts start at ``base`` (``spec.template.spec`` for a VM).
"""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.apply.annotations import apply_annotations
from krm_fn.kubevirt.apply.cpu import apply_cpu
from krm_fn.kubevirt.apply.gpus import apply_gpus
from krm_fn.kubevirt.apply.hostdevices import apply_host_devices
from krm_fn.kubevirt.apply.iothreadpolicy import apply_io_threads_policy
from krm_fn.kubevirt.apply.iothreads import apply_io_threads
from krm_fn.kubevirt.apply.launchsecurity import apply_launch_security
from krm_fn.kubevirt.apply.memory import apply_memory
from krm_fn.kubevirt.apply.nodeselector import apply_node_selector
from krm_fn.kubevirt.apply.scheduler import apply_scheduler_name
from krm_fn.kubevirt.conflict import Conflict
from krm_fn.kubevirt.preference.apply.vmi import apply_preference
from krm_fn.kubevirt_versions import LATEST, Release

VM_BASE = ("spec", "template", "spec")


def apply_instancetype(base: Sequence[str], it: Obj, pref: Obj | None, vmi: Obj, meta: Obj,
                       release: Release = LATEST) -> list[Conflict]:
    """The instancetype groups in KubeVirt's order (``release``: the groups it has); all conflicts."""
    conflicts: list[Conflict] = []
    conflicts += apply_node_selector(base, it, vmi)
    conflicts += apply_scheduler_name(base, it, vmi)
    conflicts += apply_cpu(base, it, pref, vmi)
    conflicts += apply_memory(base, it, vmi, release.memory_conflict_whole)
    if release.io_threads:
        conflicts += apply_io_threads(base, it, vmi)
    conflicts += apply_io_threads_policy(base, it, vmi)
    conflicts += apply_launch_security(base, it, vmi)
    conflicts += apply_gpus(base, it, vmi)
    conflicts += apply_host_devices(base, it, vmi)
    conflicts += apply_annotations(it, meta)
    return conflicts


def apply_to_vmi(base: Sequence[str], it: Obj | None, pref: Obj | None, vmi: Obj, meta: Obj,
                 release: Release = LATEST) -> list[Conflict]:
    """Mutates ``vmi`` / ``meta`` in place; returns the conflicts (then ``vmi`` is partly changed: discard it).
    ``release``: the KubeVirt release whose appliers run (``krm_fn.kubevirt_versions``)."""
    if it is None and pref is None:
        return []
    if it is not None:
        conflicts = apply_instancetype(base, it, pref, vmi, meta, release)
        if conflicts:
            return conflicts
    if pref is not None:
        apply_preference(pref, vmi, meta, release)
    return []
