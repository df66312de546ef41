"""apimachinery's rules for names and object metadata (``validation.ValidateObjectMeta``,
``util/validation``): the one place they are written, for what we emit (:mod:`krm_fn.kubevirt.schema.strict`),
the VMs we are given (:mod:`krm_fn.render.items`) and the catalog's values (:mod:`krm_fn.catalog.check`)."""

from __future__ import annotations

import re
from typing import Any, Final

from krm_fn.errors import shown
from krm_fn.kube.paths import FieldPath, dotted

Problem = tuple[str, str]  # (field path, message)

_DNS_LABEL: Final = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_RE: Final = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_LABEL_RE: Final = re.compile(_DNS_LABEL)
_QUALIFIED_NAME_RE: Final = re.compile(r"(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_MAX_ANNOTATIONS_SIZE: Final = 256 * 1024
LABEL_VALUE_MAX: Final = 63  # validation.LabelValueMaxLength (a name a label records must fit it too)
LABEL_VALUE_RULE: Final = f"at most {LABEL_VALUE_MAX} letters, digits, '-', '_', '.'"


def is_dns_label(value: str) -> bool:
    """``IsDNS1123Label``: at most 63 lowercase alphanumerics and '-', starting and ending with an alphanumeric."""
    return len(value) <= 63 and _LABEL_RE.fullmatch(value) is not None


def is_dns_subdomain(value: str) -> bool:
    """``IsDNS1123Subdomain``: dot-separated DNS labels, at most 253 characters."""
    return len(value) <= 253 and _SUBDOMAIN_RE.fullmatch(value) is not None


def is_label_value(value: str) -> bool:
    """``IsValidLabelValue``: empty, or at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends."""
    return not value or (len(value) <= LABEL_VALUE_MAX and _QUALIFIED_NAME_RE.fullmatch(value) is not None)


def not_a_label_value(value: Any) -> str:
    """The message for a config or catalog value that must be a label value and is not."""
    return f"{shown(value)} is not a valid label value ({LABEL_VALUE_RULE})"


def qualified_name_problem(key: str) -> str | None:
    """``IsQualifiedName`` (label and annotation keys): ``[prefix/]name``, prefix a DNS subdomain, name <= 63."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or not is_dns_subdomain(prefix)):
        return "prefix must be a DNS-1123 subdomain (lowercase alphanumerics, '-' and '.')"
    if not name or len(name) > 63 or _QUALIFIED_NAME_RE.fullmatch(name) is None:
        return ("name part must be at most 63 alphanumerics, '-', '_' or '.', "
                "starting and ending with an alphanumeric")
    return None


def is_qualified_key(key: str) -> bool:
    return qualified_name_problem(key) is None


def metadata_problems(meta: Any, cluster_scoped: bool, path: FieldPath, out: list[Problem]) -> None:
    """``ValidateObjectMeta``'s problems of ``meta`` (at ``path``), appended to ``out``."""
    if not isinstance(meta, dict):
        return  # missing or of a wrong type: reported already
    name = meta.get("name")
    if not name:
        out.append((dotted(path + ("name",)), "required field is missing"))
    elif isinstance(name, str) and not is_dns_subdomain(name):
        out.append((dotted(path + ("name",)),
                    f"{name!r} is not a DNS-1123 subdomain (at most 253 lowercase alphanumerics, '-' and '.', "
                    "starting and ending with an alphanumeric)"))
    namespace = meta.get("namespace")
    if namespace and isinstance(namespace, str):
        if cluster_scoped:
            out.append((dotted(path + ("namespace",)), "not allowed on a cluster-scoped kind"))
        elif not is_dns_label(namespace):
            out.append((dotted(path + ("namespace",)), f"{namespace!r} is not a DNS-1123 label"))
    labels = meta.get("labels")
    if isinstance(labels, dict):
        for key, value in labels.items():
            problem = qualified_name_problem(key)
            if problem:
                out.append((dotted(path + ("labels", key)), f"invalid label key: {problem}"))
            if isinstance(value, str) and not is_label_value(value):
                out.append((dotted(path + ("labels", key)),
                            f"invalid label value {value!r}: at most {LABEL_VALUE_MAX} alphanumerics, '-', '_' or '.', "
                            "starting and ending with an alphanumeric"))
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        size = 0
        for key, value in annotations.items():
            problem = qualified_name_problem(key.lower())
            if problem:
                out.append((dotted(path + ("annotations", key)), f"invalid annotation key: {problem}"))
            size += len(key) + (len(value) if isinstance(value, str) else 0)
        if size > _MAX_ANNOTATIONS_SIZE:
            out.append((dotted(path + ("annotations",)), f"annotations are {size} bytes, more than 256 KiB"))
