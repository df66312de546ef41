"""The warning for a fleet on kustomize's legacy exec plugin route (issue 16, point 5; krm_fn.fleet)."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.stream import LEGACY_PLUGIN_MAX_RESOURCES, PLUGIN_ENV, legacy_plugin_route, legacy_plugin_warning
from tests.builders import instancetype, make_vm

PLUGIN = {PLUGIN_ENV: "kind: VirtualMachineRenderer\n"}


def fleet(vms: int) -> list[Any]:
    return [instancetype(), *(make_vm(name=f"vm-{i}") for i in range(vms))]


def test_no_warning_at_the_limit_one_above_it() -> None:
    items = fleet(2)
    assert legacy_plugin_warning(items, 6, limit=6) is None
    warning = legacy_plugin_warning(items, 7, limit=6)
    assert warning is not None and warning.severity == "warning"
    assert warning.message.startswith("7 resources (2 VirtualMachines) handed back to kustomize's legacy exec plugin")
    assert "kubectl kustomize DIR | kubevirt-krm CONFIG.yaml -" in warning.message  # the faster routes, named
    assert "kpt fn render" in warning.message and "above 6 this route" in warning.message


def test_only_virtual_machines_are_counted_as_vms() -> None:
    items = [*fleet(3), *(instancetype(name=f"it-{i}") for i in range(10))]
    warning = legacy_plugin_warning(items, len(items), limit=3)
    assert warning is not None and warning.message.startswith("14 resources (3 VirtualMachines)")


@pytest.mark.parametrize(("environ", "file_inputs", "route"), [({}, False, False), (PLUGIN, True, False),
                                                              (PLUGIN, False, True)])
def test_only_the_legacy_plugin_route_is_that_route(environ: dict[str, str], file_inputs: bool, route: bool) -> None:
    """Standalone mode (no plugin config in the environment, or inputs named as files) is not that route."""
    assert legacy_plugin_route(environ, file_inputs) is route


def test_the_documented_limit() -> None:
    assert legacy_plugin_warning([], LEGACY_PLUGIN_MAX_RESOURCES) is None
    assert legacy_plugin_warning([], LEGACY_PLUGIN_MAX_RESOURCES + 1) is not None
