"""A fleet on a slow route: the warning for many resources rendered through kustomize's legacy exec plugin.

kustomize's handling of a transformer plugin's output grows quadratically with the number of resources it gets
back, and per-vm revisions triple them: past a few thousand the build takes minutes while our own part stays
linear (``bench/pipelines.py``, the pipelines section of ``bench/last-run.txt``). ``kpt fn render`` grows
linearly; the same render piped (``kubectl kustomize DIR | kubevirt-krm CONFIG.yaml -``) avoids the plugin's
share. README, "Which route for which fleet size".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from krm_fn.kube.api import KIND_VM
from krm_fn.results import Result

PLUGIN_ENV: Final = "KUSTOMIZE_PLUGIN_CONFIG_STRING"  # set by kustomize for a legacy exec plugin
# Resources handed back to kustomize above which the legacy plugin route passes ~30 s and ~10x the kpt route
# on a 2-core host: 2,000 VMs in shared scope (~2,050 resources) took 31-58 s, 1,000 in per-vm scope (3,000
# resources) 23-45 s, where kpt fn render took 3-10 s (bench/last-run.txt, pipelines section; issue 16).
LEGACY_PLUGIN_MAX_RESOURCES: Final = 2000


def legacy_plugin_route(environ: Mapping[str, str], file_inputs: bool) -> bool:
    """Whether kustomize runs us as a legacy exec plugin: its config in the environment, the resources on
    stdin (inputs named as files are standalone mode, whatever the environment holds)."""
    return PLUGIN_ENV in environ and not file_inputs


def legacy_plugin_warning(inputs: Sequence[Any], outputs: int,
                          limit: int = LEGACY_PLUGIN_MAX_RESOURCES) -> Result | None:
    """On the legacy plugin route: a ``warning`` naming the faster routes when we hand kustomize back more
    than ``limit`` resources (``outputs``); else ``None``. ``inputs`` are the items read, for the VM count in
    the message."""
    if outputs <= limit:
        return None
    vms = sum(1 for item in inputs if isinstance(item, dict) and item.get("kind") == KIND_VM)  # no engine import
    return Result(
        f"{outputs} resources ({vms} VirtualMachines) handed back to kustomize's legacy exec plugin, whose "
        f"handling of a plugin's output grows quadratically with the number of resources (above {limit} this "
        "route takes minutes): render the kustomization without the transformer and pipe it, `kubectl kustomize "
        "DIR | kubevirt-krm CONFIG.yaml -`, or use `kpt fn render`, which grows linearly; shared revisions "
        "(`revisions.scope: shared`) hand back a third as many (README, \"Which route for which fleet size\")",
        "warning")
