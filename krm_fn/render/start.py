"""What starting a stored VM would meet (issue 37): the VMI create webhook's refusal, or what keeps its launcher
pod from being created, as results on the VM.

The VM itself is stored: it renders as any other.
Its VMI is refused when virt-controller creates it, and the VM sits in ``FailedCreate``.
That is an error for a VM that runs (``runStrategy`` Always, RerunOnFailure, Once, or ``running: true``), and a
warning for one that does not run yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from krm_fn.kube.paths import Obj, as_map
from krm_fn.kube.status import Cause
from krm_fn.capacity.pods import runs
from krm_fn.kubevirt.launcher.manifest import POD_NOT_CREATED, POD_PREFIX
from krm_fn.kubevirt.webhooks.vmi.start import VMI_VALIDATOR
from krm_fn.results import Result, Severity

PREFIX: Final = "stored, but its VMI would be refused: "


def start_results(vm: Obj, causes: Sequence[Cause]) -> list[Result]:
    """One result per cause, at the VM's field for the VMI's (``spec.domain`` is ``spec.template.spec.domain``); a
    cause of the launcher pod is at the VM's field already."""
    severity: Severity = "error" if runs(vm) else "warning"
    return [Result.for_object(POD_PREFIX + c.message, vm, severity, field_path=c.field, tags=(("stage", "pod"),))
            if c.type == POD_NOT_CREATED else
            Result.for_object(PREFIX + VMI_VALIDATOR + c.message, vm, severity,
                              field_path="spec.template." + (c.field or "spec.domain"), tags=(("stage", "vmi"),))
            for c in causes]
