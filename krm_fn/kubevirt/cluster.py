"""The cluster settings that change what expand returns (``spec.cluster`` of the renderer config).

Defaults equal a default ``KubeVirt`` CR (``spec.configuration.developerConfiguration: {}``), which is what
the conformance vectors were produced with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    # KubeVirt.status.defaultArchitecture: written into VMs that set none
    architecture: str = "amd64"
    # spec.configuration.machineType / architectureConfiguration.<arch>.machineType override
    machine_type: str | None = None
    # spec.configuration.network.defaultNetworkInterface
    default_network_interface: Literal["bridge", "masquerade", "slirp"] = "bridge"
    # spec.configuration.network.permitBridgeInterfaceOnPodNetwork
    permit_bridge_interface_on_pod_network: bool = True
    # spec.configuration.evictionStrategy ("" = not configured: nothing is written)
    eviction_strategy: Literal["None", "LiveMigrate", "LiveMigrateIfPossible", "External", ""] = "None"
    # spec.configuration.cpuRequest (default 100m: nothing is written)
    cpu_request: str = "100m"
