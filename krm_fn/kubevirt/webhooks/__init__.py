"""KubeVirt's admission webhooks: for VMs (:mod:`.vm`: mutator, admitter), and the validating webhooks for the
instancetype and preference objects (``pkg/instancetype/webhooks``,
``pkg/instancetype/preference/webhooks``): :mod:`.instancetype`, :mod:`.preference`, and :mod:`.admission` for a
whole object as the cluster takes it (the API server's stages first).

Validators are pure functions over plain dicts returning :class:`Problem` values, never raising on any input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from krm_fn.kube.status import INVALID, Cause

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Problem:
    """What a webhook answers about one field: a cause (``error``: the object is refused) or a warning (kubectl
    prints it, the object is stored). ``message`` is KubeVirt's text exactly; ``field`` a kpt field path
    (``spec.cpu.guest``) or None for the whole object."""

    severity: Severity
    field: str | None
    message: str

    def cause(self) -> Cause:
        """The ``metav1.StatusCause`` KubeVirt refuses with (its webhooks' causes are all ``FieldValueInvalid``)."""
        return Cause(INVALID, self.field, self.message)
