"""Random cases shaped like the conformance corpus's (``shared/conformance/cases``): main-style instancetypes,
preferences, volume objects and ControllerRevisions, and VMs that reference them, drawn from a seed, with the
fields whose handling differs between KubeVirt releases (``shared/docs/kubevirt-releases.md`` section 6) drawn
often. :func:`answer` is what the engine answers for one VM of a case for one release, in the corpus's terms
(error stage and message, or the expanded VM, and the revisions), so that two releases' answers compare.

Used by ``test_release_differential.py`` (metamorphic properties between neighbouring releases).
"""

from __future__ import annotations

import copy
import functools
import random
from typing import Any

import yaml

from krm_fn.index import Index
from krm_fn.kube.api import INSTANCETYPE_API_VERSION as V1BETA1
from krm_fn.kube.api import TYPE_KINDS
from krm_fn.kube.paths import Obj
from krm_fn.kubevirt.cluster import ClusterConfig
from krm_fn.kubevirt.find.found import Found
from krm_fn.kubevirt.find.object import decoded_spec
from krm_fn.kubevirt.pipeline import vm_stages
from krm_fn.kubevirt.revision import revision_data
from krm_fn.kubevirt_versions import RELEASES
from tests.builders import shared_dir
from tests.engine_support import as_stored

NS = "ns1"
MEMORY = ("512Mi", "1Gi", "2Gi", "1.5Gi", "2048Mi", "4G", "3Gi")
PAGE_SIZES = ("2Mi", "1Gi")
ARCHES = ("amd64", "arm64", "s390x")
PANIC_MODELS = ("hyperv", "isa", "pvpanic")
VIDEO_TYPES = ("virtio", "vga", "bochs")
DEFAULT_LABEL = "instancetype.kubevirt.io/default-instancetype"
DEFAULT_PREF_LABEL = "instancetype.kubevirt.io/default-preference"


