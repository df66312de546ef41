"""Components and preferences -> resolved preferences.

A preference is its ``from`` preference (if any), then each component in ``use`` (recursively, each with
its own ``use`` first), then its own fields, laid on top of each other: mappings merge, the later value
wins, ``tags`` accumulate. ``os``, ``arch`` and ``requirements`` are shorthands for spec fields, and every
label is derived from the result.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from krm_fn.catalog.check import Checker, suggest
from krm_fn.kube.meta import is_dns_subdomain
from krm_fn.catalog.labels import own_labels, preference_labels
from krm_fn.catalog.model import Preference, deep_merge, sorted_tree
from krm_fn.errors import shown
from krm_fn.kube import api
from krm_fn.kube.paths import FieldPath, Obj

COMPONENT_KEYS = ("use", "os", "arch", "displayName", "icon", "tags", "requirements", "labels",
                  "annotations", "spec")
PREFERENCE_KEYS = ("from", *COMPONENT_KEYS)
# top-level fields of instancetype.kubevirt.io/v1beta1 VirtualMachinePreferenceSpec
SPEC_KEYS = ("annotations", "clock", "cpu", "devices", "features", "firmware", "machine",
             "preferSpreadSocketToCoreRatio", "preferredArchitecture", "preferredLaunchSecurity",
             "preferredSubdomain", "preferredTerminationGracePeriodSeconds", "requirements", "volumes")
_SHORTHAND_ANNOTATIONS = {api.ANN_OPENSHIFT_DISPLAY_NAME: "displayName", api.ANN_ICON_CLASS: "icon",
                          api.ANN_TAGS: "tags"}


class Fragment:
    """What one preference or component contributes (a plain class: a dataclass costs ten times as much to
    define, and the generator is a short-lived process)."""

    __slots__ = ("spec", "labels", "annotations", "tags", "display_name", "icon", "components")

    def __init__(self, spec: Obj | None = None, labels: dict[str, str] | None = None,
                 annotations: dict[str, str] | None = None, tags: list[str] | None = None,
                 display_name: str | None = None, icon: str | None = None,
                 components: list[str] | None = None) -> None:
        self.spec: Obj = {} if spec is None else spec
        self.labels: dict[str, str] = {} if labels is None else labels
        self.annotations: dict[str, str] = {} if annotations is None else annotations
        self.tags: list[str] = [] if tags is None else tags
        self.display_name = display_name
        self.icon = icon
        self.components: list[str] = [] if components is None else components

    def then(self, over: Fragment) -> Fragment:
        return Fragment(
            deep_merge(self.spec, over.spec), {**self.labels, **over.labels},
            {**self.annotations, **over.annotations}, _union(self.tags, over.tags),
            over.display_name if over.display_name is not None else self.display_name,
            over.icon if over.icon is not None else self.icon, _union(self.components, over.components))


class _Body(NamedTuple):
    own: Fragment
    use: list[tuple[str, FieldPath]]     # (component, path of the reference)
    base: tuple[str, FieldPath] | None   # from: (preference, path)


def _union(a: list[str], b: list[str]) -> list[str]:
    return a + [x for x in b if x not in a]


def build_preferences(c: Checker, components_raw: dict[str, Any], preferences_raw: dict[str, Any],
                      common_labels: dict[str, str]) -> list[Preference]:
    components = {name: _body(c, ("components", name), raw, COMPONENT_KEYS) for name, raw in components_raw.items()}
    preferences = {name: _body(c, ("preferences", name), raw, PREFERENCE_KEYS)
                   for name, raw in preferences_raw.items()}
    for name in preferences:
        if not is_dns_subdomain(name):
            c.add(("preferences", name), f"preference name {shown(name)} is not a valid Kubernetes name "
                                         "(lowercase letters, digits, '-' and '.')")
    resolver = _Resolver(c, components, preferences)
    for name in components:  # unused components are checked too
        resolver.component(name, None, ())
    out: list[Preference] = []
    for name in preferences:
        frag = resolver.preference(name, None, ())
        if frag is None or not is_dns_subdomain(name):
            continue
        spec = sorted_tree(frag.spec)
        labels = {**common_labels, **frag.labels, **preference_labels(spec)}
        annotations = dict(frag.annotations)
        if frag.display_name is not None:
            annotations[api.ANN_OPENSHIFT_DISPLAY_NAME] = frag.display_name
        if frag.icon is not None:
            annotations[api.ANN_ICON_CLASS] = frag.icon
        if frag.tags:
            annotations[api.ANN_TAGS] = ",".join(frag.tags)
        out.append(Preference(name, frag.display_name, tuple(frag.components), dict(sorted(labels.items())),
                              dict(sorted(annotations.items())), spec))
    return out


class _Resolver:
    def __init__(self, c: Checker, components: dict[str, _Body | None],
                 preferences: dict[str, _Body | None]) -> None:
        self.c = c
        self.components = components
        self.preferences = preferences
        self.done: dict[tuple[str, str], Fragment | None] = {}

    def component(self, name: str, ref: FieldPath | None, stack: tuple[str, ...]) -> Fragment | None:
        return self._resolve("component", self.components, name, ref, stack)

    def preference(self, name: str, ref: FieldPath | None, stack: tuple[str, ...]) -> Fragment | None:
        return self._resolve("preference", self.preferences, name, ref, stack)

    def _resolve(self, what: str, table: dict[str, _Body | None], name: str, ref: FieldPath | None,
                 stack: tuple[str, ...]) -> Fragment | None:
        if name not in table:
            self.c.add(ref or (), f"unknown {what} {shown(name)}{suggest(name, table)}")
            return None
        key = (what, name)
        if key in self.done:
            return self.done[key]
        if f"{what}:{name}" in stack:
            cycle = [s.split(":", 1)[1] for s in stack[stack.index(f"{what}:{name}"):]] + [name]
            self.c.add(ref or (), f"{what} cycle: {' -> '.join(cycle)}")
            return None
        body = table[name]
        result: Fragment | None = None
        if body is not None:
            inner = (*stack, f"{what}:{name}")
            result = Fragment()
            if body.base is not None:
                base = self.preference(body.base[0], body.base[1], inner)
                result = base.then(Fragment()) if base is not None else None
            for comp, comp_ref in body.use:
                part = self.component(comp, comp_ref, inner)
                if part is None or result is None:
                    result = None
                    continue
                result = result.then(part)
                result.components = _union(result.components, [comp])
            if result is not None:
                result = result.then(body.own)
        self.done[key] = result
        return result


def _body(c: Checker, path: FieldPath, raw: Any, known: tuple[str, ...]) -> _Body | None:
    before = len(c.problems)
    m = c.mapping(raw, path, known)
    if m is None:
        return None

    def sub(k: str) -> FieldPath:
        return (*path, k)

    own = Fragment()
    if "spec" in m:
        spec = c.mapping(m["spec"], sub("spec"), SPEC_KEYS)
        own.spec = deep_merge({}, spec) if spec is not None else {}
    if "os" in m and (os_type := c.label_value(m["os"], sub("os"))) is not None:
        own.spec = deep_merge(own.spec, {"annotations": {api.ANN_VM_OS: os_type}})
    if "arch" in m and (arch := c.label_value(m["arch"], sub("arch"))) is not None:
        own.spec = deep_merge(own.spec, {"preferredArchitecture": arch, "requirements": {"architecture": arch}})
    if "requirements" in m and (req := c.mapping(m["requirements"], sub("requirements"), ("cpu", "memory"))):
        requirements: Obj = {}
        if "cpu" in req and (cpu := c.integer(req["cpu"], (*sub("requirements"), "cpu"), 1)) is not None:
            requirements["cpu"] = {"guest": cpu}
        if "memory" in req and (mem := c.quantity(req["memory"], (*sub("requirements"), "memory"))):
            requirements["memory"] = {"guest": mem}
        own.spec = deep_merge(own.spec, {"requirements": requirements})
    if "displayName" in m:
        own.display_name = c.string(m["displayName"], sub("displayName"))
    if "icon" in m:
        own.icon = c.string(m["icon"], sub("icon"))
    if "tags" in m:
        tags = c.string_list(m["tags"], sub("tags")) or []
        for i, tag in enumerate(tags):
            if not tag or "," in tag:
                c.add((*sub("tags"), i), f"a tag must be non-empty and have no commas, got {shown(tag)}")
        own.tags = _union([], tags)
    if "labels" in m:
        own.labels = own_labels(c, m["labels"], sub("labels")) or {}
    if "annotations" in m:
        own.annotations = c.string_map(m["annotations"], sub("annotations"), labels=False) or {}
        for key in sorted(own.annotations):
            if key in _SHORTHAND_ANNOTATIONS:
                c.add((*sub("annotations"), key), f"set this with {shown(_SHORTHAND_ANNOTATIONS[key])}")
    use: list[tuple[str, FieldPath]] = []
    if "use" in m:
        for i, item in enumerate(c.list_of(m["use"], sub("use")) or []):
            if (comp := c.string(item, (*sub("use"), i))) is not None:
                use.append((comp, (*sub("use"), i)))
    base = None
    if "from" in m and (parent := c.string(m["from"], sub("from"))) is not None:
        base = (parent, sub("from"))
    if len(c.problems) > before:
        return None
    return _Body(own, use, base)

