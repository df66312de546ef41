"""Constants only: group/versions, kinds, label and annotation keys. No logic, no mutable state."""

from __future__ import annotations

from typing import Final, Literal

# --- KRM / kpt / kustomize -------------------------------------------------------------------
RESOURCE_LIST_KIND = "ResourceList"
RESOURCE_LIST_API_VERSION = "config.kubernetes.io/v1"
FN_GROUP = "kubevirt-krm.dev"
FN_API_VERSION = "kubevirt-krm.dev/v1alpha1"
KIND_CATALOG = "InstancetypeCatalog"
WRAPPER_KINDS: Final = ("List", "ResourceList")  # lists whose items are objects (a tuple: kinds may be unhashable)
KIND_RENDERER = "VirtualMachineRenderer"

ANN_PATH = "internal.config.kubernetes.io/path"
ANN_INDEX = "internal.config.kubernetes.io/index"
ANN_LEGACY_PATH = "config.kubernetes.io/path"
ANN_LEGACY_INDEX = "config.kubernetes.io/index"
ANN_ID = "internal.config.kubernetes.io/id"
ANN_PACKAGE_PATH = "internal.config.kubernetes.io/package-path"
# kustomize's origin of a resource (buildMetadata: [originAnnotations]): YAML text with a `path:` line
ANN_ORIGIN = "config.kubernetes.io/origin"

# --- KubeVirt ---------------------------------------------------------------------------------
VM_API_VERSION = "kubevirt.io/v1"
VM_API_VERSIONS: Final = frozenset({VM_API_VERSION, "kubevirt.io/v1alpha3"})  # both served, same types
KIND_VM = "VirtualMachine"
KIND_VMI = "VirtualMachineInstance"

# objects that carry a VM (krm_fn/render/carriers.py): a pool's template, virt-template's and OpenShift's templates
KIND_POOL = "VirtualMachinePool"
POOL_API_VERSIONS: Final = frozenset({"pool.kubevirt.io/v1alpha1", "pool.kubevirt.io/v1beta1"})
KIND_VM_TEMPLATE = "VirtualMachineTemplate"
VM_TEMPLATE_GROUP = "template.kubevirt.io"
KIND_OPENSHIFT_TEMPLATE = "Template"
OPENSHIFT_TEMPLATE_API_VERSION = "template.openshift.io/v1"

INSTANCETYPE_GROUP = "instancetype.kubevirt.io"
INSTANCETYPE_VERSION = "v1beta1"
INSTANCETYPE_API_VERSION = "instancetype.kubevirt.io/v1beta1"
# served with deprecation warnings up to v1.5, decodable in revisions up to v1.6, removed in v1.7
ALPHA_API_VERSIONS: Final = frozenset({"instancetype.kubevirt.io/v1alpha1", "instancetype.kubevirt.io/v1alpha2"})
KIND_INSTANCETYPE = "VirtualMachineInstancetype"
KIND_CLUSTER_INSTANCETYPE = "VirtualMachineClusterInstancetype"
KIND_PREFERENCE = "VirtualMachinePreference"
KIND_CLUSTER_PREFERENCE = "VirtualMachineClusterPreference"
INSTANCETYPE_KINDS = frozenset({KIND_INSTANCETYPE, KIND_CLUSTER_INSTANCETYPE})
PREFERENCE_KINDS = frozenset({KIND_PREFERENCE, KIND_CLUSTER_PREFERENCE})
CLUSTER_SCOPED_KINDS = frozenset({KIND_CLUSTER_INSTANCETYPE, KIND_CLUSTER_PREFERENCE})

# the two families of matchers, objects and revisions, and each matcher's Go type (named in KubeVirt's errors)
Family = Literal["instancetype", "preference"]
FAMILIES: Final[tuple[Family, ...]] = ("instancetype", "preference")
MATCHER_TYPE: Final[dict[Family, str]] = {"instancetype": "InstancetypeMatcher", "preference": "PreferenceMatcher"}
# the kind v1.5/v1.6's mutating webhook writes into a matcher without one
CLUSTER_KIND: Final[dict[Family, str]] = {"instancetype": "virtualmachineclusterinstancetype",
                                          "preference": "virtualmachineclusterpreference"}
FAMILY_KINDS: Final[dict[Family, frozenset[str]]] = {"instancetype": INSTANCETYPE_KINDS, "preference": PREFERENCE_KINDS}
TYPE_KINDS: Final = INSTANCETYPE_KINDS | PREFERENCE_KINDS

CONTROLLER_REVISION_API_VERSION = "apps/v1"
KIND_CONTROLLER_REVISION = "ControllerRevision"

# --- the volumes inferFromVolume reads (core, CDI, CSI snapshots) ------------------------------
KIND_PVC = "PersistentVolumeClaim"
CDI_GROUP = "cdi.kubevirt.io"
KIND_DATA_VOLUME = "DataVolume"
KIND_DATA_SOURCE = "DataSource"
SNAPSHOT_GROUP = "snapshot.storage.k8s.io"
KIND_VOLUME_SNAPSHOT = "VolumeSnapshot"

