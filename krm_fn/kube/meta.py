"""apimachinery's rules for names and object metadata (``validation.ValidateObjectMeta``,
``util/validation``): the one place they are written, for what we emit (:mod:`krm_fn.kubevirt.schema.strict`),
the VMs we are given (:mod:`krm_fn.render.items`) and the catalog's values (:mod:`krm_fn.catalog.check`)."""

from __future__ import annotations

import functools
import re
from typing import Any, Final

from collections.abc import Callable

from krm_fn.errors import shown
from krm_fn.kube.paths import FieldPath, dotted
from krm_fn.kube.status import FORBIDDEN, INVALID, REQUIRED, TOO_LONG, TYPE_INVALID, Cause, field_error

_DNS_LABEL: Final = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_RE: Final = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_LABEL_RE: Final = re.compile(_DNS_LABEL)
_QUALIFIED_NAME_RE: Final = re.compile(r"(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_MAX_ANNOTATIONS_SIZE: Final = 256 * 1024
LABEL_VALUE_MAX: Final = 63  # validation.LabelValueMaxLength (a name a label records must fit it too)
LABEL_VALUE_RULE: Final = f"at most {LABEL_VALUE_MAX} letters, digits, '-', '_', '.'"


def annotations_of(obj: Any) -> dict[Any, Any]:
    """``metadata.annotations`` of ``obj``; empty when the object, its metadata or its annotations are not
    mappings (the one place that is checked: whoever reports a malformed value does so on its own)."""
    md = obj.get("metadata") if isinstance(obj, dict) else None
    ann = md.get("annotations") if isinstance(md, dict) else None
    return ann if isinstance(ann, dict) else {}


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


@functools.lru_cache(maxsize=4096)
def is_qualified_key(key: str) -> bool:
    """``IsQualifiedName`` (label and annotation keys): ``[prefix/]name``, prefix a DNS subdomain, name <= 63
    (cached: every VM has the same keys)."""
    return not qualified_name_errors(key)


def undecodable_metadata(meta: Any) -> Cause | None:
    """The first field of an object's ``metadata`` the API server could not decode into ``ObjectMeta``
    (``metadata`` a mapping, ``namespace`` and ``generateName`` strings, ``labels`` and ``annotations`` maps of
    strings), as a ``TYPE_INVALID`` cause; None when it decodes (a missing or null field decodes). The one rule
    for the VMs we render (:mod:`krm_fn.render.items`) and the objects migrate rewrites (:mod:`krm_fn.render.migrate`)."""
    if meta is None:
        return None
    if not isinstance(meta, dict):
        return Cause(TYPE_INVALID, "metadata", "must be a mapping")
    for key in ("namespace", "generateName"):
        value = meta.get(key)
        if value is not None and type(value) is not str:
            return Cause(TYPE_INVALID, f"metadata.{key}", "must be a string")
    for key in ("labels", "annotations"):
        value = meta.get(key)
        if value is not None and (not isinstance(value, dict) or not _strings(value)):
            return Cause(TYPE_INVALID, f"metadata.{key}", "must be a map of strings")
    return None


def _strings(mapping: dict[Any, Any]) -> bool:
    for k, v in mapping.items():
        if type(k) is not str or type(v) is not str:
            return False
    return True


def metadata_problems(meta: Any, cluster_scoped: bool, path: FieldPath, out: list[Cause]) -> None:
    """``ValidateObjectMeta``'s problems of ``meta`` (at ``path``), in apimachinery's words
    (:func:`object_meta_causes`), appended to ``out``. Fields of a wrong type are the schema's to report and are
    skipped here; a namespaced object may leave its namespace out (a KRM item's is ``default``)."""
    if not isinstance(meta, dict):
        return  # missing or of a wrong type: reported already
    if _decoded(meta):  # nearly every object: read as it is, no view made
        view = meta
    else:
        view = {k: meta[k] for k in ("name", "generateName", "namespace") if isinstance(meta.get(k), str)}
        for key in ("labels", "annotations"):
            if isinstance(meta.get(key), dict):
                view[key] = {k: v for k, v in meta[key].items() if isinstance(k, str) and isinstance(v, str)}
        if isinstance(meta.get("generation"), int):
            view["generation"] = meta["generation"]
    causes = object_meta_causes(view, not cluster_scoped, not cluster_scoped)
    if not causes:
        return
    prefix = dotted(path)
    for cause in causes:
        field = cause.field or "metadata"
        out.append(Cause(cause.type, prefix + field[len("metadata"):], cause.message))


def _decoded(meta: dict[str, Any]) -> bool:
    """Whether every field :func:`object_meta_causes` reads has its decoded type (the view would be ``meta``)."""
    name, generation = meta.get("name"), meta.get("generation")
    return undecodable_metadata(meta) is None and (name is None or type(name) is str) \
        and (generation is None or isinstance(generation, int))


# --- apimachinery's own words (``util/validation``), as the API server refuses an object's metadata ---------
_SUBDOMAIN_FMT: Final = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_MSG: Final = ("must consist of alphanumeric characters, '-', '_' or '.', "
                         "and must start and end with an alphanumeric character")
_LABEL_VALUE_MSG: Final = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
                           "or '.', and must start and end with an alphanumeric character")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``validation.RegexError``."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    listed = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {listed}regex used for validation is '{fmt}')"


