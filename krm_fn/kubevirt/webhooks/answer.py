"""What a validating webhook answers about an object's spec: its causes, else its warnings."""

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
