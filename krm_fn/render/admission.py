"""The instancetype and preference objects of a run as a cluster running KubeVirt would take them
(:mod:`krm_fn.kubevirt.webhooks.admission`), as KRM results in the words kubectl would print: one ``error`` per
cause of a refused object (on the cause's field), one ``warning`` per warning of an admitted one."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from krm_fn.index import iter_objects
from krm_fn.kube.api import INSTANCETYPE_API_VERSION, INSTANCETYPE_GROUP
from krm_fn.kube.paths import Obj
from krm_fn.kube.status import Cause, invalid_message, no_kind_match
from krm_fn.kubevirt.schema.tree import DEFAULT_TAG
from krm_fn.kubevirt.webhooks.admission import Decision, covers, decided
from krm_fn.render.migrate.common import target_kind
from krm_fn.results import Result

MIGRATE_HINT: Final = f" (mode: migrate or migrate: true rewrites it to {INSTANCETYPE_API_VERSION})"


def webhook_prefix(obj: Obj) -> str:
    return f'admission webhook "{str(obj.get("kind")).lower()}-validator.{INSTANCETYPE_GROUP}" denied the request: '


def describe(decision: Decision, obj: Obj) -> str:
    """The whole refusal as kubectl prints it (``Error from server ...`` without that prefix)."""
    if decision.stage == "webhook":
        return webhook_prefix(obj) + str(decision.message)
    if decision.stage == "version" and target_kind(obj.get("apiVersion"), obj.get("kind")) is not None:
        return str(decision.message) + MIGRATE_HINT
    return str(decision.message)


def _cause_message(decision: Decision, cause: Cause, obj: Obj) -> str:
    """kubectl's message for a refusal with this one cause."""
    if decision.stage == "validate":
        md = obj.get("metadata")
        name = md.get("name") if isinstance(md, dict) else None
        return invalid_message(str(obj.get("kind")), INSTANCETYPE_GROUP, name if isinstance(name, str) else "",
                               [cause])
    if decision.stage == "decode":
        return decision.lead + cause.message
    return webhook_prefix(obj) + cause.message


def decision_results(decision: Decision, obj: Obj) -> list[Result]:
    """The results of one object's :class:`Decision`."""
    tags = (("stage", str(decision.stage or "webhook")),)
    if decision.allowed:
        return [Result.for_object(w.message, obj, "warning", field_path=w.field, tags=tags)
                for w in decision.warnings]
    if not decision.causes:
        return [Result.for_object(describe(decision, obj), obj, field_path=None, tags=tags)]
    return [Result.for_object(_cause_message(decision, c, obj), obj,
                              field_path=c.field if c.field and c.field != "<nil>" else None, tags=tags)
            for c in decision.causes]


def results(objs: Iterable[Any], cache: dict[int, Decision] | None = None, migrating: bool = False,
            tag: str = DEFAULT_TAG) -> list[Result]:
    """A result per problem of every instancetype/preference among ``objs`` (``List`` wrappers looked into) as a
    cluster running KubeVirt ``tag`` decides it,
    in order: ``error`` for a refused object, ``warning`` for what kubectl would warn about. An unserved version
    (legacy flavors included) is an error naming migrate mode, unless ``migrating``: migrate mode has rewritten
    what it could, and said why it left the rest."""
    out: list[Result] = []
    for obj in iter_objects(objs):
        legacy = target_kind(obj.get("apiVersion"), obj.get("kind")) is not None
        if legacy and migrating:
            continue
        if covers(obj):
            out += decision_results(decided(obj, cache, tag), obj)
        elif legacy:  # a flavor
            out += decision_results(Decision("version", no_kind_match(str(obj["kind"]), str(obj["apiVersion"]))), obj)
    return out