def max_len_error(n: int) -> str:
    return f"must be no more than {n} characters"


def dns_subdomain_errors(value: str) -> list[str]:
    """``IsDNS1123Subdomain``'s messages."""
    errs = [max_len_error(253)] if len(value) > 253 else []
    if _SUBDOMAIN_RE.fullmatch(value) is None:
        errs.append(regex_error("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                                "'-' or '.', and must start and end with an alphanumeric character",
                                _SUBDOMAIN_FMT, "example.com"))
    return errs


def dns_label_errors(value: str) -> list[str]:
    """``IsDNS1123Label``'s messages."""
    errs = [max_len_error(63)] if len(value) > 63 else []
    if _LABEL_RE.fullmatch(value) is None:
        errs.append(regex_error("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                                "'-', and must start and end with an alphanumeric character",
                                _LABEL_FMT, "my-name", "123-abc"))
    return errs


def qualified_name_errors(value: str) -> list[str]:
    """``IsQualifiedName``'s messages (label and annotation keys)."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) > 2:
        return ["a qualified name " + regex_error(_QUALIFIED_MSG, _QUALIFIED_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    name = parts[-1]
    if len(parts) == 2:
        if not parts[0]:
            errs.append("prefix part must be non-empty")
        else:
            for message in dns_subdomain_errors(parts[0]):
                errs.append("prefix part " + message)
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + max_len_error(63))
    if _QUALIFIED_NAME_RE.fullmatch(name) is None:
        errs.append("name part " + regex_error(_QUALIFIED_MSG, _QUALIFIED_FMT, "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    """``IsValidLabelValue``'s messages."""
    errs = [max_len_error(LABEL_VALUE_MAX)] if len(value) > LABEL_VALUE_MAX else []
    if value and _QUALIFIED_NAME_RE.fullmatch(value) is None:
        errs.append(regex_error(_LABEL_VALUE_MSG, f"({_QUALIFIED_FMT})?", "MyValue", "my_value", "12345"))
    return errs


def _invalid(out: list[Cause], field: str, value: Any, messages: list[str]) -> None:
    """Appends an ``Invalid`` cause at ``field`` for each of ``messages`` (a plain loop: no comprehension is made
    per key when, as on nearly every VM, there is no message)."""
    for message in messages:
        out.append(field_error(INVALID, field, value, message))


