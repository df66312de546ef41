"""The resource policy: how many processes render, and whether the yaml-rs lane may read the input."""

from __future__ import annotations

import os
from pathlib import Path


def workers(input_size: int) -> int:
    """Processes that may render and write the output (``krm_fn.workers.Halves``): two when
    this process may use two CPUs, unless ``$KUBEVIRT_KRM_WORKERS`` says otherwise or a cgroup memory limit is
    too small for two processes each holding the whole input (a container's OOM killer could pick either)."""
    setting = os.environ.get("KUBEVIRT_KRM_WORKERS", "")
    if setting.isascii() and setting.isdigit() and len(setting) < 5:  # "²" is a digit to str.isdigit()
        return max(1, int(setting))
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        cpus = os.cpu_count() or 1
    limit = memory_limit()
    if limit is not None and limit < MEMORY_PER_INPUT_BYTE * 2 * input_size:
        return 1
    return min(cpus, 2)


# peak RSS of one process per byte of input, measured with bench/run.py (~21x at 10k and 50k VMs), rounded up
MEMORY_PER_INPUT_BYTE = 30


def fast_yaml_fits(input_size: int) -> bool:
    """Whether the yaml-rs lane may read the input: not when an address-space cap (``ulimit -v``) could be hit
    while yaml-rs builds objects. It aborts the process then (a Rust panic), where our loader raises
    MemoryError and the run ends with one line."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, ValueError, OSError):  # pragma: no cover - platforms without RLIMIT_AS
        return True
    return soft == resource.RLIM_INFINITY or soft >= 2 * MEMORY_PER_INPUT_BYTE * input_size + (256 << 20)


def memory_limit() -> int | None:
    """The cgroup (v2, else v1) memory limit of this process, or None."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            value = Path(path).read_text().strip()
        except OSError:
            continue
        if value.isdigit() and int(value) < 1 << 60:
            return int(value)
    return None