class CaseDraw:
    """One case from one seed: a few instancetypes and preferences (cluster and namespaced), volume objects for
    ``inferFromVolume``, ControllerRevisions, and VMs."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.uid = 0

    def p(self, chance: float) -> bool:
        return self.rnd.random() < chance

    def meta(self, name: str, namespaced: bool, labels: dict[str, str] | None = None) -> Obj:
        self.uid += 1
        md: Obj = {"name": name, "uid": f"00000000-0000-0000-0000-{self.uid:012d}", "generation": self.rnd.randint(1, 3)}
        if namespaced:
            md["namespace"] = NS
        if labels:
            md["labels"] = labels
        return md

    # --- instancetypes and preferences (main's API: fields older releases do not know included) -------------
    def instancetype_spec(self) -> Obj:
        rnd, p = self.rnd, self.p
        cpu: Obj = {"guest": rnd.choice((1, 2, 3, 4, 6, 8))}
        if p(0.2):
            cpu["model"] = rnd.choice(("Haswell", "host-passthrough"))
        if p(0.15):
            cpu["dedicatedCPUPlacement"] = True
            if p(0.5):
                cpu["isolateEmulatorThread"] = True
        if p(0.2):
            cpu["maxSockets"] = rnd.choice((2, 4, 8))
        memory: Obj = {"guest": rnd.choice(MEMORY)}
        if p(0.2):
            memory["hugepages"] = {"pageSize": rnd.choice(PAGE_SIZES)}
        elif p(0.2):
            memory["overcommitPercent"] = rnd.choice((10, 25, 50))
        if p(0.2):
            memory["maxGuest"] = rnd.choice(("8Gi", "16Gi"))
        spec: Obj = {"cpu": cpu, "memory": memory}
        if p(0.25):
            spec["ioThreads"] = {"supplementalPoolThreadCount": rnd.randint(1, 4)}
        if p(0.2):
            spec["ioThreadsPolicy"] = rnd.choice(("shared", "auto", "supplementalPool"))
        if p(0.15):
            spec["launchSecurity"] = rnd.choice(({"sev": {}}, {"snp": {}}, {"tdx": {}}))
        if p(0.15):
            spec["nodeSelector"] = {"node-role.kubernetes.io/worker": ""}
        if p(0.1):
            spec["schedulerName"] = "my-scheduler"
        if p(0.1):
            spec["gpus"] = [rnd.choice(({"name": "gpu1", "deviceName": "nvidia.com/GH100_H100"},
                                        {"name": "gpu1", "claimName": "c", "requestName": "r"}))]
        if p(0.1):
            spec["annotations"] = {"it.example.com/a": "v"}
        return spec

    def preference_spec(self) -> Obj:
        rnd, p = self.rnd, self.p
        spec: Obj = {}
        if p(0.4):
            cpu: Obj = {"preferredCPUTopology": rnd.choice(("preferSockets", "preferCores", "preferThreads",
                                                             "preferSpread", "preferAny"))}
            if cpu["preferredCPUTopology"] == "preferSpread" and p(0.5):
                cpu["spreadOptions"] = rnd.choice(({"across": "SocketsCores", "ratio": rnd.choice((2, 3))},
                                                   {"across": "CoresThreads"}, {"across": "SocketsCoresThreads"}))
            spec["cpu"] = cpu
        devices: Obj = {}
        for key, values, chance in (
                ("preferredDiskBus", ("virtio", "sata", "scsi"), 0.4),
                ("preferredInterfaceModel", ("virtio", "e1000e"), 0.3),
                ("preferredVideoType", VIDEO_TYPES, 0.3),
                ("preferredPanicDeviceModel", PANIC_MODELS, 0.3),
                ("preferredAutoattachGraphicsDevice", (True, False), 0.15),
                ("preferredAutoattachMemBalloon", (True, False), 0.1),
                ("preferredAutoattachSerialConsole", (True, False), 0.1),
                ("preferredAutoattachInputDevice", (True, False), 0.1),
                ("preferredInputBus", ("virtio", "usb"), 0.15),
                ("preferredInputType", ("tablet",), 0.15),
                ("preferredTPM", ({}, {"persistent": True}), 0.15),
                ("preferredRng", ({},), 0.15),
                ("preferredSoundModel", ("ich9", "ac97"), 0.1),
                ("preferredUseVirtioTransitional", (True,), 0.1),
                ("preferredDiskDedicatedIoThread", (True,), 0.1),
                ("preferredBlockMultiQueue", (True,), 0.1),
                ("preferredNetworkInterfaceMultiQueue", (True,), 0.1)):
            if p(chance):
                devices[key] = copy.deepcopy(rnd.choice(values))
        if devices:
            spec["devices"] = devices
        if p(0.2):
            spec["features"] = {"preferredSmm": {}, "preferredAcpi": {}}
            if p(0.3):  # tlbflush's direct/extended: v1.8+ (older releases knew only ``enabled``)
                spec["features"]["preferredHyperv"] = {"relaxed": {}, "tlbflush": rnd.choice(
                    ({"enabled": True}, {"direct": {}}, {"extended": {"enabled": True}}))}
        if p(0.2):
            spec["firmware"] = rnd.choice(({"preferredUseEfi": True}, {"preferredUseEfi": True,
                                                                      "preferredUseSecureBoot": True},
                                           {"preferredUseBios": True}))
        if p(0.25):
            spec["machine"] = {"preferredMachineType": rnd.choice(("q35", "pc-q35-rhel9.2.0", "virt"))}
        if p(0.3):
            spec["preferredArchitecture"] = rnd.choice(ARCHES)
        if p(0.15):
            spec["preferredLaunchSecurity"] = rnd.choice(({"sev": {}}, {"snp": {}}))
        if p(0.2):
            spec["volumes"] = {"preferredStorageClassName": "fast"}
        if p(0.1):
            spec["preferredSubdomain"] = "sub"
        if p(0.1):
            spec["preferredTerminationGracePeriodSeconds"] = 30
        if p(0.1):
            spec["clock"] = {"preferredClockOffset": {"utc": {}}}
        if p(0.3):
            req: Obj = {}
            if p(0.5):
                req["cpu"] = {"guest": rnd.choice((1, 2, 4))}
            if p(0.5):
                req["memory"] = {"guest": rnd.choice(("1Gi", "2Gi"))}
            if p(0.5):
                req["architecture"] = rnd.choice(ARCHES)
            spec["requirements"] = req
        if p(0.1):
            spec["annotations"] = {"pref.example.com/a": "v"}
        return spec

    def objects(self) -> list[Obj]:
        """The case's instancetypes and preferences: ``it-N`` / ``pref-N``, each cluster-wide or in NS, and
        often a few of common-instancetypes' (main's bundle, as the corpus copies them)."""
        out: list[Obj] = []
        catalog = catalog_objects()
        if catalog and self.p(0.6):
            for obj in self.rnd.sample(catalog, self.rnd.randint(1, 4)):
                obj = copy.deepcopy(obj)
                obj["metadata"] = {**obj["metadata"], **self.meta(obj["metadata"]["name"], False)}
                out.append(obj)
        for i in range(self.rnd.randint(1, 3)):
            namespaced = self.p(0.3)
            kind = "VirtualMachineInstancetype" if namespaced else "VirtualMachineClusterInstancetype"
            out.append({"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": kind,
                        "metadata": self.meta(f"it-{i}", namespaced), "spec": self.instancetype_spec()})
        for i in range(self.rnd.randint(1, 3)):
            namespaced = self.p(0.3)
            kind = "VirtualMachinePreference" if namespaced else "VirtualMachineClusterPreference"
            out.append({"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": kind,
                        "metadata": self.meta(f"pref-{i}", namespaced), "spec": self.preference_spec()})
        return out

    # --- volume objects for inferFromVolume, ControllerRevisions ----------------------------------------------
    def infer_labels(self, types: list[Obj]) -> dict[str, str]:
        labels: dict[str, str] = {}
        for family, label in (("Instancetype", DEFAULT_LABEL), ("Preference", DEFAULT_PREF_LABEL)):
            mine = [t for t in types if family in t["kind"]]
            if mine and self.p(0.8):
                obj = self.rnd.choice(mine)
                labels[label] = obj["metadata"]["name"]
                if obj["kind"].startswith("VirtualMachine") and "Cluster" not in obj["kind"] or self.p(0.3):
                    labels[label + "-kind"] = obj["kind"]
            elif self.p(0.2):
                labels[label] = "missing"
        return labels

    def volume_objects(self, types: list[Obj]) -> list[Obj]:
        out: list[Obj] = [
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": self.meta("pvc", True, self.infer_labels(types)), "spec": {}},
            {"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot",
             "metadata": self.meta("snap", True, self.infer_labels(types)), "spec": {}},
            {"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataSource",
             "metadata": self.meta("ds-pvc", True, self.infer_labels(types) if self.p(0.5) else None),
             "spec": {"source": {"pvc": {"name": "pvc", "namespace": NS}}}},
            {"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataSource",
             "metadata": self.meta("ds-snap", True, self.infer_labels(types) if self.p(0.3) else None),
             "spec": {"source": {"snapshot": {"name": "snap", "namespace": NS}}}},
            {"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolume",
             "metadata": self.meta("dv", True, self.infer_labels(types) if self.p(0.5) else None),
             "spec": self.dv_spec()},
        ]
        return out

    def dv_spec(self) -> Obj:
        spec: Obj = self.rnd.choice((
            {"source": {"pvc": {"name": "pvc", "namespace": NS}}},
            {"source": {"snapshot": {"name": "snap", "namespace": NS}}},
            {"source": {"http": {"url": "http://x/disk.img"}}},
            {"sourceRef": {"kind": "DataSource", "name": self.rnd.choice(("ds-pvc", "ds-snap", "ds-missing"))}},
        ))
        spec = copy.deepcopy(spec)
        spec[self.rnd.choice(("storage", "pvc"))] = {"resources": {"requests": {"storage": "10Gi"}}} \
            if self.p(0.5) else {"storageClassName": "mine", "resources": {"requests": {"storage": "10Gi"}}}
        return spec

    def revisions(self, types: list[Obj]) -> list[Obj]:
        """A v1beta1 revision of one of the objects, and an alpha one (only v1.5/v1.6 decode it)."""
        obj = self.rnd.choice(types)
        data = {**copy.deepcopy(obj), "metadata": {"name": obj["metadata"]["name"]}}
        alpha_spec = obj["spec"] if "Instancetype" in obj["kind"] else {}
        alpha = {"apiVersion": "instancetype.kubevirt.io/v1alpha2", "kind": obj["kind"],
                 "metadata": {"name": obj["metadata"]["name"]},
                 "spec": {k: v for k, v in alpha_spec.items() if k in ("cpu", "memory")}}
        labels = {"instancetype.kubevirt.io/object-name": obj["metadata"]["name"]}  # what a status ref checks
        return [{"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": self.meta(name, True, labels),
                 "data": data, "revision": 0} for name, data in (("rev-beta", data), ("rev-alpha", alpha))]

    # --- VMs -------------------------------------------------------------------------------------------------
    def matcher(self, types: list[Obj], family: str) -> Obj | None:
        rnd, p = self.rnd, self.p
        mine = [t for t in types if family in t["kind"]]
        r = rnd.random()
        if r < 0.15:
            return None
        if r < 0.7:
            obj = rnd.choice(mine)
            m: Obj = {"name": obj["metadata"]["name"]}
            if "Cluster" not in obj["kind"] or p(0.3):
                m["kind"] = rnd.choice((obj["kind"], obj["kind"].lower()))
            return m
        if r < 0.78:
            return {"name": "missing", **({"kind": rnd.choice(("bogus", mine[0]["kind"]))} if p(0.5) else {})}
        if r < 0.86:
            obj = rnd.choice(mine)
            return {"name": obj["metadata"]["name"], "kind": obj["kind"],
                    "revisionName": rnd.choice(("rev-beta", "rev-alpha", "rev-missing"))}
        m = {"inferFromVolume": rnd.choice(("root", "dvt", "data", "cd"))}
        if p(0.5):
            m["inferFromVolumeFailurePolicy"] = rnd.choice(("Reject", "Ignore"))
        if p(0.1):
            m[rnd.choice(("name", "kind"))] = "x"
        return m

    def template_spec(self, with_instancetype: bool) -> Obj:
        rnd, p = self.rnd, self.p
        devices: Obj = {}
        if p(0.6):
            devices["disks"] = [{"name": "root", **({"disk": {"bus": "sata"}} if p(0.3) else {})}]
        if p(0.3):
            devices["interfaces"] = [{"name": "default", "masquerade": {}}]
        if p(0.2):
            devices["panicDevices"] = rnd.choice(([{}], [{"model": "isa"}], [{}, {"model": "hyperv"}]))
        if p(0.15):
            devices["video"] = rnd.choice(({}, {"type": "vga"}))
        if p(0.1):
            devices["autoattachGraphicsDevice"] = rnd.choice((True, False))
        if p(0.1):
            devices["sound"] = {"name": "snd"}
        domain: Obj = {"devices": devices}
        own = 0.2 if with_instancetype else 0.7
        if p(own):
            domain["cpu"] = rnd.choice(({"sockets": 2}, {"cores": 2}, {"threads": 1}, {"model": "Haswell"},
                                        {"sockets": 1, "cores": 2, "threads": 1}))
        if p(own):
            domain["memory"] = rnd.choice(({"guest": rnd.choice(MEMORY)}, {}, {"hugepages": {"pageSize": "2Mi"}},
                                           {"maxGuest": "8Gi"}, {"guest": "1Gi", "hugepages": {"pageSize": "1Gi"}}))
        if p(own / 2):
            domain["resources"] = rnd.choice(({"requests": {"memory": "1Gi"}}, {"limits": {"memory": "2Gi"}},
                                              {"requests": {"cpu": "1"}}, {"limits": {"cpu": "2", "memory": "1Gi"}}))
        if p(0.1):
            domain["ioThreads"] = {"supplementalPoolThreadCount": 2}
        if p(0.1):
            domain["ioThreadsPolicy"] = "shared"
        if p(0.1):
            domain["launchSecurity"] = {"sev": {}}
        if p(0.15):
            domain["machine"] = {"type": "pc-q35-rhel8.6.0"}
        if p(0.1):
            domain["firmware"] = {"bootloader": {"efi": {"secureBoot": False}}}
        spec: Obj = {"domain": domain}
        if p(0.15):
            spec["architecture"] = rnd.choice(ARCHES)
        if p(0.15):
            self.release_fields(spec)
        volumes = [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]
        if p(0.4):
            volumes.append({"name": "dvt", "dataVolume": {"name": "dvt"}})
        if p(0.4):
            volumes.append(rnd.choice(({"name": "data", "persistentVolumeClaim": {"claimName": "pvc"}},
                                       {"name": "data", "dataVolume": {"name": "dv"}},
                                       {"name": "data", "dataVolume": {"name": "dv-gone"}})))
        spec["volumes"] = volumes
        if p(0.2):
            spec["networks"] = [{"name": "default", "pod": {}}]
        return spec

    def release_fields(self, spec: Obj) -> None:
        """One VM field that only some releases know (each tag's swagger.json; kubevirt-releases.md addendum)."""
        domain, devices = spec["domain"], spec["domain"]["devices"]
        choice = self.rnd.randrange(8)
        if choice == 0:
            devices["disks"] = [{"name": "root", "blockSize": {"custom": {"logical": 512, "physical": 512,
                                                                          "discardGranularity": 512}}}]
        elif choice == 1:
            domain["features"] = {"hyperv": {"tlbflush": self.rnd.choice(({"direct": {}}, {"enabled": True}))}}
        elif choice == 2:
            domain["rebootPolicy"] = "Terminate"
        elif choice == 3:
            domain.setdefault("memory", {})["reservedOverhead"] = {"addedOverhead": "100Mi"}
        elif choice == 4:
            devices["gpus"] = [{"name": "g", "claimName": "c", "requestName": "r"}]
        elif choice == 5:
            spec["serviceAccountName"] = "sa"
        elif choice == 6:
            ports = [{"protocol": "TCP", "start": 80, "end": 81}]
            devices["interfaces"] = [{"name": "default", "masquerade": {}, "portRanges": ports}]
            spec["networks"] = [{"name": "default", "pod": {}}]
        else:
            devices["panicDevices"] = [{}]

    def vm(self, name: str, types: list[Obj]) -> Obj:
        spec: Obj = {"runStrategy": "Always"}
        it = self.matcher(types, "Instancetype")
        pref = self.matcher(types, "Preference")
        if it is not None:
            spec["instancetype"] = it
        if pref is not None:
            spec["preference"] = pref
        if self.p(0.4):
            spec["dataVolumeTemplates"] = [{"metadata": {"name": "dvt"}, "spec": self.dv_spec()}]
        spec["template"] = {"spec": self.template_spec(it is not None)}
        vm: Obj = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
                   "metadata": {"name": name, "namespace": NS, "uid": "11111111-2222-3333-4444-555555555555"},
                   "spec": spec}
        status = {f"{family}Ref": {"name": m["name"], "kind": m.get("kind") or "",
                                   "controllerRevisionRef": {"name": self.rnd.choice(("rev-beta", "rev-alpha"))}}
                  for family, m in (("instancetype", it), ("preference", pref))
                  if m is not None and m.get("name") and self.p(0.15)}
        if status:  # the pin a VM controller recorded (looked up after revisionName, before the live object)
            vm["status"] = status
        return vm

    def case(self) -> tuple[list[Obj], list[Obj]]:
        """The objects a cluster holds and the VMs given to it."""
        types = self.objects()
        objects = types + self.volume_objects(types) + self.revisions(types)
        return objects, [self.vm(f"vm-{i}", types) for i in range(self.rnd.randint(1, 3))]


