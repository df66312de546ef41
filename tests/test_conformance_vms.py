"""The whole-VM corpus (``shared/conformance-vms``) through the renderer, for every release it answers.

Each case is a cluster: objects, at most one ``KubeVirt`` CR, and VirtualMachines.
KubeVirt's own code decided each VM at four stages: the VM mutating and validating webhooks, the VMI, the pod.
The renderer runs each case in validate mode with ``kubevirtVersion`` set to the case's release, no catalog.

Three things are checked for every VM of every case:

* A VM that KubeVirt lets through every stage gets no error result from us.
* A VM the VM webhooks refuse (``vmMutate``, ``vmAdmit``) we refuse too; one they admit has their warnings among
  our warning results.
* A VM we refuse is one KubeVirt refuses too, and our error results hold each of KubeVirt's causes.
  Where the VM validating webhook refused it, each cause is one of our results, in kubectl's words, at the
  cause's field.

* A VM stored but whose VMI the VMI create webhook refuses has each of that webhook's causes among our results: an
  error when the VM runs, a warning when it does not.

* A VMI given as such (``vmi.object``) is refused with exactly the VMI create webhook's causes, or admitted.
* A VM whose launcher pod the cluster's configuration keeps from being created (an unknown binding plugin,
  containerPath volumes without their gate) has that error among our results, likewise.

The launcher pod's resources are issue 37's to build.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.rejection import STAGE_PREFIX
from krm_fn.kubevirt_versions import RELEASES, KubevirtVersion
from krm_fn.kubevirt.webhooks.vmi.start import VMI_VALIDATOR
from krm_fn.render.spec import RendererSpec
from krm_fn.capacity.pods import runs
from krm_fn.kubevirt.launcher.manifest import POD_PREFIX
from krm_fn.render.start import PREFIX
from tests.builders import require_shared, shared_dir
from tests.render_support import render

CORPUS = shared_dir() / "conformance-vms"
# the releases the corpus answers, and the release line each is a tag of
VERSIONS: dict[str, KubevirtVersion] = {RELEASES[v].tag: v for v in ("v1.9", "v1.8", "v1.7", "v1.6", "v1.5")}
MAIN = "v1.9.0"
VALIDATOR = STAGE_PREFIX["admit"]  # kubectl's words before each cause of the VM validating webhook
START = PREFIX + VMI_VALIDATOR  # our words before each cause of the VMI create webhook
# the launcher pod errors the cluster's configuration decides (krm_fn.kubevirt.launcher.manifest); the others need
# cluster objects a repository seldom holds (a PVC, a NetworkAttachmentDefinition, a default StorageClass)
CONFIGURED = ("failed to render launch manifest: couldn't find configuration for network",
              "VMI has ContainerPath volumes but")
CASES = sorted((CORPUS / "cases").iterdir()) if (CORPUS / "cases").is_dir() else []


def _expected(tag: str, case: Path) -> Path:
    return case / "expected.yaml" if tag == MAIN else CORPUS / "releases" / tag / "cases" / case.name / "expected.yaml"


PARAMS = [pytest.param(tag, case, id=f"{tag}-{case.name}") for tag in VERSIONS for case in CASES
          if _expected(tag, case).is_file()]


def test_the_corpus_is_present() -> None:
    """Every release answers every case but those its code panics on (listed in its index)."""
    require_shared("conformance-vms/cases")
    assert CASES, f"{CORPUS} holds no case"
    for tag in VERSIONS:
        if tag == MAIN:
            continue
        index = yaml.safe_load((CORPUS / "releases" / tag / "index.yaml").read_text(encoding="utf-8"))
        dropped = {d["case"] for d in index.get("droppedBecauseUpstreamPanics") or []}
        answered = {c.name for c in CASES if _expected(tag, c).is_file()}
        assert answered | dropped == {c.name for c in CASES}, tag


def refusal(answer: dict[str, Any]) -> list[str]:
    """The messages KubeVirt refused a VM with, from the first stage that refused it; [] when none did."""
    for stage in ("vmMutate", "vmAdmit"):
        webhook = answer.get(stage)
        if webhook is not None and not webhook["allowed"]:
            return [c["message"] for c in webhook["causes"]] or [webhook["message"]]
    vmi = answer.get("vmi") or {}
    if vmi.get("controllerError"):
        return [vmi["controllerError"]]
    if vmi.get("admit") and not vmi["admit"]["allowed"]:
        return [c["message"] for c in vmi["admit"]["causes"]] or [vmi["admit"]["message"]]
    pod = answer.get("pod") or {}
    return [pod["error"]] if pod.get("error") else []


def _vm_of(case: Path, key: tuple[str, str]) -> Obj:
    return next(d for d in _inputs(case) if d.get("kind") == "VirtualMachine" and
                ((d["metadata"].get("namespace") or "default"), d["metadata"]["name"]) == key)


@functools.cache
def _inputs(case: Path) -> tuple[Obj, ...]:
    """A case's documents, read once for every release."""
    return tuple(d for d in yaml.safe_load_all((case / "input.yaml").read_text(encoding="utf-8")) if d)


