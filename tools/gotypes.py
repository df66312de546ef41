"""How each Go struct field of the KubeVirt / CDI / Kubernetes API types is serialised by ``encoding/json``.

The OpenAPI document says *which* fields exist and their JSON types; it does not say whether a Go field is
a pointer or whether its tag has ``omitempty``. That decides what a Go round trip (decode then encode, which
is what the expand-spec API returns) does with zero values, so it is recorded here, per definition, from the
Go type definitions (``staging/src/kubevirt.io/api/core/v1/{schema,types}.go``,
``staging/src/kubevirt.io/api/instancetype/v1beta1/types.go``, CDI ``core/v1beta1/types.go``,
``k8s.io/api/core/v1/types.go``, ``k8s.io/apimachinery/pkg/apis/meta/v1/types.go``).

Codes (only fields that differ from the default are listed):

``o``  non-pointer scalar with ``omitempty``: ``false`` / ``0`` / ``""`` are dropped
``r``  non-pointer scalar without ``omitempty``: always written, the zero value when absent
``s``  non-pointer struct: always written (``{}`` when absent), ``omitempty`` has no effect on structs
``n``  pointer, slice or map without ``omitempty``: written as ``null`` when absent
``q``  non-pointer ``resource.Quantity``: always written (``"0"`` when absent)
``t``  non-pointer ``metav1.Time`` with ``omitempty``: written as ``null`` when zero

Defaults: scalars are pointers (kept as given, ``null`` dropped); slices and maps have ``omitempty``
(empty ones dropped); a ``$ref`` to an object is a pointer unless the OpenAPI property carries
``default: {}`` (which openapi-gen emits for non-pointer struct fields), then it is ``s``.
"""

from __future__ import annotations

K8S = "k8s.io.api.core.v1."
META = "k8s.io.apimachinery.pkg.apis.meta.v1."

