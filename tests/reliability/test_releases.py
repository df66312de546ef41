"""Every KubeVirt release survives random input, not only the conformance cases (issue 24's private sets: each
tag's own code on random VMs and objects). For each row of ``krm_fn.kubevirt_versions.RELEASES``, on random
lists drawn from that release's API (``tests/reliability/strategies.py``, ``tag``):

* the properties of ``test_properties.py`` (no exception, items kept, deterministic, rendering the output again
  changes nothing), with ``kubevirtVersion`` set;
* everything emitted (expanded or pinned VMs, revisions) strictly valid against that release's schema, checked
  here as well as by the product's own ``validateOutput``;
* revisions mode: expanding the pinned VMs from their revisions alone (the instancetypes and preferences left
  out) gives what expanding the input directly gives;
* the generator: the builtin catalog and random selections of it, for each release, hold no field it does not
  know and are admitted by it (``webhooks/admission.decide``).

Examples per release and property: ``$KUBEVIRT_KRM_RELEASE_EXAMPLES`` (default 25, 300 with ``KUBEVIRT_KRM_DEEP=1``),
drawn from the run's seed (``tests/randomised.py``).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krm_fn.catalog.generate import generate
from krm_fn.catalog.spec import CatalogSpec
from krm_fn.kube.api import INSTANCETYPE_API_VERSION, TYPE_KINDS
from krm_fn.kubevirt.webhooks.admission import decide
from krm_fn.kubevirt_versions import RELEASES
from krm_fn.process import process
from krm_fn.render.output import release_results
from tests.builders import require_shared
from tests.randomised import count
from tests.release_objects import layers_of, swagger_unknown
from tests.release_objects import answer_of, check_release_answer
from tests.reliability.strategies import SEEDS, TRICKY_VALUES, Draw
from tests.reliability.support import PROPERTY, emitted, identity, invalid_emitted, parse, renderer, resource_list
from tests.reliability.support import MODES, WRONG_VALUES, check_invariants, confused_items

pytestmark = [pytest.mark.reliability, pytest.mark.usefixtures("fast_builtin_catalog")]

PER_RELEASE = settings(PROPERTY, max_examples=count(25, 300, "KUBEVIRT_KRM_RELEASE_EXAMPLES"))
VERSIONS = list(RELEASES)


def _items(version: str, seed: int, values: list[str], vms: tuple[int, int] = (1, 3)) -> list[dict[str, Any]]:
    return Draw(seed, values, ["k.x"], RELEASES[version].tag).items(vms, 4, 2)


def _unknown_to_release(obj: dict[str, Any], version: str) -> set[str]:
    """The spec fields of an emitted VM, revision, instancetype or preference that the release's own swagger.json
    (an oracle apart from the packaged schema under test) does not know."""
    kind = obj.get("kind")
    if kind == "VirtualMachine":
        return swagger_unknown({"spec": obj.get("spec")}, "v1.VirtualMachine", version)
    if kind == "ControllerRevision":
        return swagger_unknown({"spec": obj["data"].get("spec")}, f"v1beta1.{obj['data']['kind']}", version)
    if kind in TYPE_KINDS:
        return swagger_unknown({"spec": obj.get("spec")}, f"v1beta1.{kind}", version)
    return set()


def _valid_for_the_release(version: str, data: bytes, out: bytes) -> None:
    """Everything emitted is valid for the release's packaged schema and holds no field it does not know."""
    before, after = parse(data)["items"] or [], parse(out)["items"] or []
    problems = invalid_emitted(before, after, RELEASES[version].tag)
    assert not problems, f"{version}: " + "\n".join(problems)
    unknown = {identity(o): sorted(u) for o in emitted(before, after) if (u := _unknown_to_release(o, version))}
    assert not unknown, f"{version}: fields the release does not know: {unknown}"


def _vm_errors(results: Any) -> set[tuple[str, str, str, str]]:
    return {(r.resource_ref.api_version, r.resource_ref.kind, r.resource_ref.namespace or "", r.resource_ref.name)
            for r in results if r.severity == "error" and r.resource_ref is not None}


def _expand_from_pins(version: str, items: list[dict[str, Any]], pinned_out: bytes, direct_out: bytes,
                      direct_errors: set[tuple[str, str, str, str]]) -> None:
    """The pinned VMs expanded from their revisions only (no instancetype/preference items, no builtin catalog)
    equal the VMs expanded directly, for every VM expand accepted (unique by identity)."""
    pinned = [o for o in parse(pinned_out)["items"] or [] if o.get("kind") not in TYPE_KINDS]
    config = renderer("expand", kubevirtVersion=version, catalog={"builtin": "none"})
    again = process(resource_list(pinned, config))
    from_pins = {identity(o): o for o in parse(again.data)["items"] or [] if o.get("kind") == "VirtualMachine"}
    pins_errors = _vm_errors(again.results)
    names = [identity(o) for o in items if o.get("kind") == "VirtualMachine"]
    for vm in parse(direct_out)["items"] or []:
        key = identity(vm)
        if vm.get("kind") != "VirtualMachine" or names.count(key) != 1 or key in direct_errors:
            continue
        assert key not in pins_errors, f"{version}: {key} expands directly but not from its pins"
        assert from_pins[key] == vm, f"{version}: {key} expanded from its pins differs from the direct expand"


