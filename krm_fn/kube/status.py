"""A refusal in the API server's words: ``metav1.StatusCause`` (one cause: a type, a field, a message) and the
``field.Error`` texts apimachinery builds them from (``field.Invalid``, ``Required``, ...), with
``apierrors.NewInvalid``'s message over several of them. The one field+message type of the whole package: the
API server's stages, KubeVirt's webhooks (whose causes are ``StatusCause``s too, their warnings kept with their
field), the VM mutator's matcher causes, and the strict output and metadata checks all answer with it.

Upstream: apimachinery ``pkg/util/validation/field/errors.go`` (``ErrorBody``), ``pkg/api/errors``
(``NewInvalid``), ``pkg/apis/meta/v1`` (``StatusCause``, ``CauseType``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

# field.ErrorType -> (the StatusCause type, the words ErrorBody starts with)
INVALID: Final = "FieldValueInvalid"
TYPE_INVALID: Final = "FieldValueTypeInvalid"
REQUIRED: Final = "FieldValueRequired"
NOT_SUPPORTED: Final = "FieldValueNotSupported"
FORBIDDEN: Final = "FieldValueForbidden"
TOO_LONG: Final = "FieldValueTooLong"
TOO_MANY: Final = "FieldValueTooMany"
DUPLICATE: Final = "FieldValueDuplicate"
NOT_FOUND: Final = "FieldValueNotFound"
# ours, not a metav1.CauseType: a webhook's deprecation warning (upstream a plain string), kept with its field
DEPRECATED: Final = "FieldValueDeprecated"
WORDS: Final[dict[str, str]] = {
    INVALID: "Invalid value", TYPE_INVALID: "Invalid value", REQUIRED: "Required value",
    NOT_SUPPORTED: "Unsupported value", FORBIDDEN: "Forbidden", TOO_LONG: "Too long", TOO_MANY: "Too many",
    DUPLICATE: "Duplicate value", NOT_FOUND: "Not found",
}
_NO_VALUE: Final = frozenset({REQUIRED, FORBIDDEN, TOO_LONG})  # ErrorBody prints no value for these


@dataclass(frozen=True, slots=True)
class Cause:
    """One ``metav1.StatusCause``: ``type`` (``FieldValueInvalid``, ...), ``field`` (``spec.cpu.guest``; None for
    the whole object) and ``message`` (for a ``field.Error`` its ``ErrorBody()``, e.g.
    ``Invalid value: "x": ...``; for a webhook's cause KubeVirt's text)."""

    type: str
    field: str | None
    message: str

    def error(self) -> str:
        """``field.Error.Error()``: ``<field>: <message>``."""
        return f"{self.field}: {self.message}" if self.field else self.message


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string: double quotes, printable characters (non-ASCII included) as they are."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x10000:
            out.append(f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def go_value(value: Any) -> str:
    """A JSON value as ``ErrorBody`` prints it (``%v`` of numbers and bools, ``%q`` of strings)."""
    if value is None:
        return '"null"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_number(value)
    if isinstance(value, str):
        return go_quote(value)
    return repr(value)


def go_number(value: float) -> str:
    """``%v`` of a float64: the shortest text, exponent form outside [1e-4, 1e21)."""
    if math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        return f"{mantissa}e{sign}{abs(int(exp)):02d}"
    return text


def field_error(kind: str, field: str | None, value: Any = None, detail: str = "") -> Cause:
    """A ``field.Error`` of ``kind`` as a cause: its message is ``ErrorBody()``."""
    body = WORDS[kind] if kind in _NO_VALUE else f"{WORDS[kind]}: {go_value(value)}"
    return Cause(kind, field, f"{body}: {detail}" if detail else body)


def invalid_message(kind: str, group: str, name: str, causes: Sequence[Cause]) -> str:
    """``apierrors.NewInvalid(...).Error()``: ``<Kind>.<group> "<name>" is invalid: <errors>`` (one error as
    it is, several as ``[a, b]``, repeated texts once)."""
    texts = list(dict.fromkeys(c.error() for c in causes))
    errors = texts[0] if len(texts) == 1 else f"[{', '.join(texts)}]"
    return f"{kind}.{group} {go_quote(name)} is invalid: {errors}"


def no_kind_match(kind: str, api_version: str) -> str:
    """``meta.NoKindMatchError`` as kubectl prints it: the kind is not served in that version."""
    return f'no matches for kind "{kind}" in version "{api_version}"'
