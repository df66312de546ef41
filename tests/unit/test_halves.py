"""Rendering on two processes (``krm_fn.workers.Halves``) gives the bytes and results of one process."""

from __future__ import annotations

import os
from typing import Any

import pytest

import krm_fn.process as process_module
from krm_fn import workers as split
from krm_fn.process import Options, process
from tests.builders import bench_module

resource_list = bench_module("synth").resource_list

VMS = 120


def _renderer(spec: str) -> str:
    return ("functionConfig:\n  apiVersion: kubevirt-krm.dev/v1alpha1\n  kind: VirtualMachineRenderer\n"
            "  metadata:\n    name: halves\n  spec:\n" + "".join(f"    {line}\n" for line in spec.splitlines()))


# a VM KubeVirt rejects (unknown instancetype) and one with a wrong type, both results; written in flow style,
# which the fast lane leaves to the loader
BAD = """\
- {apiVersion: kubevirt.io/v1, kind: VirtualMachine, metadata: {name: bad-ref, namespace: team-1, annotations: {
    internal.config.kubernetes.io/path: vms/bad.yaml}}, spec: {instancetype: {name: no-such-type},
    template: {spec: {domain: {devices: {}}}}}}
- {apiVersion: kubevirt.io/v1, kind: VirtualMachine, metadata: {name: bad-type, namespace: team-2},
  spec: {instancetype: {name: u1.small}, template: {spec: {domain: {cpu: {sockets: two}, devices: {}}}}}}
"""


def _fleet(spec: str, bad: bool = True) -> bytes:
    text: str = resource_list(VMS)
    if bad:  # at the end: a stream whose first document starts with "{" is read as JSON
        assert text.endswith("\n")
        text += BAD
    return (text + _renderer(spec)).encode()


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Split even this short list, in many small blocks; count what the child sent."""
    monkeypatch.setattr(split, "SPLIT_MIN_BYTES", 1)
    monkeypatch.setattr(split, "SPLIT_MIN_ITEMS", 10)
    monkeypatch.setattr(split, "BLOCK", 5)
    sent = {"bytes": 0, "children": 0}
    real_start, real_result = split.Child.start, split.Child.result

    def start() -> Any:
        child = real_start()
        if child is not None and not child.in_child:
            sent["children"] += 1
        return child

    def result(self: Any) -> bytearray | None:
        data = real_result(self)
        sent["bytes"] += len(data or b"")
        return data

    monkeypatch.setattr(split.Child, "start", start)
    monkeypatch.setattr(split.Child, "result", result)
    return sent


@pytest.mark.parametrize("spec", [
    "mode: revisions",
    "mode: revisions\nrevisions:\n  scope: shared\n  syncWave: -1",
    "mode: expand",
    "mode: validate",
])
def test_two_processes_render_what_one_renders(small_thresholds: dict[str, int], spec: str) -> None:
    data = _fleet(spec)
    one = process(data, Options(workers=1))
    two = process(data, Options(workers=2))
    assert small_thresholds["bytes"] > 0, "the child rendered nothing"
    assert two.data == one.data
    assert two.results == one.results and two.exit_code == one.exit_code == 1


def test_a_failing_child_leaves_its_blocks_to_the_parent(small_thresholds: dict[str, int],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    real = process_module._written

    def rendered(*args: Any) -> Any:
        if os.getpid() != parent:
            raise MemoryError
        return real(*args)

    monkeypatch.setattr(process_module, "_written", rendered)
    data = _fleet("mode: expand")
    one = process(data, Options(workers=1))
    assert process(data, Options(workers=2)).data == one.data
    assert small_thresholds["children"] == 1 and small_thresholds["bytes"] == 0


@pytest.mark.parametrize("spec", ["mode: expand\nvalidateOutput: true", "mode: migrate"])
def test_runs_that_are_not_split_are_left_to_one_process(small_thresholds: dict[str, int], spec: str) -> None:
    data = _fleet(spec, bad=False)
    assert process(data, Options(workers=2)).data == process(data, Options(workers=1)).data
    assert small_thresholds["bytes"] == 0


def test_bad_input_is_the_same_error_with_a_child_running(small_thresholds: dict[str, int]) -> None:
    data = _fleet("mode: expand") + b"items: []\n"  # a duplicate key
    with pytest.raises(Exception) as one:
        process(data, Options(workers=1))
    with pytest.raises(Exception) as two:
        process(data, Options(workers=2))
    assert str(two.value) == str(one.value) and "duplicate" in str(one.value)


@pytest.mark.parametrize("mode", ["revisions", "expand"])
def test_stream_modes_render_on_two_processes_what_one_renders(small_thresholds: dict[str, int], mode: str) -> None:
    """The kustomize plugin and standalone (Argo CD) modes: documents in, documents out."""
    import json

    from krm_fn.io.inputs import Source
    from krm_fn.io.resourcelist import dump_stream, parse_resource_list
    from krm_fn.process import StreamInput, process_stream, run_parsed

    fleet = parse_resource_list(_fleet(f"mode: {mode}", bad=False).decode())  # no errors: a stream is printed
    stream = dump_stream(fleet, fleet.items)
    assert fleet.function_config is not None
    config = Source("config.yaml", json.dumps(fleet.function_config).encode())
    sources = [Source("fleet.yaml", stream.encode())]

    outputs = []
    for workers in (1, 2):
        written = run_parsed(StreamInput(sources, fleet.function_config, None), Options(workers=workers))[3]
        assert written == (workers == 2)
        out = process_stream(config, sources, Options(workers=workers))
        outputs.append((out.data, out.results, out.exit_code))
    assert small_thresholds["bytes"] > 0
    assert outputs[1] == outputs[0]
    assert outputs[0][0].count(b"kind: VirtualMachine\n") == VMS
