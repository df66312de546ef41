"""Deterministic synthetic ResourceLists of KubeVirt VMs over the common-instancetypes names.

Shaped like what kpt hands a function: kyaml formatting, path/index/id annotations, a mix of
instancetypes and preferences, dataVolumeTemplates, cloud-init userData literal blocks, quoted
strings, and a few VMs inferring their types from a volume.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from krm_fn.io.scalars import plain_ok

# (instancetype, preference) pairs that meet the preferences' requirements (windows.11 needs 2 vCPU / 4Gi)
PAIRS = (("u1.medium", "fedora"), ("u1.large", "windows.11"), ("cx1.large", "rhel.9"), ("m1.xlarge", "ubuntu"),
         ("n1.medium", "centos.stream9"), ("u1.small", "alpine"), ("o1.large", "fedora"))
PREFERENCES = tuple(dict.fromkeys(p for _, p in PAIRS))

VM = """\
- apiVersion: kubevirt.io/v1
  kind: VirtualMachine
  metadata:
    name: vm-{i:05d}
    namespace: {ns}
    labels:
      app: fleet
      tier: "{tier}"
    annotations:
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'vms/vm-{i:05d}.yaml'
      internal.config.kubernetes.io/id: '{id}'
  spec:
    runStrategy: Always
{matchers}    dataVolumeTemplates:
    - metadata:
        name: vm-{i:05d}-root
      spec:
        storage:
          resources:
            requests:
              storage: 30Gi
        sourceRef:
          kind: DataSource
          name: {pref_ds}
          namespace: kubevirt-os-images
    template:
      metadata:
        labels:
          kubevirt.io/domain: vm-{i:05d}
      spec:
        domain:
          devices:
            interfaces:
            - name: default
              masquerade: {{}}
        networks:
        - name: default
          pod: {{}}
        volumes:
        - name: rootdisk
          dataVolume:
            name: vm-{i:05d}-root
        - name: cloudinitdisk
          cloudInitNoCloud:
            userData: |-
              #cloud-config
              hostname: vm-{i:05d}
              ssh_authorized_keys:
                - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{i:08d} admin@example.com
              runcmd:
                - [systemctl, enable, --now, qemu-guest-agent]
"""

MATCHERS = """\
    instancetype:
      name: {it}
    preference:
      name: {pref}
"""

INFER = """\
    instancetype:
      inferFromVolume: rootdisk
    preference:
      inferFromVolume: rootdisk
"""

DATASOURCE = """\
- apiVersion: cdi.kubevirt.io/v1beta1
  kind: DataSource
  metadata:
    name: {name}
    namespace: kubevirt-os-images
    labels:
      instancetype.kubevirt.io/default-instancetype: {it}
      instancetype.kubevirt.io/default-preference: {pref}
    annotations:
      internal.config.kubernetes.io/path: 'datasources.yaml'
      internal.config.kubernetes.io/index: '{index}'
  spec:
    source:
      pvc:
        name: {name}
        namespace: kubevirt-os-images
"""


def resource_list(vms: int, infer_every: int = 50, function_config: str = "") -> str:
    """A ResourceList with ``vms`` VMs; every ``infer_every``-th VM infers from its DataSource."""
    out = ["apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"]
    default_type = {pref: it for it, pref in reversed(PAIRS)}
    for index, pref in enumerate(PREFERENCES):
        out.append(DATASOURCE.format(name=f"{pref}-image", it=default_type[pref], pref=pref, index=index))
    for i in range(vms):
        it, pref = PAIRS[i % len(PAIRS)]
        if infer_every and i % infer_every == infer_every - 1:
            matchers = INFER
        else:
            matchers = MATCHERS.format(it=it, pref=pref)
        out.append(VM.format(i=i, id=i + 10, ns=f"team-{i % 4}", tier=("db", "web", "1", "yes")[i % 4],
                             matchers=matchers, pref_ds=f"{pref}-image"))
    out.append(function_config)
    return "".join(out)


def manifests(vms: int, infer_every: int = 50) -> str:
    """The same objects as :func:`resource_list`, as they sit in a Git repository and the standalone mode reads
    them: a plain ``---``-separated stream, without kpt's annotations."""
    body = resource_list(vms, infer_every).split("items:\n", 1)[1]
    docs = []
    for entry in body[2:].split("\n- "):
        first, *rest = entry.rstrip("\n").split("\n")  # the entry's "- " is gone, then two spaces of indent
        lines = [first] + [line[2:] for line in rest]
        lines = [line for line in lines if "internal.config.kubernetes.io/" not in line]
        lines = [line for i, line in enumerate(lines)  # an annotations: key left without annotations
                 if line.strip() != "annotations:" or lines[i + 1].startswith(" " * (len(line) - len(line.lstrip()) + 1))]
        docs.append("\n".join(lines) + "\n")
    return "---\n".join(docs)


