"""``WebhookConfig``: what a webhook rule reads besides the object, as upstream's ``virtconfig.ClusterConfig``."""

from __future__ import annotations

from typing import Any, NamedTuple

from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.featuregates import enabled
from krm_fn.kubevirt_versions import LATEST, Release


class WebhookConfig(NamedTuple):
    """The release whose rules run, the cluster's configuration, and the render's memo of judged domains
    (``Caches.domains``; None: nothing remembered)."""

    release: Release = LATEST
    cluster: ClusterConfig = ClusterConfig()
    memo: dict[Any, Any] | None = None

    def gate(self, name: str) -> bool:
        """Whether feature gate ``name`` is on."""
        return enabled(self.cluster, self.release, name)

    def reference_policy(self) -> str:
        """``GetInstancetypeReferencePolicy``: the configured policy, honoured where its gate is on (GA from v1.6)."""
        policy = self.cluster.reference_policy
        return policy if self.gate("InstancetypeReferencePolicy") else "reference"

    def live_update(self) -> bool:
        """``IsVMRolloutStrategyLiveUpdate``: the configured rollout strategy, else the release's default."""
        strategy = self.cluster.vm_rollout_strategy
        return strategy == "LiveUpdate" if strategy else self.release.live_update_default
