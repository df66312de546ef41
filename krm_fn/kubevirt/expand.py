"""``Expand`` (``pkg/instancetype/expand/expand.go``): a VM with its instancetype and preference applied and
KubeVirt's defaults set, what ``virtctl expand`` returns.

Errors are returned as values, as upstream returns them: the conflicts (``conflict.Conflicts``) or the
pod network interface's :class:`DefaultsError`. Wording them, and running admission first, is the
caller's part (:mod:`krm_fn.kubevirt.pipeline`).
"""

from __future__ import annotations

from collections.abc import Sequence

from krm_fn.kube.paths import Obj, ensure_map
from krm_fn.kubevirt.apply.vmi import VM_BASE, apply_to_vmi
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.conflict import Conflict
from krm_fn.kubevirt.defaults import (
    DefaultsError,
    set_default_network_interface,
    set_default_vmi_spec,
    set_default_volume_disks,
)
from krm_fn.kubevirt.webhooks.vmi.presets import apply_presets
from krm_fn.kubevirt_versions import LATEST, Release


def expand(vm: Obj, it: Obj | None, pref: Obj | None, cluster: ClusterConfig,
           release: Release = LATEST, presets: Sequence[Obj] = ()) -> Obj | list[Conflict] | DefaultsError:
    """``Expand`` once the specs are found (the caller handles lookup failures), as ``release`` expands. Changes
    ``vm`` in place (pass a :func:`krm_fn.kubevirt.vmcopy.expand_copy`) and returns it, or the error.
    ``presets``: merged in before the defaults, as the VMI mutating webhook does for the VMI virt-controller
    makes (the expand-spec API applies none)."""
    template = ensure_map(vm, ("spec", "template"))
    vmi = ensure_map(template, ("spec",))
    meta = ensure_map(template, ("metadata",))
    set_default_volume_disks(vmi)
    try:
        set_default_network_interface(cluster, vmi)
    except DefaultsError as err:
        return err
    conflicts = apply_to_vmi(VM_BASE, it, pref, vmi, meta, release)
    if conflicts:
        return conflicts
    if presets:
        apply_presets(ensure_map(vmi, ("domain",)), presets)
    # the defaults come after the specs, so that they never conflict with them
    set_default_vmi_spec(cluster, vmi, release)
    # the matchers (and our status refs) go, so that the returned VM can be used as is
    spec = vm["spec"]
    spec.pop("instancetype", None)
    spec.pop("preference", None)
    status = vm.get("status")
    if isinstance(status, dict):
        status.pop("instancetypeRef", None)
        status.pop("preferenceRef", None)
    return vm
