"""Apply a preference spec to a VMI spec (``pkg/instancetype/preference/apply/vmi.go``): the groups in
KubeVirt's order; fill-if-unset only, never a conflict."""

from __future__ import annotations

from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.preference.apply.annotations import apply_annotation_preferences
from krm_fn.kubevirt.preference.apply.architecture import apply_architecture_preferences
from krm_fn.kubevirt.preference.apply.clock import apply_clock_preferences
from krm_fn.kubevirt.preference.apply.cpu import apply_cpu_preferences
from krm_fn.kubevirt.preference.apply.devices import apply_device_preferences
from krm_fn.kubevirt.preference.apply.features import apply_feature_preferences
from krm_fn.kubevirt.preference.apply.firmware import apply_firmware_preferences
from krm_fn.kubevirt.preference.apply.launchsecurity import apply_launch_security_preferences
from krm_fn.kubevirt.preference.apply.machine import apply_machine_preferences
from krm_fn.kubevirt.preference.apply.subdomain import apply_subdomain_preferences
from krm_fn.kubevirt.preference.apply.termination import apply_termination_preferences
from krm_fn.kubevirt_versions import LATEST, Release


def apply_preference(pref: Obj, vmi: Obj, meta: Obj, release: Release = LATEST) -> None:
    """``release``: the groups it has (architecture v1.7+, launchSecurity v1.9+) and its device switches."""
    apply_cpu_preferences(pref, vmi)
    apply_device_preferences(pref, vmi, release)
    apply_feature_preferences(pref, vmi)
    apply_firmware_preferences(pref, vmi)
    apply_machine_preferences(pref, vmi)
    apply_clock_preferences(pref, vmi)
    apply_subdomain_preferences(pref, vmi)
    apply_termination_preferences(pref, vmi)
    if release.architecture_preference:
        apply_architecture_preferences(pref, vmi)
    apply_annotation_preferences(pref, meta)
    if release.launch_security_pref:
        apply_launch_security_preferences(pref, vmi)
