"""Constants only: group/versions, kinds, label and annotation keys. No logic, no mutable state."""

from __future__ import annotations

# --- KRM / kpt / kustomize -------------------------------------------------------------------
RESOURCE_LIST_KIND = "ResourceList"
RESOURCE_LIST_API_VERSION = "config.kubernetes.io/v1"
FN_GROUP = "kubevirt-krm.dev"
FN_API_VERSION = "kubevirt-krm.dev/v1alpha1"
KIND_CATALOG = "InstancetypeCatalog"
KIND_RENDERER = "VirtualMachineRenderer"

ANN_PATH = "internal.config.kubernetes.io/path"
ANN_INDEX = "internal.config.kubernetes.io/index"
ANN_LEGACY_PATH = "config.kubernetes.io/path"
ANN_LEGACY_INDEX = "config.kubernetes.io/index"
ANN_ID = "internal.config.kubernetes.io/id"
ANN_LOCAL_CONFIG = "config.kubernetes.io/local-config"
ANN_FUNCTION = "config.kubernetes.io/function"

# --- KubeVirt ---------------------------------------------------------------------------------
KUBEVIRT_GROUP = "kubevirt.io"
VM_API_VERSION = "kubevirt.io/v1"
KIND_VM = "VirtualMachine"

INSTANCETYPE_GROUP = "instancetype.kubevirt.io"
INSTANCETYPE_VERSION = "v1beta1"
INSTANCETYPE_API_VERSION = "instancetype.kubevirt.io/v1beta1"
KIND_INSTANCETYPE = "VirtualMachineInstancetype"
KIND_CLUSTER_INSTANCETYPE = "VirtualMachineClusterInstancetype"
KIND_PREFERENCE = "VirtualMachinePreference"
KIND_CLUSTER_PREFERENCE = "VirtualMachineClusterPreference"
INSTANCETYPE_KINDS = frozenset({KIND_INSTANCETYPE, KIND_CLUSTER_INSTANCETYPE})
PREFERENCE_KINDS = frozenset({KIND_PREFERENCE, KIND_CLUSTER_PREFERENCE})
CLUSTER_SCOPED_KINDS = frozenset({KIND_CLUSTER_INSTANCETYPE, KIND_CLUSTER_PREFERENCE})

CONTROLLER_REVISION_API_VERSION = "apps/v1"
KIND_CONTROLLER_REVISION = "ControllerRevision"
