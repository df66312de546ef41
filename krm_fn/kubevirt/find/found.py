"""What a lookup gives: the spec :class:`Found` for a matcher, or a :class:`FindError` with KubeVirt's wording."""

from __future__ import annotations

from dataclasses import dataclass

from krm_fn.kube.api import Family
from krm_fn.kube.paths import Obj


class FindError(Exception):
    """A lookup failure, with KubeVirt's (API server's) wording."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Found:
    spec: Obj                   # the object's spec (what gets applied)
    obj: Obj | None             # the live object; None when it came from a ControllerRevision
    kind: str                   # the object kind
    revision: Obj | None = None  # the ControllerRevision it came from (``revisionName`` or a status ref)


# what ``find.Spec`` gave for each matcher of a VM (a family without a matcher is absent; None for a matcher
# that infers its object from a volume, looked up once the mutating webhook named it): errors as values
Matches = dict[Family, Found | FindError | None]