Said = dict[tuple[str, str], list[tuple[str, str | None]]]


def results_by_vm(tag: str, case: Path) -> tuple[Said, Said]:
    """Our error and our warning results (message, field) of a case's validate render, by the VM (namespace,
    name) they are about.

    The render goes through the renderer's phases (``tests/render_support.py``) rather than ``process``: validate
    mode writes no VM, and the bytes are the other tests' concern."""
    items = copy.deepcopy(list(_inputs(case)))
    _, results = render(items, RendererSpec(mode="validate", kubevirt_version=VERSIONS[tag]))
    errors: Said = {}
    warnings: Said = {}
    for result in results:
        ref = result.resource_ref
        if ref is not None and ref.kind == "VirtualMachine" and result.severity in ("error", "warning"):
            found = errors if result.severity == "error" else warnings
            found.setdefault((ref.namespace or "default", ref.name), []).append((result.message, result.field_path))
    return errors, warnings


@pytest.mark.parametrize(("tag", "case"), PARAMS)
def test_we_refuse_what_kubevirt_refuses_and_in_its_words(tag: str, case: Path) -> None:
    ours, warned = results_by_vm(tag, case)
    expected = yaml.safe_load(_expected(tag, case).read_text(encoding="utf-8"))
    for answer in expected:
        key = (answer["namespace"], answer["vm"])
        theirs = refusal(answer)
        webhooks = [answer["vmMutate"], answer.get("vmAdmit")]
        if any(w is not None and not w["allowed"] for w in webhooks):
            assert key in ours, f"{key}: the VM webhooks refuse it: {theirs}"
        elif answer.get("vmAdmit") is not None:  # both admit it: their warnings are ours
            warned_of = [message for message, _ in warned.get(key, [])]
            warnings = answer["vmMutate"]["warnings"] + answer["vmAdmit"]["warnings"]
            assert [w for w in warnings if w not in warned_of] == [], f"{key}: KubeVirt warns, we do not: {warned_of}"
        vmi_admit = (answer.get("vmi") or {}).get("admit")
        if vmi_admit is not None and not vmi_admit["allowed"]:  # stored, its VMI refused: an error if it runs
            said_of = ours.get(key, []) if runs(_vm_of(case, key)) else warned.get(key, [])
            for cause in vmi_admit["causes"]:
                assert any(m.endswith(START + cause["message"]) for m, _ in said_of), f"{key}: {cause} {said_of}"
        pod_error = (answer.get("pod") or {}).get("error") or ""
        if pod_error.startswith(CONFIGURED):  # what the cluster's configuration alone keeps from being created
            said_of = ours.get(key, []) if runs(_vm_of(case, key)) else warned.get(key, [])
            assert (POD_PREFIX + pod_error) in [m for m, _ in said_of], f"{key}: {pod_error} {said_of}"
        if key not in ours:
            continue
        assert theirs, f"{key}: KubeVirt admits and starts this VM, we refuse it: {ours[key]}"
        said = "\n".join(message for message, _ in ours[key])
        missing = [m for m in theirs if m not in said]
        assert not missing, f"{key}: KubeVirt's causes {missing} are not in our results {json.dumps(ours[key])}"
        admit = answer.get("vmAdmit")
        if answer["vmMutate"]["allowed"] and admit is not None and not admit["allowed"]:
            for cause in admit["causes"]:
                want = (VALIDATOR + cause["message"], cause["field"] or None)
                assert want in ours[key] or not cause["field"] and want[0] in said, \
                    f"{key}: no result {want} among {json.dumps(ours[key])}"


