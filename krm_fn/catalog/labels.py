"""Derived labels: the single source of truth for the common-instancetypes label contract.

Every label is computed from the generated ``spec`` (or the series/size it came from), never written by
hand in a catalog, so a label can't disagree with the object it describes.
"""

from __future__ import annotations

from typing import Any

from krm_fn.catalog.check import Checker
from krm_fn.kube import api
from krm_fn.kube.paths import FieldPath, Obj, get


def instancetype_labels(spec: Obj, *, size: str, klass: str | None, version: str | None,
                        icon: str | None) -> dict[str, str]:
    labels: dict[str, str] = {
        api.LABEL_CPU: str(spec["cpu"]["guest"]),
        api.LABEL_MEMORY: str(spec["memory"]["guest"]),
        api.LABEL_SIZE: size,
    }
    if klass is not None:
        labels[api.LABEL_CLASS] = klass
    if version is not None:
        labels[api.LABEL_VERSION] = version
    if icon is not None:
        labels[api.LABEL_ICON_PF] = icon
    cpu = spec["cpu"]
    if cpu.get("dedicatedCPUPlacement") is True:
        labels[api.LABEL_DEDICATED_CPU_PLACEMENT] = "true"
    if cpu.get("isolateEmulatorThread") is True:
        labels[api.LABEL_ISOLATE_EMULATOR_THREAD] = "true"
    if cpu.get("numa") is not None:
        labels[api.LABEL_NUMA] = "true"
    if cpu.get("realtime") is not None:
        labels[api.LABEL_REALTIME] = "true"
    if (page_size := get(spec, ("memory", "hugepages", "pageSize"))) is not None:
        labels[api.LABEL_HUGEPAGES] = str(page_size)
    if spec.get("gpus"):
        labels[api.LABEL_GPUS] = "true"
    return labels


def preference_labels(spec: Obj) -> dict[str, str]:
    labels: dict[str, str] = {}
    if (os_type := get(spec, ("annotations", api.ANN_VM_OS))) is not None:
        labels[api.LABEL_OS_TYPE] = str(os_type)
    preferred = spec.get("preferredArchitecture")
    required = get(spec, ("requirements", "architecture"))
    if preferred is not None:
        labels[api.LABEL_PREFERRED_ARCHITECTURE] = str(preferred)
    if required is not None:
        labels[api.LABEL_REQUIRED_ARCHITECTURE] = str(required)
    if required is not None or preferred is not None:
        labels[api.LABEL_ARCH] = str(required if required is not None else preferred)
    if (cpu := get(spec, ("requirements", "cpu", "guest"))) is not None:
        labels[api.LABEL_REQUIRED_CPU] = str(cpu)
    if (memory := get(spec, ("requirements", "memory", "guest"))) is not None:
        labels[api.LABEL_REQUIRED_MEMORY] = str(memory)
    return labels


DERIVED_LABELS = frozenset({
    api.LABEL_CPU, api.LABEL_MEMORY, api.LABEL_SIZE, api.LABEL_CLASS, api.LABEL_VERSION, api.LABEL_ICON_PF,
    api.LABEL_HUGEPAGES, api.LABEL_NUMA, api.LABEL_DEDICATED_CPU_PLACEMENT, api.LABEL_ISOLATE_EMULATOR_THREAD,
    api.LABEL_REALTIME, api.LABEL_GPUS, api.LABEL_OS_TYPE, api.LABEL_ARCH, api.LABEL_PREFERRED_ARCHITECTURE,
    api.LABEL_REQUIRED_ARCHITECTURE, api.LABEL_REQUIRED_CPU, api.LABEL_REQUIRED_MEMORY,
    api.LABEL_COMMON_INSTANCETYPES_VERSION,
})


def own_labels(c: Checker, raw: Any, path: FieldPath) -> dict[str, str] | None:
    """Hand-written labels; a derived label key is refused (it is computed, not repeated)."""
    if raw is None:
        return None
    labels = c.string_map(raw, path, labels=True)
    for key in sorted(labels or ()):
        if key in DERIVED_LABELS:
            c.add((*path, key), "this label is derived from the generated object; remove it")
    return labels
