"""Errors that say what to fix: the references of a refused VM that KubeVirt would not find, with a hint.

KubeVirt's admission skips a matcher whose object it cannot find (the lookup fails later, at expand), so a VM
with a misspelled instancetype and a preference whose requirements fail is refused for the requirements alone.
:func:`rejection_results` leads with the root cause: every lookup that fails, in KubeVirt's words (``find``),
and, for an object that is not found, what the user probably meant:

* the name exists as the other kind of the family (cluster-scoped vs namespaced);
* a namespaced object of that name exists in another namespace (namespaced kinds are looked up in the VM's);
* names of that kind close to it (items and catalog, :mod:`difflib`, best first, ties by name).

KubeVirt's own error is never reworded: it follows the root causes as the result it is, tagged
``follows-from`` (the fields of the causes; :data:`krm_fn.results.FOLLOWS_FROM`), so that a mistake is one
line on stderr (the cause, with its hint) while the results keep KubeVirt's verdict. With no root cause to
name (no failing lookup, or KubeVirt's error is the lookup failure and nothing is close to it), KubeVirt's
error is the one result.

``inferFromVolume`` reads volumes that usually live only in the cluster (a DataSource in a golden-image
namespace, an uploaded PVC): when one is not found, that lookup is the root cause, and
:func:`cluster_object_results` gives it with how to hand the renderer a copy it reads but does not emit (a
``config.kubernetes.io/local-config: "true"`` item, README "Objects that live in the cluster"); KubeVirt's
refusal follows it, unchanged (conformance compares its words).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Final

from krm_fn.index import ANY_NAMESPACE, Index, namespace_of
from krm_fn.kube.api import CLUSTER_SCOPED_KINDS, FAMILIES, FAMILY_KINDS, Family
from krm_fn.kube.paths import Obj, copy_json, get2
from krm_fn.kubevirt.find.found import FindError, Matches
from krm_fn.kubevirt.find.object import not_found, object_kind, resource_of
from krm_fn.kubevirt.infer import InferError, infer_matcher
from krm_fn.kubevirt.rejection import STAGE_PREFIX, Rejection
from krm_fn.results import FOLLOWS_FROM, Result

MAX_SUGGESTIONS: Final = 3
# what inferFromVolume reads (krm_fn.kubevirt.infer), in KubeVirt's not-found words
_VOLUME_NOT_FOUND: Final = re.compile(r'(datasources\.cdi\.kubevirt\.io|persistentvolumeclaims|'
                                      r'volumesnapshots\.snapshot\.storage\.k8s\.io) "[^"]*" not found')
CLUSTER_OBJECT_HINT: Final = (
    "if it lives in the cluster, give the renderer a copy it reads but does not emit: the object "
    "(kubectl get -o yaml) annotated config.kubernetes.io/local-config: \"true\" among the inputs")
CUTOFF: Final = 0.6  # difflib.get_close_matches' default


# a hint by family, matcher kind and name, the VM's namespace and the lookup error (one per render: HintCache)
HintKey = tuple[str, str, str, str, str]
HintCache = dict[HintKey, "str | None"]


def rejection_results(vm: Obj, rejection: Rejection, index: Index, report_on: Obj, found: Matches,
                      hints: HintCache) -> list[Result]:
    """The results of a VM refused by KubeVirt, root causes first: the references that do not resolve
    (:func:`reference_results`) or the volume object inferFromVolume does not find
    (:func:`cluster_object_results`), then KubeVirt's own error, unchanged, tagged as following from them; unless
    that error is itself a lookup failure with nothing to add, a root cause of its own, which then leads.
    ``vm`` is the VM as the webhook left it (inferred matchers), ``found`` its matches (``VmStages.found``);
    results are about ``report_on`` (the input item); ``hints`` is the render's."""
    causes = reference_results(vm, rejection, index, report_on, found, hints) + \
        cluster_object_results(vm, rejection, index, report_on)  # inferFromVolume: the volume's object not found
    tags: tuple[tuple[str, str], ...] = (("stage", rejection.stage),)
    own = rejection.stage in ("admit", "expand") and any(
        isinstance(err, FindError) and err.message == rejection.error for err in found.values()) and not any(
        c.message.startswith(rejection.error) for c in causes)
    if causes and not own:
        tags += ((FOLLOWS_FROM, ", ".join(c.field_path or "" for c in causes)),)
    verdict = verdict_results(rejection, report_on, tags)
    return [*verdict, *causes] if own or not causes else [*causes, *verdict]


def verdict_results(rejection: Rejection, report_on: Obj, tags: tuple[tuple[str, str], ...]) -> list[Result]:
    """KubeVirt's verdict: one error result per cause of the webhook, root cause first, each in kubectl's words
    at its own field; a refusal without causes is one result."""
    prefix = STAGE_PREFIX[rejection.stage]
    if not rejection.causes:
        return [Result.for_object(rejection.message, report_on, field_path=rejection.field_path, tags=tags)]
    return [Result.for_object(prefix + c.message, report_on, field_path=c.field or rejection.field_path, tags=tags)
            for c in rejection.causes]


