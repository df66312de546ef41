"""A VM KubeVirt refuses, as data: the stage that refused it and KubeVirt's exact words. :data:`Stage` names every
stage of the package: a VM's (``schema`` → ``mutate`` → ``admit`` → ``template`` → ``expand``, :mod:`krm_fn.kubevirt.pipeline`)
and an instancetype/preference object's (``version`` → ``decode`` → ``validate`` → ``webhook``,
:mod:`krm_fn.kubevirt.webhooks.admission`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from krm_fn.kube.status import Cause

Stage = Literal["schema", "mutate", "admit", "template", "expand", "version", "decode", "validate", "webhook"]

STAGE_PREFIX: Final[dict[str, str]] = {
    "schema": "Object is not a valid VirtualMachine: ",
    "mutate": 'admission webhook "virtualmachines-mutator.kubevirt.io" denied the request: ',
    "admit": 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: ',
    # the same webhook's rules on the template (the VMI spec), which the expand-spec API does not run
    "template": 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: ',
    "expand": "unable to expand VirtualMachine: ",
}


@dataclass(frozen=True, slots=True)
class Rejection:
    stage: Stage
    error: str                      # KubeVirt's exact error text
    field_path: str | None = None
    # the webhook's causes, root cause first, when it gave several (the error joins their messages)
    causes: tuple[Cause, ...] = ()
    # a template rejection's: what the expand-spec API answers instead (it does not run the template rules)
    expand_error: Rejection | None = None

    @property
    def message(self) -> str:
        """The result message: where it failed, then KubeVirt's text (searchable as is)."""
        return STAGE_PREFIX[self.stage] + self.error
