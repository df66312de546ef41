"""A fleet on a slow route: the warning for many VMs rendered through kustomize's legacy exec plugin.

kustomize's handling of a transformer plugin's output grows quadratically with the number of resources, and
per-vm revisions triple them: past a few thousand VMs the build takes minutes to hours while our own part
stays linear (``bench/pipelines.py``, the pipelines section of ``bench/last-run.txt``). The same render piped
(``kubectl kustomize DIR | kubevirt-krm CONFIG.yaml -``) or run by ``kpt fn render`` grows linearly.
README, "Which route for which fleet size".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from krm_fn.kube.api import KIND_VM
from krm_fn.results import Result

PLUGIN_ENV: Final = "KUSTOMIZE_PLUGIN_CONFIG_STRING"  # set by kustomize for a legacy exec plugin
# Above this many VMs the legacy plugin route is past ~30 s and ~10x the piped route on a 2-core host
# (bench/last-run.txt, pipelines section).
LEGACY_PLUGIN_MAX_VMS: Final = 1000


def legacy_plugin_warning(items: Sequence[Any], environ: Mapping[str, str], file_inputs: bool,
                          limit: int = LEGACY_PLUGIN_MAX_VMS) -> Result | None:
    """A ``warning`` naming the faster routes when kustomize runs us as a legacy exec plugin (its config in
    the environment, the resources on stdin) over more than ``limit`` VMs; else ``None``."""
    if PLUGIN_ENV not in environ or file_inputs:
        return None
    vms = sum(1 for item in items if isinstance(item, dict) and item.get("kind") == KIND_VM)  # no engine import
    if vms <= limit:
        return None
    return Result(
        f"{vms} VirtualMachines rendered through kustomize's legacy exec plugin, whose handling of a plugin's "
        f"output grows quadratically with the number of resources (above {limit} VMs this route takes "
        "minutes): render the kustomization without the transformer and pipe it, `kubectl kustomize DIR | "
        "kubevirt-krm CONFIG.yaml -`, or use `kpt fn render` (README, \"Which route for which fleet size\")",
        "warning")
