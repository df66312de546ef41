"""The instancetype validating webhooks (``virtualmachineinstancetype-validator`` and
``virtualmachineclusterinstancetype-validator.instancetype.kubevirt.io``).

Upstream: ``pkg/instancetype/webhooks/admitter.go`` (``ValidateInstanceTypeSpec``, ``checkForDeprecatedFields``).
Semantics: ``shared/docs/kubevirt-semantics.md`` §13.4.

The webhook works on the decoded Go struct: a value of the wrong JSON type never reaches it (the schema refuses
the object first, :mod:`krm_fn.kubevirt.webhooks.admission`), so such values are skipped here.
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.errors import cut
from krm_fn.kube.status import DEPRECATED, INVALID, Cause
from krm_fn.kubevirt.webhooks.answer import Answer

OVERCOMMIT_PATH: Final = "spec.memory.overcommitPercent"
HUGEPAGES_PATH: Final = "spec.memory.hugepages"
LAUNCH_SECURITY_PATH: Final = "spec.launchSecurity"
LAUNCH_SECURITY_WARNING: Final = \
    "launchSecurity is deprecated and will be removed in a future release. Use preference instead."


def _memory(spec: Any) -> dict[str, Any]:
    memory = spec.get("memory") if isinstance(spec, dict) else None
    return memory if isinstance(memory, dict) else {}


def validate_spec(spec: Any) -> list[Cause]:
    """The causes the webhook refuses ``spec`` with, in its order (empty: admitted)."""
    memory = _memory(spec)
    percent = memory.get("overcommitPercent")
    if type(percent) is not int:  # absent (0 in Go) or not decodable
        return []
    causes: list[Cause] = []
    if not 0 <= percent <= 100:
        causes.append(Cause(INVALID, OVERCOMMIT_PATH,
                              f"{OVERCOMMIT_PATH} '{cut(percent)}': must be in range between 0 and 100."))
    if percent != 0 and memory.get("hugepages") is not None:
        causes.append(Cause(INVALID, OVERCOMMIT_PATH,
                              f"{OVERCOMMIT_PATH} and {HUGEPAGES_PATH} should not be requested together."))
    return causes


def warnings(spec: Any, launch_security: bool = True) -> list[Cause]:
    """The warnings of an admitted ``spec`` (deprecated fields); ``launch_security``: the release deprecates
    the instancetype's ``launchSecurity`` (v1.9+, ``Release.launch_security_warning``)."""
    if launch_security and isinstance(spec, dict) and spec.get("launchSecurity") is not None:
        return [Cause(DEPRECATED, LAUNCH_SECURITY_PATH, LAUNCH_SECURITY_WARNING)]
    return []


def admit(spec: Any, launch_security: bool = True) -> Answer:
    """What the webhook answers for ``spec``: its causes, or, when there are none, its warnings
    (``launch_security``: :func:`warnings`)."""
    causes = validate_spec(spec)
    return Answer(causes, [] if causes else warnings(spec, launch_security))
