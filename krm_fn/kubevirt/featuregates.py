"""The feature gates (``pkg/virt-config/featuregate``): whether a cluster has a gate on, as each release decides.

A gate is Alpha, Beta or GA at a release.
A GA gate is always on.
A gate the CR lists in ``developerConfiguration.featureGates`` is on.
From v1.9 (``Release.beta_gates_on``) a Beta gate is on too, unless ``disabledFeatureGates`` lists it.
:data:`STATES` holds the gates a rule reads whose state is not Alpha at some release, each state from the release
line it starts at; every other gate is Alpha.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt_versions import RELEASES, Release

State = Literal["Alpha", "Beta", "GA"]

# gate -> (release line, state from that line on), oldest first; each from a shared/conformance-vms case
STATES: Final[Mapping[str, tuple[tuple[str, State], ...]]] = {
    "InstancetypeReferencePolicy": (("v1.5", "Beta"), ("v1.6", "GA")),  # shared/docs/gitops-field-notes.md 2.1
    "PanicDevices": (("v1.9", "GA"),),  # case 241
    "VideoConfig": (("v1.9", "GA"),),  # case 235
    "PasstBinding": (("v1.9", "Beta"),),  # case 119
    "MultiArchitecture": (("v1.8", "GA"),),  # case 251
    "DeclarativeHotplugVolumes": (("v1.9", "Beta"),),  # case 172
    "WorkloadEncryptionSEV": (("v1.9", "Beta"),),  # case 263
    "EnableVirtioFsConfigVolumes": (("v1.8", "GA"),),  # case 204
    "GPUsWithDRA": (("v1.9", "Beta"),),  # case 153
    "RebootPolicy": (("v1.9", "Beta"),),  # case 247
    "VMPersistentState": (("v1.6", "GA"),),  # case 089
    # shared/docs/pod-resources.md sections 3, 5 and 7 (the launcher pod)
    "ImageVolume": (("v1.7", "Beta"),),
    "ExternalNetResourceInjection": (("v1.8", "Beta"),),
    "HostDevicesWithDRA": (("v1.9", "Beta"),),
}
_LINES: Final = {row.tag: i for i, row in enumerate(RELEASES.values())}
_LINE_INDEX: Final = {line: i for i, line in enumerate(RELEASES)}


def state(gate: str, release: Release) -> State:
    """``gate``'s state at ``release``."""
    at = _LINES[release.tag]
    found: State = "Alpha"
    for line, then in STATES.get(gate, ()):
        if _LINE_INDEX[line] <= at:
            found = then
    return found


def enabled(cluster: ClusterConfig, release: Release, gate: str) -> bool:
    """Whether ``gate`` is on in ``cluster`` at ``release`` (``featuregate.IsEnabled``)."""
    now = state(gate, release)
    if now == "GA" or gate in cluster.feature_gates:
        return True
    return release.beta_gates_on and now == "Beta" and gate not in cluster.disabled_feature_gates