GO_FIELDS: dict[str, dict[str, str]] = {
    # --- k8s.io/api/core/v1 ------------------------------------------------------------------------
    K8S + "DownwardAPIVolumeFile": {"r": "path"},
    K8S + "HTTPGetAction": {"o": "path host scheme", "r": "port"},
    K8S + "HTTPHeader": {"r": "name value"},
    K8S + "LocalObjectReference": {"o": "name"},
    K8S + "NodeSelector": {"n": "nodeSelectorTerms"},
    K8S + "NodeSelectorRequirement": {"r": "key operator"},
    K8S + "ObjectFieldSelector": {"o": "apiVersion", "r": "fieldPath"},
    K8S + "PersistentVolumeClaimSpec": {"o": "volumeName", "s": "resources"},
    K8S + "PersistentVolumeClaimVolumeSource": {"r": "claimName", "o": "readOnly"},
    K8S + "PodAffinityTerm": {"r": "topologyKey"},
    K8S + "PodDNSConfigOption": {"o": "name"},
    K8S + "PreferredSchedulingTerm": {"r": "weight", "s": "preference"},
    K8S + "ResourceFieldSelector": {"o": "containerName", "r": "resource", "q": "divisor"},
    K8S + "TCPSocketAction": {"r": "port", "o": "host"},
    K8S + "Toleration": {"o": "key operator value effect"},
    K8S + "TopologySpreadConstraint": {"r": "maxSkew topologyKey whenUnsatisfiable"},
    K8S + "TypedLocalObjectReference": {"r": "kind name"},
    K8S + "TypedObjectReference": {"r": "kind name"},
    K8S + "WeightedPodAffinityTerm": {"r": "weight", "s": "podAffinityTerm"},
    # --- k8s.io/apimachinery/pkg/apis/meta/v1 ------------------------------------------------------
    META + "LabelSelectorRequirement": {"r": "key operator"},
    META + "ManagedFieldsEntry": {"o": "manager operation apiVersion fieldsType subresource"},
    META + "ObjectMeta": {"o": "name generateName namespace selfLink uid resourceVersion generation"},
    META + "OwnerReference": {"r": "apiVersion kind name uid"},
    # --- kubevirt.io/api/core/v1 -----------------------------------------------------------------------
    "v1.ACPI": {"o": "slicNameRef msdmNameRef"},
    "v1.AccessCredentialSecretSource": {"r": "secretName"},
    "v1.AddVolumeOptions": {"r": "name", "n": "disk volumeSource"},
    "v1.CDRomTarget": {"o": "bus tray"},
    "v1.CPU": {"o": "cores sockets maxSockets threads model dedicatedCpuPlacement isolateEmulatorThread"},
    "v1.CPUFeature": {"r": "name", "o": "policy"},
    "v1.ChangedBlockTrackingStatus": {"r": "state"},
    "v1.Chassis": {"o": "manufacturer version serial asset sku"},
    "v1.CloudInitConfigDriveSource": {"o": "userDataBase64 userData networkDataBase64 networkData"},
    "v1.CloudInitNoCloudSource": {"o": "userDataBase64 userData networkDataBase64 networkData"},
    "v1.ConfigMapVolumeSource": {"o": "name volumeLabel"},
    "v1.ContainerDiskSource": {"r": "image", "o": "imagePullSecret path imagePullPolicy"},
    "v1.ContainerPathVolumeSource": {"r": "path", "o": "readOnly"},
    "v1.ControllerRevisionRef": {"o": "name"},
    "v1.CustomBlockSize": {"o": "logical physical"},
    "v1.DHCPOptions": {"o": "bootFileName tftpServerName"},
    "v1.DHCPPrivateOptions": {"r": "option value"},
    "v1.DataVolumeSource": {"r": "name", "o": "hotpluggable"},
    "v1.DataVolumeTemplateSpec": {"o": "apiVersion kind", "s": "metadata spec"},
    "v1.Devices": {"o": "disableHotplug"},
    "v1.Diag288Watchdog": {"o": "action"},
    "v1.Disk": {"r": "name", "o": "serial cache io tag"},
    "v1.DiskTarget": {"o": "bus readonly pciAddress"},
    "v1.DomainSpec": {"s": "resources devices"},
    "v1.EmptyDiskSource": {"q": "capacity"},
    "v1.FeatureAPIC": {"o": "endOfInterrupt"},
    "v1.FeatureKVM": {"o": "hidden"},
    "v1.FeatureVendorID": {"o": "vendorid"},
    "v1.Features": {"s": "acpi"},
    "v1.Filesystem": {"r": "name", "n": "virtiofs"},
    "v1.Firmware": {"o": "uuid serial"},
    "v1.GPU": {"r": "name", "o": "deviceName tag"},
    "v1.HPETTimer": {"o": "tickPolicy"},
    "v1.HostDevice": {"r": "name", "o": "deviceName tag"},
    "v1.HostDisk": {"r": "path type", "q": "capacity"},
    "v1.Hugepages": {"o": "pageSize"},
    "v1.I6300ESBWatchdog": {"o": "action"},
    "v1.Input": {"o": "bus", "r": "type name"},
    "v1.InstancetypeMatcher": {"o": "name kind revisionName inferFromVolume"},
    "v1.InstancetypeStatusRef": {"o": "name kind inferFromVolume"},
    "v1.Interface": {"r": "name", "o": "model macAddress pciAddress tag acpiIndex state"},
    "v1.KernelBoot": {"o": "kernelArgs"},
    "v1.KernelBootContainer": {"r": "image", "o": "imagePullSecret imagePullPolicy kernelPath initrdPath"},
    "v1.LunTarget": {"o": "bus readonly reservation"},
    "v1.Machine": {"r": "type"},
    "v1.MemoryDumpVolumeSource": {"r": "claimName", "o": "readOnly hotpluggable"},
    "v1.MultusNetwork": {"r": "networkName", "o": "default"},
    "v1.Network": {"r": "name"},
    "v1.PersistentVolumeClaimVolumeSource": {"r": "claimName", "o": "readOnly hotpluggable"},
    "v1.PITTimer": {"o": "tickPolicy"},
    "v1.PluginBinding": {"r": "name"},
    "v1.PodNetwork": {"o": "vmNetworkCIDR vmIPv6NetworkCIDR"},
    "v1.Port": {"o": "name protocol", "r": "port"},
    "v1.PortRange": {"r": "protocol start end"},
    "v1.PreferenceMatcher": {"o": "name kind revisionName inferFromVolume"},
    "v1.Probe": {"o": "initialDelaySeconds timeoutSeconds periodSeconds successThreshold failureThreshold"},
    "v1.QemuGuestAgentSSHPublicKeyAccessCredentialPropagation": {"n": "users"},
    "v1.RTCTimer": {"o": "tickPolicy track"},
    "v1.Realtime": {"o": "mask"},
    "v1.RemoveVolumeOptions": {"r": "name"},
    "v1.ResourceRequirements": {"o": "overcommitGuestOverhead"},
    "v1.SEV": {"o": "session dhCert"},
    "v1.SSHPublicKeyAccessCredential": {"s": "source propagationMethod"},
    "v1.SecretVolumeSource": {"o": "secretName volumeLabel"},
    "v1.ServiceAccountVolumeSource": {"o": "serviceAccountName"},
    "v1.SoundDevice": {"r": "name", "o": "model"},
    "v1.StorageMigratedVolumeInfo": {"r": "volumeName"},
    "v1.UserPasswordAccessCredential": {"s": "source propagationMethod"},
    "v1.UtilityVolume": {"r": "name claimName", "o": "readOnly"},
    "v1.VideoDevice": {"o": "type"},
    "v1.VirtualMachine": {"o": "apiVersion kind", "s": "metadata spec status"},
    "v1.VirtualMachineCondition": {"r": "type status", "o": "reason message", "t": "lastProbeTime lastTransitionTime"},
    "v1.VirtualMachineInstanceBackupStatus": {"o": "backupName completed failed quiesceStatus"},
    "v1.VirtualMachineInstanceBackupVolumeInfo": {"r": "volumeName"},
    "v1.VirtualMachineInstanceResourceClaim": {"r": "name"},
    "v1.VirtualMachineInstanceSpec": {
        "o": "priorityClassName schedulerName serviceAccountName hostname subdomain dnsPolicy architecture",
        "s": "domain",
    },
    "v1.VirtualMachineInstanceTemplateSpec": {"s": "metadata spec"},
    "v1.VirtualMachineMemoryDumpRequest": {"r": "claimName phase", "o": "remove message"},
    "v1.VirtualMachineSpec": {"n": "template"},
    "v1.VirtualMachineStartFailure": {"o": "consecutiveFailCount lastFailedVMIUID"},
    "v1.VirtualMachineStateChangeRequest": {"r": "action"},
    "v1.VirtualMachineStatus": {
        "o": "created ready printableStatus observedGeneration desiredGeneration runStrategy",
    },
    "v1.VolumeSnapshotStatus": {"r": "name enabled", "o": "reason"},
    "v1.Volume": {"r": "name"},
    "v1.Watchdog": {"r": "name"},
    # --- kubevirt.io/api/instancetype/v1beta1 ------------------------------------------------------------
    "v1beta1.CPUInstancetype": {"r": "guest"},
    "v1beta1.CPUPreferenceRequirement": {"r": "guest"},
    "v1beta1.DevicePreferences": {
        "o": "preferredSoundModel preferredInputBus preferredInputType preferredDiskBus preferredLunBus "
             "preferredCdromBus preferredDiskCache preferredDiskIO preferredInterfaceModel",
    },
    "v1beta1.MachinePreferences": {"o": "preferredMachineType"},
    "v1beta1.MemoryInstancetype": {"q": "guest", "o": "overcommitPercent"},
    "v1beta1.MemoryPreferenceRequirement": {"q": "guest"},
    "v1beta1.VirtualMachineInstancetypeSpec": {"o": "schedulerName", "s": "cpu memory"},
    "v1beta1.VirtualMachinePreferenceSpec": {"o": "preferSpreadSocketToCoreRatio"},
    "v1beta1.VolumePreferences": {"o": "preferredStorageClassName"},
    "v1beta1.VirtualMachineInstancetype": {"o": "apiVersion kind", "s": "metadata spec"},
    "v1beta1.VirtualMachineClusterInstancetype": {"o": "apiVersion kind", "s": "metadata spec"},
    "v1beta1.VirtualMachinePreference": {"o": "apiVersion kind", "s": "metadata spec"},
    "v1beta1.VirtualMachineClusterPreference": {"o": "apiVersion kind", "s": "metadata spec"},
    # --- kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1 ---------------------------------
    "v1beta1.DataVolumeCheckpoint": {"r": "previous current"},
    "v1beta1.DataVolumeSourceGCS": {"r": "url", "o": "secretRef"},
    "v1beta1.DataVolumeSourceHTTP": {"r": "url", "o": "secretRef certConfigMap"},
    "v1beta1.DataVolumeSourceImageIO": {"r": "url diskId", "o": "secretRef certConfigMap"},
    "v1beta1.DataVolumeSourcePVC": {"r": "namespace name"},
    "v1beta1.DataVolumeSourceRef": {"r": "kind name"},
    "v1beta1.DataVolumeSourceS3": {"r": "url", "o": "secretRef certConfigMap"},
    "v1beta1.DataVolumeSourceSnapshot": {"r": "namespace name"},
    "v1beta1.DataVolumeSourceVDDK": {"o": "url uuid backingFile thumbprint secretRef initImageURL extraArgs"},
    "v1beta1.DataVolumeSpec": {"o": "priorityClassName contentType finalCheckpoint"},
    "v1beta1.PlatformOptions": {"o": "architecture"},
    "v1beta1.StorageSpec": {"o": "volumeName", "s": "resources"},
}

