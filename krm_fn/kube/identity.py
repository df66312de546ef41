"""Which object an object is, as apimachinery and kustomize tell: the group of an ``apiVersion``
(``schema.ParseGroupVersion``), the namespace an object without one lands in (``default``, as kubectl and
kustomize's resource ids place it) and an object's id (group, kind, namespace, name: the version is only a
representation of the same object). The one place these are computed."""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from krm_fn.kube.paths import Obj

DEFAULT_NAMESPACE: Final = "default"


class ObjectId(NamedTuple):
    """An object's id: the same object whatever version of its group it is written in."""

    group: str
    kind: str
    namespace: str
    name: str


def group_of(api_version: Any) -> str:
    """``ParseGroupVersion``'s group: ``""`` for the core group (``v1``) and for no apiVersion. A text with more
    than one ``/`` (which apimachinery refuses) gives what precedes the last one: never a group's name, as a
    group is a DNS subdomain."""
    return str(api_version or "").rpartition("/")[0]


def namespace_of(obj: Obj) -> str:
    """The namespace ``obj`` lands in: its own, or ``default`` (kubectl, kustomize's resource ids)."""
    return own_namespace(obj) or DEFAULT_NAMESPACE


def own_namespace(obj: Obj) -> str:
    """``metadata.namespace`` as written (``""`` without one)."""
    md = obj.get("metadata")
    ns = md.get("namespace") if isinstance(md, dict) else None
    return str(ns) if ns else ""


def name_of(obj: Obj) -> str:
    md = obj.get("metadata")
    name = md.get("name") if isinstance(md, dict) else None
    return str(name) if name is not None else ""


def object_id(obj: Obj) -> ObjectId:
    """``obj``'s id (kustomize's ``ResId``, with no namespace meaning ``default``)."""
    kind = obj.get("kind")
    return ObjectId(group_of(obj.get("apiVersion")), str(kind) if kind is not None else "", namespace_of(obj),
                    name_of(obj))

