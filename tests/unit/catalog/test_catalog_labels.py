"""Label contract over the generated builtins (like upstream tests/unittests/instancetype_test.go).

Each label key has a checker that compares the label with the object it decorates; a label without a checker
fails the test (so a new label needs a checker first), and a trait present in the spec needs its label.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from krm_fn.catalog.generate import generate

from krm_fn.catalog.spec import CatalogSpec
from krm_fn.catalog.quantity import parse
from krm_fn.kube import api
from krm_fn.kube.paths import Obj, get

VERSION = "v1.7.0"  # a version of common-instancetypes, and the label value of classic


def _flag(path: tuple[str, ...]) -> Callable[[str, Obj], bool]:
    return lambda value, obj: value == "true" and get(obj["spec"], path) not in (None, False)


INSTANCETYPE_CHECKERS: dict[str, Callable[[str, Obj], bool]] = {
    api.LABEL_CPU: lambda v, o: int(v) == o["spec"]["cpu"]["guest"],
    api.LABEL_MEMORY: lambda v, o: parse(v) == parse(o["spec"]["memory"]["guest"]),
    api.LABEL_SIZE: lambda v, o: o["metadata"]["name"].split(".", 1)[1] == v,
    api.LABEL_HUGEPAGES: lambda v, o: get(o["spec"], ("memory", "hugepages", "pageSize")) == v,
    api.LABEL_NUMA: _flag(("cpu", "numa")),
    api.LABEL_DEDICATED_CPU_PLACEMENT: _flag(("cpu", "dedicatedCPUPlacement")),
    api.LABEL_ISOLATE_EMULATOR_THREAD: _flag(("cpu", "isolateEmulatorThread")),
    api.LABEL_REALTIME: _flag(("cpu", "realtime")),
    api.LABEL_GPUS: lambda v, o: v == "true" and bool(o["spec"].get("gpus")),
    api.LABEL_VERSION: lambda v, o: o["metadata"]["name"].split(".", 1)[0].endswith(v),
    api.LABEL_CLASS: lambda v, o: bool(v),
    api.LABEL_ICON_PF: lambda v, o: v.startswith(("pficon-", "fa-")),
    api.LABEL_VENDOR: lambda v, o: v == "kubevirt.io",
    api.LABEL_COMMON_INSTANCETYPES_VERSION: lambda v, o: v == VERSION,
}

PREFERENCE_CHECKERS: dict[str, Callable[[str, Obj], bool]] = {
    api.LABEL_OS_TYPE: lambda v, o: get(o["spec"], ("annotations", api.ANN_VM_OS)) == v,
    api.LABEL_ARCH: lambda v, o: v in (o["spec"].get("preferredArchitecture"),
                                       get(o["spec"], ("requirements", "architecture"))),
    api.LABEL_PREFERRED_ARCHITECTURE: lambda v, o: o["spec"].get("preferredArchitecture") == v,
    api.LABEL_REQUIRED_ARCHITECTURE: lambda v, o: get(o["spec"], ("requirements", "architecture")) == v,
    api.LABEL_REQUIRED_CPU: lambda v, o: int(v) == get(o["spec"], ("requirements", "cpu", "guest")),
    api.LABEL_REQUIRED_MEMORY: lambda v, o: parse(v) == parse(get(o["spec"], ("requirements", "memory", "guest"))),
    api.LABEL_VENDOR: lambda v, o: v == "kubevirt.io",
    api.LABEL_COMMON_INSTANCETYPES_VERSION: lambda v, o: v == VERSION,
}

# a spec feature -> the label it must carry
REQUIRED_INSTANCETYPE_LABELS = {
    ("cpu", "numa"): api.LABEL_NUMA, ("cpu", "dedicatedCPUPlacement"): api.LABEL_DEDICATED_CPU_PLACEMENT,
    ("cpu", "isolateEmulatorThread"): api.LABEL_ISOLATE_EMULATOR_THREAD, ("cpu", "realtime"): api.LABEL_REALTIME,
    ("memory", "hugepages"): api.LABEL_HUGEPAGES, ("gpus",): api.LABEL_GPUS,
}
REQUIRED_PREFERENCE_LABELS = {
    ("requirements", "cpu"): api.LABEL_REQUIRED_CPU, ("requirements", "memory"): api.LABEL_REQUIRED_MEMORY,
    ("requirements", "architecture"): api.LABEL_REQUIRED_ARCHITECTURE,
    ("preferredArchitecture",): api.LABEL_PREFERRED_ARCHITECTURE, ("annotations", api.ANN_VM_OS): api.LABEL_OS_TYPE,
}


def objects() -> list[Obj]:
    """Both versions of common-instancetypes (main has no version label), and classic labelled VERSION."""
    return [o for name, version in (("common-instancetypes", VERSION), ("common-instancetypes", "main"),
                                    ("classic", VERSION))
            for o in generate(CatalogSpec(builtin=name, version=version, scope="Cluster"), None)]


def _ids(objs: list[Obj]) -> list[str]:
    return [f"{o['kind']}/{o['metadata']['name']}@{o['metadata']['labels'].get(api.LABEL_COMMON_INSTANCETYPES_VERSION)}"
            for o in objs]


OBJECTS = objects()


@pytest.mark.parametrize("obj", OBJECTS, ids=_ids(OBJECTS))
def test_labels_match_the_object(obj: Obj) -> None:
    checkers = INSTANCETYPE_CHECKERS if obj["kind"] in api.INSTANCETYPE_KINDS else PREFERENCE_CHECKERS
    required = REQUIRED_INSTANCETYPE_LABELS if obj["kind"] in api.INSTANCETYPE_KINDS else REQUIRED_PREFERENCE_LABELS
    labels = obj["metadata"].get("labels", {})
    for key, value in labels.items():
        assert key in checkers, f"label {key} has no checker"
        assert checkers[key](value, obj), f"label {key}={value} does not match the object"
    for path, key in required.items():
        if get(obj["spec"], path) not in (None, False, []):
            assert key in labels, f"spec.{'.'.join(path)} is set but label {key} is missing"
    if obj["kind"] in api.INSTANCETYPE_KINDS:
        assert {api.LABEL_CPU, api.LABEL_MEMORY, api.LABEL_SIZE} <= labels.keys()


def test_an_unknown_label_fails_the_contract() -> None:
    obj = dict(OBJECTS[0], metadata={**OBJECTS[0]["metadata"], "labels": {"example.com/unknown": "x"}})
    with pytest.raises(AssertionError, match="has no checker"):
        test_labels_match_the_object(obj)


def test_a_wrong_label_fails_the_contract() -> None:
    obj = next(o for o in OBJECTS if o["metadata"]["name"] == "u1.large")
    bad = dict(obj, metadata={**obj["metadata"], "labels": {**obj["metadata"]["labels"], api.LABEL_CPU: "3"}})
    with pytest.raises(AssertionError, match="does not match"):
        test_labels_match_the_object(bad)
