"""What differs between the KubeVirt releases our output can be for (``VirtualMachineRenderer``
``spec.kubevirtVersion``), as one table. Documented in README.md ("Target KubeVirt version") and docs/revisions.md.

* ``object_version``: the ``instancetype.kubevirt.io/object-version`` label (and name part) of the
  ControllerRevisions the release's VM controller stores and expects (``v1beta1`` so far; KubeVirt plans ``v1``).
* ``builtins``: builtin catalog -> the version of it the release's virt-operator deploys cluster-wide; the
  default ``spec.version`` of that builtin (renderer fallback, ``InstancetypeCatalog``, ``catalog diff``).

A release is in the table only when both are known from its source (shared/reference/kubevirt-operator-bundle).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, NamedTuple

from krm_fn.errors import FnError

# the keys of RELEASES (a test checks), for the config loader: ``Literal`` is how a setting lists its values
KubevirtVersion = Literal["v1.9", "v1.10"]


class Release(NamedTuple):
    object_version: str
    builtins: Mapping[str, str]


RELEASES: Final[Mapping[str, Release]] = {
    # v1.9.0 and main d923fdb8 (the v1.10 line) embed the common-instancetypes v1.7.0 bundles in virt-operator
    "v1.9": Release(object_version="v1beta1", builtins={"common-instancetypes": "v1.7.0"}),
    "v1.10": Release(object_version="v1beta1", builtins={"common-instancetypes": "v1.7.0"}),
}
DEFAULT: Final[KubevirtVersion] = "v1.9"  # the latest release


def release(version: str | None) -> Release:
    """The row of ``version`` (``None``: the default release); an unknown version is a config error."""
    row = RELEASES.get(version or DEFAULT)
    if row is None:
        raise FnError(f"unknown KubeVirt version {version!r} (known: {', '.join(RELEASES)})",
                      ("spec", "kubevirtVersion"))
    return row


def default_builtin_version(builtin: str, kubevirt_version: str | None = None) -> str | None:
    """The version of ``builtin`` that ``kubevirt_version`` deploys (``None``: it deploys no such catalog)."""
    return release(kubevirt_version).builtins.get(builtin)
