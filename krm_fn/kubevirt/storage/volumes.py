"""The VM webhook's rules for the volumes of a VMI spec (``validateVolumes`` in
``pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go``).

:func:`validate_volumes` returns the causes volume by volume, then the counts over all volumes, in upstream's order.
Two rules read the cluster's feature gates (``DownwardMetrics`` and ``HostDisk`` volumes): ``gate`` answers them.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Any, Final

from krm_fn.kube.quantity_json import parsed
from krm_fn.kube.status import INVALID, NOT_FOUND, REQUIRED, Cause

# every volume source; exactly one must be set
SOURCES: Final = ("persistentVolumeClaim", "sysprep", "cloudInitNoCloud", "cloudInitConfigDrive", "containerDisk",
                  "ephemeral", "emptyDisk", "hostDisk", "dataVolume", "configMap", "secret", "downwardAPI",
                  "serviceAccount", "downwardMetrics", "memoryDump", "containerPath")
SOURCE_SET: Final = frozenset(SOURCES)
CLOUD_INIT: Final = ("cloudInitNoCloud", "cloudInitConfigDrive")
CLOUD_INIT_MAX: Final = 2048  # bytes of user data, and of network data
HOST_DISK_TYPES: Final = ("Disk", "DiskOrCreate")
# a source, its name field, and at most one volume of it
_NAMED: Final = (("configMap", "name"), ("secret", "secretName"), ("serviceAccount", "serviceAccountName"))
_ONE_OF: Final = (("serviceAccount", "serviceAccount"), ("downwardMetrics", "downwardMetric"),
                  ("memoryDump", "memory dump"))


def validate_volumes(field: str, volumes: Sequence[Any], gate: Callable[[str], bool]) -> list[Cause]:
    """Every volume's causes, then the counts'; ``field`` is the volumes' path (``spec.template.spec.volumes``);
    ``gate`` tells whether a feature gate is on."""
    causes: list[Cause] = []
    first: dict[Any, int] = {}
    counts = dict.fromkeys((source for source, _ in _ONE_OF), 0)
    for idx, volume in enumerate(volumes):
        if not isinstance(volume, dict):
            continue
        sources = [k for k in volume if k in SOURCE_SET and volume[k] is not None]
        for source in sources:
            if source in counts:
                counts[source] += 1
        at = f"{field}[{idx}]"
        name = volume.get("name", "")
        if name in first:
            causes.append(Cause(INVALID, f"{at}.name", f"{at} and {field}[{first[name]}] must not have the same Name."))
        else:
            first[name] = idx
        causes += _sources(at, volume, len(sources))
        kind = next((k for k in CLOUD_INIT if volume.get(k) is not None), None)
        if kind is not None:
            causes += _cloud_init(f"{at}.{kind}", kind, volume[kind])
        if volume.get("downwardMetrics") is not None and not gate("DownwardMetrics"):
            causes.append(Cause(INVALID, at, "downwardMetrics disks are not allowed: DownwardMetrics feature gate is "
                                             "not enabled."))
        if isinstance(volume.get("hostDisk"), dict):
            if not gate("HostDisk"):
                causes.append(Cause(INVALID, at, "HostDisk feature gate is not enabled"))
            causes += _host_disk(at, volume["hostDisk"])
        for source, key in _NAMED:
            body = volume.get(source)
            if isinstance(body, dict) and not body.get(key):
                causes.append(Cause(INVALID, f"{at}.{source}.{key}", f"{at}.{source}.{key} is a required field"))
    for source, words in _ONE_OF:
        if counts[source] > 1:
            causes.append(Cause(INVALID, field, f"{field} must have max one {words} volume set"))
    return causes


def _sources(at: str, volume: dict[str, Any], sources: int) -> list[Cause]:
    causes = []
    data_volume = volume.get("dataVolume")
    if isinstance(data_volume, dict) and not data_volume.get("name"):
        causes.append(Cause(REQUIRED, f"{at}.name", "DataVolume 'name' must be set"))
    if sources != 1:
        causes.append(Cause(INVALID, at, f"{at} must have exactly one source type set"))
    return causes


def decoded_length(text: str) -> int | None:
    """The length of what Go's ``base64.StdEncoding`` decodes ``text`` to (it skips CR and LF), or None when it fails."""
    try:
        return len(base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True))
    except (binascii.Error, ValueError):
        return None


def _data(at: str, kind: str, body: dict[str, Any], what: str) -> tuple[int, int, list[Cause]]:
    """(how many sources, the data's length in bytes, the causes) of the user or network data of ``body``."""
    ref = body.get("secretRef" if what == "userData" else "networkDataSecretRef")
    encoded, plain = body.get(f"{what}Base64", ""), body.get(what, "")
    count, length, causes = 0, 0, []
    if isinstance(ref, dict) and ref.get("name"):
        count += 1
    if encoded:
        count += 1
        decoded = decoded_length(encoded)
        if decoded is None:
            causes.append(Cause(INVALID, f"{at}.{what}Base64",
                                f"{at}.{what}Base64.{kind}.{what}Base64 is not a valid base64 value."))
        length = decoded or 0
    if plain:
        count += 1
        length = len(plain.encode("utf-8", "surrogatepass"))
    return count, length, causes


def _cloud_init(at: str, kind: str, body: Any) -> list[Cause]:
    if not isinstance(body, dict):
        return []
    users, user_length, causes = _data(at, kind, body, "userData")
    if users > 1:
        causes.append(Cause(INVALID, at, f"{at} must have only one userdatasource set."))
    if user_length > CLOUD_INIT_MAX:
        causes.append(Cause(INVALID, at, f"{at} userdata exceeds {CLOUD_INIT_MAX} byte limit. Should use "
                                         "UserDataSecretRef for larger data."))
    networks, network_length, more = _data(at, kind, body, "networkData")
    causes += more
    if networks > 1:
        causes.append(Cause(INVALID, at, f"{at} must have only one networkdata source set."))
    if network_length > CLOUD_INIT_MAX:
        causes.append(Cause(INVALID, at, f"{at} networkdata exceeds {CLOUD_INIT_MAX} byte limit. Should use "
                                         "NetworkDataSecretRef for larger data."))
    if users == 0 and networks == 0:
        causes.append(Cause(INVALID, at, f"{at} must have at least one userdatasource or one networkdatasource set."))
    return causes


def _host_disk(at: str, disk: dict[str, Any]) -> list[Cause]:
    causes = []
    if not disk.get("path"):
        causes.append(Cause(NOT_FOUND, f"{at}.hostDisk.path", f"{at}.hostDisk.path is required for hostDisk volume"))
    kind = disk.get("type", "")
    if kind not in HOST_DISK_TYPES:
        causes.append(Cause(INVALID, f"{at}.hostDisk.type", f"{at}.hostDisk.type has invalid value '{kind}', "
                                                            "allowed are 'Disk' or 'DiskOrCreate'"))
    capacity = disk.get("capacity")
    if kind == "Disk" and capacity is not None and not parsed(capacity).is_zero():
        causes.append(Cause(INVALID, f"{at}.hostDisk.capacity", f"{at}.hostDisk.capacity is allowed to pass only "
                                                                f"with {at}.hostDisk.type equal to 'DiskOrCreate'"))
    return causes
