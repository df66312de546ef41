"""The renderer's phases (:class:`Rendering`): prepare, each item, finish (``krm_fn.process`` drives them, on one
or two processes)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from krm_fn.index import ANY_NAMESPACE, Index
from krm_fn.kube.api import CLUSTER_SCOPED_KINDS, TYPE_KINDS
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.cluster import is_kubevirt, merged
from krm_fn.render.admission import results as admission_results
from krm_fn.render.items import ItemRenderer
from krm_fn.render.kinds import unknown_kind_results
from krm_fn.render.rendered import Rendered
from krm_fn.render.revisions import stopped_vm_warnings
from krm_fn.render.scope import clear_cluster_namespaces
from krm_fn.render.spec import RendererSpec
from krm_fn.results import Result, not_yet_said
from krm_fn.kubevirt_versions import release

if TYPE_CHECKING:
    from krm_fn.capacity.pods import PodUse
    from krm_fn.capacity.report import Report

T = TypeVar("T")


def _served(catalog_objects: Iterable[Obj], scope: str) -> Index:
    """The index of the catalog objects the renderer takes the cluster to have: the kinds of
    ``spec.catalog.scope`` (by default only the cluster-scoped ones, which is what virt-operator deploys).
    ``catalog_objects`` are read on the index's first lookup (``krm_fn.catalog.generate.FallbackObjects`` loads the
    catalog then)."""
    kinds = {"Cluster": CLUSTER_SCOPED_KINDS, "Namespaced": TYPE_KINDS - CLUSTER_SCOPED_KINDS}.get(scope, TYPE_KINDS)
    return Index(catalog_objects, unplaced=ANY_NAMESPACE, kinds=kinds)


class Rendering:
    """The renderer in phases, so that items can be rendered by two processes (``krm_fn.process``):
    :meth:`item` for each input item (independent of the others), then :meth:`finish` with every item's
    :class:`Rendered` in input order (what depends on the order: generated revisions, their files and indexes,
    results). ``per_item`` is False in ``migrate`` mode, which rewrites the list as a whole. ``catalog_objects``:
    where references missing from the items are looked up, read only when one is (a value the core hands
    down: ``krm_fn.catalog.generate.FallbackObjects``)."""

    def __init__(self, items: list[Obj], spec: RendererSpec, catalog_objects: Iterable[Obj] = ()) -> None:
        from krm_fn.render.migrate.items import deprecation_infos, migrate

        self.spec = spec
        self.source = items
        self.capacity: Report | None = None  # spec.capacity.report: what the VMs cost, once finished
        self.tag = release(spec.kubevirt_version).tag  # the target release's API
        if spec.mode == "migrate" or spec.migrate:
            self.items, self.results = migrate(items, shared_revisions=spec.revisions.scope == "shared", tag=self.tag)
        else:
            self.items, self.results = items, deprecation_infos(items)
        # cluster-scoped objects stamped with a namespace: stored without it (krm_fn.render.scope)
        self.items, cleared = clear_cluster_namespaces(self.items, written=spec.mode != "validate")
        self.results += cleared + unknown_kind_results(self.items)  # kind: VirtualMachin (krm_fn.render.kinds)
        # a KubeVirt item is the cluster's configuration, over the spec.cluster shorthands (krm_fn.kubevirt.cluster)
        self.spec = spec = self._with_cluster(spec)
        self.renderer = ItemRenderer(spec, Index(self.items, _served(catalog_objects, spec.catalog.scope)),
                                     self.items) if spec.mode != "migrate" else None
        # every instancetype/preference among the items, as the cluster would admit it (errors, warnings)
        admitted = admission_results(self.items, self.renderer.caches.admission if self.renderer else None,
                                     migrating=spec.mode == "migrate" or spec.migrate, tag=self.tag)
        # one problem, one result: where migrate's own output check and admission agree, admission's words stay
        self.results = not_yet_said(admitted, self.results) + admitted

    def _with_cluster(self, spec: RendererSpec) -> RendererSpec:
        """``spec`` with the cluster the items' ``KubeVirt`` CR configures; a second CR, or a shorthand the CR
        contradicts, is an error result."""
        kubevirts = [item for item in self.items if is_kubevirt(item)]
        for extra in kubevirts[1:]:
            self.results.append(Result.for_object(
                "a cluster runs one KubeVirt: the first KubeVirt item is its configuration, keep only that one",
                extra))
        cluster, problems = merged(spec.cluster, kubevirts[0] if kubevirts else None)
        self.results += [Result.for_object(problem, kubevirts[0], field_path="spec.configuration")
                         for problem in problems]
        return dataclasses.replace(spec, cluster=cluster)

    def _capacity(self, uses: list[PodUse]) -> Report:
        """What starting the VMs costs (:mod:`krm_fn.capacity`), from each item's launcher pods."""
        from krm_fn.capacity.namespaces import namespace_reports
        from krm_fn.capacity.report import Report

        assert self.renderer is not None
        namespaces = self.renderer.namespaces
        return Report(self.renderer.release.tag, tuple(uses), tuple(namespace_reports(uses, namespaces)),
                      tuple(namespaces.problems))

    @property
    def per_item(self) -> bool:
        return self.renderer is not None

    def item(self, i: int) -> Rendered[Obj]:
        assert self.renderer is not None, "migrate mode has no per-item phase"
        return self.renderer.render(self.items[i])

    def every_item(self) -> list[Rendered[Obj]]:
        """Every item rendered here, in order (none in migrate mode)."""
        return [self.item(i) for i in range(len(self.items))] if self.per_item else []

    def finish(self, rendered: Sequence[Rendered[T]]) -> tuple[list[T | Obj], list[Result]]:
        """The output items (each item as rendered, then the generated revisions) and every result."""
        results = list(self.results)
        out: list[T | Obj]
        if self.renderer is None:  # migrate mode
            out = list(self.items)
        else:
            pinning = self.renderer.pinning
            for done in rendered:
                results += done.results
                for cr, vm_path in done.revisions:
                    pinning.commit(cr, vm_path)
            out = [done.item for done in rendered]
            out += pinning.generated
            if self.spec.mode == "revisions":
                results += stopped_vm_warnings(self.items, self.spec.revisions.sync_wave)
            if self.spec.capacity.report:
                from krm_fn.capacity.report import results as capacity_results

                self.capacity = self._capacity([use for done in rendered for use in done.pods])
                results += capacity_results(self.capacity)
            if self.spec.mode == "validate":
                out = list(self.source)  # validate changes nothing; migrate's results say what it would rewrite
        if self.spec.validate_output:
            from krm_fn.render.output import output_results

            # against self.items: what migrate emitted it has validated already (krm_fn.render.migrate)
            return out, results + not_yet_said(results, output_results(self.items, out, self.tag))
        return out, results
