"""Hypothesis strategies generated from the packaged KubeVirt schema (``krm_fn/kubevirt/schema/kubevirt.json``).

:func:`from_definition` turns a compiled schema definition into a strategy for well-formed values of it:
the right JSON types, required fields present, enums respected, quantities valid. Only a bounded subset of
fields is generated (``ALLOW`` lists the properties drawn per definition; other definitions reached through
them get all their properties, up to ``MAX_DEPTH``), with realistic values for the fields the engine reads
(buses, models, topologies ...) so that most VMs are accepted and reach the pin/expand code paths.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from krm_fn.kube.api import (
    ALPHA_API_VERSIONS,
    INSTANCETYPE_API_VERSION,
    KIND_CLUSTER_INSTANCETYPE,
    KIND_CLUSTER_PREFERENCE,
    KIND_INSTANCETYPE,
    KIND_PREFERENCE,
)
from krm_fn.kubevirt.schema.tree import ARR, DEFAULT_TAG, MAP, OBJ, QTY, SCALAR, Node, spec_schema
from krm_fn.kubevirt.schema.strict import required_fields
from tests.reliability.layouts import Plain, node

# the required fields are as written in the release's schema (``required_fields(tag)``: the API server requires
# them, defaults or not)

Strategy = st.SearchStrategy[Any]
MAX_DEPTH = 10
OPTIONAL_P = 0.4  # chance of drawing an optional (allowed) property
RARE = {"requirements": 0.1, "inferFromVolume": 0.1}  # mostly rejected by KubeVirt: drawn less often

ALLOW: dict[str, tuple[str, ...]] = {
    "v1.VirtualMachineSpec": ("runStrategy", "template"),  # matchers are drawn by the caller
    "v1.VirtualMachineInstanceTemplateSpec": ("spec",),
    "v1.VirtualMachineInstanceSpec": ("domain", "volumes", "networks", "subdomain", "terminationGracePeriodSeconds"),
    "v1.DomainSpec": ("cpu", "memory", "devices", "features", "firmware", "clock", "resources", "machine"),
    "v1.Devices": ("disks", "interfaces", "autoattachSerialConsole", "autoattachGraphicsDevice",
                   "networkInterfaceMultiqueue", "rng", "inputs", "video", "panicDevices"),
    "v1.Disk": ("name", "disk", "cdrom", "lun", "bootOrder", "dedicatedIOThread"),
    "v1.DiskTarget": ("bus",), "v1.CDRomTarget": ("bus",), "v1.LunTarget": ("bus",),
    "v1.Interface": ("name", "masquerade", "bridge", "model"),
    "v1.Features": ("acpi", "apic", "smm", "hyperv"),
    "v1.FeatureHyperv": ("relaxed", "vapic", "spinlocks"),
    "v1.Firmware": ("bootloader", "serial"),
    "v1.EFI": ("secureBoot", "persistent"),
    "v1.Clock": ("timer", "utc", "timezone"),
    "v1.Timer": ("hpet", "rtc", "hyperv"),
    "v1.CPU": ("cores", "sockets", "threads", "model", "dedicatedCpuPlacement"),
    "v1.Memory": ("guest", "hugepages"),
    "v1.Volume": ("name", "containerDisk", "dataVolume", "cloudInitNoCloud"),
    "v1.ContainerDiskSource": ("image",),
    "v1.CloudInitNoCloudSource": ("userData",),
    "v1.Network": ("name", "pod"),
    "v1.ResourceRequirements": ("requests", "limits"),
    # the fields some releases lack (ioThreads, launchSecurity, video, panic devices, architecture) are drawn
    # too, so that each release's switches are exercised (a release's draw never has a field it does not know)
    "v1beta1.VirtualMachineInstancetypeSpec": ("cpu", "memory", "ioThreadsPolicy", "ioThreads", "launchSecurity",
                                               "nodeSelector", "annotations"),
    "v1beta1.CPUInstancetype": ("guest", "model", "maxSockets", "dedicatedCPUPlacement", "isolateEmulatorThread"),
    "v1beta1.MemoryInstancetype": ("guest", "maxGuest", "overcommitPercent", "hugepages"),
    "v1beta1.VirtualMachinePreferenceSpec": ("clock", "cpu", "devices", "features", "firmware", "machine",
                                             "preferSpreadSocketToCoreRatio", "preferredArchitecture",
                                             "preferredSubdomain", "preferredTerminationGracePeriodSeconds",
                                             "preferredLaunchSecurity", "requirements"),
    "v1beta1.DevicePreferences": ("preferredDiskBus", "preferredCdromBus", "preferredLunBus", "preferredInterfaceModel",
                                  "preferredAutoattachSerialConsole", "preferredInputBus", "preferredInputType",
                                  "preferredRng", "preferredTPM", "preferredInterfaceMasquerade",
                                  "preferredDiskDedicatedIoThread", "preferredNetworkInterfaceMultiQueue",
                                  "preferredVideoType", "preferredPanicDeviceModel"),
    "v1beta1.FeaturePreferences": ("preferredAcpi", "preferredSmm", "preferredHyperv", "preferredApic"),
    "v1beta1.CPUPreferences": ("preferredCPUTopology", "spreadOptions"),
}

# realistic values for string fields the engine interprets (by property name)
WORDS: dict[str, tuple[str, ...]] = {
    "bus": ("virtio", "sata", "scsi", "usb"),
    "preferredDiskBus": ("virtio", "sata", "scsi"), "preferredCdromBus": ("sata", "scsi"),
    "preferredLunBus": ("virtio", "scsi"), "preferredInputBus": ("virtio", "usb"),
    "preferredInputType": ("tablet",), "type": ("tablet",),
    "model": ("virtio", "e1000", "e1000e", "host-passthrough", "ich9"),
    "preferredInterfaceModel": ("virtio", "e1000e"), "preferredSoundModel": ("ich9", "ac97"),
    "preferredVideoType": ("virtio", "vga", "bochs"), "preferredPanicDeviceModel": ("hyperv", "isa"),
    "preferredDiskCache": ("none", "writethrough", "writeback"), "cache": ("none", "writethrough"),
    "preferredDiskIO": ("native", "threads"), "io": ("native", "threads"),
    "preferredCPUTopology": ("preferSockets", "preferCores", "preferThreads", "preferSpread", "preferAny"),
    "across": ("SocketsCores", "SocketsCoresThreads", "CoresThreads"),
    "preferredArchitecture": ("amd64", "arm64", "s390x"),
    "preferredMachineType": ("q35", "pc-q35-rhel9.2.0"), "type_machine": ("q35",),
    "runStrategy": ("Always", "Halted", "Manual", "RerunOnFailure", "Once"),
    "ioThreadsPolicy": ("shared", "auto", "supplementalPool"),
    "policy": ("require", "disable", "optional", "force", "forbid"),
    "tickPolicy": ("delay", "catchup", "merge", "discard"), "track": ("guest", "wall"),
    "name": ("a", "b", "rootdisk", "default", "disk-1"),
    "timezone": ("Europe/Berlin", "UTC"),
    "uuid": ("5d307ca9-b3ef-428c-8861-06e72d69f223",),
    "serial": ("abc123", "serial-1"),
    "image": ("quay.io/containerdisks/fedora:latest",),
    "userData": ("#cloud-config\nuser: fedora\n", "#!/bin/sh\necho hi"),
    "vendorid": ("KVMKVMKVM",),
}
GENERIC_WORDS = ("x", "y-1", "virtio", "v.1", "true", "yes", "0777", "1e3", "ünï", "")
QUANTITIES = ("1", "2", "0", "100m", "500m", "64Mi", "128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "1G", "1.5Gi", "2048Mi")
LABEL_KEYS: tuple[str, ...] = ("app", "example.com/team", "kubevirt.io/size", "a.b.c", "k8s.io/x_y")
LABEL_VALUES = ("", "x", "yes", "0777", "1e3", "2001-12-14", "v1.2")


# The schema walk draws from a ``random.Random`` seeded by hypothesis (one draw per object): drawing every
# field through hypothesis costs ~70 us per choice, ~20 ms per ResourceList, too slow for 2,000+ examples
# per property within the suite's time budget. Hypothesis still drives the structure (which objects, kinds,
# matchers, names, tricky scalars) and reproduces any failure from its seed.
def _string(prop: str, rnd: random.Random) -> str:
    return rnd.choice(WORDS.get(prop, GENERIC_WORDS))


def _integer(prop: str, rnd: random.Random) -> int:
    if prop in ("bootOrder", "guest", "sockets", "cores", "threads", "maxSockets"):
        return rnd.randint(1, 8)
    if prop == "overcommitPercent":
        return rnd.randint(0, 100)
    if prop == "preferSpreadSocketToCoreRatio":
        return rnd.randint(0, 4)
    return rnd.randint(0, 600)


def _scalar(node: Node, prop: str, rnd: random.Random) -> Any:
    if node.enum is not None:
        return rnd.choice([v for v in node.enum if v is not None] or [None])
    if node.fmt == "date-time":
        return "2024-01-02T03:04:05Z"
    t = rnd.choice([t for t in node.types if t != "null"] or ["null"])
    if t == "string":
        return _string(prop, rnd)
    if t == "integer":
        return _integer(prop, rnd)
    if t == "number":
        return rnd.randint(0, 100)
    if t == "boolean":
        return rnd.random() < 0.5
    return None


def _value(node: Node, prop: str, depth: int, rnd: random.Random, tag: str) -> Any:
    kind = node.kind
    if kind == QTY:
        return rnd.choice(QUANTITIES) if rnd.random() < 0.85 else rnd.randint(1, 4)
    if kind == SCALAR:
        return _scalar(node, prop, rnd)
    if kind == ARR:
        assert node.items is not None
        return [_value(node.items, prop, depth + 1, rnd, tag) for _ in range(rnd.randint(0, 2))]
    if kind == MAP:
        assert node.values is not None
        keys = rnd.sample(("cpu", "memory") if node.values.kind == QTY else LABEL_KEYS, rnd.randint(0, 2))
        if node.values.kind == QTY:
            return {k: rnd.choice(QUANTITIES) for k in keys}
        return {k: _value(node.values, prop, depth + 1, rnd, tag) for k in keys}
    if kind == OBJ:
        return _object(node, depth, rnd, tag)
    return None


def _object(node: Node, depth: int, rnd: random.Random, tag: str) -> dict[str, Any]:
    allowed = ALLOW.get(node.name)
    required = required_fields(tag).get(node.name, node.required)
    out: dict[str, Any] = {}
    for prop, (child, _code) in node.props.items():
        if prop in required:
            out[prop] = _value(child, prop, depth + 1, rnd, tag)
        elif depth < MAX_DEPTH and (allowed is None or prop in allowed) and rnd.random() < RARE.get(prop, OPTIONAL_P):
            out[prop] = _value(child, prop, depth + 1, rnd, tag)
    return out


def generate(name: str, rnd: random.Random, tag: str = DEFAULT_TAG) -> dict[str, Any]:
    """A well-formed random value of the schema definition ``name`` in KubeVirt ``tag``'s API (bounded subset
    of fields; a field the release does not know is never drawn)."""
    return _object(spec_schema(tag).definition(name), 0, rnd, tag)


def from_definition(name: str) -> Strategy:
    """Strategy for :func:`generate` (hypothesis draws the seed)."""
    return st.integers(0, 2**32 - 1).map(lambda seed: generate(name, random.Random(seed)))


# --- whole objects --------------------------------------------------------------------------------
BUILTIN_INSTANCETYPES = ("u1.medium", "u1.small", "cx1.large", "m1.xlarge", "n1.medium", "o1.large")
BUILTIN_PREFERENCES = ("fedora", "rhel.9", "windows.11", "ubuntu", "alpine", "centos.stream9")
_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
FIXED_NAMES = ("a", "it-1", "big.type", "p", "x1", "u1.medium", "fedora")
NAMESPACES = ("", "ns1", "ns2")
ANNOTATION_KEYS = ("a", "example.com/key.with.dots", "config.k8s.io/id", "note",
                   "internal.config.kubernetes.io/annotations-migration-resource-id")
TRICKY = ("yes", "no", "on", "off", "y", "n", "True", "FALSE", "~", "null", "Null", "0777", "0o17", "0x1F", "0b101",
          "1_000", "1e3", "1E3", "-.inf", ".NaN", "+12", "12:30:45", "190:20:30", "2001-12-14",
          "2001-12-14t21:59:43.10-05:00", "=", "<<", "- a", "# c", "a: b", "a:b", "' q", '"dq"', "", " lead",
          "trail ", "multi\nline\n", "multi\nno-newline", "\n", "tab\there", "ünïcødé ☃", "line\u2028sep",
          "emoji 🎉", "@at", "`bt", "%pct", "!bang", "&amp", "*star", "|", ">", "{", "[", "}", "]", ",", "?",
          "--- ", "...", "\\back", "0", "-0", "00", "1.", ".5", "1e", "0.0.0.0", "\u00a0nbsp", "\x7f",
          "  indented\n  block\n", "trailing spaces  \nx")
TRICKY_KEYS = ("a.b", "example.com/key", "k8s.io/x_y", "yes", "0777", "1e3", "ünï", "with space", "-dash", "_u",
               "<<", "on", "~", "null", "a:b", "1.5")
# hypothesis draws these (its text strategy finds the nasty unicode); the seeded walk places them
TRICKY_VALUES = st.one_of(st.sampled_from(TRICKY), st.text(max_size=12))
TRICKY_KEY = st.one_of(st.sampled_from(TRICKY_KEYS), st.text(alphabet=_ALNUM + "ABC._-/", min_size=1, max_size=8))
LABEL_VALUES = ("", "x", "yes", "0777", "1e3", "2001-12-14", "v1.2")


class Draw:
    """Objects from one seed, with hypothesis-drawn tricky strings mixed in, in the API of KubeVirt ``tag``."""

    def __init__(self, seed: int, values: list[str], keys: list[str], tag: str = DEFAULT_TAG) -> None:
        self.rnd = random.Random(seed)
        self.tag = tag  # the KubeVirt release whose API the objects are drawn from
        self.values = values or ["x"]
        self.keys = keys or ["k"]

    def name(self) -> str:
        rnd = self.rnd
        if rnd.random() < 0.6:
            return rnd.choice(FIXED_NAMES)
        labels = []
        for _ in range(rnd.randint(1, 3)):  # a DNS-1123 subdomain: dot-separated labels
            middle = "".join(rnd.choice(_ALNUM + "-") for _ in range(rnd.randint(0, 8)))
            labels.append(rnd.choice(_ALNUM) + middle + rnd.choice(_ALNUM) if middle else rnd.choice(_ALNUM))
        return ".".join(labels)

    def value(self) -> str:
        return self.rnd.choice(self.values) if self.rnd.random() < 0.5 else self.rnd.choice(TRICKY)

    def key(self) -> str:
        return self.rnd.choice(self.keys) if self.rnd.random() < 0.5 else self.rnd.choice(TRICKY_KEYS)

    def metadata(self, cluster: bool) -> dict[str, Any]:
        rnd = self.rnd
        md: dict[str, Any] = {"name": self.name()}
        namespace = rnd.choice(NAMESPACES)
        if namespace and not cluster:
            md["namespace"] = namespace
        if rnd.random() < 0.3:
            md["labels"] = {k: rnd.choice(LABEL_VALUES) for k in rnd.sample(LABEL_KEYS, rnd.randint(1, 2))}
        if rnd.random() < 0.5:
            md["annotations"] = {k: self.value() for k in rnd.sample(ANNOTATION_KEYS, rnd.randint(1, 3))}
        return md

    def api_version(self) -> str:
        """Mostly v1beta1; sometimes an alpha (only v1.5 serves them; the others refuse them, naming migrate)."""
        return self.rnd.choice(sorted(ALPHA_API_VERSIONS)) if self.rnd.random() < 0.1 else INSTANCETYPE_API_VERSION

    def instancetype(self) -> dict[str, Any]:
        kind = self.rnd.choice((KIND_CLUSTER_INSTANCETYPE, KIND_INSTANCETYPE))
        return {"apiVersion": self.api_version(), "kind": kind,
                "metadata": self.metadata(kind == KIND_CLUSTER_INSTANCETYPE),
                "spec": generate("v1beta1.VirtualMachineInstancetypeSpec", self.rnd, self.tag)}

    def preference(self) -> dict[str, Any]:
        kind = self.rnd.choice((KIND_CLUSTER_PREFERENCE, KIND_PREFERENCE))
        return {"apiVersion": self.api_version(), "kind": kind,
                "metadata": self.metadata(kind == KIND_CLUSTER_PREFERENCE),
                "spec": generate("v1beta1.VirtualMachinePreferenceSpec", self.rnd, self.tag)}

    def matcher(self, types: list[dict[str, Any]], builtin: tuple[str, ...],
                kinds: tuple[str, str]) -> dict[str, Any] | None:
        rnd = self.rnd
        choice = rnd.choices(("none", "builtin", "item", "missing", "infer"), weights=(3, 3, 5, 1, 1))[0]
        if choice == "none":
            return None
        if choice == "builtin" or (choice == "item" and not types):
            return {"name": rnd.choice(builtin)}
        if choice == "item":
            obj = rnd.choice(types)
            m = {"name": obj["metadata"]["name"]}
            if obj["kind"] != kinds[0] or rnd.random() < 0.5:
                m["kind"] = obj["kind"]
            return m
        if choice == "infer":
            m = {"inferFromVolume": rnd.choice(("rootdisk", "a"))}
            if rnd.random() < 0.5:
                m["inferFromVolumeFailurePolicy"] = rnd.choice(("Reject", "Ignore"))
            return m
        return {"name": "does-not-exist", "kind": rnd.choice(kinds)}

    def virtual_machine(self, types: list[dict[str, Any]]) -> dict[str, Any]:
        spec = generate("v1.VirtualMachineSpec", self.rnd, self.tag)
        its = [t for t in types if t["kind"] in (KIND_CLUSTER_INSTANCETYPE, KIND_INSTANCETYPE)]
        prefs = [t for t in types if t["kind"] in (KIND_CLUSTER_PREFERENCE, KIND_PREFERENCE)]
        matchers: dict[str, Any] = {}
        it = self.matcher(its, BUILTIN_INSTANCETYPES, (KIND_CLUSTER_INSTANCETYPE, KIND_INSTANCETYPE))
        if it is not None:
            matchers["instancetype"] = it
        pref = self.matcher(prefs, BUILTIN_PREFERENCES, (KIND_CLUSTER_PREFERENCE, KIND_PREFERENCE))
        if pref is not None:
            matchers["preference"] = pref
        domain = spec.get("template", {}).get("spec", {}).get("domain")
        if it is not None and isinstance(domain, dict) and self.rnd.random() < 0.8:
            for key in ("cpu", "memory", "resources"):  # what an instancetype provides: mostly left out
                domain.pop(key, None)
        return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": self.metadata(False),
                "spec": {**matchers, **spec}}

    def json(self, depth: int = 0) -> Any:
        rnd = self.rnd
        r = rnd.random()
        if depth < 3 and r < 0.25:
            return {self.key(): self.json(depth + 1) for _ in range(rnd.randint(0, 3))}
        if depth < 3 and r < 0.4:
            return [self.json(depth + 1) for _ in range(rnd.randint(0, 3))]
        return rnd.choice((None, True, False, rnd.randint(-(1 << 40), 1 << 40), rnd.uniform(-1e6, 1e6), 0.5,
                           self.value(), self.value()))

    def unowned(self) -> dict[str, Any]:
        rnd = self.rnd
        shape = rnd.choice(("configmap", "secret", "custom", "lookalike"))
        md = self.metadata(False)
        if shape == "configmap":
            return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md,
                    "data": {self.key(): self.value() for _ in range(rnd.randint(0, 4))}}
        if shape == "secret":
            return {"apiVersion": "v1", "kind": "Secret", "metadata": md, "type": "Opaque",
                    "stringData": {self.key(): self.value() for _ in range(rnd.randint(0, 3))}}
        if shape == "custom":
            return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": md, "spec": self.json()}
        # the same kind names in other groups/versions: not ours, they must pass through untouched (an
        # instancetype.kubevirt.io version the CRDs do not serve is ours: an error naming migrate mode, issue 23)
        api, kind = rnd.choice((("kubevirt.io/v2", "VirtualMachine"),
                                ("instancetype.example.com/v1alpha1", "VirtualMachineInstancetype"),
                                ("example.com/v1", "VirtualMachine"), ("apps/v1", "ControllerRevision")))
        return {"apiVersion": api, "kind": kind, "metadata": md, "spec": self.json()}

    def items(self, vms: tuple[int, int], types: int, others: int) -> list[dict[str, Any]]:
        rnd = self.rnd
        objs = [self.instancetype() if rnd.random() < 0.5 else self.preference() for _ in range(rnd.randint(0, types))]
        machines = [self.virtual_machine(objs) for _ in range(rnd.randint(*vms))]
        rest = [self.unowned() for _ in range(rnd.randint(0, others))]
        out = objs + machines + rest
        rnd.shuffle(out)
        return out


SEEDS = st.integers(0, 2**32 - 1)


def item_lists(vms: tuple[int, int] = (1, 3), types: int = 4, others: int = 2, tag: str = DEFAULT_TAG) -> Strategy:
    """Instancetypes, preferences, VMs referencing them (or the builtin catalog, or nothing) and unowned items
    with tricky scalars, shuffled; in the API of KubeVirt ``tag``."""
    return st.builds(lambda seed, values, keys: Draw(seed, values, keys, tag).items(vms, types, others),
                     SEEDS, st.lists(TRICKY_VALUES, max_size=3), st.lists(TRICKY_KEY, max_size=2))


def unowned_lists() -> Strategy:
    """Only items the function does not own."""
    return item_lists(vms=(0, 0), types=0, others=6)


# --- object sets for the layout fuzzer (test_layouts.py) ----------------------------------------------------
# Plain scalars written as they are in every layout: what each means is the reader's business (go-yaml v2:
# bool, octal, float, string for a hex number beyond 64 bits, string for a timestamp ...).
TRICKY_PLAIN = ("yes", "no", "on", "off", "y", "N", "True", "FALSE", "0777", "0o17", "1e3", "1E3", "0x1F", "-0x1F",
                "0xFFFFFFFFFFFFFFFFFFFF", "0x8000000000000000", "0x7FFFFFFFFFFFFFFF", "18446744073709551616",
                "9223372036854775808", "1_000", "+12", "-0", "00", "0b101", "1.", ".5", ".inf", "-.Inf", ".NaN",
                "~", "null", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "12:30:45", "1.2.3", "v1", "0x")
# strings whose spelling depends on the layout (every style that can hold them)
LAYOUT_STRINGS = ("", "\n", "\n\n", "x\n\n\n", "\nleading break", "  indented first\nsecond\n",
                  "#cloud-config\npassword: x # not a comment\nchpasswd: {expire: False}\n",
                  "line one\n# starts with a hash\nlast line", "a #b", "text with # inside and more words",
                  "the quick brown fox jumps over the lazy dog\nand # then\n\nsome more words\n",
                  "trailing space \nnext", "tab\there", "ünïcødé ☃", "emoji 🎉", "line\u2028sep", "nel\x85x",
                  "\ufeffbom inside", "nul\x00byte", "cr\rinside", "'single' \"double\"", "back\\slash",
                  "- not a list", "? not a key", "key: not a map", "--- not a marker", "... nor this", "&a *b !c",
                  "%YAML 1.1", "@at `tick", "{[flow]}", "yes", "0777", "1e3", "0x1F", "2001-12-14", "~", "<<",
                  "plain words only", "x")
LAYOUT_KEYS = ("a.b", "example.com/key", "yes", "0777", "with space", "-dash", "<<", "on", "~", "ünï", "a:b",
               "# hash", "k", "'q'", "1e3")
_RANDOM_ALPHABET = "ab #:-'\"\\\n\t{}[],&*!|>%@`ü☃🎉\u2028\x85\x00\x7f\ufeff"


class LayoutObjects:
    """Small item sets for the layout fuzzer: VirtualMachines using builtin or listed instancetypes and
    preferences (some rejected by KubeVirt: conflicts, unmet requirements, missing references), the
    instancetype/preference objects, unowned ConfigMaps full of tricky scalars; some subtrees repeated
    within and across items (aliases), a multi-line string often ending the last item (block scalar at EOF)."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.draw = Draw(seed, [], [])

    def string(self) -> str:
        rnd = self.rnd
        if rnd.random() < 0.15:
            return "".join(rnd.choice(_RANDOM_ALPHABET) for _ in range(rnd.randint(0, 10)))
        return rnd.choice(LAYOUT_STRINGS + TRICKY)

    def scalar(self) -> Any:
        return Plain(self.rnd.choice(TRICKY_PLAIN)) if self.rnd.random() < 0.4 else self.string()

    def labels(self) -> dict[str, Any]:
        rnd = self.rnd
        out: dict[str, Any] = {"app": rnd.choice(("web", "db", "x"))}
        if rnd.random() < 0.3:  # mostly rejected: a label value kubectl reads as a number or bool
            out["example.com/v"] = Plain(rnd.choice(TRICKY_PLAIN))
        return out

    def vm(self, name: str, types: list[dict[str, Any]], devices: dict[str, Any] | None) -> dict[str, Any]:
        rnd = self.rnd
        spec: dict[str, Any] = {}
        listed = [t for t in types if "Instancetype" in t["kind"]]
        prefs = [t for t in types if "Preference" in t["kind"]]
        r = rnd.random()
        if r < 0.55:
            spec["instancetype"] = {"name": rnd.choice(("u1.medium", "u1.small", "cx1.large", "n1.medium"))}
        elif r < 0.7 and listed:
            spec["instancetype"] = {"name": listed[0]["metadata"]["name"], "kind": listed[0]["kind"]}
        elif r < 0.8:
            spec["instancetype"] = {"name": "does-not-exist"}
        if rnd.random() < 0.7:
            pref: dict[str, Any] = ({"name": prefs[0]["metadata"]["name"], "kind": prefs[0]["kind"]}
                                    if prefs and rnd.random() < 0.3
                                    else {"name": rnd.choice(("fedora", "rhel.9", "windows.11", "alpine"))})
            spec["preference"] = pref
        spec["runStrategy"] = rnd.choice(("Always", "Halted"))
        domain: dict[str, Any] = {"devices": devices if devices is not None else {
            "disks": [{"name": "rootdisk", "disk": {"bus": "virtio"}}],
            "interfaces": [{"name": "default", "masquerade": {}}]}}
        if rnd.random() < 0.2:  # conflicts with what the instancetype provides
            domain["cpu"] = {"sockets": 2}
        if rnd.random() < 0.1:
            domain["memory"] = {"guest": "1Gi"}
        labels = self.labels() if rnd.random() < 0.6 else None
        template: dict[str, Any] = {"spec": {
            "domain": domain, "networks": [{"name": "default", "pod": {}}],
            "volumes": [{"name": "rootdisk", "containerDisk": {"image": "quay.io/containerdisks/fedora:latest"}},
                        {"name": "cloudinit", "cloudInitNoCloud": {"userData": self.string()}}]}}
        if labels is not None:
            template["metadata"] = {"labels": labels}  # the same subtree twice in one item
        spec["template"] = template
        md: dict[str, Any] = {"name": name}
        if labels is not None:
            md["labels"] = labels
        if rnd.random() < 0.4:
            md["annotations"] = {"note": self.string()}
        return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": md, "spec": spec}

    def configmap(self, name: str, labels: dict[str, Any] | None, last: str | None) -> dict[str, Any]:
        rnd = self.rnd
        data = {k: self.scalar() for k in rnd.sample(LAYOUT_KEYS, rnd.randint(1, 4))}
        if rnd.random() < 0.3:
            data["empty"] = ""
        if last is not None:
            data["zz-last"] = last
        md: dict[str, Any] = {"name": name}
        if labels is not None:
            md["labels"] = labels
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}

    def items(self) -> list[Any]:
        rnd = self.rnd
        types: list[dict[str, Any]] = []
        if rnd.random() < 0.35:
            types.append(self.draw.instancetype() if rnd.random() < 0.5 else self.draw.preference())
        vms = []
        shared_devices = None
        for i in range(rnd.choice((1, 1, 2))):
            vm = self.vm(("vm-a", "vm-b", "vm.c")[i], types, shared_devices) if rnd.random() < 0.85 \
                else {**self.draw.virtual_machine(types), "metadata": {"name": f"gen-{i}"}}
            spec = vm["spec"].get("template", {}).get("spec", {})
            shared_devices = spec.get("domain", {}).get("devices") if rnd.random() < 0.5 else None
            vms.append(vm)
        labels = (vms[0]["metadata"].get("labels") if rnd.random() < 0.3 else None)  # shared across items
        last = rnd.choice(("ends\nwithout a line break", "ends with one\n", "a\n\nb", "")) \
            if rnd.random() < 0.5 else None
        cms = [self.configmap(f"cm-{i}", labels, last if i == 0 else None) for i in range(rnd.choice((1, 1, 2)))]
        if rnd.random() < 0.15:
            cms.append(self.draw.unowned())
        out = types + vms + cms[1:]
        rnd.shuffle(out)
        return [node(o) for o in out + cms[:1]]  # a ConfigMap last: its last string may end the input
