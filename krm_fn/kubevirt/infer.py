"""``inferFromVolume``: the instancetype and preference a VM's volume names in its labels
(``pkg/instancetype/infer/{handler,volume,errors}.go``), for the VM mutating webhook."""

from __future__ import annotations

from typing import Final

from krm_fn.index import Index, namespace_of
from krm_fn.kube.api import (
    FAMILIES,
    KIND_DATA_SOURCE,
    KIND_DATA_VOLUME,
    KIND_PVC,
    KIND_VOLUME_SNAPSHOT,
    LABEL_DEFAULT_INSTANCETYPE,
    LABEL_DEFAULT_INSTANCETYPE_KIND,
    LABEL_DEFAULT_PREFERENCE,
    LABEL_DEFAULT_PREFERENCE_KIND,
    Family,
)
from krm_fn.kube.paths import Obj, get, get2, get3

NAME_LABELS: Final[dict[Family, tuple[str, str]]] = {
    "instancetype": (LABEL_DEFAULT_INSTANCETYPE, LABEL_DEFAULT_INSTANCETYPE_KIND),
    "preference": (LABEL_DEFAULT_PREFERENCE, LABEL_DEFAULT_PREFERENCE_KIND),
}
POLICY_REJECT: Final = "Reject"
POLICY_IGNORE: Final = "Ignore"
POLICIES: Final = frozenset({POLICY_REJECT, POLICY_IGNORE})


class InferError(Exception):
    """Inference failed; ``ignorable`` errors clear the matcher under the ``Ignore`` policy."""

    def __init__(self, message: str, ignorable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.ignorable = ignorable


class _Resolver:
    """``snapshots``: VolumeSnapshot sources are followed (v1.9+); before, only PVC sources are."""

    def __init__(self, vm: Obj, family: Family, index: Index, snapshots: bool = True) -> None:
        self.vm = vm
        self.namespace = namespace_of(vm)
        self.name_label, self.kind_label = NAME_LABELS[family]
        self.index = index
        self.snapshots = snapshots

    def _get(self, kind: str, resource: str, namespace: str, name: str) -> Obj:
        obj = self.index.get(kind, namespace, name)
        if obj is None:
            raise InferError(f'{resource} "{name}" not found')
        return obj

    def from_labels(self, obj: Obj) -> tuple[str, str]:
        labels = get2(obj, "metadata", "labels") or {}
        if self.name_label not in labels:
            raise InferError(f"unable to find required {self.name_label} label on the volume", ignorable=True)
        return str(labels[self.name_label]), str(labels.get(self.kind_label) or "")

    def from_pvc(self, name: str, namespace: str) -> tuple[str, str]:
        return self.from_labels(self._get(KIND_PVC, "persistentvolumeclaims", namespace, name))

    def from_snapshot(self, name: str, namespace: str) -> tuple[str, str]:
        snapshot = self._get(KIND_VOLUME_SNAPSHOT, "volumesnapshots.snapshot.storage.k8s.io", namespace, name)
        return self.from_labels(snapshot)

    def resolve(self, volume_name: str) -> tuple[str, str]:
        for volume in get(self.vm, ("spec", "template", "spec", "volumes")) or []:
            if volume.get("name") == volume_name:
                break
        else:
            raise InferError(f"unable to find volume {volume_name} to infer defaults")
        claim = volume.get("persistentVolumeClaim")
        if claim is not None:
            return self.from_pvc(str(claim.get("claimName") or ""), self.namespace)
        data_volume = volume.get("dataVolume")
        if data_volume is not None:
            return self.from_data_volume(str(data_volume.get("name") or ""))
        raise InferError(f"unable to infer defaults from volume {volume_name} as type is not supported",
                         ignorable=True)

    def from_data_volume(self, name: str) -> tuple[str, str]:
        for template in get2(self.vm, "spec", "dataVolumeTemplates") or []:
            if get2(template, "metadata", "name") == name:
                return self.from_dv_spec(template.get("spec") or {})
        dv = self.index.get(KIND_DATA_VOLUME, self.namespace, name)
        if dv is None:
            # a garbage-collected DataVolume: its PVC keeps the name
            return self.from_pvc(name, self.namespace)
        try:
            return self.from_labels(dv)
        except InferError as err:
            if not err.ignorable:
                raise
        return self.from_dv_spec(dv.get("spec") or {})

    def from_pvc_or_snapshot(self, source: Obj) -> tuple[str, str] | None:
        """Defaults from a ``source`` with a ``pvc`` or ``snapshot``; None when it has neither."""
        pvc = source.get("pvc")
        if pvc is not None:
            return self.from_pvc(str(pvc.get("name") or ""), str(pvc.get("namespace") or ""))
        snapshot = source.get("snapshot") if self.snapshots else None
        if snapshot is not None:
            return self.from_snapshot(str(snapshot.get("name") or ""), str(snapshot.get("namespace") or ""))
        return None

    def from_dv_spec(self, spec: Obj) -> tuple[str, str]:
        source = spec.get("source")
        if source is not None:
            found = self.from_pvc_or_snapshot(source)
            if found is not None:
                return found
        ref = spec.get("sourceRef")
        if ref is not None:
            return self.from_source_ref(ref)
        raise InferError("unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported",
                         ignorable=True)

    def from_source_ref(self, ref: Obj) -> tuple[str, str]:
        kind = ref.get("kind")
        if kind == KIND_DATA_SOURCE:
            namespace = ref.get("namespace")
            ns = str(namespace) if namespace is not None else self.namespace
            return self.from_data_source(str(ref.get("name") or ""), ns)
        raise InferError(f"unable to infer defaults from DataVolumeSourceRef as Kind {kind or ''} is not supported",
                         ignorable=True)

    def from_data_source(self, name: str, namespace: str) -> tuple[str, str]:
        ds = self._get(KIND_DATA_SOURCE, "datasources.cdi.kubevirt.io", namespace, name)
        try:
            return self.from_labels(ds)
        except InferError as err:
            if not err.ignorable:
                raise
        found = self.from_pvc_or_snapshot(get2(ds, "spec", "source") or {})
        if found is not None:
            return found
        provides = "DataVolumeSourcePVC or DataVolumeSourceSnapshot" if self.snapshots else "DataVolumeSourcePVC"
        raise InferError(f"unable to infer defaults from DataSource that doesn't provide {provides}", ignorable=True)


def infer_matcher(vm: Obj, family: Family, index: Index, snapshots: bool = True) -> None:
    """Resolve ``inferFromVolume`` for one matcher, mutating ``vm`` (a copy); raises :class:`InferError`.
    ``snapshots``: the release follows VolumeSnapshot sources (v1.9+)."""
    spec = vm.get("spec")
    matcher = spec.get(family) if isinstance(spec, dict) else None
    if not isinstance(matcher, dict) or not matcher.get("inferFromVolume"):
        return
    assert isinstance(spec, dict)
    policy = matcher.get("inferFromVolumeFailurePolicy")
    try:
        name, kind = _Resolver(vm, family, index, snapshots).resolve(str(matcher["inferFromVolume"]))
    except InferError as err:
        if err.ignorable and policy == POLICY_IGNORE:
            del spec[family]
            return
        raise
    spec[family] = {"name": name, "kind": kind}
    if family == "instancetype" and policy == POLICY_IGNORE:
        domain = get3(spec, "template", "spec", "domain")
        if isinstance(domain, dict):
            domain.pop("memory", None)


def infer_matchers(vm: Obj, index: Index, snapshots: bool = True) -> None:
    for family in FAMILIES:
        infer_matcher(vm, family, index, snapshots)
