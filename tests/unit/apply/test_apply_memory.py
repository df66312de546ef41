"""Memory from an instancetype (``apply/memory.go``): first conflict only, float32 overcommit."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.kubevirt.apply.vmi import VM_BASE, apply_to_vmi

BASE = "spec.template.spec."


def _apply(it_mem: dict[str, Any], vmi: dict[str, Any]) -> list[str]:
    it = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi", **it_mem}}
    return [str(c) for c in apply_to_vmi(VM_BASE, it, None, vmi, {})]


def test_guest_hugepages_and_max_guest_are_written() -> None:
    vmi: dict[str, Any] = {"domain": {}}
    assert _apply({"hugepages": {"pageSize": "2Mi"}, "maxGuest": "4Gi"}, vmi) == []
    assert vmi["domain"]["memory"] == {"guest": "1Gi", "hugepages": {"pageSize": "2Mi"}, "maxGuest": "4Gi"}
    assert "resources" not in vmi["domain"]


@pytest.mark.parametrize(("guest", "percent", "expected"), [
    ("1Gi", 10, "966367616"), ("16Gi", 99, "167772Ki"), ("4Gi", 25, "3Gi"), ("1.5Gi", 50, "768Mi"),
    ("1Gi", 100, "0"), ("512M", 15, "435200k"),
])
def test_overcommit_sets_the_memory_request(guest: str, percent: int, expected: str) -> None:
    vmi: dict[str, Any] = {"domain": {}}
    assert _apply({"guest": guest, "overcommitPercent": percent}, vmi) == []
    assert vmi["domain"]["resources"]["requests"]["memory"] == expected


def test_no_request_without_overcommit() -> None:
    vmi: dict[str, Any] = {"domain": {"resources": {}}}
    _apply({"overcommitPercent": 0}, vmi)
    assert vmi["domain"]["resources"] == {}


@pytest.mark.parametrize(("vmi", "it_mem", "conflict"), [
    pytest.param({"domain": {"memory": {"guest": "1Gi"}}}, {}, "domain.memory.guest", id="guest always"),
    pytest.param({"domain": {"memory": {"hugepages": {}}}}, {"hugepages": {"pageSize": "2Mi"}},
                 "domain.memory.hugepages", id="hugepages on both"),
    pytest.param({"domain": {"memory": {"maxGuest": "2Gi"}}}, {"maxGuest": "4Gi"}, "domain.memory.maxGuest",
                 id="maxGuest on both"),
    pytest.param({"domain": {"resources": {"requests": {"memory": "1Gi"}}}}, {}, "domain.resources.requests.memory",
                 id="requests.memory"),
    pytest.param({"domain": {"resources": {"limits": {"memory": "1Gi"}}}}, {}, "domain.resources.limits.memory",
                 id="limits.memory"),
    pytest.param({"domain": {"memory": {"guest": "1Gi", "maxGuest": "2Gi"},
                             "resources": {"limits": {"memory": "1Gi"}}}}, {"maxGuest": "4Gi"},
                 "domain.memory.guest", id="only the first failing check is reported"),
])
def test_first_conflict_only(vmi: dict[str, Any], it_mem: dict[str, Any], conflict: str) -> None:
    assert _apply(it_mem, vmi) == [BASE + conflict]


@pytest.mark.parametrize("vmi", [
    pytest.param({"domain": {"memory": {"hugepages": {"pageSize": "1Gi"}}}}, id="hugepages only on the VM"),
    pytest.param({"domain": {"memory": {"maxGuest": "2Gi"}}}, id="maxGuest only on the VM"),
    pytest.param({"domain": {"resources": {"requests": {"ephemeral-storage": "1Gi"}}}}, id="other resource"),
])
def test_no_conflict(vmi: dict[str, Any]) -> None:
    assert _apply({}, vmi) == []
