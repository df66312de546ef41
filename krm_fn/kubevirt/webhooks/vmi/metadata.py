"""``ValidateVirtualMachineInstanceMetadata`` (``vmi-create-admitter.go``): a VMI template's labels and annotations.

A user may not set the labels KubeVirt reserves for itself, and the ignition and sidecar annotations need their gates.
"""

from __future__ import annotations

from typing import Final

from krm_fn.kube.paths import Obj, as_map
from krm_fn.kube.status import INVALID, NOT_SUPPORTED, Cause
from krm_fn.kubevirt.webhooks.config import WebhookConfig

RESERVED_LABELS: Final = frozenset({
    "kubevirt.io/created-by", "kubevirt.io/migrationJobUID", "kubevirt.io/nodeName",
    "kubevirt.io/migrationTargetNodeName", "kubevirt.io/schedulable", "kubevirt.io/install-strategy",
})
IGNITION: Final = "kubevirt.io/ignitiondata"
SIDECARS: Final = "hooks.kubevirt.io/hookSidecars"


def validate_metadata(field: str, metadata: Obj, config: WebhookConfig) -> list[Cause]:
    """The causes of a template's ``metadata`` at ``field`` (``spec.template.metadata``)."""
    labels, annotations = as_map(metadata.get("labels")), as_map(metadata.get("annotations"))
    causes = []
    if RESERVED_LABELS.intersection(labels):
        causes.append(Cause(NOT_SUPPORTED, f"{field}.labels",
                            "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited"))
    if annotations.get(IGNITION) and not config.gate("ExperimentalIgnitionSupport"):
        causes.append(Cause(INVALID, f"{field}.annotations", "ExperimentalIgnitionSupport feature gate is not enabled "
                                                             f"in kubevirt-config, invalid entry {field}.annotations."
                                                             f"{IGNITION}"))
    if annotations.get(SIDECARS) and not config.gate("Sidecar"):
        causes.append(Cause(INVALID, f"{field}.annotations", "sidecar feature gate is not enabled in kubevirt-config, "
                                                             f"invalid entry {field}.annotations.{SIDECARS}"))
    return causes