# --- the layout PyYAML writes by default (default_flow_style=None): leaves as flow maps --------------------
def _flow_scalar(value: Any) -> str:
    if isinstance(value, str):
        if value and plain_ok(value) and not any(c in value for c in ",[]{}"):
            return value
        return json.dumps(value)  # a JSON string is a double-quoted YAML scalar
    return json.dumps(value)  # null, true/false, numbers


def _flow_lines(value: Any, indent: str, out: list[str], first: str) -> None:
    """``value`` (a mapping) at ``indent``, its first line prefixed by ``first`` (``"- "`` for an entry)."""
    lead = first
    for key, child in value.items():
        if isinstance(child, dict) and not any(isinstance(v, (dict, list)) for v in child.values()):
            pairs = ", ".join(f"{k}: {_flow_scalar(v)}" for k, v in child.items())
            out.append(f"{lead}{key}: {{{pairs}}}")
        elif isinstance(child, dict):
            out.append(f"{lead}{key}:")
            _flow_lines(child, indent + "  ", out, indent + "  ")
        elif isinstance(child, list):
            out.append(f"{lead}{key}:" if child else f"{lead}{key}: []")
            for entry in child:  # block sequences at the key's indentation, as PyYAML and kyaml write them
                _flow_lines(entry, indent + "  ", out, indent + "- ")
        else:
            out.append(f"{lead}{key}: {_flow_scalar(child)}")
        lead = indent


def flow_leaves(text: str) -> str:
    """The same objects (a ResourceList's items, or a ``---`` stream) with every mapping of scalars written as a
    flow map on one line (``instancetype: {name: u1.medium}``, ``labels: {app: fleet, tier: db}``), as PyYAML
    writes them by default, common in docs and generated files (issue 22). A ResourceList's text after its items
    (the functionConfig) is kept as it is."""
    import yaml_rs

    out: list[str] = []
    if text.startswith("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"):
        head, body = text.split("items:\n", 1)
        entries, tail = body, ""
        cut = body.find("\nfunctionConfig:")
        if cut >= 0:
            entries, tail = body[:cut + 1], body[cut + 1:]
        out.append(head + "items:")
        for item in yaml_rs.loads(entries, parse_datetime=False):
            _flow_lines(item, "  ", out, "- ")
        return "\n".join(out) + "\n" + tail
    docs = [yaml_rs.loads(doc, parse_datetime=False) for doc in text.split("---\n") if doc.strip()]
    for n, doc in enumerate(docs):
        if n:
            out.append("---")
        _flow_lines(doc, "", out, "")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--vms", type=int, default=1000)
    ap.add_argument("--manifests", action="store_true", help="a plain ---  stream (the standalone mode's input)")
    ap.add_argument("--flow-leaves", action="store_true", help="mappings of scalars as flow maps (PyYAML's default)")
    args = ap.parse_args()
    text = manifests(args.vms) if args.manifests else resource_list(args.vms)
    sys.stdout.write(flow_leaves(text) if args.flow_leaves else text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
