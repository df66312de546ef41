"""Metamorphic properties between neighbouring KubeVirt releases, on random cases shaped like the conformance
corpus's (``release_cases.CaseDraw``: main-style objects given to every release, as issue 24's private sets are).
The 4 x 201 known answers (``tests/test_conformance_releases.py``) show each release on the corpus's inputs;
these show that our release table holds on inputs the corpus does not have:

* each step (``shared/docs/kubevirt-releases.md`` sections 1 to 5) changes only what the document says it
  changes: with the objects stored as the older release stores them (what it does not know is gone for both)
  and what the step changes neutralised in the input, the two releases answer alike, byte for byte;
* a VM is refused at schema by exactly the releases whose own ``swagger.json`` lacks one of its fields, naming
  each of them (``kubevirt-releases.md`` addendum);
* v1.5 refuses a VM at admission for exactly the lookups that fail in v1.6 (section 1.2: the instancetype's
  first), and otherwise answers as v1.6 but for the memory request its VMI defaults add (section 1.6).

Cases per property: ``$KUBEVIRT_KRM_RELEASE_CASES`` (default 40, 1000 with ``KUBEVIRT_KRM_DEEP=1``), from the
run's seed (``tests/randomised.py``; a failure names the case's seed).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from krm_fn.index import Index
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.find.found import FindError
from krm_fn.kubevirt.pipeline import vm_stages
from krm_fn.kubevirt_versions import RELEASES
from tests.builders import require_shared
from tests.engine_support import diff_paths
from tests.randomised import SEED, count
from tests.reliability.release_cases import CaseDraw, answer, stored
from tests.release_objects import swagger_unknown

pytestmark = pytest.mark.reliability

CASES = count(40, 1000, "KUBEVIRT_KRM_RELEASE_CASES")
Neutralise = Callable[[list[Obj], Obj], None]
Answer = dict[str, Any]


def _cases(draws: range = range(CASES)) -> Iterator[tuple[int, list[Obj], Obj]]:
    for i in draws:
        seed = SEED + i
        objects, vms = CaseDraw(seed).case()
        for vm in vms:
            yield seed, objects, vm


def _unknown(vm: Obj, version: str) -> set[str]:
    """The VM's fields ``version``'s own swagger.json lacks (list indexes dropped, as the validator's messages)."""
    return {re.sub(r"\[\d+\]", "", path) for path in swagger_unknown({"spec": vm["spec"]}, "v1.VirtualMachine",
                                                                         version)}


def _preference_specs(objects: list[Obj]) -> Iterator[Obj]:
    """Every preference spec among ``objects``, those in ControllerRevisions included."""
    for o in objects:
        body = o.get("data") if o.get("kind") == "ControllerRevision" else o
        if isinstance(body, dict) and "Preference" in str(body.get("kind")) and isinstance(body.get("spec"), dict):
            yield body["spec"]


def _template(vm: Obj) -> Obj:
    spec: Obj = vm["spec"]["template"]["spec"]
    return spec


def _domain(vm: Obj) -> Obj:
    """The VM's ``domain`` (``{}`` when it has none: the neutralisers also run on schema-drawn VMs)."""
    domain = ((vm["spec"].get("template") or {}).get("spec") or {}).get("domain")
    return domain if isinstance(domain, dict) else {}


# --- what each step changes, neutralised (the objects are already stored as the older release stores them) ---
def _snapshot_sources_neutralised(objects: list[Obj], vm: Obj) -> None:
    """Only the VolumeSnapshot sources of 4.4 (a PVC source instead)."""
    sources = [o["spec"] for o in objects if o.get("kind") in ("DataVolume", "DataSource")]
    sources += [t["spec"] for t in vm["spec"].get("dataVolumeTemplates") or []]
    for spec in sources:
        if "snapshot" in (spec.get("source") or {}):
            spec["source"] = {"pvc": {"name": "pvc", "namespace": "ns1"}}


def _before_v1_9(objects: list[Obj], vm: Obj) -> None:
    """Section 4: a preferred panic device model creates a device (4.3), VolumeSnapshot sources (4.4); the
    new preference fields (4.1, 4.2) are gone from objects stored as v1.8 stores them."""
    if not (_domain(vm).get("devices") or {}).get("panicDevices"):
        for spec in _preference_specs(objects):
            (spec.get("devices") or {}).pop("preferredPanicDeviceModel", None)
    _snapshot_sources_neutralised(objects, vm)


def _before_v1_7(objects: list[Obj], vm: Obj) -> None:
    """Section 2: memory conflicts (2.4: a VM with an instancetype sets no ``domain.memory``), the inferFromVolume
    words (2.7: no name or kind beside it), alpha revisions (2.6: none named, by a matcher or a status ref);
    preferredArchitecture, requirements.architecture and ioThreads (2.2, 2.3, 2.5) are gone from objects
    stored as v1.6 stores them."""
    if vm["spec"].get("instancetype"):
        _domain(vm).pop("memory", None)
    for family in ("instancetype", "preference"):
        matcher = vm["spec"].get(family) or {}
        if matcher.get("inferFromVolume"):
            matcher.pop("name", None)
            matcher.pop("kind", None)
        if matcher.get("revisionName") == "rev-alpha":
            matcher["revisionName"] = "rev-beta"
        ref = (vm.get("status") or {}).get(f"{family}Ref") or {}
        if (ref.get("controllerRevisionRef") or {}).get("name") == "rev-alpha":
            ref["controllerRevisionRef"]["name"] = "rev-beta"


def _before_v1_6(objects: list[Obj], _vm: Obj) -> None:
    """v1.5's Go types write a GPU's or host device's ``deviceName`` even when empty (addendum: its swagger.json
    requires it, so a v1.5 cluster stores none without one): every device names one."""
    for o in objects:
        body = o.get("data") if o.get("kind") == "ControllerRevision" else o
        spec = body.get("spec") if isinstance(body, dict) and "Instancetype" in str(body.get("kind")) else None
        for device in [d for key in ("gpus", "hostDevices") for d in (spec or {}).get(key) or []]:
            device.setdefault("deviceName", "vendor.com/device")


STEPS: list[tuple[str, str, Neutralise | None]] = [
    ("v1.7", "v1.8", None),  # 3.1: only internal changes
    ("v1.9", "v1.10", None),  # 5: main answers as v1.9.0
    ("v1.8", "v1.9", _before_v1_9),
    ("v1.6", "v1.7", _before_v1_7),
]


def _answered(old: str, new: str, neutralise: Neutralise | None, draws: range = range(CASES)
              ) -> Iterator[tuple[str, Obj, list[Obj], Answer, Answer]]:
    """Every drawn VM (of the cases ``draws``) that ``old``'s schema takes (the others:
    :func:`test_schema_refusals_follow_each_swagger`), the objects stored as ``old`` stores them and ``neutralise``
    applied: (where, VM, objects, ``old``'s answer, ``new``'s answer)."""
    for seed, objects, vm in _cases(draws):
        if _unknown(vm, old):
            continue
        objects, vm = stored(objects, old), copy.deepcopy(vm)
        if neutralise is not None:
            neutralise(objects, vm)
        yield (f"seed {seed} {vm['metadata']['name']}: {old} vs {new}", vm, objects, answer(vm, objects, old),
               answer(vm, objects, new))


@pytest.mark.parametrize(("old", "new", "neutralise"), STEPS, ids=[f"{o}-{n}" for o, n, _ in STEPS])
def test_each_step_changes_only_what_the_document_says(old: str, new: str, neutralise: Neutralise | None) -> None:
    require_shared("reference/kubevirt-releases")
    compared = 0
    for where, _vm, _objects, before, after in _answered(old, new, neutralise):
        assert before == after, f"{where}: {diff_paths(before, after)}"
        compared += 1
    assert compared >= CASES // 2


def test_v1_9_adds_exactly_one_panic_device_where_v1_8_adds_none() -> None:
    """4.3: with a preferred panic device model and no panic device in the VM, v1.9 appends exactly one
    ``{model}``; everything else of its answer is v1.8's (4.1, 4.2 gone with the objects as v1.8 stores them,
    4.4 neutralised). Whether the run's cases hold such a VM is chance (about one case in eleven does): further
    cases are drawn, one at a time (up to 400: none in all of them has a chance below 1e-15), until one does."""
    require_shared("reference/kubevirt-releases")
    added = sum(_panic_step(*case) for case in _answered("v1.8", "v1.9", _snapshot_sources_neutralised))
    for extra in range(CASES, CASES + 400):
        if added:
            break
        draw = range(extra, extra + 1)
        added += sum(_panic_step(*case) for case in _answered("v1.8", "v1.9", _snapshot_sources_neutralised, draw))
    assert added, "no drawn case has a VM without a panic device whose preference prefers a model"


def _panic_step(where: str, vm: Obj, _objects: list[Obj], old: Answer, new: Answer) -> bool:
    """Checks one case of the 4.3 step; whether v1.9 added a panic device."""
    devices = _template(new["expanded"])["domain"]["devices"] if new["expanded"] is not None else {}
    panic = devices.get("panicDevices")
    added = False
    if panic and not (_domain(vm).get("devices") or {}).get("panicDevices"):
        added = True
        prefs = [r["spec"] for r in new["revisions"] if "Preference" in r["kind"]]
        assert panic == [{"model": panic[0]["model"]}], where
        if prefs:  # the preference's model (no revision when the preference came from one)
            assert panic[0]["model"] == prefs[0]["devices"]["preferredPanicDeviceModel"], where
        new = copy.deepcopy(new)
        del _template(new["expanded"])["domain"]["devices"]["panicDevices"]
    assert old == new, f"{where}: {diff_paths(old, new)}"
    return added


def _without_memory_request(old: Answer, new: Answer) -> Answer:
    """``old`` (v1.5's answer) without the memory request its VMI defaults added where v1.6's has none."""
    if old["expanded"] is None or new["expanded"] is None:
        return old
    requests = _template(new["expanded"])["domain"].get("resources", {}).get("requests") or {}
    if "memory" in requests or "memory" not in _template(old["expanded"])["domain"]["resources"].get("requests", {}):
        return old
    old = copy.deepcopy(old)
    resources = _template(old["expanded"])["domain"]["resources"]
    del resources["requests"]["memory"]
    if not resources["requests"]:
        del resources["requests"]
    return old


def test_v1_5_differs_from_v1_6_in_lookups_and_the_memory_request_only() -> None:
    """The only preference field v1.5 lacks (1.5) is gone from the objects as v1.5 stores them; its VM fields
    (1.7) are refused at schema."""
    require_shared("reference/kubevirt-releases")
    compared = 0
    for where, vm, objects, old, new in _answered("v1.5", "v1.6", _before_v1_6):
        found = vm_stages(vm, Index(objects), ClusterConfig(), release=RELEASES["v1.6"]).found
        failed = [(f, r.message) for f in ("instancetype", "preference") if isinstance(r := found.get(f), FindError)]
        if failed and old["errorStage"] == "admit":
            family, message = failed[0]
            assert old["error"] == f"Failure to find {family}: {message}", where
            continue
        assert _without_memory_request(old, new) == new, f"{where}: {diff_paths(old, new)}"
        compared += 1
    assert compared >= CASES // 2


def test_schema_refusals_follow_each_swagger() -> None:
    """Every release refuses a VM at schema exactly when its swagger.json lacks one of the VM's fields, naming
    each (``<path> in body is a forbidden property``, the validator's words)."""
    require_shared("reference/kubevirt-releases")
    for seed, objects, vm in _cases():
        for version in RELEASES:
            unknown = _unknown(vm, version)
            got = answer(vm, stored(objects, version), version)
            where = f"seed {seed} {vm['metadata']['name']} {version}"
            if not unknown:
                assert got["errorStage"] != "schema", f"{where}: {got['error']}"
                continue
            assert got["errorStage"] == "schema", f"{where}: {sorted(unknown)} not refused"
            named = set(re.findall(r"(\S+) in body is a forbidden property", got["error"]))
            assert named == unknown, where
