"""``kubevirt-krm catalog diff --builtin NAME[@VERSION|@auto] FILE|DIR|-...``: a bundle or a cluster export
(``kubectl get virtualmachineclusterinstancetypes -o yaml``, a ``List``) against a builtin catalog.

``@auto`` compares the input with every version of the builtin and reports the one it equals, or the nearest
(fewest differing objects, then fields) with its differences, and which KubeVirt releases deploy it
(``kubevirt_versions.DEPLOYED``; the other versions too): evidence for picking ``kubevirtVersion``, which it
names. Exit 0 when one version is identical.

Objects are matched by kind and name, only for the kinds the input holds. Every difference is listed:
an object only in the builtin (``removed``), only in the input (``added``), or ``changed`` with the path and
both values of each differing field. What the API server and virt-operator add to the objects they store
(uid, resourceVersion, managedFields, status, the install-strategy annotations, the app.kubernetes.io labels,
...) and ``metadata.namespace`` are not compared unless ``--strict``. Exit 0: identical; 1: different;
2: usage, unreadable input or unknown builtin (an :class:`~krm_fn.errors.FnError`, which ``krm_fn.cli`` reports).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from krm_fn.catalog.errors import keypath
from krm_fn.catalog.model import Catalog
from krm_fn.errors import FnError
from krm_fn.kube import api
from krm_fn.kube.changes import field_changes, shown_value
from krm_fn.kube.identity import group_of
from krm_fn.kube.paths import Obj, wrapped_items

USAGE = "usage: kubevirt-krm catalog diff --builtin NAME[@VERSION|@auto] [--strict] FILE|DIR|-..."
HELP = f"""{USAGE}

Compare a bundle or a cluster export (kubectl get virtualmachineclusterinstancetypes,
virtualmachineclusterpreferences -o yaml) with a builtin catalog: one line per object only in the builtin
(removed), only in the input (added) or changed, with each differing field. Only the kinds in the input are
compared; what the API server, kubectl and virt-operator add (uid, resourceVersion, managedFields, status,
ownerReferences, last-applied and install-strategy annotations, app.kubernetes.io labels, the namespace) is
left out unless --strict.

  NAME            a builtin catalog (common-instancetypes, classic)
  @VERSION        one of its versions (default: what the default KubeVirt release deploys)
  @auto           every version: which one the input is (or is nearest to), and which KubeVirt release
                  deploys it (the spec.kubevirtVersion to render for), so you can tell what your cluster runs
  --strict        compare every field