def stored_view(vm: Obj) -> Any:
    """What the stored-form comparison reads of a VM: not the request's namespace, the status, the null
    timestamps of Go releases up to v1.7 or our pins (the matchers' ``kind`` and ``revisionName``); the firmware
    uuid and serial by presence (KubeVirt draws them at random); and not the zero values Go's encoding writes for
    the unset fields it does not omit (``{}``, ``""``, a quantity's number as text)."""
    out = copy.deepcopy(vm)
    out.pop("status", None)
    for md in (out.get("metadata") or {}, ((out.get("spec") or {}).get("template") or {}).get("metadata") or {}):
        md.pop("creationTimestamp", None)
    (out.get("metadata") or {}).pop("namespace", None)
    spec = out.get("spec") or {}
    for family in ("instancetype", "preference"):
        if isinstance(spec.get(family), dict):
            spec[family].pop("kind", None)
            spec[family].pop("revisionName", None)
    firmware = (((spec.get("template") or {}).get("spec") or {}).get("domain") or {}).get("firmware") or {}
    for key in ("uuid", "serial"):
        if firmware.get(key):
            firmware[key] = "<set>"
    return _without_zero_values(out)


def _without_zero_values(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {k: _without_zero_values(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ({}, "") and (k, v) != ("creationTimestamp", None)}
    if isinstance(value, list):
        return [_without_zero_values(v) for v in value]
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


@pytest.mark.parametrize(("tag", "case"), PARAMS)
def test_the_stored_form_is_what_the_mutating_webhook_stores(tag: str, case: Path) -> None:
    """``stored: true`` in revisions mode: each VM both webhooks admit is written as ``vmMutate`` stored it."""
    items = copy.deepcopy(list(_inputs(case)))
    out, results = render(items, RendererSpec(mode="revisions", kubevirt_version=VERSIONS[tag], stored=True))
    ours = {(vm["metadata"].get("namespace") or "default", vm["metadata"]["name"]): vm for vm in out
            if vm.get("kind") == "VirtualMachine"}
    refused = {(r.resource_ref.namespace or "default", r.resource_ref.name) for r in results
               if r.severity == "error" and r.resource_ref is not None}  # left as written (the test above)
    for answer in yaml.safe_load(_expected(tag, case).read_text(encoding="utf-8")):
        admit = answer.get("vmAdmit")
        if not answer["vmMutate"]["allowed"] or admit is None or not admit["allowed"]:
            continue
        key = (answer["namespace"], answer["vm"])
        if key not in refused:
            assert stored_view(ours[key]) == stored_view(answer["vmMutate"]["object"]), key


def _as_vmi(answer: dict[str, Any]) -> Obj:
    """The VMI virt-controller stored for a VM (``vmi.object``), as a user would give it: name, namespace,
    labels, annotations and spec."""
    stored = answer["vmi"]["object"]
    metadata = {k: v for k, v in stored["metadata"].items() if k in ("name", "namespace", "labels", "annotations")}
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance", "metadata": metadata,
            "spec": stored["spec"]}


@pytest.mark.parametrize(("tag", "case"), PARAMS)
def test_a_vmi_given_as_such_is_admitted_as_the_vmi_webhook_admits_it(tag: str, case: Path) -> None:
    """Each VMI of a case (after KubeVirt's VMI mutating webhook) as an input: refused with the VMI create
    webhook's causes, in kubectl's words at their fields, or admitted."""
    expected = [a for a in yaml.safe_load(_expected(tag, case).read_text(encoding="utf-8"))
                if (a.get("vmi") or {}).get("object") and a["vmi"].get("admit")]
    others = [d for d in _inputs(case) if d.get("kind") != "VirtualMachine"]
    vmis = [_as_vmi(a) for a in expected]
    _, results = render(copy.deepcopy(others) + vmis, RendererSpec(mode="validate", kubevirt_version=VERSIONS[tag]))
    for answer, vmi in zip(expected, vmis):
        name = vmi["metadata"]["name"]
        ours = [(r.message, r.field_path) for r in results if r.severity == "error" and r.resource_ref is not None
                and r.resource_ref.kind == "VirtualMachineInstance" and r.resource_ref.name == name]
        want = [(VMI_VALIDATOR + c["message"], c["field"] or None) for c in answer["vmi"]["admit"]["causes"]]
        assert ours == want, f"{name}: {json.dumps(ours)} != {json.dumps(want)}"
