"""What an older KubeVirt release answers for an instancetype/preference object, derived from main's answer
layer by layer (``shared/conformance-objects``: ``unknownFields``, ``crdErrors``, ``webhook`` are each layer on
its own) and from facts about the release that do not come from the code under test:

* the fields it knows and the fields it requires: the release's own ``swagger.json``
  (``shared/reference/kubevirt-releases/<tag>/``; main answers as v1.9.0). A field main knows and the release
  does not is refused at ``decode`` (strict decoding: one cause per field, sorted, beside main's unknown
  fields); a field the release requires and main does not (v1.5: ``v1.GPU``/``v1.HostDevice`` ``deviceName``;
  v1.5 and v1.6: ``v1.CustomBlockSize`` ``logical``/``physical``, Go fields without ``omitempty`` there) is a
  ``Required value`` at ``validate`` (the CRDs carry no defaults, so the swagger's ``default`` does not help,
  as main's ``spec.cpu.preferredCPUFeatures.name`` cases show);
* the served versions: only v1.5 serves ``v1alpha1``/``v1alpha2`` (shared/docs/kubevirt-releases.md 1.1: same
  schema as v1beta1, conversion ``None``, a deprecation warning per request; v1.5.3's ``webhooks.go`` sends
  all three versions to the object webhooks, whose admitters decode every one into the v1beta1 Go type,
  ``GetInstanceTypeSpecFromAdmissionRequest``): the object's v1beta1 answer with the warning first;
* the webhooks: rules and messages identical in every release (kubevirt-releases.md 0.2, 1.9, section 9),
  but the instance type ``launchSecurity`` warning only from v1.9 (4.2).

Everything else (``version`` refusals of other versions, ``metadata`` decode errors, ObjectMeta rules, the CRD
bounds and pattern, Go integer decoding) is the API server's or identical, so main's answer stands.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from krm_fn.kube.api import ALPHA_API_VERSIONS, INSTANCETYPE_API_VERSION
from krm_fn.kubevirt.webhooks.admission import Decision, decide
from krm_fn.kubevirt_versions import DEFAULT, RELEASES
from tests.builders import shared_dir

# from shared/docs/kubevirt-releases.md, not from the release table under test: 1.1 (only v1.5 serves the alphas),
# 4.2 (the instancetype webhook's launchSecurity warning arrives in v1.9)
ALPHAS_SERVED = ("v1.5",)
LAUNCH_SECURITY_WARNED = ("v1.9", "v1.10")
LAUNCH_SECURITY_WARNING = "launchSecurity is deprecated"
# apiextensions-apiserver's words before a strict decoding error's causes (the corpus's decode cases)
STRICT_LEAD = '{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: '
LAYERS = ("unknownFields", "crdErrors", "webhook")
Answer = dict[str, Any]
# the plural each v1.5 CRD names in its alpha versions' deprecation warning (kubevirt-releases.md 1.1)
DEPRECATED_PLURALS = {
    "VirtualMachineInstancetype": "VirtualMachineInstancetypes",
    "VirtualMachineClusterInstancetype": "VirtualMachineClusterInstanceTypes",
    "VirtualMachinePreference": "VirtualMachinePreferences",
    "VirtualMachineClusterPreference": "VirtualMachineClusterPreferences",
}
_INDEX = re.compile(r"\[\d+\]")

_SWAGGERS: dict[Path, dict[str, Any]] = {}


def _swagger(version: str) -> dict[str, Any]:
    """The release's own API document (shared/reference/kubevirt-releases/<tag>/swagger.json; main answers as
    v1.9.0), not the packaged schema under test."""
    tag = RELEASES[version].tag
    path = shared_dir() / "reference" / "kubevirt-releases" / ("v1.9.0" if tag == "main" else tag) / "swagger.json"
    if path not in _SWAGGERS:
        _SWAGGERS[path] = json.loads(path.read_text(encoding="utf-8"))["definitions"]
    return _SWAGGERS[path]


def _walk(value: Any, schema: dict[str, Any], defs: dict[str, Any], path: str, unknown: set[str],
          missing: set[str]) -> None:
    """The fields of ``value`` the swagger ``schema`` does not know, as the strict decoder names them
    (``spec.gpus[0].foo``), and the required fields it lacks (null or absent), as go-openapi names them (no list
    indexes: ``spec.gpus.deviceName``)."""
    schema = defs[schema["$ref"].rpartition("/")[2]] if "$ref" in schema else schema
    bare = _INDEX.sub("", path)
    if isinstance(value, dict) and "properties" in schema:
        missing.update(f"{bare}.{key}" for key in schema.get("required", ()) if value.get(key) is None)
        for key, child in value.items():
            known = schema["properties"].get(key)
            if known is None:
                unknown.add(f"{path}.{key}")
            else:
                _walk(child, known, defs, f"{path}.{key}", unknown, missing)
    elif isinstance(value, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, child in value.items():
            _walk(child, schema["additionalProperties"], defs, f"{path}.{key}", unknown, missing)
    elif isinstance(value, list) and "items" in schema:
        for i, child in enumerate(value):
            _walk(child, schema["items"], defs, f"{path}[{i}]", unknown, missing)


def swagger_fields(value: dict[str, Any], definition_name: str, version: str) -> tuple[set[str], set[str]]:
    """(the fields of ``value``, an object of ``definition_name`` such as ``v1.VirtualMachine`` or the part of one
    given, that ``version``'s own swagger.json does not know; the required fields it lacks there)."""
    unknown: set[str] = set()
    missing: set[str] = set()
    _walk(value, {"$ref": f"#/definitions/{definition_name}"}, _swagger(version), "", unknown, missing)
    return {p.lstrip(".") for p in unknown}, {p.lstrip(".") for p in missing}


def swagger_unknown(value: dict[str, Any], definition_name: str, version: str) -> set[str]:
    """The fields of ``value`` that ``version``'s own swagger.json does not know (``spec.foo``,
    ``spec.gpus[0].foo``)."""
    return swagger_fields(value, definition_name, version)[0]


def release_differences(o: dict[str, Any], version: str) -> tuple[list[str], list[str]]:
    """(the spec fields of ``o`` only ``version`` does not know, sorted; the spec fields only ``version`` requires
    and ``o`` lacks, sorted), both against main (v1.9.0's swagger)."""
    if not isinstance(o.get("metadata"), dict) or not isinstance(o.get("kind"), str):
        return [], []
    spec, name = {"spec": o.get("spec")}, f"v1beta1.{o['kind']}"
    unknown, missing = swagger_fields(spec, name, version)
    main_unknown, main_missing = swagger_fields(spec, name, DEFAULT)
    return sorted(unknown - main_unknown), sorted(missing - main_missing)


def _cause(field: str, message: str, kind: str) -> dict[str, Any]:
    return {"field": field, "message": message, "type": kind}


def expected_answer(o: dict[str, Any], version: str, main: dict[str, Any]) -> tuple[Answer, bool]:
    """What ``version`` answers for ``o`` (``allowed``, ``stage``, ``message``, ``causes``, ``warnings``), from
    ``main``: the corpus's entry for ``o`` (its answer and its ``LAYERS``). Second: whether the answer is exact;
    when not (a refusal at ``validate`` whose causes the corpus does not word for the release), compare it with
    :func:`matches`."""
    answer: Answer = {k: main[k] for k in ("allowed", "stage", "message", "causes", "warnings")}
    api_version = o.get("apiVersion")
    alpha = api_version in ALPHA_API_VERSIONS and version in ALPHAS_SERVED
    if main["stage"] == "version" and not alpha:
        return answer, True
    if main["stage"] == "decode" and not main["unknownFields"]:
        return answer, True  # metadata Go cannot decode: the API server's
    new_unknown, new_missing = release_differences(o, version)
    kind = str(o.get("kind"))
    unknown = sorted(set(main["unknownFields"]) | set(new_unknown))
    if unknown:
        lead = STRICT_LEAD.format(kind=kind, version=str(api_version).rpartition("/")[2])
        texts = [f'unknown field "{path}"' for path in unknown]
        causes = [_cause(path, text, "FieldValueInvalid") for path, text in zip(unknown, texts)]
        return {"allowed": False, "stage": "decode", "message": lead + ", ".join(texts), "causes": causes,
                "warnings": []}, True
    if main["stage"] == "validate" and not new_missing:
        return answer, True
    invalid = main["causes"] if main["stage"] == "validate" else main["crdErrors"]
    invalid = invalid + [_cause(path, "Required value", "FieldValueRequired") for path in new_missing]
    if invalid:
        return {"allowed": False, "stage": "validate", "message": None, "causes": invalid, "warnings": []}, False
    webhook = main["webhook"]
    if not webhook["allowed"]:
        return {"allowed": False, "stage": "webhook", "message": webhook["message"], "causes": webhook["causes"],
                "warnings": []}, True
    warnings = list(webhook["warnings"])
    if version not in LAUNCH_SECURITY_WARNED:
        warnings = [w for w in warnings if not w.startswith(LAUNCH_SECURITY_WARNING)]
    if alpha:  # the API server's deprecation warning comes before the webhook's
        plural = DEPRECATED_PLURALS[kind]
        warnings.insert(0, f"{api_version} {plural} is now deprecated and will be removed in v1.")
    return {"allowed": True, "stage": None, "message": None, "causes": [], "warnings": warnings}, True



def matches(got: Answer, want: Answer, exact: bool) -> bool:
    """``got`` is ``want``; a validate refusal that is not ``exact``: the same causes in any order, each in the
    message, which names the object as ``apierrors.NewInvalid`` does."""
    if exact:
        return got == want
    key = lambda c: (c["field"], c["message"], c["type"])  # noqa: E731
    return (got["stage"] == want["stage"] == "validate" and not got["allowed"] and got["warnings"] == []
            and sorted(map(key, got["causes"])) == sorted(map(key, want["causes"]))
            and " is invalid: " in str(got["message"])
            and all(f"{c['field']}: {c['message']}" in str(got["message"]) for c in want["causes"]))


def layers_of(o: dict[str, Any], main: Answer, beta: Answer | None = None) -> dict[str, Any]:
    """A corpus-like entry for an object that has only main's answer (random objects): its layers as far as the
    answer shows them. An alpha object refused at ``version`` takes the layers of ``beta``, main's answer for the
    same object as v1beta1."""
    if main["stage"] == "version" and beta is not None:
        return {**main, **{k: v for k, v in layers_of({**o, "apiVersion": INSTANCETYPE_API_VERSION}, beta).items()
                           if k in LAYERS}}
    strict = main["stage"] == "decode" and "strict decoding error" in str(main["message"])
    reached = main["stage"] in ("webhook", None)
    return {**main, "unknownFields": [c["field"] for c in main["causes"]] if strict else [],
            "crdErrors": main["causes"] if main["stage"] == "validate" else [],
            "webhook": {"allowed": main["allowed"], "message": main["message"], "causes": main["causes"],
                        "warnings": main["warnings"]} if reached else {"allowed": True, "message": None,
                                                                       "causes": [], "warnings": []}}


def answer_of(decision: Decision) -> dict[str, Any]:
    return {"allowed": decision.allowed, "stage": decision.stage, "message": decision.message,
            "causes": [{"field": c.field, "message": c.message, "type": c.type} for c in decision.causes],
            "warnings": [w.message for w in decision.warnings]}


# --- the shared cases for every release ------------------------------------------------------------------------
# The cases are main's answers (v1.9.0 answers the same), layer by layer. An older release's answer follows from
# them and from facts apart from the code under test: the release's own swagger.json (the fields it knows and
# requires) and shared/docs/kubevirt-releases.md (served versions, webhook warnings): ``tests/release_objects.py``.
def check_release_answer(o: dict[str, Any], version: str, main: dict[str, Any]) -> None:
    """``version``'s answer to ``o`` is the one that follows from ``main`` (a corpus entry: the answer as
    :func:`answer_of` words it and its layers, ``release_objects.LAYERS``)."""
    want, exact = expected_answer(o, version, main)
    got = answer_of(decide(o, RELEASES[version].tag))
    assert matches(got, want, exact), (got, want)
