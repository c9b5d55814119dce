"""CPU priority of batch work: importers and background runs yield the CPU to `retrieve()`.

Ingestion is CPU-bound (MiniLM embedding with torch uses every core), while retrieval serves
someone waiting. Processes that only do batch work — `arandu-pipelines import`, Dagster run
workers (import, extraction, consolidation) — call `lower_priority()` once, early, so the
kernel scheduler prefers serving processes when both want the CPU. The batch still gets all the
CPU that serving leaves idle.

`ARANDU_BATCH_NICE` sets the increment (default 10; 0 disables; an integer 0-19). The helper is
idempotent per process: a second call (another asset of the same run, another resource set-up)
changes nothing. On Linux the nice value is a per-thread attribute and new threads inherit it
from their creator, so besides the calling thread every thread already running in the process
(e.g. a thread pool started before the call) is lowered too; threads created later — torch's
OpenMP workers, executor threads — inherit the value.

Plain module on purpose: no Dagster import, no database; safe to call from anywhere.
"""

from __future__ import annotations

import logging
import os
import threading

ENV_VAR = "ARANDU_BATCH_NICE"
DEFAULT_NICE = 10
MAX_NICE = 19

log = logging.getLogger(__name__)

_lock = threading.Lock()
_applied: int | None = None   # the increment applied in this process (0 = disabled), None = not yet


def batch_nice_from_env() -> int:
    """The increment configured by ARANDU_BATCH_NICE (default 10); ValueError when invalid."""
    raw = os.environ.get(ENV_VAR)
    if raw is None or raw.strip() == "":
        return DEFAULT_NICE
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValueError(f"{ENV_VAR} must be an integer from 0 (disabled) to {MAX_NICE}, "
                         f"got {raw!r}") from None
    return _check(value, f"{ENV_VAR}={raw!r}")


def _check(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_NICE:
        raise ValueError(f"{what}: the batch niceness must be an integer from 0 (disabled) to "
                         f"{MAX_NICE}")
    return value


def _lower_other_threads(target: int) -> None:
    """Linux: bring every other thread of this process to at least `target` niceness."""
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except (OSError, ValueError):
        return
    me = threading.get_native_id()
    for tid in tids:
        if tid == me:
            continue
        try:
            if os.getpriority(os.PRIO_PROCESS, tid) < target:
                os.setpriority(os.PRIO_PROCESS, tid, target)
        except OSError:   # the thread exited meanwhile, or not permitted: best effort
            pass


def lower_priority(nice: int | None = None) -> int:
    """Lower this process's CPU priority for batch work, once per process.

    `nice` is the increment (0-19); None reads ARANDU_BATCH_NICE (default 10, 0 disables).
    Raises ValueError, naming the variable, when the setting is invalid — also on a repeated
    call, so a bad configuration never goes unnoticed. Returns the increment applied in this
    process (the first call's; later calls return it without changing anything)."""
    global _applied
    increment = batch_nice_from_env() if nice is None else _check(nice, f"lower_priority(nice={nice!r})")
    with _lock:
        if _applied is not None:
            return _applied
        if increment:
            try:
                new = os.nice(increment)
            except OSError as exc:   # e.g. a seccomp/container policy; batch work still runs
                log.warning("could not lower the CPU priority of batch work (%s): %s", ENV_VAR, exc)
                _applied = 0
                return 0
            _lower_other_threads(new)
            log.info("batch work runs at nice %d (%s=%d)", new, ENV_VAR, increment)
        _applied = increment
        return increment


def applied() -> int | None:
    """The increment this process applied (0 = disabled), or None if `lower_priority` never ran."""
    return _applied


__all__ = ["DEFAULT_NICE", "ENV_VAR", "applied", "batch_nice_from_env", "lower_priority"]
