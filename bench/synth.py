"""Deterministic synthetic ResourceLists of KubeVirt VMs over the common-instancetypes names.

Shaped like what kpt hands a function: kyaml formatting, path/index/id annotations, a mix of
instancetypes and preferences, dataVolumeTemplates, cloud-init userData literal blocks, quoted
strings, and a few VMs inferring their types from a volume.
"""

from __future__ import annotations

import argparse
import sys

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--vms", type=int, default=1000)
    args = ap.parse_args()
    sys.stdout.write(resource_list(args.vms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
