"""The preference validating webhooks (``virtualmachinepreference-validator`` and
``virtualmachineclusterpreference-validator.instancetype.kubevirt.io``).

Upstream: ``pkg/instancetype/preference/webhooks/admitter.go`` (``ValidatePreferenceSpec``,
``checkForDeprecatedPreferredCPUTopology``) and ``IsPreferredTopologySupported`` from
``pkg/instancetype/preference/validation/cpu.go``; the effective spread ratio and ``across`` are
``GetSpreadOptions`` (``pkg/instancetype/preference/apply/cpu.go``, here :func:`krm_fn.kubevirt.topology.spread_options`).
Semantics: ``shared/docs/kubevirt-semantics.md`` §13.4.

As in :mod:`krm_fn.kubevirt.webhooks.admitter`, values of the wrong JSON type are left to the schema and skipped here.
"""

from __future__ import annotations

from typing import Any, Final

from krm_fn.errors import cut
from krm_fn.kube.status import DEPRECATED, INVALID, Cause
from krm_fn.kubevirt.webhooks.answer import Answer
from krm_fn.kubevirt.topology import (
    ACROSS_CORES_THREADS,
    ACROSS_SOCKETS_CORES,
    ACROSS_SOCKETS_CORES_THREADS,
    ANY,
    CORES,
    DEPRECATED_NAMES,
    SOCKETS,
    SPREAD,
    SPREAD_TOPOLOGIES,
    THREADS,
    spread_options,
)

TOPOLOGY_PATH: Final = "spec.cpu.preferredCPUTopology"
ACROSS_PATH: Final = "spec.cpu.spreadOptions.across"
RATIO_PATH: Final = "spec.cpu.spreadOptions.ratio"
# the v1beta1 values, the deprecated ones included (they still work, with a warning)
SUPPORTED_TOPOLOGIES: Final = frozenset({SOCKETS, CORES, THREADS, SPREAD, ANY, *DEPRECATED_NAMES})
SUPPORTED_ACROSS: Final = (ACROSS_CORES_THREADS, ACROSS_SOCKETS_CORES, ACROSS_SOCKETS_CORES_THREADS)
CORES_THREADS_RATIO: Final = 2
CORES_THREADS_RATIO_ERROR: Final = \
    "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores and threads"


def _cpu(spec: Any) -> dict[str, Any]:
    cpu = spec.get("cpu") if isinstance(spec, dict) else None
    return cpu if isinstance(cpu, dict) else {}


def _topology(spec: Any) -> str | None:
    value = _cpu(spec).get("preferredCPUTopology")
    return value if isinstance(value, str) else None


def _spread_decodable(spec: dict[str, Any]) -> bool:
    """The fields :func:`spread_options` reads have their Go types (else the object never reaches the webhook)."""
    options = _cpu(spec).get("spreadOptions")
    if options is not None and not isinstance(options, dict):
        return False
    options = options or {}
    return (_uint_or_null(spec.get("preferSpreadSocketToCoreRatio")) and _uint_or_null(options.get("ratio"))
            and (options.get("across") is None or isinstance(options.get("across"), str)))


def _uint_or_null(value: Any) -> bool:
    return value is None or type(value) is int


def validate_spec(spec: Any) -> list[Cause]:
    """The causes the webhook refuses ``spec`` with, in its order (empty: admitted)."""
    causes: list[Cause] = []
    topology = _topology(spec)
    if topology is not None and topology not in SUPPORTED_TOPOLOGIES:
        causes.append(Cause(INVALID, TOPOLOGY_PATH, f"unknown preferredCPUTopology {cut(topology)}"))
    if topology in SPREAD_TOPOLOGIES and isinstance(spec, dict) and _spread_decodable(spec):
        ratio, across = spread_options(spec)
        if across not in SUPPORTED_ACROSS:
            causes.append(Cause(INVALID, ACROSS_PATH, f"across {cut(across)} is not supported"))
        elif across == ACROSS_CORES_THREADS and ratio != CORES_THREADS_RATIO:
            causes.append(Cause(INVALID, RATIO_PATH, CORES_THREADS_RATIO_ERROR))
    return causes


def warnings(spec: Any) -> list[Cause]:
    """The warnings of an admitted ``spec``: a deprecated ``preferredCPUTopology`` name."""
    topology = _topology(spec)
    if topology in DEPRECATED_NAMES:
        return [Cause(DEPRECATED, TOPOLOGY_PATH, f"PreferredCPUTopology {topology} is deprecated for removal in "
                                                  f"a future release, please use {DEPRECATED_NAMES[topology]} instead")]
    return []


def admit(spec: Any) -> Answer:
    """What the webhook answers for ``spec``: its causes, or, when there are none, its warnings."""
    causes = validate_spec(spec)
    return Answer(causes, [] if causes else warnings(spec))