@pytest.mark.parametrize("version", VERSIONS)
@PER_RELEASE
@given(seed=SEEDS, values=st.lists(TRICKY_VALUES, max_size=3), shared=st.booleans())
def test_every_release_renders_random_lists(version: str, seed: int, values: list[str], shared: bool) -> None:
    require_shared("reference/kubevirt-releases")  # each release's swagger.json: the oracle of its fields
    items = _items(version, seed, values)
    extra: dict[str, Any] = {"revisions": {"scope": "shared"}} if shared else {}
    outputs: dict[str, Any] = {}
    for mode in MODES:
        config = renderer(mode, kubevirtVersion=version, validateOutput=True, **extra)
        outputs[mode] = check_invariants(items, config)
        _valid_for_the_release(version, resource_list(items, config), outputs[mode].data)
    _expand_from_pins(version, items, outputs["revisions"].data, outputs["expand"].data,
                      _vm_errors(outputs["expand"].results))


@pytest.mark.parametrize("version", VERSIONS)
@PER_RELEASE
@given(seed=SEEDS, mode=st.sampled_from(MODES), wrong=WRONG_VALUES)
def test_every_release_survives_wrong_types_in_a_vm_spec(version: str, seed: int, mode: str, wrong: Any) -> None:
    items, _path = confused_items(random.Random(seed), _items(version, seed, [], (1, 2)), wrong)
    check_invariants(items, renderer(mode, kubevirtVersion=version, validateOutput=True), invalid_output_ok=True)


# --- the generator: what it emits for a release is known to and admitted by that release ----------------------
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("builtin", ["common-instancetypes", "classic"])
def test_every_releases_builtin_catalog_is_known_to_it(version: str, builtin: str) -> None:
    objs = generate(CatalogSpec(builtin=builtin), None, version)
    assert objs
    assert [r.summary() for r in release_results(objs, version)] == []
    assert invalid_emitted([], objs, RELEASES[version].tag) == []
    require_shared("reference/kubevirt-releases")
    assert {identity(o): sorted(u) for o in objs if (u := _unknown_to_release(o, version))} == {}
    refused = [(identity(o), d.message) for o in objs if not (d := decide(o, RELEASES[version].tag)).allowed]
    assert refused == []


@pytest.mark.parametrize("version", VERSIONS)
@settings(PER_RELEASE, max_examples=count(5, 50, "KUBEVIRT_KRM_RELEASE_EXAMPLES"))
@given(seed=SEEDS, scope=st.sampled_from(["Cluster", "Namespaced", "Both"]))
def test_every_release_generates_random_selections_through_process(version: str, seed: int, scope: str) -> None:
    rnd = random.Random(seed)
    series = rnd.sample(["u1", "cx1", "m1", "n1", "o1", "rt1"], rnd.randint(1, 3))  # every release's
    require_shared("reference/kubevirt-releases")
    spec: dict[str, Any] = {"kubevirtVersion": version, "scope": scope, "include": {"series": series},
                            "validateOutput": True}
    if scope != "Cluster":
        spec["namespace"] = "vms"
    config = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "InstancetypeCatalog", "metadata": {"name": "c"},
              "spec": spec}
    data = resource_list([], config)
    out = process(data)
    assert out.exit_code == 0, [r.summary() for r in out.results]
    assert process(data).data == out.data
    _valid_for_the_release(version, data, out.data)
    objs = parse(out.data)["items"] or []
    assert [d.message for o in objs if not (d := decide(o, RELEASES[version].tag)).allowed] == []


# --- random objects: each release's admission follows from main's ----------------------------------------------
@pytest.mark.parametrize("version", VERSIONS)
@settings(PER_RELEASE, max_examples=count(100, 600, "KUBEVIRT_KRM_RELEASE_OBJECTS"))
@given(seed=SEEDS, values=st.lists(TRICKY_VALUES, max_size=2), preference=st.booleans())
def test_every_release_admits_random_objects_as_main_implies(version: str, seed: int, values: list[str],
                                                              preference: bool) -> None:
    """Objects drawn from main's API (so with fields older releases do not know): refused at decode naming
    each field the release's own swagger.json lacks, a ``Required value`` for each field only it requires, else main's
    answer (``test_admission_objects.check_release_answer``; an alpha object: its v1beta1 answer where v1.5 serves
    it)."""
    require_shared("reference/kubevirt-releases")  # each release's swagger.json: the oracle of its fields
    draw = Draw(seed, values, ["k.x"])
    o = draw.preference() if preference else draw.instancetype()
    beta = answer_of(decide({**o, "apiVersion": INSTANCETYPE_API_VERSION}))
    check_release_answer(o, version, layers_of(o, answer_of(decide(o)), beta))


@pytest.mark.parametrize("version", VERSIONS)
def test_the_release_settings_used_above_are_accepted(version: str) -> None:
    """The renders above are for the release asked for, not a config error (which would pass them vacuously)."""
    for mode in MODES:
        out = process(resource_list([], renderer(mode, kubevirtVersion=version, validateOutput=True)))
        assert (out.exit_code, out.results) == (0, [])