@functools.cache
def catalog_objects() -> list[Obj]:
    """common-instancetypes as KubeVirt main (v1.9.0) deploys it (``shared/reference/kubevirt-releases``);
    empty without the reference data."""
    root = shared_dir() / "reference" / "kubevirt-releases" / "v1.9.0"
    out: list[Obj] = []
    for name in ("common-clusterinstancetypes-bundle.yaml", "common-clusterpreferences-bundle.yaml"):
        path = root / name
        if path.is_file():
            out.extend(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d)
    return out


def stored(objects: list[Obj], version: str) -> list[Obj]:
    """``objects`` as a cluster of KubeVirt ``version`` holds them (``engine_support.as_stored``), the
    instancetypes and preferences embedded in ControllerRevisions decoded by its types as well: what an older
    release does not know is gone, so a newer one given the same objects sees only what both know."""
    tag = RELEASES[version].tag
    out = as_stored(objects, tag)
    for i, o in enumerate(out):
        data = o.get("data") if o.get("kind") == "ControllerRevision" else None
        if isinstance(data, dict) and data.get("kind") in TYPE_KINDS and data.get("apiVersion") == V1BETA1:
            out[i] = {**o, "data": {**data, "spec": decoded_spec(data, str(data["kind"]), tag)}}
    return out


