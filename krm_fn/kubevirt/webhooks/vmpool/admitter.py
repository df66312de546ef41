"""``ValidateVMPoolSpec`` (``vmpool-admitter.go``): what the pool validating webhook decides on CREATE besides the
VM spec of its template.

The template's VM spec is judged as the VM webhook judges the VM the pool makes (:mod:`krm_fn.render.carriers`);
the pool webhook words it as its own, with the pool's paths (:func:`pool_words`).
Here: a template is present, the selector matches the template's labels, and ``maxUnavailable`` (v1.6+) is a
positive number or a percentage of 1-100.
"""

from __future__ import annotations

import re
from typing import Any, Final

from krm_fn.kube.paths import Obj, as_list, as_map
from krm_fn.kube.status import INVALID, REQUIRED, Cause
from krm_fn.kubevirt.rejection import STAGE_PREFIX
from krm_fn.kubevirt.webhooks.vmi.affinity import LABEL_OPERATORS
from krm_fn.kubevirt_versions import Release

POOL_VALIDATOR: Final = 'admission webhook "virtualmachinepool-validator.kubevirt.io" denied the request: '
VM_VALIDATOR: Final = STAGE_PREFIX["template"]  # the VM webhook's words, which the pool webhook's replace
TEMPLATE_ROOT: Final = "spec.virtualMachineTemplate.spec"
# the VM's own paths in a cause's words, which the pool webhook names under its template
_VM_PATH: Final = re.compile(r"(?<![\w.])spec\.(?=template\b|dataVolumeTemplates\b|running\b|runStrategy\b)")


def validate_pool(pool: Obj, release: Release) -> list[Cause]:
    """The causes of the pool's own fields."""
    spec = as_map(pool.get("spec"))
    template = spec.get("virtualMachineTemplate")
    if not isinstance(template, dict):
        return [Cause(REQUIRED, "spec.template", "missing virtual machine template.")]
    causes = []
    labels = as_map(as_map(template.get("metadata")).get("labels"))
    selector = spec.get("selector")
    fault = _selector_fault(selector)
    if fault is not None:
        causes.append(Cause(INVALID, "spec.selector", fault))
    elif not _matches(selector, labels):
        causes.append(Cause(INVALID, "spec.selector", "selector does not match labels."))
    if release.pool_max_unavailable and "maxUnavailable" in spec:
        causes += _max_unavailable(spec["maxUnavailable"])
    return causes


def _selector_fault(selector: Any) -> str | None:
    """``LabelSelectorAsSelector``'s error: an unknown operator."""
    for expression in as_list(as_map(selector).get("matchExpressions")):
        operator = as_map(expression).get("operator", "")
        if operator not in LABEL_OPERATORS:
            return f'"{operator}" is not a valid label selector operator'
    return None


def _matches(selector: Any, labels: Obj) -> bool:
    """Whether ``labels`` match the selector (no selector matches nothing; an empty one everything)."""
    if not isinstance(selector, dict):
        return False
    if any(labels.get(k) != v for k, v in as_map(selector.get("matchLabels")).items()):
        return False
    for expression in as_list(selector.get("matchExpressions")):
        expression = as_map(expression)
        key, operator, values = str(expression.get("key", "")), expression.get("operator"), as_list(expression.get("values"))
        present = key in labels
        if not {"In": present and labels.get(key) in values, "NotIn": not present or labels.get(key) not in values,
                "Exists": present, "DoesNotExist": not present}[str(operator)]:
            return False
    return True


def _max_unavailable(value: Any) -> list[Cause]:
    at = "spec.maxUnavailable"
    if isinstance(value, int) and not isinstance(value, bool):
        return [] if value > 0 else [Cause(INVALID, at, "maxUnavailable must be greater than 0")]
    text = str(value)
    if not text.endswith("%"):
        return [Cause(INVALID, at, "maxUnavailable percentage must end with %")]
    number = text[:-1]
    if not re.fullmatch(r"[+-]?[0-9]+", number):
        return [Cause(INVALID, at, f'maxUnavailable percentage value "{number}" is invalid: strconv.Atoi: parsing '
                                   f'"{number}": invalid syntax')]
    if not 0 < int(number) <= 100:
        return [Cause(INVALID, at, f"maxUnavailable percentage value {int(number)} must be between 1 and 100")]
    return []


def pool_words(message: str) -> str:
    """A VM validating webhook's message about the VM a pool makes, as the pool webhook words it: its name, and
    the VM's paths under the pool's template."""
    if not message.startswith(VM_VALIDATOR):
        return message
    return POOL_VALIDATOR + _VM_PATH.sub(TEMPLATE_ROOT + ".", message[len(VM_VALIDATOR):])
