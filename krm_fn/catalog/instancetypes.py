"""Series x sizes -> instancetypes: checks a series, derives every size's vCPUs, memory, spec and labels."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from krm_fn.catalog import quantity
from krm_fn.catalog.check import Checker, suggest
from krm_fn.kube.meta import is_dns_subdomain
from krm_fn.catalog.labels import instancetype_labels, own_labels
from krm_fn.catalog.model import Instancetype, Series, deep_merge, sorted_tree
from krm_fn.errors import shown
from krm_fn.kube import api
from krm_fn.kube.paths import FieldPath, Obj

TRAITS = ("dedicatedCPUPlacement", "isolateEmulatorThread", "numa", "realtime", "maxSockets")
IO_THREADS_POLICIES = ("shared", "auto", "supplementalPool")
HUGEPAGE_SIZES = ("2Mi", "1Gi")
SERIES_KEYS = ("version", "class", "displayName", "description", "icon", "labels", "annotations", "traits",
               "hugepages", "overcommitPercent", "ioThreadsPolicy", "gpus", "hostDevices", "vmiAnnotations",
               "memoryPerVCPU", "limits", "sizes", "spec")
# top-level fields of instancetype.kubevirt.io/v1beta1 VirtualMachineInstancetypeSpec
SPEC_KEYS = ("annotations", "cpu", "gpus", "hostDevices", "ioThreads", "ioThreadsPolicy", "launchSecurity",
             "memory", "nodeSelector", "schedulerName")
_VARIANT = re.compile(r"[a-z0-9]+")  # used with fullmatch


class LadderSize(NamedTuple):
    cpu: int
    memory: str


def check_ladder(c: Checker, raw: Any) -> tuple[dict[str, LadderSize], set[str]]:
    """The catalog-wide size ladder; returns the good sizes and the names of broken ones (no cascades)."""
    good: dict[str, LadderSize] = {}
    broken: set[str] = set()
    for name, entry in (c.named_mapping(raw, ("sizes",), "size") or {}).items():
        path: FieldPath = ("sizes", name)
        before = len(c.problems)
        c.name(name, path, "size name")
        m = c.mapping(entry, path, ("cpu", "memory"), required=("cpu", "memory"))
        cpu = c.integer(m.get("cpu"), (*path, "cpu"), 1) if m and "cpu" in m else None
        memory = c.quantity(m.get("memory"), (*path, "memory")) if m and "memory" in m else None
        if len(c.problems) == before and cpu is not None and memory is not None:
            good[name] = LadderSize(cpu, memory)
        else:
            broken.add(name)
    return good, broken


def build_series(c: Checker, key: str, raw: Any, ladder: dict[str, LadderSize], broken: set[str],
                 common_labels: dict[str, str]) -> tuple[Series, list[Instancetype]] | None:
    path: FieldPath = ("series", key)
    before = len(c.problems)
    c.name(key, path, "series name")
    m = c.mapping(raw, path, SERIES_KEYS, required=("sizes",))
    if m is None:
        return None

    def sub(k: str) -> FieldPath:
        return (*path, k)

    version: str | None = None
    if "version" in m:
        v = m["version"]
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            version = str(v)
        elif isinstance(v, str) and _VARIANT.fullmatch(v):
            version = v
        else:
            c.add(sub("version"), f"must be a number or lowercase letters and digits, got {shown(v)}")
    klass = c.label_value(m["class"], sub("class")) if "class" in m else None
    display = c.string(m["displayName"], sub("displayName")) if "displayName" in m else None
    description = c.string(m["description"], sub("description")) if "description" in m else None
    icon = c.label_value(m["icon"], sub("icon")) if "icon" in m else None
    labels = own_labels(c, m.get("labels"), sub("labels"))
    own_annotations = c.string_map(m["annotations"], sub("annotations"), labels=False) if "annotations" in m else None
    traits = _traits(c, m.get("traits", []), sub("traits"))
    page_size, variants = _hugepages(c, m["hugepages"], sub("hugepages")) if "hugepages" in m else (None, {})
    overcommit = c.integer(m["overcommitPercent"], sub("overcommitPercent"), 0, 100) \
        if "overcommitPercent" in m else None
    io_policy = c.enum(m["ioThreadsPolicy"], sub("ioThreadsPolicy"), IO_THREADS_POLICIES) \
        if "ioThreadsPolicy" in m else None
    gpus = _devices(c, m["gpus"], sub("gpus")) if "gpus" in m else []
    host_devices = _devices(c, m["hostDevices"], sub("hostDevices")) if "hostDevices" in m else []
    vmi_annotations = c.string_map(m["vmiAnnotations"], sub("vmiAnnotations"), labels=False) \
        if "vmiAnnotations" in m else None
    ratio = c.quantity(m["memoryPerVCPU"], sub("memoryPerVCPU")) if "memoryPerVCPU" in m else None
    limit_cpu, limit_memory = _limits(c, m["limits"], sub("limits")) if "limits" in m else (None, None)
    extra_spec = _extra_spec(c, m["spec"], sub("spec")) if "spec" in m else {}
    sizes = c.list_of(m.get("sizes"), sub("sizes")) if "sizes" in m else None
    if len(c.problems) > before or sizes is None:
        return None

    if traits is not None:
        dedicated = "dedicatedCPUPlacement" in traits
        for trait, needs in (("isolateEmulatorThread", "dedicatedCPUPlacement"),
                             ("realtime", "dedicatedCPUPlacement"), ("numa", "dedicatedCPUPlacement")):
            if trait in traits and not dedicated:
                c.add(sub("traits"), f"trait {shown(trait)} needs trait {shown(needs)}")
        if "numa" in traits and page_size is None:
            c.add(sub("traits"), "trait 'numa' (guestMappingPassthrough) needs hugepages")
    if overcommit and page_size is not None:
        c.add(sub("overcommitPercent"), "memory overcommit can't be combined with hugepages")

    name = key + (version or "")
    series = Series(key, name, version, klass, display, description)
    annotations: dict[str, str] = {}
    if display is not None:
        annotations[api.ANN_INSTANCETYPE_DISPLAY_NAME] = display
    if description is not None:
        annotations[api.ANN_INSTANCETYPE_DESCRIPTION] = description
    annotations.update(own_annotations or {})  # written out: wins over displayName/description
    out: list[Instancetype] = []
    seen: set[str] = set()
    for i, entry in enumerate(sizes):
        size = _size(c, entry, (*path, "sizes", i), ladder, broken, ratio)
        if size is None:
            continue
        size_name, cpu, memory = size
        ipath: FieldPath = (*path, "sizes", i)
        if size_name in seen:
            c.add(ipath, f"duplicate size {shown(size_name)} in series {shown(key)}")
            continue
        seen.add(size_name)
        if limit_cpu is not None and cpu > limit_cpu:
            c.add(ipath, f"size {shown(size_name)} has {cpu} vCPUs, more than series {shown(key)} allows "
                         f"(limits.cpu: {limit_cpu})")
            continue
        if limit_memory is not None and quantity.bytes_of(memory) > quantity.bytes_of(limit_memory):
            c.add(ipath, f"size {shown(size_name)} has {memory} of memory, more than series {shown(key)} allows "
                         f"(limits.memory: {limit_memory})")
            continue
        pages = [("", page_size)] + sorted(variants.items()) if page_size is not None else [("", None)]
        for suffix, pages_of in pages:
            if pages_of is not None and quantity.bytes_of(memory) % quantity.bytes_of(pages_of) != 0:
                c.add(ipath, f"memory {memory} of size {shown(size_name)} is not a multiple of the {pages_of} "
                             "hugepage size")
                break
            full_size = size_name + suffix
            full = f"{name}.{full_size}"
            if not is_dns_subdomain(full):
                c.add(ipath, f"instancetype name {shown(full)} is not a valid Kubernetes name")
                break
            spec: Obj = {"cpu": {"guest": cpu}, "memory": {"guest": memory}}
            for trait in traits or ():
                spec["cpu"].update(_trait_spec(trait, cpu))
            if pages_of is not None:
                spec["memory"]["hugepages"] = {"pageSize": pages_of}
            if overcommit is not None:
                spec["memory"]["overcommitPercent"] = overcommit
            if io_policy is not None:
                spec["ioThreadsPolicy"] = io_policy
            if gpus:
                spec["gpus"] = gpus
            if host_devices:
                spec["hostDevices"] = host_devices
            if vmi_annotations:
                spec["annotations"] = vmi_annotations
            spec = sorted_tree(deep_merge(spec, extra_spec))
            derived = instancetype_labels(spec, size=full_size, klass=klass, version=version, icon=icon)
            all_labels = {**common_labels, **(labels or {}), **derived}
            out.append(Instancetype(full, series, full_size, cpu, memory, dict(sorted(all_labels.items())),
                                    dict(sorted(annotations.items())), spec))
    return series, out


def _trait_spec(trait: str, cpu: int) -> Obj:
    """The ``spec.cpu`` fields a trait sets (a new dict each time: objects never share values)."""
    if trait == "numa":
        return {"numa": {"guestMappingPassthrough": {}}}
    if trait == "realtime":
        return {"realtime": {}}
    if trait == "maxSockets":
        return {"maxSockets": cpu}
    return {trait: True}  # dedicatedCPUPlacement, isolateEmulatorThread

def _traits(c: Checker, raw: Any, path: FieldPath) -> list[str] | None:
    items = c.list_of(raw, path)
    if items is None:
        return None
    out: list[str] = []
    for i, item in enumerate(items):
        trait = c.enum(item, (*path, i), TRAITS)
        if trait is None:
            continue
        if trait in out:
            c.add((*path, i), f"duplicate trait {shown(trait)}")
        else:
            out.append(trait)
    return out


def _hugepages(c: Checker, raw: Any, path: FieldPath) -> tuple[str | None, dict[str, str]]:
    m = c.mapping(raw, path, ("pageSize", "variants"), required=("pageSize",))
    if m is None or "pageSize" not in m:
        return None, {}
    page_size = c.enum(m["pageSize"], (*path, "pageSize"), HUGEPAGE_SIZES)
    variants: dict[str, str] = {}
    for suffix, size in (c.named_mapping(m.get("variants"), (*path, "variants"), "variant") or {}).items():
        if not _VARIANT.fullmatch(suffix):
            c.add((*path, "variants", suffix), "a variant suffix must be lowercase letters and digits")
        elif (checked := c.enum(size, (*path, "variants", suffix), HUGEPAGE_SIZES)) is not None:
            variants[suffix] = checked
    return page_size, variants


def _devices(c: Checker, raw: Any, path: FieldPath) -> list[Obj]:
    out: list[Obj] = []
    for i, item in enumerate(c.list_of(raw, path) or []):
        m = c.mapping(item, (*path, i), ("name", "deviceName"), required=("name", "deviceName"))
        if m is not None and "name" in m and "deviceName" in m:
            name = c.name(m["name"], (*path, i, "name"), "device name")
            device = c.string(m["deviceName"], (*path, i, "deviceName"))
            if name is not None and device is not None:
                out.append({"deviceName": device, "name": name})
    return out


def _limits(c: Checker, raw: Any, path: FieldPath) -> tuple[int | None, str | None]:
    m = c.mapping(raw, path, ("cpu", "memory"))
    if m is None:
        return None, None
    cpu = c.integer(m["cpu"], (*path, "cpu"), 1) if "cpu" in m else None
    memory = c.quantity(m["memory"], (*path, "memory")) if "memory" in m else None
    return cpu, memory


def _extra_spec(c: Checker, raw: Any, path: FieldPath) -> Obj:
    m = c.mapping(raw, path, SPEC_KEYS)
    if m is None:
        return {}
    for group, field in (("cpu", "guest"), ("memory", "guest")):
        if isinstance(m.get(group), dict) and field in m[group]:
            c.add((*path, group, field), "set by the sizes; remove it")
    return m


def _size(c: Checker, entry: Any, path: FieldPath, ladder: dict[str, LadderSize], broken: set[str],
          ratio: str | None) -> tuple[str, int, str] | None:
    cpu: int | None = None
    memory: str | None = None
    if isinstance(entry, str):
        name = entry
    elif isinstance(entry, dict):
        m = c.mapping(entry, path, ("name", "cpu", "memory"), required=("name",))
        if m is None or "name" not in m:
            return None
        before = len(c.problems)
        checked = c.string(m["name"], (*path, "name"))
        cpu = c.integer(m["cpu"], (*path, "cpu"), 1) if "cpu" in m else None
        memory = c.quantity(m["memory"], (*path, "memory")) if "memory" in m else None
        if checked is None or len(c.problems) > before:
            return None
        name = checked
    else:
        c.add(path, f"must be a size name or a mapping with name, cpu and memory, got {shown(entry)}")
        return None
    if name in broken:
        return None
    base = ladder.get(name)
    if base is None:
        if cpu is None or memory is None:
            c.add(path, f"unknown size {shown(name)}{suggest(name, ladder)}; a size outside the ladder needs "
                        "both cpu and memory")
            return None
        if c.name(name, path, "size name") is None:
            return None
        return name, cpu, memory
    cpu = cpu if cpu is not None else base.cpu
    if memory is None:
        memory = quantity.scale(ratio, cpu) if ratio is not None else base.memory
    return name, cpu, memory
