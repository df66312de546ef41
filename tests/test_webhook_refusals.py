"""The four VMs of issue 36: refused in every mode, standalone and KRM, in KubeVirt's words, at the field's line.

Each is a mistake a schema-only checker misses and the VM validating webhook refuses
(its words are those of ``shared/conformance-vms`` cases 133, 132, 163 and 010).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from krm_fn.io.fieldline import field_line, steps
from tests.builders import NO_CATALOG, line_with, make_vm, problems, renderer, run_fn, run_krm

VALIDATOR = 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '
DISKS = [{"name": "root", "disk": {"bus": "virtio"}}]
ROOT = [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]
POD = {"interfaces": [{"name": "default", "masquerade": {}}], "networks": [{"name": "default", "pod": {}}]}


def _vm(name: str, devices: dict[str, object], runs: str = "Always") -> dict[str, object]:
    spec = {"domain": {"devices": {"disks": DISKS, "interfaces": POD["interfaces"], **devices},
                       "resources": {"requests": {"memory": "1Gi"}}},
            "volumes": ROOT, "networks": POD["networks"]}
    vm = make_vm(spec, name=name)
    vm["spec"]["runStrategy"] = runs
    return vm


# name -> (the VM, KubeVirt's cause, the cause's field, the text on the field's line and which one after the name)
FOUR = {
    "no-volume": (_vm("no-volume", {"disks": [*DISKS, {"name": "datadisk", "disk": {}}]}),
                  "spec.template.spec.domain.devices.disks[1].Name 'datadisk' not found.",
                  "spec.template.spec.domain.devices.disks[1].name", ("- name: datadisk", 1)),
    "one-network": (_vm("one-network", {"interfaces": [{"name": "default", "masquerade": {}} for _ in range(2)]}),
                    "Only one interface can be connected to one specific network",
                    "spec.template.spec.domain.devices.interfaces[1].name", ("- name: default", 2)),
    "bad-bus": (_vm("bad-bus", {"disks": [{"name": "root", "disk": {"bus": "sataa"}}]}),
                "spec.template.spec.domain.devices.disks[0] is set with an unrecognized bus sataa, must be one of: "
                "[virtio scsi sata usb]", "spec.template.spec.domain.devices.disks[0].disk.bus", ("bus: sataa", 1)),
    "run-strategy": (_vm("run-strategy", {}, runs="Allways"), "Invalid RunStrategy (Allways)", "spec.runStrategy",
                     ("runStrategy: Allways", 1)),
}


@pytest.mark.parametrize("mode", ("validate", "revisions", "expand"))
@pytest.mark.parametrize("name", list(FOUR))
def test_krm_mode_refuses_each_with_kubevirts_words_at_its_field(name: str, mode: str) -> None:
    vm, cause, field, _ = FOUR[name]
    rl, code = run_krm([vm], renderer(mode, catalog=NO_CATALOG))
    assert code == 1
    assert [(r["severity"], r["message"], r["field"]["path"]) for r in problems(rl)] == \
        [("error", VALIDATOR + cause, field)]


@pytest.mark.parametrize("mode", ("validate", "revisions", "expand"))
def test_standalone_names_the_line_of_each_field(tmp_path: Path, mode: str) -> None:
    text = "---\n".join(yaml.safe_dump(FOUR[name][0], sort_keys=False) for name in FOUR)
    (tmp_path / "vms.yaml").write_text(text)
    (tmp_path / "fn.yaml").write_text(json.dumps(renderer(mode, catalog=NO_CATALOG)))
    proc = run_fn([str(tmp_path / "fn.yaml"), str(tmp_path / "vms.yaml")])
    assert proc.returncode == 1 and proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    for name, (_, cause, field, (needle, nth)) in FOUR.items():
        at = line_with(text, f"name: {name}")
        for _ in range(nth):
            at = _next_line(text, needle, at)
        want = f"kubevirt-krm: error: VirtualMachine ns1/{name} ({tmp_path / 'vms.yaml'} line {at}) {field}: " \
               f"{VALIDATOR}{cause}"
        assert want in lines, (want, lines)


def _next_line(text: str, needle: str, after: int) -> int:
    """The 1-based line of the first line after line ``after`` that holds ``needle``."""
    lines = text.splitlines()
    return next(i for i in range(after, len(lines)) if needle in lines[i]) + 1


def test_a_field_line_follows_the_path_as_far_as_the_document_goes() -> None:
    text = "a: 1\nspec:\n  list:\n  - name: x\n  - name: y\n    deep:\n      k.x: 2\n"
    assert field_line(text, "spec.list[1].name") == 4
    assert field_line(text, "spec.list[1].deep[k.x]") == 6
    assert field_line(text, "spec.list[5].name") == 2  # no such item: the list's key
    assert field_line(text, "nothing.here") is None
    assert field_line("a: [\n", "a") == 0  # the key is read before the error
    assert field_line("[\n", "a") is None  # not a mapping: no line
    assert steps("a.b[1][k.x].c") == ["a", "b", 1, "k.x", "c"]
