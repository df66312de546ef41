"""KubeVirt's instancetype webhooks (``pkg/instancetype/webhooks``): the validating webhook for instancetype
objects (:mod:`.admitter`), the VM's mutator and admitter (:mod:`.vm`), and :mod:`.admission` for a whole
instancetype or preference object as the cluster takes it (the API server's stages, then the object's webhook;
the preference objects' webhook is :mod:`krm_fn.kubevirt.preference.webhooks.admitter`).

Validators are pure functions over plain dicts answering with :class:`krm_fn.kube.status.Cause` values, never
raising on any input.
"""

from __future__ import annotations

from typing import NamedTuple

from krm_fn.kube.status import Cause


class Answer(NamedTuple):
    """What a validating webhook answers about an object's spec (``admissionv1.AdmissionResponse``): the causes
    it refuses with (``FieldValueInvalid``, KubeVirt's text, a kpt field path such as ``spec.cpu.guest``), or, when
    there are none, the warnings kubectl prints for the admitted object (``DEPRECATED`` causes: the text, and the
    field it is about)."""

    causes: list[Cause]
    warnings: list[Cause]
