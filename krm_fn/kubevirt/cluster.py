"""The cluster's configuration: what a ``KubeVirt`` CR's ``spec.configuration`` says, as KubeVirt reads it.

:class:`ClusterConfig` holds the fields the renderer reads, each with the default a default ``KubeVirt`` CR
(``spec.configuration.developerConfiguration: {}``) gives; the conformance vectors were produced with it.
Its fields are also the renderer's ``spec.cluster`` shorthands, so the CR and the shorthands are one source.
:func:`from_kubevirt` reads a CR; :func:`merged` lays a CR over the shorthands and names where they disagree.
The CR's whole ``spec.configuration`` stays in :attr:`ClusterConfig.configuration` for the rules without a field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from krm_fn.kube.paths import Obj, as_list, as_map

# a field's metadata key: False for a field that is read from the CR only, never a spec.cluster setting
SETTING: Final = "setting"
KUBEVIRT_KIND: Final = "KubeVirt"
KUBEVIRT_GROUP: Final = "kubevirt.io"


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    # KubeVirt.status.defaultArchitecture (architectureConfiguration.defaultArchitecture): written into VMs
    architecture: str = "amd64"
    # spec.configuration.machineType (deprecated; architectureConfiguration.<arch>.machineType is per arch)
    machine_type: str | None = None
    # spec.configuration.network.defaultNetworkInterface
    default_network_interface: Literal["bridge", "masquerade", "slirp"] = "bridge"
    # spec.configuration.network.permitBridgeInterfaceOnPodNetwork
    permit_bridge_interface_on_pod_network: bool = True
    # spec.configuration.evictionStrategy ("" = not configured: nothing is written)
    eviction_strategy: Literal["None", "LiveMigrate", "LiveMigrateIfPossible", "External", ""] = "None"
    # spec.configuration.cpuRequest (default 100m: nothing is written)
    cpu_request: str = "100m"
    # spec.configuration.developerConfiguration.featureGates: the gates turned on besides the release's defaults
    feature_gates: tuple[str, ...] = ()
    # spec.configuration.developerConfiguration.disabledFeatureGates: Beta gates turned off (v1.9+)
    disabled_feature_gates: tuple[str, ...] = ()
    # spec.configuration.instancetype.referencePolicy: whether virt-controller expands pinned VMs
    reference_policy: Literal["reference", "expand", "expandAll"] = "reference"
    # spec.configuration.vmRolloutStrategy ("" = not configured: the release's default)
    vm_rollout_strategy: Literal["Stage", "LiveUpdate", ""] = ""
    # the CR's spec.configuration as given, for the rules that read a field without a shorthand
    configuration: Mapping[str, Any] = field(default_factory=dict, compare=False, metadata={SETTING: False})


# field -> where the CR holds it (under spec.configuration)
CR_PATHS: Final[Mapping[str, tuple[str, ...]]] = {
    "architecture": ("architectureConfiguration", "defaultArchitecture"),
    "machine_type": ("machineType",),
    "default_network_interface": ("network", "defaultNetworkInterface"),
    "permit_bridge_interface_on_pod_network": ("network", "permitBridgeInterfaceOnPodNetwork"),
    "eviction_strategy": ("evictionStrategy",),
    "cpu_request": ("cpuRequest",),
    "feature_gates": ("developerConfiguration", "featureGates"),
    "disabled_feature_gates": ("developerConfiguration", "disabledFeatureGates"),
    "reference_policy": ("instancetype", "referencePolicy"),
    "vm_rollout_strategy": ("vmRolloutStrategy",),
}
_DEFAULT: Final = ClusterConfig()


def is_kubevirt(item: Obj) -> bool:
    """Whether ``item`` is a ``KubeVirt`` CR (``kubevirt.io/v1``, any version of the group)."""
    api = item.get("apiVersion")
    return item.get("kind") == KUBEVIRT_KIND and isinstance(api, str) and api.split("/")[0] == KUBEVIRT_GROUP


def _read(configuration: Obj, name: str) -> Any:
    """The value the CR gives field ``name``, in the field's type; None when it gives none of that type."""
    *parents, leaf = CR_PATHS[name]
    holder = configuration
    for key in parents:
        holder = as_map(holder.get(key))
    value = holder.get(leaf)
    default = getattr(_DEFAULT, name)
    if isinstance(default, tuple):
        return tuple(v for v in as_list(value) if isinstance(v, str)) if isinstance(value, list) else None
    if isinstance(default, bool):
        return value if isinstance(value, bool) else None
    return value if isinstance(value, str) and value else None


def from_kubevirt(kubevirt: Obj) -> dict[str, Any]:
    """The fields a ``KubeVirt`` CR sets, by name (``configuration`` always)."""
    configuration = as_map(as_map(kubevirt.get("spec")).get("configuration"))
    given = {name: value for name in CR_PATHS if (value := _read(configuration, name)) is not None}
    return {**given, "configuration": configuration}


def merged(shorthands: ClusterConfig, kubevirt: Obj | None) -> tuple[ClusterConfig, list[str]]:
    """The cluster a run renders for: the CR's fields over the ``spec.cluster`` shorthands.
    A shorthand set to another value than the CR's is a problem, named with both; the CR's value holds."""
    if kubevirt is None:
        return shorthands, []
    given = from_kubevirt(kubevirt)
    problems = []
    for name, value in given.items():
        mine = getattr(shorthands, name)
        if name in CR_PATHS and mine != getattr(_DEFAULT, name) and mine != value:
            head, *rest = name.split("_")
            key = head + "".join(p.capitalize() for p in rest)
            problems.append(f"spec.cluster.{key} is {mine!r} but the KubeVirt item's spec.configuration."
                            f"{'.'.join(CR_PATHS[name])} is {value!r}: keep one (the KubeVirt item's holds)")
    return dataclasses.replace(shorthands, **given), problems


def architecture_configuration(cluster: ClusterConfig, arch: str) -> Obj:
    """``architectureConfiguration.<arch>`` of the CR (``{}`` when it has none)."""
    return as_map(as_map(cluster.configuration.get("architectureConfiguration")).get(arch))