Exit 0: identical (@auto: identical to one version); 1: different; 2: usage error, unreadable input,
unknown builtin or version."""
AUTO = "auto"
KINDS = (api.KIND_CLUSTER_INSTANCETYPE, api.KIND_CLUSTER_PREFERENCE, api.KIND_INSTANCETYPE, api.KIND_PREFERENCE)
# set by the API server on every stored object
SERVER_METADATA = frozenset({"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
                             "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds", "namespace"})
# set by kubectl apply, and by virt-operator on what it deploys (injectOperatorMetadata, with ownerReferences)
DEPLOYMENT_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration",
                                    "kubevirt.io/install-strategy-version", "kubevirt.io/install-strategy-registry",
                                    "kubevirt.io/install-strategy-identifier", "kubevirt.io/customizer-identifier",
                                    "kubevirt.io/generation"})
DEPLOYMENT_LABELS = frozenset({"app.kubernetes.io/component", "app.kubernetes.io/managed-by",
                               "app.kubernetes.io/part-of", "app.kubernetes.io/version"})
_VALUE_WIDTH = 100


@dataclass(frozen=True, slots=True)
class Change:
    what: str                  # removed (only in the builtin), added (only in the input), changed
    kind: str
    name: str
    fields: tuple[str, ...] = ()  # "path: builtin value -> input value" for a changed object


def compare(builtin: list[Obj], given: list[Obj], strict: bool = False) -> tuple[list[Change], int]:
    """The differences between ``given`` and the ``builtin`` objects of the same kinds, and how many objects
    were compared (both sides, matched or not)."""
    kinds = {o.get("kind") for o in given}
    ours = {(o["kind"], o["metadata"]["name"]): o for o in builtin if o["kind"] in kinds}
    theirs: dict[tuple[str, str], Obj] = {}
    for obj in given:
        theirs[(str(obj.get("kind")), str((obj.get("metadata") or {}).get("name")))] = \
            obj if strict else comparable(obj)
    changes = [Change("removed", k, n) for k, n in sorted(ours.keys() - theirs.keys())]
    changes += [Change("added", k, n) for k, n in sorted(theirs.keys() - ours.keys())]
    for key in sorted(ours.keys() & theirs.keys()):
        fields = tuple(differences(ours[key], theirs[key]))
        if fields:
            changes.append(Change("changed", *key, fields))
    return changes, len(ours.keys() | theirs.keys())


def comparable(obj: Obj) -> Obj:
    """``obj`` without what the server or virt-operator add (a new dict; ``obj`` is not changed)."""
    out = {k: v for k, v in obj.items() if k != "status"}
    md = obj.get("metadata")
    if isinstance(md, dict):
        meta = {k: v for k, v in md.items() if k not in SERVER_METADATA and k != "ownerReferences"}
        for key, drop in (("labels", DEPLOYMENT_LABELS), ("annotations", DEPLOYMENT_ANNOTATIONS)):
            if isinstance(meta.get(key), dict):
                kept = {k: v for k, v in meta[key].items() if k not in drop}
                if kept:
                    meta[key] = kept
                else:
                    del meta[key]
        out["metadata"] = meta
    return out


def differences(ours: Any, theirs: Any) -> Iterator[str]:
    """``path: builtin -> input`` for every differing field (``(absent)`` for a missing one)."""
    for path, a, b in field_changes(ours, theirs):
        yield f"{keypath(path)}: {shown_value(a, _VALUE_WIDTH)} -> {shown_value(b, _VALUE_WIDTH)}"


def input_objects(text: str, source: str) -> list[Obj]:
    """The objects of a YAML stream; a ``List`` (kubectl get -o yaml) or ``ResourceList`` gives its items."""
    from krm_fn.io.inputs import read_stream

    out: list[Obj] = []
    try:
        _, docs = read_stream(text)  # several files: each read on its own
    except FnError as exc:
        raise FnError(f"{source}: {exc.message}") from None
    for doc in docs:
        value = doc.value
        if isinstance(value, dict) and value.get("kind") in api.WRAPPER_KINDS:
            out.extend(i for i in wrapped_items(value) or [] if isinstance(i, dict))
        elif isinstance(value, dict):
            out.append(value)
        elif value is not None:
            raise FnError(f"{source}: a document is not a mapping (a Kubernetes object)")
    return out


def render(changes: list[Change], compared: int, title: str) -> str:
    lines = []
    for c in changes:
        lines.append(f"{c.what} {c.kind} {c.name}")
        lines += [f"  {f}" for f in c.fields]
    counts = {w: sum(c.what == w for c in changes) for w in ("removed", "added", "changed")}
    if changes:
        lines.append(f"{title}: {len(changes)} of {compared} objects differ ({counts['removed']} removed, "
                     f"{counts['added']} added, {counts['changed']} changed)")
    else:
        lines.append(f"{title}: identical ({compared} objects)")
    return "\n".join(lines) + "\n"


class Request(NamedTuple):
    """The command line: ``--builtin NAME[@VERSION]``, ``--strict``, the operands (file, directory, ``-``)."""

    name: str
    version: str | None
    strict: bool
    operands: tuple[str, ...]


def request(args: list[str]) -> Request:
    """The command line read; raises FnError with :data:`USAGE`."""
    strict = "--strict" in args
    args = [a for a in args if a != "--strict"]
    if args and args[0].startswith("--builtin="):
        args = ["--builtin", args[0].partition("=")[2], *args[1:]]
    if len(args) < 3 or args[0] != "--builtin" or any(a.startswith("--") for a in args[2:]):
        raise FnError(USAGE)
    name, _, version = args[1].partition("@")
    return Request(name, version or None, strict, tuple(args[2:]))


def main(req: Request, texts: Sequence[str]) -> tuple[str, int]:
    """The report and exit code (0 identical, 1 different) for the operands' texts (in ``req.operands``'
    order); raises FnError for an unknown builtin, unreadable input or nothing to compare (exit 2)."""
    from krm_fn.catalog.load import load_builtin

    catalog = load_builtin(req.name, None, None if req.version == AUTO else req.version)  # unknown: exit 2 first
    given = [o for spec, text in zip(req.operands, texts, strict=True) for o in input_objects(text, spec)]
    typed = [o for o in given if o.get("kind") in KINDS and group_of(o.get("apiVersion")) ==
             api.INSTANCETYPE_GROUP]
    if not typed:
        raise FnError(f"nothing to compare: {' '.join(req.operands)} holds no instancetypes or preferences")
    ignored = f" ({len(given) - len(typed)} other objects ignored)" if len(typed) < len(given) else ""
    if req.version == AUTO:
        return identify(catalog, typed, req.strict, ignored)
    changes, compared = compare(builtin_objects(catalog), typed, req.strict)
    title = f"builtin {catalog.name}" + (f"@{catalog.version}" if catalog.version else "") + ignored
    return render(changes, compared, title), 1 if changes else 0


def builtin_objects(catalog: Catalog) -> list[Obj]:
    from krm_fn.catalog.select import objects
    from krm_fn.catalog.spec import CatalogSpec

    return objects(catalog, CatalogSpec(builtin=catalog.name))


def identify(catalog: Catalog, typed: list[Obj], strict: bool, ignored: str) -> tuple[str, int]:
    """``@auto``: the input against every version of the builtin ``catalog``; the report of the nearest, then which
    version(s) that is, which KubeVirt releases deploy it and how far the others are. Nearness counts the
    objects (then fields) that differ in more than the version label, which differs on every object of
    another version; a tie is broken by the label."""
    from krm_fn.catalog.load import load_builtin

    name = catalog.name
    versions = [v.name for v in catalog.versions]
    if not versions:
        raise FnError(f"builtin catalog {name!r} has no versions to tell apart (use --builtin {name})")
    built = {v: builtin_objects(load_builtin(name, None, v)) for v in versions}
    results = {v: compare(objs, typed, strict) for v, objs in built.items()}
    unlabelled = [_without_version_label(o) for o in typed]
    content = {v: compare([_without_version_label(o) for o in objs], unlabelled, strict)[0]
               for v, objs in built.items()}

    def distance(version: str) -> tuple[int, int, int]:
        return (len(content[version]), sum(max(len(c.fields), 1) for c in content[version]),
                len(results[version][0]))

    ranked = sorted(versions, key=distance)  # stable: equally near versions keep the catalog's order
    nearest = [v for v in ranked if distance(v) == distance(ranked[0])]
    changes, compared = results[nearest[0]]
    report = render(changes, compared, f"builtin {name}@{nearest[0]}{ignored}")
    releases = _releases(name, nearest)
    deployed = f"KubeVirt {', '.join(releases)} deploy{'s' if len(releases) == 1 else ''} it " + (
        f"(spec.kubevirtVersion: {releases[0]})" if len(releases) == 1 else
        f"(spec.kubevirtVersion: {' or '.join(releases)}; their bundles are the same)") if releases \
        else "no KubeVirt release deploys it"
    others = ", ".join(f"{v}{_deployed_by(name, v)} {len(content[v])}" for v in ranked if v not in nearest)
    verdict = "identical to" if not changes else "nearest to"
    report += (f"{name}@auto: the input is {verdict} {' and '.join(nearest)}; {deployed}"
               + (f"; other versions (objects differing beyond the version label): {others}"
                  if others else "") + "\n")
    return report, 1 if changes else 0


def _releases(name: str, versions: list[str]) -> list[str]:
    """The KubeVirt release lines whose virt-operator deploys one of ``versions`` of ``name``, oldest first (the
    table's order, as ``kubevirt_versions.deployed_by``)."""
    from krm_fn.kubevirt_versions import DEPLOYED

    return [line for line, builtins in DEPLOYED.items() if builtins.get(name) in versions]


def _deployed_by(name: str, version: str) -> str:
    releases = _releases(name, [version])
    return f" (KubeVirt {', '.join(releases)})" if releases else ""


def _without_version_label(obj: Obj) -> Obj:
    labels = (obj.get("metadata") or {}).get("labels")
    if not isinstance(labels, dict) or api.LABEL_COMMON_INSTANCETYPES_VERSION not in labels:
        return obj
    kept = {k: v for k, v in labels.items() if k != api.LABEL_COMMON_INSTANCETYPES_VERSION}
    return {**obj, "metadata": {**obj["metadata"], "labels": kept}}
