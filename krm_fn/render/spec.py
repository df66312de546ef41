"""The ``VirtualMachineRenderer`` settings (``spec``), kept apart from the engine so that loading a config
does not import it. Loaded by ``krm_fn.config.load_dataclass`` (field ``snake_name`` == key ``snakeName``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt_versions import KubevirtVersion

Mode = Literal["revisions", "expand", "validate", "migrate"]


@dataclass(frozen=True, slots=True)
class RevisionsSpec:
    # per-vm: one revision per VM and object (KubeVirt's own layout); shared: one per namespace and content
    scope: Literal["per-vm", "shared"] = "per-vm"
    # move pinned VMs to the current content of their instancetype/preference
    repin: bool = False
    # opt-in: annotate instancetype/preference revisions with argocd.argoproj.io/sync-wave (e.g. -1), so Argo CD
    # applies them before the VMs that reference them and prunes them after (docs/revisions.md)
    sync_wave: int | None = None


@dataclass(frozen=True, slots=True)
class FallbackCatalogSpec(CatalogSpec):
    """``spec.catalog``: the generator's settings, for the objects a cluster is taken to have besides the items.
    virt-operator deploys only the cluster-scoped common-instancetypes, so ``scope`` defaults to ``Cluster``
    there: a VM naming a namespaced kind is not served from the catalog unless asked (``Namespaced``, ``Both``)."""

    scope: Literal["Cluster", "Namespaced", "Both"] = "Cluster"


@dataclass(frozen=True, slots=True)
class CapacitySpec:
    # opt-in: an info result per namespace with its launcher pods' totals against its ResourceQuotas, and an
    # error per VM whose pod the namespace would refuse (README "Planning capacity")
    report: bool = False
    # the inputs hold every PVC, NetworkAttachmentDefinition and StorageClass the VMs use: a missing one keeps
    # the pod from being created, as in the cluster
    complete_objects: bool = False


@dataclass(frozen=True, slots=True)
class RendererSpec:
    mode: Mode = "revisions"
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    revisions: RevisionsSpec = field(default_factory=RevisionsSpec)
    # where instancetypes/preferences missing from the items come from (builtin "none": nowhere); only the
    # cluster-scoped kinds unless ``scope`` says otherwise
    catalog: FallbackCatalogSpec = field(default_factory=FallbackCatalogSpec)
    # the KubeVirt release the output is for (krm_fn.kubevirt_versions: the revisions' object-version, the
    # default catalog.version); unset: the table's default release
    kubevirt_version: KubevirtVersion | None = None
    # validate every object we change or generate strictly (krm_fn.render.output); a problem is an error result
    validate_output: bool = False
    # run the migrate step (legacy flavor/v1alpha objects and revisions -> v1beta1, docs/migrate.md) before the
    # other modes; mode: migrate runs only that step
    migrate: bool = False
    # template parameter values as NAME=value (``virttemplatectl process -p``), over the values a
    # VirtualMachineTemplate or OpenShift Template gives (krm_fn.render.carriers)
    template_parameters: tuple[str, ...] = ()
    # write into each rendered VM what KubeVirt's VM mutating webhook stores on create (architecture, machine
    # type, firmware uuid and serial, the PCI topology annotation), so Git equals the live object
    # (krm_fn.kubevirt.webhooks.vm.defaults); revisions and expand modes
    stored: bool = False
    # what starting the VMs costs (krm_fn.capacity)
    capacity: CapacitySpec = field(default_factory=CapacitySpec)