# Where an older tag's Go type differs (whole entries, replacing GO_FIELDS' for that tag; ``gen_schema`` applies
# them to the tag's ``releases/<tag>.json``). openapi-gen marks a field required exactly when its JSON tag has no
# ``omitempty`` (and no ``+optional``): such a field is ``required`` in that tag's swagger.json.
RELEASE_GO_FIELDS: dict[str, dict[str, dict[str, str]]] = {
    # v1.5.3's swagger.json requires ``deviceName`` of GPUs and host devices: before the DRA fields
    # (``claimName``/``requestName``, v1.6) it had no ``omitempty``, so v1.5 writes ``deviceName: ""``
    # (shared/docs/kubevirt-releases.md, addendum)
    # v1.5.3's and v1.6.6's swagger.json require a custom block size's ``logical`` and ``physical`` (their
    # ``omitempty`` came with ``discardGranularity``, v1.7): a zero is written, not dropped
    "v1.5.3": {"v1.GPU": {"r": "name deviceName", "o": "tag"},
               "v1.HostDevice": {"r": "name deviceName", "o": "tag"},
               "v1.CustomBlockSize": {"r": "logical physical"}},
    "v1.6.6": {"v1.CustomBlockSize": {"r": "logical physical"}},
}

# The Go integer type of every integer field an instancetype/preference object reaches (the document says only
# ``format: int64`` / ``int32``, which openapi-gen writes for ``uint32`` and ``int`` too). KubeVirt's webhooks
# decode the object with ``json.Unmarshal`` into these types: a value out of a type's range is refused there with
# Go's error (``cannot unmarshal number ... of type uint32``). Fields not listed decode as their format says.
GO_INTS: dict[str, dict[str, str]] = {
    META + "ObjectMeta": {"generation": "int64", "deletionGracePeriodSeconds": "int64"},
    "v1beta1.CPUInstancetype": {"guest": "uint32", "maxSockets": "uint32"},
    "v1beta1.CPUPreferenceRequirement": {"guest": "uint32"},
    "v1beta1.MemoryInstancetype": {"overcommitPercent": "int"},
    "v1beta1.SpreadOptions": {"ratio": "uint32"},
    "v1beta1.VirtualMachinePreferenceSpec": {"preferSpreadSocketToCoreRatio": "uint32",
                                             "preferredTerminationGracePeriodSeconds": "int64"},
    "v1.DiskIOThreads": {"supplementalPoolThreadCount": "uint32"},
    "v1.ClockOffsetUTC": {"offsetSeconds": "int"},
    "v1.CustomBlockSize": {"logical": "uint", "physical": "uint", "discardGranularity": "uint"},
    "v1.FeatureSpinlocks": {"spinlocks": "uint32"},
}