def answer(vm: Obj, objects: list[Obj], version: str) -> dict[str, Any]:
    """What the engine answers for ``vm`` in a cluster holding ``objects`` (as given: :func:`stored` them for a
    release first), for KubeVirt ``version``: the corpus's ``error``/``errorStage``/``expanded``/``revisions``."""
    row = RELEASES[version]
    stages = vm_stages(vm, Index(objects), ClusterConfig(), release=row)
    # the VM webhook's template rules are not the expand-spec API's (the corpus records that API): a VM they alone
    # refuse is answered as that API answers it (shared/conformance-vms judges those rules, release by release)
    r = stages.rejection
    if r is not None and r.stage == "template" and r.expand_error is not None:
        r = r.expand_error
    if r is not None and r.stage != "template":
        return {"errorStage": r.stage, "error": r.error, "expanded": None, "revisions": []}
    revisions = []
    for family in ("instancetype", "preference"):
        found = stages.found.get(family)
        matcher = ((stages.mutated or vm).get("spec") or {}).get(family) or {}
        if isinstance(found, Found) and found.obj is not None and not matcher.get("revisionName"):
            revisions.append(revision_data(found.obj, found.kind, row.tag))
    return {"errorStage": None, "error": None, "expanded": stages.expanded, "revisions": revisions}
