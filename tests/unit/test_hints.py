"""Errors that say what to fix (issue 15, point 5; issue 26, point 1) and the catalog's scope (point 6).

The root cause leads: what KubeVirt would not find, in the find stage's words (``<resource> "<name>" not
found``, as in the corpus), with the hint; KubeVirt's own message follows, unchanged (the conformance corpus
compares it), tagged ``follows-from`` the causes' fields. A lookup failure that is KubeVirt's own message and
has no hint is a root cause itself, and leads."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.render.hints import suggestions
from krm_fn.results import resource_list_results
from tests.builders import instancetype, make_object, make_vm, preference
from tests.render_support import render
from krm_fn.render.spec import RendererSpec
from krm_fn.render.spec import FallbackCatalogSpec

EXPAND = RendererSpec(mode="expand")
NOT_FOUND_IT = 'virtualmachineclusterinstancetypes.instancetype.kubevirt.io "{}" not found'
PREFIX_EXPAND = "unable to expand VirtualMachine: "


def _render(items: list[Any], catalog: list[Any] | None = None, spec: RendererSpec = EXPAND) -> list[Any]:
    _, results = render(items, spec, catalog or [])
    return results


def _errors(results: list[Any]) -> list[tuple[str, str | None]]:
    return [(r.message, r.field_path) for r in results if r.severity == "error"]


def test_misspelled_instancetype_behind_a_preference_requirement() -> None:
    pref = preference(requirements={"memory": {"guest": "2Gi"}})
    vm = make_vm(instancetype={"name": "u1.meduim"}, preference={"name": "pref"})
    results = _render([instancetype("u1.medium"), instancetype("u1.small"), pref, vm])
    assert results[1].message.endswith("failure checking preference requirements: insufficient Memory resources "
                                       "of 0 provided by VirtualMachine, preference requires 2Gi")
    assert dict(results[1].tags) == {"stage": "admit", "follows-from": "spec.instancetype"}
    assert results[1].follows and not results[0].follows
    assert _errors(results)[:1] == [
        (NOT_FOUND_IT.format("u1.meduim") + ': did you mean "u1.medium"?', "spec.instancetype")]
    assert dict(results[0].tags)["stage"] == "find"


def test_kubevirts_not_found_gets_only_the_hint() -> None:
    results = _render([instancetype("u1.medium"), make_vm(instancetype={"name": "u1.meduim"})])
    assert _errors(results) == [
        (NOT_FOUND_IT.format("u1.meduim") + ': did you mean "u1.medium"?', "spec.instancetype"),
        (PREFIX_EXPAND + NOT_FOUND_IT.format("u1.meduim"), "spec.instancetype")]
    assert [r.follows for r in results] == [False, True]  # one mistake: one line on stderr


def test_a_resource_list_holds_the_follow_on_in_its_causes_tags() -> None:
    """kpt prints every result: the verdict is the cause's follow-on tag, not a second line beside it. A
    follow-on whose cause is about another object stays a result (the VM it is about must be named)."""
    results = _render([instancetype("u1.medium"), make_vm(instancetype={"name": "u1.meduim"})])
    listed = resource_list_results(results)
    assert [r["message"] for r in listed] == [results[0].message]
    assert listed[0]["tags"] == {"stage": "find", "follow-on": results[1].message, "follow-on-stage": "expand"}
    elsewhere = results[1]._replace(resource_ref=results[1].resource_ref._replace(name="other"))
    assert [r["message"] for r in resource_list_results([results[0], elsewhere])] == [
        results[0].message, results[1].message]
    assert resource_list_results([results[1]]) == [results[1].to_obj()]  # its cause not among them


def test_nothing_close_nothing_added() -> None:
    results = _render([instancetype("u1.medium"), make_vm(instancetype={"name": "zz-top"})])
    assert _errors(results) == [(PREFIX_EXPAND + NOT_FOUND_IT.format("zz-top"), "spec.instancetype")]


def test_every_missing_reference_is_reported() -> None:
    vm = make_vm(instancetype={"name": "gone"}, preference={"name": "fedoar"})
    results = _render([preference("fedora"), vm])
    assert _errors(results)[1:] == [
        ('virtualmachineclusterpreferences.instancetype.kubevirt.io "fedoar" not found: did you mean "fedora"?',
         "spec.preference")]
    # KubeVirt's own error is the other mistake: it leads, following from nothing
    assert _errors(results)[0] == (PREFIX_EXPAND + NOT_FOUND_IT.format("gone"), "spec.instancetype")
    assert [r.follows for r in results] == [False, False]


def test_the_catalog_is_searched_too() -> None:
    results = _render([make_vm(instancetype={"name": "u1.meduim"})], catalog=[instancetype("u1.medium")])
    assert _errors(results)[0][0].endswith('did you mean "u1.medium"?')


def test_the_other_kind() -> None:
    namespaced = make_object("VirtualMachinePreference", "fedora", {}, namespace="ns1")
    results = _render([namespaced, make_vm(preference={"name": "fedora"})])
    assert _errors(results)[0][0] == ('virtualmachineclusterpreferences.instancetype.kubevirt.io "fedora" not found: '
                                      '"fedora" exists as a VirtualMachinePreference: set spec.preference.kind to '
                                      "VirtualMachinePreference")


def test_another_namespace() -> None:
    elsewhere = [make_object("VirtualMachinePreference", "fedora", {}, namespace=ns) for ns in ("team-b", "team-a")]
    vm = make_vm(preference={"name": "fedora", "kind": "VirtualMachinePreference"})
    results = _render([*elsewhere, vm])
    assert _errors(results)[0][0] == ('virtualmachinepreferences.instancetype.kubevirt.io "fedora" not found: a '
                                      'VirtualMachinePreference "fedora" exists in namespace "team-a", "team-b"; a '
                                      'VM finds its preference in its own namespace ("ns1")')


def test_an_unknown_matcher_kind() -> None:
    results = _render([make_vm(instancetype={"name": "it", "kind": "Instancetype"})])
    assert _errors(results) == [
        ('got unexpected kind in InstancetypeMatcher: Instancetype: did you mean "VirtualMachineInstancetype"? '
         "spec.instancetype.kind is VirtualMachineClusterInstancetype or VirtualMachineInstancetype (left out: "
         "VirtualMachineClusterInstancetype)", "spec.instancetype"),
        (PREFIX_EXPAND + "got unexpected kind in InstancetypeMatcher: Instancetype", "spec.instancetype")]


def test_schema_and_mutate_rejections_get_no_hints() -> None:
    bad = make_vm({"domain": {"devices": {"bogus": 1}}}, instancetype={"name": "u1.meduim"})
    assert len(_render([instancetype("u1.medium"), bad])) == 1


@pytest.mark.parametrize(("name", "candidates", "expected"), [
    ("u1.meduim", {"u1.medium", "u1.small", "cx1.medium", "u1.meduim"}, ["u1.medium", "cx1.medium"]),
    ("abcd", {"abcf", "abce", "xy"}, ["abce", "abcf"]),  # equal ratios: by name
    ("fedora", {"rhel.9", "windows.11"}, []),
    ("x", set(), []),
    ("a1.b", {"a1.c", "a1.d", "a1.e", "a1.f"}, ["a1.c", "a1.d", "a1.e"]),  # at most three
])
def test_suggestions(name: str, candidates: set[str], expected: list[str]) -> None:
    assert suggestions(name, candidates) == expected


# --- point 6: the catalog serves what virt-operator deploys, the cluster-scoped kinds, unless asked --------------
NS_KIND = {"name": "u1.medium", "kind": "VirtualMachineInstancetype"}


def _catalog() -> list[Any]:
    namespaced = {**instancetype("u1.medium", cpu=1), "kind": "VirtualMachineInstancetype"}
    return [instancetype("u1.medium", cpu=1), namespaced]


def test_catalog_serves_only_cluster_kinds_by_default() -> None:
    ok = make_vm(name="ok", instancetype={"name": "u1.medium"})
    asks_namespaced = make_vm(name="ns", namespace=None, instancetype=NS_KIND)
    results = _render([ok, asks_namespaced], catalog=_catalog())
    assert _errors(results) == [
        ('virtualmachineinstancetypes.instancetype.kubevirt.io "u1.medium" not found: "u1.medium" exists as a '
         "VirtualMachineClusterInstancetype: set spec.instancetype.kind to VirtualMachineClusterInstancetype (or "
         "leave it out)", "spec.instancetype"),
        (PREFIX_EXPAND + 'virtualmachineinstancetypes.instancetype.kubevirt.io "u1.medium" not found',
         "spec.instancetype")]
    assert {r.resource_ref.name for r in results} == {"ns"}


@pytest.mark.parametrize("namespace", ["apps", None])
def test_scope_both_serves_the_namespaced_kinds_in_every_namespace(namespace: str | None) -> None:
    spec = RendererSpec(mode="expand", catalog=FallbackCatalogSpec(scope="Both"))
    assert _render([make_vm(namespace=namespace, instancetype=NS_KIND)], _catalog(), spec) == []


def test_a_namespaced_catalog_object_with_a_namespace_is_only_there() -> None:
    spec = RendererSpec(mode="expand", catalog=FallbackCatalogSpec(scope="Namespaced"))
    placed = make_object("VirtualMachineInstancetype", "u1.medium", {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
                         namespace="team-a")
    assert _render([make_vm(namespace="team-a", instancetype=NS_KIND)], [placed], spec) == []
    assert len(_errors(_render([make_vm(namespace="team-b", instancetype=NS_KIND)], [placed], spec))) == 1
    # Namespaced: the cluster-scoped kinds are not served
    errors = _errors(_render([make_vm(instancetype={"name": "u1.medium"})], _catalog(), spec))
    assert errors[-1][0] == PREFIX_EXPAND + NOT_FOUND_IT.format("u1.medium")  # KubeVirt's verdict, after the hint


def test_config_defaults() -> None:
    from krm_fn.catalog.spec import CatalogSpec
    from krm_fn.config import load

    renderer = load({"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
                     "spec": {"catalog": {"builtin": "common-instancetypes"}}})
    assert renderer.spec.catalog.scope == "Cluster"
    assert load({"apiVersion": "v1", "kind": "ConfigMap", "data": {"catalog.scope": "Both"}}).spec.catalog.scope == "Both"
    assert CatalogSpec().scope == "Both"  # the generator's default is unchanged