def object_meta_causes(meta: dict[str, Any], namespaced: bool, namespace_defaulted: bool = False) -> list[Cause]:
    """``ValidateObjectMetaAccessor(meta, namespaced, NameIsDNSSubdomain, "metadata")`` on decoded metadata (string
    fields are strings, labels and annotations maps of strings), as the API server words each error. A
    ``generateName`` alone stands for the name the server generates from it (``BeforeCreate``);
    ``namespace_defaulted``: a missing namespace is ``default`` (a KRM item's). Each rule is first asked
    yes or no (keys cached: every VM has the same ones), its messages made only for a value it refuses."""
    out: list[Cause] = []
    generate = meta.get("generateName") or ""
    name = meta.get("name") or ""
    if generate:
        masked = generate[:-1] + "a" if generate.endswith("-") else generate  # maskTrailingDash
        if not is_dns_subdomain(masked):
            _invalid(out, "metadata.generateName", generate, dns_subdomain_errors(masked))
    if not name and not generate:
        out.append(field_error(REQUIRED, "metadata.name", detail="name or generateName is required"))
    elif name and not is_dns_subdomain(name):
        _invalid(out, "metadata.name", name, dns_subdomain_errors(name))
    namespace = meta.get("namespace") or ""
    if namespaced:
        if not namespace:
            if not namespace_defaulted:
                out.append(field_error(REQUIRED, "metadata.namespace"))
        elif not is_dns_label(namespace):
            _invalid(out, "metadata.namespace", namespace, dns_label_errors(namespace))
    elif namespace:
        out.append(field_error(FORBIDDEN, "metadata.namespace", detail="not allowed on this type"))
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        out.append(field_error(INVALID, "metadata.generation", generation, "must be greater than or equal to 0"))
    labels = meta.get("labels") or {}
    if not _labels_ok(labels):
        for key in sorted(labels):
            _invalid(out, "metadata.labels", key, qualified_name_errors(key))
            _invalid(out, "metadata.labels", labels[key], label_value_errors(labels[key]))
    annotations = meta.get("annotations") or {}
    size = 0
    for key, value in annotations.items():
        if not _annotation_key_ok(key):
            break
        size += len(key) + len(value)
    else:
        if size <= _MAX_ANNOTATIONS_SIZE:
            return out
    for key in sorted(annotations):
        _invalid(out, "metadata.annotations", key, qualified_name_errors(key.lower()))
    if sum(len(k) + len(v) for k, v in annotations.items()) > _MAX_ANNOTATIONS_SIZE:
        out.append(field_error(TOO_LONG, "metadata.annotations",
                               detail=f"may not be more than {_MAX_ANNOTATIONS_SIZE} bytes"))
    return out


def _labels_ok(labels: dict[str, str]) -> bool:
    for key, value in labels.items():
        if not is_qualified_key(key) or not is_label_value(value):
            return False
    return True


@functools.lru_cache(maxsize=4096)
def _annotation_key_ok(key: str) -> bool:
    return not qualified_name_errors(key.lower())


def item_problem(item: Any, where: str, place: Callable[[], str] | None = None,
                  named: bool = True) -> str | None:
    """Why an item cannot be processed as a Kubernetes object (a flat list of checks), or None; ``place()``
    (``FILE line N``, worked out only for a message) starts the message when given. ``named``: it must have a
    ``metadata.name`` or a ``metadata.generateName`` (the API server makes the name from it on create)."""
    def at(what: str) -> str:
        return ": ".join(p for p in (place() if place else "", what) if p)

    if not isinstance(item, dict):
        return f"{at(where) or 'the document'} must be a mapping (a Kubernetes object), got {type(item).__name__}"
    missing = [k for k in ("apiVersion", "kind") if not isinstance(item.get(k), str) or not item.get(k)]
    md = item.get("metadata")
    if named and not any(isinstance(md, dict) and isinstance(md.get(k), str) and md.get(k)
                         for k in ("name", "generateName")):
        missing.append("metadata.name (or metadata.generateName)")
    if missing:
        name = md.get("name") if isinstance(md, dict) else None
        what = ": ".join(p for p in (where, f"{item.get('kind') or 'object'} {name!r}") if p) if name else where
        return f"{at(what)}: missing or empty {', '.join(missing)}"
    if isinstance(md, dict) and md.get("annotations") is not None and not isinstance(md["annotations"], dict):
        return f"{at(where)}: metadata.annotations must be a mapping"
    return None