# --- the kinds KubeVirt's and CDI's API groups serve (an unknown kind in one is probably a typo: render/kinds.py) ----
KUBEVIRT_GROUP_KINDS: Final[dict[str, frozenset[str]]] = {
    "kubevirt.io": frozenset({"KubeVirt", KIND_VM, "VirtualMachineInstance", "VirtualMachineInstanceMigration",
                              "VirtualMachineInstancePreset", "VirtualMachineInstanceReplicaSet"}),
    INSTANCETYPE_GROUP: TYPE_KINDS,
    "flavor.kubevirt.io": frozenset({"VirtualMachineFlavor", "VirtualMachineClusterFlavor"}),  # legacy: migrate
    "pool.kubevirt.io": frozenset({"VirtualMachinePool"}),
    "snapshot.kubevirt.io": frozenset({"VirtualMachineSnapshot", "VirtualMachineSnapshotContent",
                                       "VirtualMachineRestore"}),
    "export.kubevirt.io": frozenset({"VirtualMachineExport"}),
    "clone.kubevirt.io": frozenset({"VirtualMachineClone"}),
    "migrations.kubevirt.io": frozenset({"MigrationPolicy"}),
    CDI_GROUP: frozenset({"CDI", "CDIConfig", "DataImportCron", KIND_DATA_SOURCE, KIND_DATA_VOLUME, "ObjectTransfer",
                          "StorageProfile", "VolumeCloneSource", "VolumeImportSource", "VolumeUploadSource"}),
    "upload.cdi.kubevirt.io": frozenset({"UploadTokenRequest"}),
}

# --- labels KubeVirt reads or writes (pkg/instancetype: infer, revision) ------------------------
LABEL_DEFAULT_INSTANCETYPE = "instancetype.kubevirt.io/default-instancetype"
LABEL_DEFAULT_INSTANCETYPE_KIND = "instancetype.kubevirt.io/default-instancetype-kind"
LABEL_DEFAULT_PREFERENCE = "instancetype.kubevirt.io/default-preference"
LABEL_DEFAULT_PREFERENCE_KIND = "instancetype.kubevirt.io/default-preference-kind"
LABEL_OBJECT_GENERATION = "instancetype.kubevirt.io/object-generation"
LABEL_OBJECT_KIND = "instancetype.kubevirt.io/object-kind"
LABEL_OBJECT_NAME = "instancetype.kubevirt.io/object-name"
LABEL_OBJECT_UID = "instancetype.kubevirt.io/object-uid"
LABEL_OBJECT_VERSION = "instancetype.kubevirt.io/object-version"

# --- Argo CD ----------------------------------------------------------------------------------
ANN_SYNC_WAVE = "argocd.argoproj.io/sync-wave"

# --- instancetype / preference labels and annotations (kubevirt/common-instancetypes docs/labels.md) --
LABEL_CPU = "instancetype.kubevirt.io/cpu"
LABEL_MEMORY = "instancetype.kubevirt.io/memory"
LABEL_SIZE = "instancetype.kubevirt.io/size"
LABEL_CLASS = "instancetype.kubevirt.io/class"
LABEL_VERSION = "instancetype.kubevirt.io/version"
LABEL_VENDOR = "instancetype.kubevirt.io/vendor"
LABEL_ICON_PF = "instancetype.kubevirt.io/icon-pf"
LABEL_HUGEPAGES = "instancetype.kubevirt.io/hugepages"
LABEL_NUMA = "instancetype.kubevirt.io/numa"
LABEL_DEDICATED_CPU_PLACEMENT = "instancetype.kubevirt.io/dedicatedCPUPlacement"
LABEL_ISOLATE_EMULATOR_THREAD = "instancetype.kubevirt.io/isolateEmulatorThread"
LABEL_REALTIME = "instancetype.kubevirt.io/realtime"
LABEL_GPUS = "instancetype.kubevirt.io/gpus"
LABEL_OS_TYPE = "instancetype.kubevirt.io/os-type"
LABEL_ARCH = "instancetype.kubevirt.io/arch"
LABEL_PREFERRED_ARCHITECTURE = "instancetype.kubevirt.io/preferred-architecture"
LABEL_REQUIRED_ARCHITECTURE = "instancetype.kubevirt.io/required-architecture"
LABEL_REQUIRED_CPU = "instancetype.kubevirt.io/required-cpu"
LABEL_REQUIRED_MEMORY = "instancetype.kubevirt.io/required-memory"
LABEL_COMMON_INSTANCETYPES_VERSION = "instancetype.kubevirt.io/common-instancetypes-version"
ANN_INSTANCETYPE_DESCRIPTION = "instancetype.kubevirt.io/description"
ANN_INSTANCETYPE_DISPLAY_NAME = "instancetype.kubevirt.io/displayName"
ANN_VM_OS = "vm.kubevirt.io/os"
ANN_OPENSHIFT_DISPLAY_NAME = "openshift.io/display-name"
ANN_ICON_CLASS = "iconClass"
ANN_TAGS = "tags"
