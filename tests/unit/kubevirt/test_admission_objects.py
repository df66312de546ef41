"""Issue 23: an instancetype/preference object as the cluster decides it, every stage in the cluster's order and
kubectl's words (``krm_fn.kubevirt.webhooks.admission.decide``).

The shared cases (``shared/conformance-objects``, KubeVirt's own admission code and a re-creation of the API
server's stages) must all agree: decision, stage, message, causes (field, message, type), warnings. Then one test
per numbered item of the issue, each on objects of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.io.loader import load_documents
from krm_fn.kube.status import INVALID, REQUIRED, TYPE_INVALID, Cause, go_quote, invalid_message
from krm_fn.kubevirt.schema.tree import INT_FORMATS, Node
from krm_fn.kubevirt.schema.crd import definition
from krm_fn.kubevirt.webhooks.admission import Decision, decide
from krm_fn.kubevirt_versions import DEFAULT, RELEASES
from tests.builders import NO_CATALOG, problems, renderer, run_krm, shared_dir
from tests.release_objects import ALPHAS_SERVED, LAUNCH_SECURITY_WARNED, expected_answer
from tests.release_objects import answer_of, check_release_answer

V1BETA1 = "instancetype.kubevirt.io/v1beta1"
CASES = shared_dir() / "conformance-objects" / "cases"
QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


def _cases() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if p.is_dir()) if CASES.is_dir() else []


def test_the_releases_are_the_documented_ones() -> None:
    assert set(ALPHAS_SERVED + LAUNCH_SECURITY_WARNED) <= set(RELEASES)


def test_there_are_150_shared_cases() -> None:
    if not CASES.is_dir():
        pytest.skip(f"{CASES} not found (set KUBEVIRT_KRM_SHARED)")
    assert len(_cases()) == 150


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_shared_case(case: Path) -> None:
    """Read as the function reads YAML (its own loader), decided, compared key by key."""
    (document,) = load_documents((case / "input.yaml").read_text(encoding="utf-8"))
    (expected,) = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    got = answer_of(decide(document.value))
    assert got == {key: expected[key] for key in got}


@pytest.mark.parametrize("version", list(RELEASES))
@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_shared_case_for_every_release(case: Path, version: str) -> None:
    (document,) = load_documents((case / "input.yaml").read_text(encoding="utf-8"))
    (expected,) = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    check_release_answer(document.value, version, expected)


def test_the_release_oracle_gives_main_its_own_answers() -> None:
    """For main (and v1.9, which answers the same), the layers put back together are the corpus's answer: the
    oracle reads the layers as the cluster orders them."""
    if not CASES.is_dir():
        pytest.skip(f"{CASES} not found (set KUBEVIRT_KRM_SHARED)")
    for case in _cases():
        (document,) = load_documents((case / "input.yaml").read_text(encoding="utf-8"))
        (expected,) = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
        want, exact = expected_answer(document.value, DEFAULT, expected)
        assert exact and want == {key: expected[key] for key in want}, case.name


# what the 150 cases show of each release, by kind of difference (the classification of issue 24's audit):
# fields the release does not know (decode), alphas v1.5 serves, the launchSecurity warning before v1.9
DIFFERENCES = {
    "v1.5": {"decode": 36, "alpha": 5, "warning": 2},
    "v1.6": {"decode": 34, "alpha": 0, "warning": 2},
    "v1.7": {"decode": 14, "alpha": 0, "warning": 4},
    "v1.8": {"decode": 14, "alpha": 0, "warning": 4},
    "v1.9": {"decode": 0, "alpha": 0, "warning": 0},
    "v1.10": {"decode": 0, "alpha": 0, "warning": 0},
}


def test_how_many_shared_cases_each_release_answers_differently() -> None:
    """The per-release test above is not vacuous: the release facts change these many answers of the corpus."""
    if not CASES.is_dir():
        pytest.skip(f"{CASES} not found (set KUBEVIRT_KRM_SHARED)")
    for version in RELEASES:
        counts = {"decode": 0, "alpha": 0, "warning": 0}
        for case in _cases():
            (document,) = load_documents((case / "input.yaml").read_text(encoding="utf-8"))
            (expected,) = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
            want, _ = expected_answer(document.value, version, expected)
            if want == {key: expected[key] for key in want}:
                continue
            kind = ("alpha" if expected["stage"] == "version" else "decode" if want["stage"] == "decode"
                    else "warning")
            counts[kind] += 1
        assert counts == DIFFERENCES[version], version


def obj(kind: str, spec: Any, name: str = "x", **meta: Any) -> dict[str, Any]:
    return {"apiVersion": V1BETA1, "kind": kind, "metadata": {"name": name, **meta}, "spec": spec}


def it(cpu: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return obj("VirtualMachineInstancetype", {"cpu": {"guest": 2, **(cpu or {})}, "memory": {"guest": "1Gi"}, **spec},
               namespace="ns")


def pref(**spec: Any) -> dict[str, Any]:
    return obj("VirtualMachineClusterPreference", spec)


# --- 1. values Go cannot decode: the webhook refuses with Go's error ----------------------------------------------
@pytest.mark.parametrize(("o", "text"), [
    pytest.param(it({"guest": 4294967296}), "number 4294967296 into Go struct field "
                 "VirtualMachineInstancetype.spec.cpu.guest of type uint32", id="guest-2^32"),
    pytest.param(it({"maxSockets": -1}), "number -1 into Go struct field VirtualMachineInstancetype.spec.cpu.maxSockets"
                 " of type uint32", id="negative-maxSockets"),
    pytest.param(it(ioThreads={"supplementalPoolThreadCount": -3}), "number -3 into Go struct field "
                 "VirtualMachineInstancetype.spec.ioThreads.supplementalPoolThreadCount of type uint32", id="pool"),
    pytest.param(pref(cpu={"spreadOptions": {"ratio": -2}}), "number -2 into Go struct field "
                 "VirtualMachinePreference.spec.cpu.spreadOptions.ratio of type uint32", id="ratio"),
    pytest.param(pref(preferSpreadSocketToCoreRatio=4294967296), "number 4294967296 into Go struct field "
                 "VirtualMachinePreference.spec.preferSpreadSocketToCoreRatio of type uint32", id="socket-core-ratio"),
    pytest.param(pref(features={"preferredHyperv": {"spinlocks": {"spinlocks": -1}}}), "number -1 into Go struct "
                 "field VirtualMachinePreference.spec.features.preferredHyperv.spinlocks.spinlocks of type uint32",
                 id="spinlocks"),
    pytest.param(pref(devices={"preferredDiskBlockSize": {"custom": {"logical": 512, "physical": -1}}}),
                 "number -1 into Go struct field VirtualMachinePreference.spec.devices.preferredDiskBlockSize.custom."
                 "physical of type uint", id="uint"),
])
def test_1_values_go_cannot_decode_are_refused_by_the_webhook(o: dict[str, Any], text: str) -> None:
    assert decide(o) == Decision("webhook", f"json: cannot unmarshal {text}")


def test_1_beyond_int64_is_a_float_to_the_api_server_so_the_crd_refuses_it() -> None:
    for o in (pref(preferredTerminationGracePeriodSeconds=2**63), it({"guest": 2**64}), it({"guest": 2.0**60})):
        decision = decide(o)
        assert decision.stage == "validate" and decision.causes[0].type == TYPE_INVALID
        assert decision.causes[0].message.endswith('must be of type integer: "number"')


def test_1_the_ends_of_a_go_type_are_admitted() -> None:
    assert decide(it({"guest": 4294967295, "maxSockets": 0})).allowed
    assert decide(pref(preferredTerminationGracePeriodSeconds=-(2**63))).allowed


def _integer_fields(node: Node, path: str, seen: set[str], out: list[tuple[str, Node]]) -> None:
    if node.name:
        if node.name in seen:
            return
        seen.add(node.name)
    for key, (child, _) in node.props.items():
        for sub in (child, child.items, child.values):
            if sub is not None and "integer" in sub.types and sub.fmt in INT_FORMATS:
                out.append((f"{path}.{key}", sub))
            elif sub is not None:
                _integer_fields(sub, f"{path}.{key}", seen, out)


@pytest.mark.parametrize("kind", ["VirtualMachineInstancetype", "VirtualMachinePreference"])
def test_1_every_integer_field_has_its_go_type(kind: str) -> None:
    """Every integer field an object of the kind reaches carries its Go type (``tools/gotypes.py`` GO_INTS)."""
    found: list[tuple[str, Node]] = []
    _integer_fields(definition(f"v1beta1.{kind}"), kind, set(), found)
    assert found
    assert [path for path, node in found if not node.gotype] == []


# --- 2. unserved versions -----------------------------------------------------------------------------------
def run(items: list[Any], mode: str) -> tuple[list[dict[str, Any]], int, list[Any]]:
    written, code = run_krm(items, renderer(mode, catalog=NO_CATALOG))
    return problems(written), code, written["items"]


def test_2_an_unserved_version_is_an_error_naming_migrate_mode_and_migrate_rewrites_it() -> None:
    old = {**pref(cpu={"preferredCPUTopology": "preferCores"}), "apiVersion": "instancetype.kubevirt.io/v1alpha2"}
    no_match = 'no matches for kind "VirtualMachineClusterPreference" in version "instancetype.kubevirt.io/v1alpha2"'
    assert decide(old) == Decision("version", no_match)
    for mode in ("expand", "revisions", "validate"):
        results, code, _ = run([old], mode)
        assert code == 1
        assert [(r["message"], r["tags"]["stage"]) for r in results] == [
            (no_match + " (mode: migrate or migrate: true rewrites it to instancetype.kubevirt.io/v1beta1)",
             "version")]
    results, code, items = run([old], "migrate")
    assert code == 0 and [r for r in results if r["severity"] == "error"] == []
    assert items[0]["apiVersion"] == V1BETA1


@pytest.mark.parametrize("api_version", ["instancetype.kubevirt.io/v1", "kubevirt.io/v1"])
def test_2_a_version_no_release_had_gets_no_migrate_hint(api_version: str) -> None:
    odd = {**pref(), "apiVersion": api_version}
    results, code, _ = run([odd], "expand")
    assert code == 1 and [r["message"] for r in results] == [
        f'no matches for kind "VirtualMachineClusterPreference" in version "{api_version}"']


def test_2_a_legacy_flavor_is_an_unserved_version_too() -> None:
    flavor = {"apiVersion": "flavor.kubevirt.io/v1alpha1", "kind": "VirtualMachineClusterFlavor",
              "metadata": {"name": "f"}, "profiles": [{"name": "default", "default": True, "cpu": {"guest": 2}}]}
    results, code, _ = run([flavor], "validate")
    assert code == 1 and [r["message"] for r in results] == [
        'no matches for kind "VirtualMachineClusterFlavor" in version "flavor.kubevirt.io/v1alpha1" (mode: migrate '
        'or migrate: true rewrites it to instancetype.kubevirt.io/v1beta1)']


def test_2_the_same_kind_in_a_group_not_kubevirts_is_not_ours() -> None:
    other = {**pref(), "apiVersion": "instancetype.example.com/v1beta1"}
    results, code, _ = run([other], "expand")
    assert code == 0 and results == []


# --- 3. nulls of non-nullable fields are dropped, not refused ------------------------------------------------
def test_3_nulls_are_pruned_before_validation() -> None:
    assert decide(pref(cpu={"preferredCPUTopology": None})) == Decision(None)
    assert decide(it({"model": None}, annotations={"a": None})) == Decision(None)
    assert decide(pref(cpu=None, devices=None)).allowed
    assert decide(obj("VirtualMachineClusterPreference", None)).causes == (Cause(REQUIRED, "spec", "Required value"),)
    assert decide(it({"guest": None})).causes == (Cause(REQUIRED, "spec.cpu.guest", "Required value"),)


# --- 4. the CRD's quantity pattern -----------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["Gi", " 1Gi", "1GiB", "1.5.5", "--1"])
def test_4_a_quantity_must_match_the_crd_pattern(value: str) -> None:
    o = it()
    o["spec"]["memory"]["guest"] = value
    message = f"Invalid value: {go_quote(value)}: spec.memory.guest in body should match '{QUANTITY_PATTERN}'"
    assert decide(o).causes == (Cause(INVALID, "spec.memory.guest", message),)


@pytest.mark.parametrize("value", ["1Gi", "1.5G", "+1e3", ".5Ki", 1073741824])
def test_4_quantities_matching_the_pattern_pass(value: Any) -> None:
    o = it()
    o["spec"]["memory"]["guest"] = value
    assert decide(o).allowed


def test_4_a_quantity_of_the_wrong_type_fails_every_branch_of_int_or_string() -> None:
    o = it()
    o["spec"]["memory"]["guest"] = True
    assert [(c.field, c.type) for c in decide(o).causes] == [
        ("spec.memory.guest", TYPE_INVALID), ("<nil>", INVALID), ("spec.memory.guest", TYPE_INVALID)]
    assert decide(o).causes[0].message == ('Invalid value: "boolean": spec.memory.guest in body must be of type '
                                           'integer,string: "boolean"')


# --- 5. a nameless object does not stop the run -----------------------------------------------------------------
def test_5_nameless_objects_are_results_on_their_items_and_the_list_is_written() -> None:
    generated = {**pref(), "metadata": {"generateName": "gen-"}}
    nameless = {**pref(), "metadata": {"labels": {"a": "b"}}}
    numeric = {**pref(), "metadata": {"name": 12345}}
    bare = {k: v for k, v in pref().items() if k != "metadata"}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}
    for mode in ("expand", "migrate"):
        results, code, items = run([generated, nameless, numeric, bare, cm], mode)
        assert code == 1
        assert len(items) == 5
        assert [(r["field"]["path"], r["tags"]["stage"], r["message"]) for r in results] == [
            ("metadata.name", "validate", 'VirtualMachineClusterPreference.instancetype.kubevirt.io "" is invalid: '
                                          "metadata.name: Required value: name or generateName is required"),
            ("metadata", "decode", 'VirtualMachineClusterPreference in version "v1beta1" cannot be handled as a '
                                   "VirtualMachineClusterPreference: json: cannot unmarshal number into Go struct "
                                   "field ObjectMeta.name of type string"),
            ("metadata.name", "validate", 'VirtualMachineClusterPreference.instancetype.kubevirt.io "" is invalid: '
                                          "metadata.name: Required value: name or generateName is required"),
        ]


def test_5_a_generated_name_is_checked_with_its_trailing_dash_masked() -> None:
    assert decide({**pref(), "metadata": {"generateName": "gen-"}}).allowed
    bad = decide({**pref(), "metadata": {"generateName": "Gen-"}})
    assert bad.stage == "validate" and [c.field for c in bad.causes] == ["metadata.generateName"]


# --- 6. stage order ---------------------------------------------------------------------------------------------
def test_6_the_crd_refuses_before_the_webhook_and_decode_before_both() -> None:
    over = it()
    over["spec"]["memory"]["overcommitPercent"] = 150
    assert decide(over).stage == "validate"
    assert decide(over).message == invalid_message(
        "VirtualMachineInstancetype", "instancetype.kubevirt.io", "x",
        [Cause(INVALID, "spec.memory.overcommitPercent",
               "Invalid value: 150: spec.memory.overcommitPercent in body should be less than or equal to 100")])
    over["spec"]["foo"] = 1
    over["spec"]["cpu"]["guest"] = "two"
    assert decide(over).stage == "decode"
    assert [c.field for c in decide(over).causes] == ["spec.foo"]
    old = {**over, "apiVersion": "instancetype.kubevirt.io/v1alpha1"}
    assert decide(old).stage == "version"


# --- 7. the API server's words ----------------------------------------------------------------------------------
def test_7_the_api_servers_words_and_field_granularity() -> None:
    o = it({"guest": "string"}, bogus=1, other={"x": 1})
    assert decide(o).message == (
        'VirtualMachineInstancetype in version "v1beta1" cannot be handled as a VirtualMachineInstancetype: '
        'strict decoding error: unknown field "spec.bogus", unknown field "spec.other"')
    del o["spec"]["bogus"], o["spec"]["other"]
    o["metadata"]["labels"] = {"a/b/c": "ok", "key": "-bad"}
    o["metadata"]["name"] = "Ä"
    decision = decide(o)
    assert [(c.field, c.type, c.message.partition(":")[0]) for c in decision.causes] == [
        ("metadata.name", INVALID, "Invalid value"),
        ("metadata.labels", INVALID, "Invalid value"),  # the map, not metadata.labels.<key>
        ("metadata.labels", INVALID, "Invalid value"),
        ("spec.cpu.guest", TYPE_INVALID, "Invalid value"),
    ]
    assert decision.causes[3].message == 'Invalid value: "string": spec.cpu.guest in body must be of type integer: ' \
                                         '"string"'
    assert decision.message is not None and decision.message.startswith(
        'VirtualMachineInstancetype.instancetype.kubevirt.io "Ä" is invalid: [metadata.name: Invalid value: "Ä": ')
    assert decision.message.count("metadata.labels: Invalid value: ") == 2


def test_7_a_namespaced_object_without_namespace_is_in_default_and_a_cluster_one_loses_its_own() -> None:
    assert decide(obj("VirtualMachinePreference", {})).allowed
    assert decide(obj("VirtualMachineClusterPreference", {}, namespace="Not_A_Label")).allowed
    bad = decide(obj("VirtualMachinePreference", {}, namespace="Not_A_Label"))
    assert [c.field for c in bad.causes] == ["metadata.namespace"]


def test_go_quote_keeps_printable_unicode_and_escapes_the_rest() -> None:
    assert go_quote('ä"\\\n\x01') == '"ä\\"\\\\\\n\\x01"'


def test_1_output_checks_know_the_go_types_too() -> None:
    """``validateOutput`` (``schema/strict.py``) bounds an integer by its Go type, not only its format."""
    from krm_fn.kubevirt.schema.strict import problems

    assert problems(it({"guest": 2**32})) == [Cause(INVALID, "spec.cpu.guest", "4294967296 is out of the uint32 range")]
    assert problems(it({"guest": 2**32 - 1})) == []


def test_3_integral_numbers_reach_the_webhook_as_integers() -> None:
    """YAML's ``10.0`` is JSON's ``10`` (sigs.k8s.io/yaml): the webhook sees the Go int and still refuses."""
    o = it()
    o["spec"]["memory"].update(overcommitPercent=10.0, hugepages={"pageSize": "1Gi"})
    assert decide(o).stage == "webhook"
    o["spec"]["memory"]["overcommitPercent"] = 10.5
    assert decide(o).stage == "validate"
