"""The launcher pod of every VM of the whole-VM corpus (``shared/conformance-vms``, its ``pod`` stage), for every
release it answers, through ``kubevirt-krm resources --output json --complete-objects``.

Quantities compare by value, as the corpus README says; container order and names are part of the result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from krm_fn.cli.capacity import Request, main
from krm_fn.io.inputs import Source
from krm_fn.kube.amount import nanos
from krm_fn.process import Options
from tests.test_conformance_vms import CASES, VERSIONS, _expected, _inputs

PARAMS = [pytest.param(tag, case, id=f"{tag}-{case.name}") for tag in VERSIONS for case in CASES
          if _expected(tag, case).is_file()]


def _config(tag: str) -> Source:
    config = {"apiVersion": "kubevirt-krm.dev/v1alpha1", "kind": "VirtualMachineRenderer",
              "metadata": {"name": "render"}, "spec": {"kubevirtVersion": VERSIONS[tag]}}
    return Source("fn.yaml", yaml.safe_dump(config).encode())


def pods_of(tag: str, case: Path) -> dict[tuple[str, str], Any]:
    """Our launcher pod of each VM of ``case`` at release ``tag``, by (namespace, name)."""
    data = yaml.safe_dump_all(_inputs(case)).encode()
    text, _ = main(Request("json", True, "fn.yaml", ("input.yaml",)), _config(tag), [Source("input.yaml", data)],
                   Options())
    return {(vm["namespace"], vm["name"]): vm["pod"] for vm in json.loads(text)["vms"]}


def _values(resources: dict[str, Any] | None) -> dict[str, int]:
    return {k: nanos(v) for k, v in (resources or {}).items()}


def _containers(containers: list[dict[str, Any]] | None) -> list[tuple[Any, ...]]:
    return [(c["name"], _values(c.get("requests")), _values(c.get("limits")), c.get("restartPolicy"))
            for c in containers or []]


def comparable(pod: dict[str, Any] | None) -> Any:
    """A pod as data to compare: quantities by value."""
    if pod is None or pod.get("error"):
        return pod and {"error": pod["error"]}
    return {"containers": _containers(pod["containers"]), "initContainers": _containers(pod["initContainers"]),
            "overhead": _values(pod["overhead"]), "qosClass": pod["qosClass"],
            "totals": {k: _values(v) for k, v in pod["totals"].items()}}


@pytest.mark.parametrize(("tag", "case"), PARAMS)
def test_the_launcher_pod_is_kubevirts(tag: str, case: Path) -> None:
    ours = pods_of(tag, case)
    for answer in yaml.safe_load(_expected(tag, case).read_text(encoding="utf-8")):
        key = (answer["namespace"], answer["vm"])
        assert comparable(ours.get(key)) == comparable(answer.get("pod")), key
