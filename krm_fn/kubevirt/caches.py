"""What one render computes once and every VM shares, one typed attribute per cache. A :class:`Caches` is
created per render by the caller and passed down with the index: nothing here outlives it (no global state).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    from krm_fn.kubevirt.find.found import Found
    from krm_fn.kubevirt.webhooks.admission import Decision

# the live object a matcher names: (family, matcher kind, name, the VM's namespace)
FoundKey = tuple[str, "str | None", str, str]


class Caches:
    """One render's caches of data derived from its (unchanging) objects."""

    __slots__ = ("found", "admission", "newest", "domains", "pods")

    def __init__(self) -> None:
        self.found: dict[FoundKey, Found] = {}  # krm_fn.kubevirt.find.find_spec
        self.admission: dict[int, Decision] = {}  # krm_fn.kubevirt.webhooks.admission, by id() of the object
        self.newest: dict[int, Decision] = {}  # the same by the newest release's API (kubevirt_versions.NEWEST)
        self.domains: dict[Any, Any] = {}  # krm_fn.kubevirt.webhooks.vmi.create: a domain's causes, by its JSON
        self.pods: dict[Any, Any] = {}  # krm_fn.capacity.pods: a launcher pod, by what it is made of
