"""What differs between the KubeVirt releases our output can be for (``VirtualMachineRenderer``
``spec.kubevirtVersion``), as one table. Documented in docs/reference.md ("Builtin catalog versions and the target KubeVirt version") and docs/revisions.md.

* ``object_version``: the ``instancetype.kubevirt.io/object-version`` label (and name part) of the
  ControllerRevisions the release's VM controller stores and expects (``v1beta1`` so far; KubeVirt plans ``v1``).
* ``builtins``: builtin catalog -> the version of it the release's virt-operator deploys cluster-wide; the
  default ``spec.version`` of that builtin (renderer fallback, ``InstancetypeCatalog``, ``catalog diff``).
* ``tag``: the upstream tag the row reproduces (its schema: ``krm_fn.kubevirt.schema``).
* the behaviour switches (:class:`Release`): what the release's instancetype code does differently
  (shared/docs/kubevirt-releases.md section 6), checked against what each tag's own code answers for the
  conformance inputs (shared/conformance-releases, ``tests/test_conformance_releases.py``).

``DEPLOYED`` says, for every release line upstream still patches, which builtin versions its virt-operator
deploys (shared/reference/kubevirt-releases): also evidence for ``catalog diff --builtin NAME@auto``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, NamedTuple

from krm_fn.errors import FnError

# the keys of RELEASES (a test checks), for the config loader: ``Literal`` is how a setting lists its values
KubevirtVersion = Literal["v1.5", "v1.6", "v1.7", "v1.8", "v1.9", "v1.10"]


class Release(NamedTuple):
    """One release line. The behaviour switches (shared/docs/kubevirt-releases.md section 6, one per row that
    changes what a render answers) are read from the row handed down by ``kubevirt.pipeline.vm_stages``; each is
    named for what it turns on, ``True`` where the release does it."""

    object_version: str
    builtins: Mapping[str, str]
    # the upstream tag whose code and API the row reproduces (shared/reference/kubevirt-releases/<tag>,
    # shared/conformance-releases/<tag>; ``main`` stands for upstream main, which answers as v1.9.0)
    tag: str
    # v1alpha1/v1alpha2 objects are served (with a deprecation warning per request)       v1.5
    alpha_versions_served: bool = False
    # revisions holding v1alpha1/v1alpha2 (or legacy spec-revision) data decode          v1.5, v1.6
    alpha_revisions_decoded: bool = False
    # the VM mutating webhook fills an empty matcher kind with the cluster kind           v1.5, v1.6
    matcher_kind_defaulted: bool = False
    # the VM validating webhook refuses a VM whose instancetype/preference is not found  v1.5
    missing_reference_refused: bool = False
    # VMI defaults add resources.requests.memory (guest) to what expand returns          v1.5
    expand_memory_request: bool = False
    # ppc64le has a default machine type (pseries; later releases fall back to amd64's)  v1.5, v1.6
    ppc64le_machine_type: bool = False
    # any domain.memory of the VM conflicts with an instancetype, on domain.memory        v1.5, v1.6
    memory_conflict_whole: bool = False
    # the old inferFromVolume + name/kind wording ("should not be provided when ...")     v1.5, v1.6
    infer_matcher_message: bool = False
    # preferredPanicDeviceModel fills the model of the VM's panic devices                 v1.6+
    panic_device_model: bool = True
    # preferredArchitecture (mutation, apply) and requirements.architecture               v1.7+
    architecture_preference: bool = True
    # instancetype ioThreads.supplementalPoolThreadCount applied                          v1.7+
    io_threads: bool = True
    # preferredPanicDeviceModel also creates a panic device when the VM has none          v1.9+
    panic_device_created: bool = True
    # preferredVideoType creates/fills devices.video.type                                 v1.9+
    video_type: bool = True
    # preferredLaunchSecurity fills domain.launchSecurity                                 v1.9+
    launch_security_pref: bool = True
    # an instancetype's launchSecurity draws the deprecation warning                      v1.9+
    launch_security_warning: bool = True
    # inferFromVolume follows VolumeSnapshot sources                                      v1.9+
    infer_snapshot_sources: bool = True
    # the disk rules check a SATA disk's logical block size and the discard granularity   v1.7+
    block_size_bus_checked: bool = True
    # firmware.acpi holds an MSDM table besides SLIC, and one of them must be named      v1.6+
    acpi_msdm: bool = True
    # the WaitAsReceiver run strategy exists (behind the DecentralizedLiveMigration gate)  v1.6+
    wait_as_receiver: bool = True
    # dedicated CPUs accept hugepages or a guest memory in place of a memory request     v1.6+
    dedicated_memory_sources: bool = True
    # a Beta feature gate is on unless disabledFeatureGates lists it                      v1.9+
    beta_gates_on: bool = True
    # vmRolloutStrategy defaults to LiveUpdate (Stage before)                             v1.6+
    live_update_default: bool = True
    # the hugepages rules name domain.memory.hugepages.pageSize (domain.hugepages.size)  v1.8+
    hugepages_page_size_field: bool = True
    # launchSecurity is judged per architecture (SNP, TDX; none on arm64)                 v1.7+
    launch_security_arch: bool = True
    # a CD-ROM disk may have no volume (behind the DeclarativeHotplugVolumes gate)         v1.6+
    empty_cdrom: bool = True
    # macvtap and passt bindings refused on create as discontinued (a gate before)        v1.8+
    discontinued_bindings: bool = True
    # an interface has exactly one binding method or plugin                               v1.9+
    binding_required: bool = True
    # a forwarded port's number is judged at ports[i].port (ports[i] before)              v1.9+
    port_field: bool = True
    # DRA devices: unique claims and claim/request pairs, DRA and plugin GPUs not mixed   v1.8+
    dra_pairs_checked: bool = True
    # each resource claim a DNS label with exactly one source                             v1.9+
    resource_claims_checked: bool = True
    # NVIDIA Grace GPU passthrough is judged (GraceIOVirtualization)                      v1.9+
    grace_checked: bool = True
    # an empty architecture is taken from a cloned DataSource's architecture label       v1.6+
    datasource_architecture: bool = True
    # the VM mutating webhook stores a firmware uuid on CREATE                            v1.6+
    firmware_uuid_stored: bool = True
    # ... and the kubevirt.io/pci-topology-version annotation (v1.6.4+)                   v1.6+
    pci_topology_annotation: bool = True
    # a VirtualMachinePool's maxUnavailable is judged (the field came in v1.6)            v1.6+
    pool_max_unavailable: bool = True
    # the launcher pod's missing binding plugin is worded "binding" ("bindining" before)  v1.7+
    binding_word_fixed: bool = True
    # the launcher pod: the video device's overhead is 32Mi (16Mi before)                v1.6+
    video_overhead_doubled: bool = True
    # ... the serial console's log container is a native sidecar init container           v1.6+
    console_log_sidecar: bool = True
    # ... a GPU or host device with a resource claim asks no device plugin                v1.6+
    device_claims: bool = True
    # ... the memory overhead adds memory.reservedOverhead and passt's 250Mi              v1.8+
    reserved_overhead: bool = True
    passt_memory: bool = True
    # ... container disks on image volumes get digest-resolving init containers          v1.7+
    image_digest_init: bool = True
    # ... TDX and IOMMUFD ask for their devices (devices.kubevirt.io/tdx, iommufd)        v1.9+
    tdx_iommufd_devices: bool = True
    # ... QEMU's overhead is 50Mi (30Mi before)                                           main
    qemu_overhead_raised: bool = False


# release line -> builtin -> the version its virt-operator embeds and creates cluster-wide (the bundles of the
# line's newest patch tag, whose sha256 sums the tag pins in hack/common-instancetypes/default.sh)
DEPLOYED: Final[Mapping[str, Mapping[str, str]]] = {
    "v1.5": {"common-instancetypes": "v1.3.1"},   # v1.5.3
    "v1.6": {"common-instancetypes": "v1.4.1"},   # v1.6.6
    "v1.7": {"common-instancetypes": "v1.5.1"},   # v1.7.4
    "v1.8": {"common-instancetypes": "v1.6.0"},   # v1.8.4
    "v1.9": {"common-instancetypes": "v1.7.0"},   # v1.9.0
    "v1.10": {"common-instancetypes": "v1.7.0"},  # main d923fdb8
}

# what v1.7 and v1.8 lack of v1.9 (v1.8 changed nothing here); the older rows add to it
_BEFORE_V1_9: Final = dict(panic_device_created=False, video_type=False, launch_security_pref=False,
                           launch_security_warning=False, infer_snapshot_sources=False, beta_gates_on=False,
                           binding_required=False, port_field=False,
                           resource_claims_checked=False, grace_checked=False, tdx_iommufd_devices=False)
_BEFORE_V1_8: Final = dict(_BEFORE_V1_9, hugepages_page_size_field=False, discontinued_bindings=False,
                           dra_pairs_checked=False, reserved_overhead=False, passt_memory=False)
_BEFORE_V1_7: Final = dict(_BEFORE_V1_8, launch_security_arch=False, binding_word_fixed=False,
                           alpha_revisions_decoded=True, matcher_kind_defaulted=True,
                           memory_conflict_whole=True, infer_matcher_message=True, architecture_preference=False,
                           io_threads=False, block_size_bus_checked=False, ppc64le_machine_type=True,
                           image_digest_init=False)
RELEASES: Final[Mapping[str, Release]] = {
    "v1.5": Release(object_version="v1beta1", builtins=DEPLOYED["v1.5"], tag="v1.5.3", **_BEFORE_V1_7,
                    alpha_versions_served=True, missing_reference_refused=True,
                    expand_memory_request=True, panic_device_model=False, acpi_msdm=False,
                    wait_as_receiver=False, dedicated_memory_sources=False, live_update_default=False,
                    empty_cdrom=False, datasource_architecture=False,
                    firmware_uuid_stored=False, pci_topology_annotation=False,
                    pool_max_unavailable=False, video_overhead_doubled=False, console_log_sidecar=False,
                    device_claims=False),
    "v1.6": Release(object_version="v1beta1", builtins=DEPLOYED["v1.6"], tag="v1.6.6", **_BEFORE_V1_7),
    "v1.7": Release(object_version="v1beta1", builtins=DEPLOYED["v1.7"], tag="v1.7.4", **_BEFORE_V1_8),
    "v1.8": Release(object_version="v1beta1", builtins=DEPLOYED["v1.8"], tag="v1.8.4", **_BEFORE_V1_9),
    "v1.9": Release(object_version="v1beta1", builtins=DEPLOYED["v1.9"], tag="v1.9.0"),
    "v1.10": Release(object_version="v1beta1", builtins=DEPLOYED["v1.10"], tag="main", qemu_overhead_raised=True),
}
DEFAULT: Final[KubevirtVersion] = "v1.9"  # the latest release
LATEST: Final[Release] = RELEASES[DEFAULT]  # the row lower layers default to
NEWEST: Final[Release] = list(RELEASES.values())[-1]  # the last row (upstream main)
_BY_TAG: Final[Mapping[str, Release]] = {row.tag: row for row in RELEASES.values()}


def release(version: str | None) -> Release:
    """The row of ``version`` (``None``: the default release); an unknown version is a config error."""
    row = RELEASES.get(version or DEFAULT)
    if row is None:
        raise FnError(f"unknown KubeVirt version {version!r} (known: {', '.join(RELEASES)})",
                      ("spec", "kubevirtVersion"))
    return row


def release_of(tag: str) -> Release:
    """The row reproducing upstream ``tag`` (for what is handed a schema's tag rather than the row)."""
    return _BY_TAG[tag]


def deployed_by(builtin: str, version: str) -> list[str]:
    """The release lines whose virt-operator deploys ``version`` of ``builtin`` (oldest first)."""
    return [line for line, builtins in DEPLOYED.items() if builtins.get(builtin) == version]


def default_builtin_version(builtin: str, kubevirt_version: str | None = None) -> str | None:
    """The version of ``builtin`` that ``kubevirt_version`` deploys (``None``: it deploys no such catalog)."""
    return release(kubevirt_version).builtins.get(builtin)
