"""One input item through the renderer's mode: a VirtualMachine through KubeVirt's stages
(:func:`krm_fn.kubevirt.pipeline.vm_stages`), then pinned (``revisions``), replaced by its expansion (``expand``)
or left as it is (``validate``); a VM KubeVirt would refuse stays unchanged with an error result. Other items
pass through (a revision of ours gets its Argo CD sync wave; ``List`` wrappers are looked into); the VM that a
pool or a template carries goes through the mode as KubeVirt would be asked to admit it
(:mod:`krm_fn.render.carriers`).

A VM's matchers are looked up once (:func:`krm_fn.kubevirt.find.find_matches`): the referenced objects are
checked on what was found, the pipeline continues from it, and pinning reads it in ``VmStages.found``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from krm_fn.index import Index, is_vm
from krm_fn.kube.api import FAMILIES, KIND_POOL, KIND_VMI, VM_API_VERSION
from krm_fn.kube.identity import name_of
from krm_fn.kube.meta import metadata_problems, undecodable_metadata
from krm_fn.kube.status import Cause
from krm_fn.kube.paths import Obj, wrapped_items
from krm_fn.kubevirt.caches import Caches
from krm_fn.kubevirt.find.found import FindError, Matches
from krm_fn.kubevirt.find.object import live_object
from krm_fn.kubevirt.find.spec import find_matches
from krm_fn.kubevirt.pipeline import VmStages, vm_stages
from krm_fn.kubevirt.revision import is_instancetype_revision
from krm_fn.render.revisions import with_sync_wave
from krm_fn.kubevirt.webhooks.admission import Decision, decided, refused, served
from krm_fn.kubevirt.webhooks.config import WebhookConfig
from krm_fn.kubevirt.webhooks.vm.defaults import stored_form
from krm_fn.kubevirt.webhooks.vmpool.admitter import POOL_VALIDATOR, pool_words, validate_pool
from krm_fn.kubevirt.webhooks.vm.spec import vm_warnings
from krm_fn.kubevirt.webhooks.vmi.admitter import admit_vmi
from krm_fn.kubevirt.schema.validation import vmi_spec_errors
from krm_fn.kubevirt.webhooks.vmi.start import VMI_VALIDATOR
from krm_fn.render.start import start_results
from krm_fn.capacity.pods import refused_use, replicas, vm_pod_use
from krm_fn.kubevirt.launcher.namespace import Namespaces
from krm_fn.render.admission import describe
from krm_fn.render.carriers import Carried, carried, moved, unchecked, with_pool_spec
from krm_fn.kube import kpt_annotations
from krm_fn.render.hints import HintCache, rejection_results
from krm_fn.render.pinning import Pinning, reference_policy_result, unpinned
from krm_fn.render.rendered import Rendered
from krm_fn.render.spec import RendererSpec
from krm_fn.results import FOLLOWS_FROM, Result
from krm_fn.kubevirt_versions import DEFAULT, NEWEST, release


VMI_SCHEMA: Final = "Object is not a valid VirtualMachineInstance: "


class ItemRenderer:
    """What the mode makes of one item; independent of the other items (``krm_fn.render.rendering.Rendering``)."""

    def __init__(self, spec: RendererSpec, index: Index, items: Sequence[Any]) -> None:
        self.spec = spec
        self.index = index
        self.caches = Caches()  # this render's, shared by every VM
        self.hints: HintCache = {}
        self.pinning = Pinning(spec.revisions, spec.kubevirt_version, index, items)
        self.release = release(spec.kubevirt_version)  # the KubeVirt release whose answer is rendered
        self.namespaces = Namespaces(items)  # what the items say of each namespace (read when capacity is asked)
        # the cluster's instancetype.referencePolicy, as this release honours it (krm_fn.render.pinning)
        self.reference_policy = WebhookConfig(self.release, spec.cluster).reference_policy()
        # the renderer's template parameter values (NAME=value), over each template's own
        self.template_values = {name.strip(): value for name, _, value in
                                (p.partition("=") for p in spec.template_parameters)}

    def render(self, item: Obj) -> Rendered[Obj]:
        done: Rendered[Obj] = Rendered(item, [], [])
        done.item = self.item(item, done)
        return done

    def item(self, item: Any, done: Rendered[Obj]) -> Any:
        if is_vm(item):
            return self.vm(item, done)
        if isinstance(item, dict) and item.get("kind") == KIND_VMI and item.get("apiVersion") == VM_API_VERSION:
            done.results += self.vmi(item)
            return item
        wave = self.spec.revisions.sync_wave
        if wave is not None and self.spec.mode == "revisions" and is_instancetype_revision(item):
            return with_sync_wave(item, wave)
        vms = carried(item, self.template_values) if isinstance(item, dict) else None
        if vms is not None:
            return self.carrier(item, vms, done)
        wrapped = wrapped_items(item)
        if wrapped is not None:
            inner = [self.item(i, done) for i in wrapped]
            if all(a is b for a, b in zip(inner, wrapped)):
                return item
            return {**item, "items": inner}
        return item

    def vmi(self, vmi: Obj) -> list[Result]:
        """A VirtualMachineInstance given as such: the release's schema for its spec, then the VMI create
        webhook (:func:`krm_fn.kubevirt.webhooks.vmi.admitter.admit_vmi`), each cause an error result."""
        errors = vmi_spec_errors(vmi.get("spec"), self.release.tag)
        if errors:
            return [Result.for_object(VMI_SCHEMA + ", ".join(e.message for e in errors), vmi,
                                      field_path=errors[0].field or None, tags=(("stage", "schema"),))]
        try:
            causes = admit_vmi(vmi, WebhookConfig(self.release, self.spec.cluster))
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:  # last line of defence
            return [Result.for_object(f"cannot judge this VirtualMachineInstance ({type(exc).__name__}: {exc}); a "
                                      "field it sets is malformed", vmi, tags=(("stage", "input"),))]
        return [Result.for_object(VMI_VALIDATOR + c.message, vmi, field_path=c.field, tags=(("stage", "vmi"),))
                for c in causes]

    def vm(self, vm: Obj, done: Rendered[Obj]) -> Obj:
        if not self.spec.capacity.report:
            return self._checked_vm(vm, done)
        pods, said = len(done.pods), len(done.results)
        out = self._checked_vm(vm, done)
        if len(done.pods) == pods:  # refused, or its VMI would be: no pod, and why
            reasons = [r.message for r in done.results[said:] if r.severity in ("error", "warning")]
            done.pods.append(refused_use(vm, reasons[0] if reasons else "KubeVirt would not start it"))
        return out

    def _checked_vm(self, vm: Obj, done: Rendered[Obj]) -> Obj:
        problem = self.metadata_problem(vm)
        if problem is not None:
            done.results.append(Result.for_object(problem[1], vm, field_path=problem[0],
                                                  tags=(("stage", "input"),)))
            return vm
        try:
            return self._vm(vm, done)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:  # last line of defence
            done.results.append(Result.for_object(
                f"cannot render this VirtualMachine ({type(exc).__name__}: {exc}); an object it uses is malformed",
                vm, tags=(("stage", "input"),)))
            return vm

    def carrier(self, item: Obj, vms: list[Carried], done: Rendered[Obj]) -> Obj:
        """A pool or template: each VM it carries through the mode, its results moved onto ``item``; a pool
        takes its VM's spec back (expanded or pinned; the revisions written next to the pool)."""
        out = item
        pool = item.get("kind") == KIND_POOL
        if pool:  # the pool webhook's own rules, then the VM spec of its template in its words
            done.results += [Result.for_object(POOL_VALIDATOR + c.message, item, field_path=c.field,
                                               tags=(("stage", "template"),)) for c in validate_pool(item, self.release)]
        for one in vms:
            if one.vm is None:
                done.results.append(unchecked(item, one))
                continue
            inner: Rendered[Obj] = Rendered(one.vm, [], [])
            rendered = self.vm(one.vm, inner)
            done.results += [moved(r._replace(message=pool_words(r.message)) if pool and ("stage", "template") in r.tags
                                   else r, item, one.path) for r in inner.results]
            if pool:  # a template carrier's VMs do not run
                done.pods += [use._replace(replicas=replicas(item), anchor=moved(use.anchor, item, one.path))
                              for use in inner.pods]
            if one.written and rendered is not one.vm:
                out = with_pool_spec(out, rendered.get("spec"))
                done.revisions += [(cr, kpt_annotations.file_path(item) or "") for cr, _ in inner.revisions]
        return out

    @staticmethod
    def metadata_problem(vm: Obj) -> tuple[str | None, str] | None:
        """What the API server would refuse before KubeVirt sees the VM (its metadata): (field path, message),
        or None."""
        meta = vm.get("metadata")
        cause = undecodable_metadata(meta)
        if cause is None:
            found: list[Cause] = []
            metadata_problems(meta, False, ("metadata",), found)
            if not found:
                return None
            cause = found[0]
        return cause.field, cause.error()

    def refused_reference(self, vm: Obj, found: Matches, done: Rendered[Obj]) -> tuple[str | None, str] | None:
        """A matcher naming an instancetype/preference (among the items or in the catalog) that the cluster
        would refuse to store (:mod:`krm_fn.kubevirt.webhooks.admission`): (field path, message), or None.
        ``found``: the matches of ``vm`` (or of a form of it with the same named matchers).

        An object that an older target release refuses but the newest API admits (a field the release does not
        know, a field only it requires) is written for a later release: the VM is rendered as the target's own
        code reads that object (its Go types: what it does not know dropped), which is that release's answer,
        with a warning to ``done`` (``follows-from`` the object's own error)."""
        spec = vm.get("spec")
        tag = self.release.tag
        for family in FAMILIES:
            matcher = spec.get(family) if isinstance(spec, dict) else None
            if not isinstance(matcher, dict) or not matcher.get("name") or matcher.get("revisionName") \
                    or matcher.get("inferFromVolume"):
                continue
            try:
                kind, obj = live_object(vm, family, found.get(family), self.index)
            except FindError:
                continue  # the engine reports it with KubeVirt's wording
            decision = refused(obj, self.caches.admission, tag)
            if decision is None:
                continue
            if tag != NEWEST.tag and served(obj, NEWEST.tag) and decided(obj, self.caches.newest, NEWEST.tag).allowed:
                self._read_as_written_for_later(vm, f"spec.{family}", kind, matcher["name"], obj, decision, done)
                continue
            return (f"spec.{family}", f"the {kind} {matcher['name']!r} this VM uses would be refused by the "
                                      f"cluster, so it will not exist there: {describe(decision, obj)}")
        return None

    def _read_as_written_for_later(self, vm: Obj, field: str, kind: str, name: str, obj: Obj, decision: Decision,
                                   done: Rendered[Obj]) -> None:
        """The warning of a VM rendered against an object its release refuses but later releases admit."""
        version = self.spec.kubevirt_version or DEFAULT
        message = (f"the {kind} {name!r} this VM uses is refused by KubeVirt {version} but admitted by later "
                   f"releases; the VM is rendered as KubeVirt {version}'s code reads that object (what it does not "
                   f"know dropped): {describe(decision, obj)}")
        warning = Result.for_object(message, vm, "warning", field_path=field, tags=(
            ("stage", "input"), (FOLLOWS_FROM, ", ".join(c.field or "" for c in decision.causes))))
        if warning not in done.results:
            done.results.append(warning)

    def _vm(self, vm: Obj, done: Rendered[Obj]) -> Obj:
        mode = self.spec.mode
        checked = vm
        if mode == "revisions" and self.spec.revisions.repin:
            checked = unpinned(vm)
        # the one lookup of each matcher: ``vm``'s named matchers are ``checked``'s (unpinned strips pins only)
        found = find_matches(checked, self.index, self.caches, tag=self.release.tag)
        problem = self.refused_reference(vm, found, done)
        if problem is None:
            if mode != "expand" and self.pinning.report_missing_pins(checked, done.results):
                return vm
            stages: VmStages = vm_stages(checked, self.index, self.spec.cluster, self.caches, found,
                                         self.release)
            if stages.inferred is not None and stages.inferred is not checked:  # inferFromVolume named objects
                problem = self.refused_reference(stages.inferred, stages.found, done)
            if problem is None and stages.rejection is not None:
                # what KubeVirt would not find first, with what was probably meant (or how to hand it a cluster
                # object), then KubeVirt's verdict
                # (krm_fn.render.hints)
                done.results += rejection_results(stages.inferred or checked, stages.rejection, self.index, vm,
                                                  stages.found, self.hints)
                return vm
        if problem is not None:
            done.results.append(Result.for_object(problem[1], vm, field_path=problem[0],
                                                  tags=(("stage", "input"),)))
            return vm
        for warning in vm_warnings(checked):  # what kubectl prints as "Warning: ..." when the VM is admitted
            done.results.append(Result.for_object(warning.message, vm, "warning", field_path=warning.field,
                                                  tags=(("stage", "admit"),)))
        done.results += start_results(vm, stages.start)
        if self.spec.capacity.report:
            use = vm_pod_use(checked, stages, WebhookConfig(self.release, self.spec.cluster), self.namespaces,
                             self.spec.capacity.complete_objects, self.caches.pods)
            if use is not None:
                done.pods.append(use)
        if mode == "expand":
            return self.stored(stages.expanded if stages.expanded is not None else vm, vm)
        if stages.inferred is not None and self.reference_policy != "reference":  # not expand mode (above)
            done.results.append(reference_policy_result(vm, self.reference_policy, mode))
            if mode == "revisions":
                return vm
        if mode == "revisions" and stages.inferred is not None:  # the VM has matchers
            before = len(done.results)
            pinned = self.pinning.pin(vm, stages, done, self.spec.stored)
            refused = any(r.severity == "error" for r in done.results[before:])
            return pinned if refused else self.stored(pinned, vm)
        return self.stored(vm, vm) if mode == "revisions" else vm

    def stored(self, out: Obj, vm: Obj) -> Obj:
        """``out`` (what the mode makes of ``vm``) in the form the cluster stores it, when the renderer asks
        (``stored: true``); ``out`` itself otherwise."""
        if not self.spec.stored or not name_of(vm):  # a VM without a name has no identity to derive
            return out
        return stored_form(out, self.index, self.spec.cluster, self.release)