def reference_results(vm: Obj, rejection: Rejection, index: Index, report_on: Obj, found: Matches,
                      hints: HintCache) -> list[Result]:
    """For a VM refused at ``admit`` or ``expand``: an ``error`` per failing lookup, with a hint for an object
    that is not found; the lookup KubeVirt's message names only when there is a hint to add."""
    if rejection.stage not in ("admit", "template", "expand"):
        return []
    out: list[Result] = []
    for family in FAMILIES:
        err = found.get(family)
        if not isinstance(err, FindError):
            continue
        hint = _hint(vm, family, err, index, hints)
        if err.message == rejection.error and not hint:
            continue
        out.append(Result.for_object(f"{err.message}: {hint}" if hint else err.message, report_on,
                                     field_path=f"spec.{family}", tags=(("stage", "find"),)))
    return out


def _hint(vm: Obj, family: Family, err: FindError, index: Index, hints: HintCache) -> str | None:
    """The hint for ``err``, once per matcher, namespace and error in a render (many VMs may share a typo)."""
    matcher = get2(vm, "spec", family)
    if not isinstance(matcher, dict) or matcher.get("revisionName"):
        return None
    key = (family, str(matcher.get("kind") or ""), str(matcher.get("name") or ""), namespace_of(vm), err.message)
    if key not in hints:
        hints[key] = _matcher_hint(vm, family, matcher, err, index)
    return hints[key]


def _matcher_hint(vm: Obj, family: Family, matcher: Obj, err: FindError, index: Index) -> str | None:
    raw_kind = matcher.get("kind") or ""
    try:
        kind = object_kind(family, str(raw_kind))
    except FindError:
        return _kind_hint(family, str(raw_kind))
    name = str(matcher.get("name") or "")
    if err.message != not_found(resource_of(kind), name).message:
        return None  # a revision that is missing or undecodable: nothing to guess
    namespace = namespace_of(vm)
    hints: list[str] = []
    other = next(k for k in FAMILY_KINDS[family] if k != kind)
    if index.get(other, namespace, name, fallback=True) is not None:
        hints.append(f'"{name}" exists as a {other}: set spec.{family}.kind to {other}'
                     + (" (or leave it out)" if other in CLUSTER_SCOPED_KINDS else ""))
    if kind not in CLUSTER_SCOPED_KINDS:
        elsewhere = sorted(ns for ns, names in index.names(kind).items()
                           if name in names and ns not in (namespace, ANY_NAMESPACE))
        if elsewhere:
            hints.append(f'a {kind} "{name}" exists in namespace {_quoted(elsewhere)}; a VM finds its {family} '
                         f'in its own namespace ("{namespace}")')
    close = suggestions(name, _known(kind, namespace, index))
    if close:
        hints.append(f"did you mean {_quoted(close)}?" if len(close) == 1 else f"did you mean one of {_quoted(close)}?")
    return "; ".join(hints) or None


def _known(kind: str, namespace: str, index: Index) -> set[str]:
    """The names of ``kind`` a VM in ``namespace`` can use: items and the catalog the renderer serves."""
    scopes = ("",) if kind in CLUSTER_SCOPED_KINDS else (namespace, ANY_NAMESPACE)
    names: set[str] = set()
    for source in (index, index.catalog):
        if source is not None:
            by_namespace = source.names(kind)
            for ns in scopes:
                names |= by_namespace.get(ns, set())
    return names


def suggestions(name: str, candidates: set[str]) -> list[str]:
    """The candidates closest to ``name`` (``difflib`` ratio of at least :data:`CUTOFF`), best first, ties by
    name; at most :data:`MAX_SUGGESTIONS`; never ``name`` itself."""
    scored: list[tuple[float, str]] = []
    matcher = SequenceMatcher(b=name)
    for candidate in candidates:
        if candidate == name:
            continue
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() >= CUTOFF and matcher.quick_ratio() >= CUTOFF:
            ratio = matcher.ratio()
            if ratio >= CUTOFF:
                scored.append((-ratio, candidate))
    return [c for _, c in sorted(scored)[:MAX_SUGGESTIONS]]


def _kind_hint(family: Family, kind: str) -> str:
    """For ``got unexpected kind in <Matcher>``: the kinds the matcher takes, the closest first."""
    kinds = sorted(FAMILY_KINDS[family])
    cluster = next(k for k in kinds if k in CLUSTER_SCOPED_KINDS)
    by_lower = {k.lower(): k for k in kinds}
    close = [by_lower[c] for c in suggestions(kind.lower(), set(by_lower))]
    text = f"spec.{family}.kind is {' or '.join(kinds)} (left out: {cluster})"
    return f"did you mean {_quoted(close[:1])}? {text}" if close else text


def _quoted(names: list[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def cluster_object_results(vm: Obj, rejection: Rejection, index: Index, report_on: Obj) -> list[Result]:
    """When inferFromVolume did not find its volume's object: that lookup, the root cause, in KubeVirt's words,
    then how to hand the renderer the cluster's copy (:data:`CLUSTER_OBJECT_HINT`), as the hint of a lookup is
    given (:func:`reference_results`); on the matcher whose ``inferFromVolume`` failed (KubeVirt's refusal names
    no field: each family is inferred again, on a copy of ``vm``, until one fails with its words)."""
    if rejection.stage != "mutate" or not _VOLUME_NOT_FOUND.fullmatch(rejection.error):
        return []
    field = None
    for family in FAMILIES:
        try:
            infer_matcher(copy_json(vm), family, index)
        except InferError as err:
            if err.message == rejection.error:
                field = f"spec.{family}.inferFromVolume"
                break
    return [Result.for_object(f"{rejection.error}: {CLUSTER_OBJECT_HINT}", report_on, field_path=field,
                              tags=(("stage", "find"),))]
