"""Instancetype conflicts as values (``pkg/instancetype/conflict/conflicts.go``).

A conflict is a field path; its string form is the dot-joined segments with KubeVirt's (Go-ish) segment
names, e.g. ``spec.template.spec.domain.cpu.dedicatedCPUPlacement``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ADMISSION_CAUSE_LIMIT = 10


@dataclass(frozen=True, slots=True)
class Conflict:
    path: tuple[str, ...]

    def __str__(self) -> str:
        return ".".join(self.path)

    @property
    def message(self) -> str:
        """The admission cause message for this one conflict."""
        return f"VM field(s) {self} conflicts with selected instance type"


def child(base: Sequence[str], *segments: str) -> Conflict:
    """``NewFromPath(base).NewChild(segments...)``."""
    return Conflict((*base, *segments))


def admission_message(conflicts: Sequence[Conflict]) -> str:
    """The VM validating webhook's message: one cause per conflict, joined, the rest summarised."""
    return join_causes([c.message for c in conflicts])


def join_causes(messages: Sequence[str]) -> str:
    """Cause messages joined with ``", "``; after ten, ``, and N more validation errors``."""
    head = ", ".join(messages[:ADMISSION_CAUSE_LIMIT])
    rest = len(messages) - ADMISSION_CAUSE_LIMIT
    if rest > 0:
        head += f", and {rest} more validation errors"
    return head
