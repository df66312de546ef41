"""KubeVirt's admission webhooks: for VMs (:mod:`.vm`: mutator, admitter), and the validating webhooks for the
instancetype and preference objects (``pkg/instancetype/webhooks``,
``pkg/instancetype/preference/webhooks``) and what the API server checks before them (the CRDs' structural
schema): :mod:`.instancetype`, :mod:`.preference`, and :mod:`.admission` for a whole object.

Validators are pure functions over plain dicts returning :class:`Problem` values, never raising on any input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]
Stage = Literal["schema", "admit"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One admission cause (``error``: the object is refused) or warning (kubectl prints it, the object is
    stored). ``message`` is KubeVirt's text exactly (for ``schema``: ours, see :mod:`.admission`);
    ``field`` a kpt field path (``spec.cpu.guest``) or None for the whole object."""

    severity: Severity
    field: str | None
    message: str
    stage: Stage = "admit"
