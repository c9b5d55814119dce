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

Nice alone is not enough on Linux with autogroups (kernel.sched_autogroup_enabled = 1, the
default of most distributions): the scheduler first shares the CPU fairly between sessions and
only then, inside a session, by nice. An importer started from another terminal, a Dagster run
worker (in the daemon's session) and every Postgres backend (each starts a session of its own)
would all compete with the serving process as equals, whatever their nice. So:
- a batch process that does not lead a process group starts a session of its own (setsid) and
  lowers that autogroup; a group leader (the import command typed in a shell) lowers its
  session's autogroup while it runs and restores it at exit;
- the Postgres backends of a batch process's connections keep the server's priority (issue
  17). Each one may hold the agent's advisory lock (import, extraction and consolidation all take
  it), and a serving `write()` of the same agent waits on that lock: a backend at nice 19 under
  SCHED_IDLE could be kept off the CPU by the very retrievals it was meant to yield to, with the
  write waiting behind it (priority inversion). No batch connection is free of the lock, so none
  is lowered. The cost, measured with bench/soak.py when backends were lowered: retrieve p50/p95
  under ingestion 45/75 ms with the backends lowered, 56/85 ms without. The batch process
  itself still runs lowered between the statements of a transaction that holds the lock; where
  serving writes and batch runs share agents on a saturated machine, ARANDU_BATCH_IDLE=0 keeps
  that wait bounded (nice only).

Even at a low weight, a batch thread that holds a core keeps it until its time slice ends when a
serving thread wakes up (the scheduler's wake-up preemption favours the waking task only by its
lag), and a retrieve wakes a dozen times (one per statement, on each side). On Linux the batch
threads therefore also run under SCHED_IDLE (`ARANDU_BATCH_IDLE`, default 1;
0 keeps the normal policy): a waking normal task preempts an idle-policy one at once, and idle
tasks still get every cycle nobody else wants.

Nothing here runs unless called: importing or using the library never changes the process.
`lower_priority()` is called only by the CLI's batch commands (`import --low-priority`) and the
Dagster run worker (jobs/executor.py), through `store.engine.start_batch_process`.
Plain module on purpose: no Dagster import, no database.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading

from arandu_pipelines.settings import settings

ENV_VAR = "ARANDU_BATCH_NICE"
IDLE_ENV_VAR = "ARANDU_BATCH_IDLE"
DEFAULT_NICE = 10
MAX_NICE = 19

log = logging.getLogger(__name__)

_lock = threading.Lock()
_applied: int | None = None   # the increment applied in this process (0 = disabled), None = not yet
_idle = False   # whether lower_priority() put this process under SCHED_IDLE


def batch_nice_from_env() -> int:
    """The increment configured by ARANDU_BATCH_NICE (default 10); SettingsError (a ValueError)
    naming the variable when invalid."""
    return settings.batch_nice


def batch_idle_from_env() -> bool:
    """Whether batch work also runs under SCHED_IDLE (ARANDU_BATCH_IDLE: 1 default, 0 off)."""
    return settings.batch_idle


def _check(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_NICE:
        raise ValueError(f"{what}: the batch niceness must be an integer from 0 (disabled) to "
                         f"{MAX_NICE}")
    return value


def _threads(pid: int | str) -> list[int]:
    """Linux: the thread ids of process `pid` ("self" or a pid); [] where there is no /proc."""
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except (OSError, ValueError):
        return []


def _lower_other_threads(target: int) -> None:
    """Linux: bring every other thread of this process to at least `target` niceness."""
    me = threading.get_native_id()
    for tid in _threads("self"):
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
    global _applied, _idle
    increment = batch_nice_from_env() if nice is None else _check(nice, f"lower_priority(nice={nice!r})")
    idle = batch_idle_from_env()
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
            group = _own_autogroup(new)
            _idle = idle and _idle_policy("self")
            log.info("batch work runs at nice %d (%s=%d)%s%s", new, ENV_VAR, increment,
                     f", {group}" if group else "", ", SCHED_IDLE" if _idle else "")
        _applied = increment
        return increment


def _idle_policy(pid: int | str) -> bool:
    """Put every thread of process `pid` ("self" or a pid) under SCHED_IDLE; threads created
    later inherit it. False where the OS has no such policy or does not permit it."""
    if not hasattr(os, "sched_setscheduler") or not hasattr(os, "SCHED_IDLE"):
        return False
    done = False
    for tid in _threads(pid):
        try:
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
            done = True
        except OSError:   # exited meanwhile, or not permitted: best effort
            pass
    return done


def idle_policy_applied(pid: int | str = "self") -> bool:
    """Whether process `pid`'s main thread runs under SCHED_IDLE."""
    try:
        target = 0 if pid == "self" else int(pid)
        return os.sched_getscheduler(target) == os.SCHED_IDLE
    except (AttributeError, OSError, ValueError):
        return False


def _autogroup_nice(pid: int | str = "self") -> int | None:
    try:
        with open(f"/proc/{pid}/autogroup") as fh:
            return int(fh.read().split("nice")[1])
    except (OSError, ValueError, IndexError):
        return None   # not Linux, or autogroups off (kernel.sched_autogroup_enabled = 0)


def _own_autogroup(target: int) -> str:
    """Make the niceness count against other sessions too (see the module docstring).

    A process that does not lead a process group (a Dagster run worker, a spawned importer)
    starts a session of its own, so its autogroup holds only itself and its children, and lowers
    that group. A process group leader (the import command started from a shell) cannot; it
    lowers its session's group while it runs and puts the old value back when it exits."""
    if _autogroup_nice() is None:
        return ""
    if os.getpgid(0) != os.getpid() and os.getsid(0) != os.getpid():
        try:
            os.setsid()
        except OSError:
            pass
    before = _autogroup_nice()
    if before is None or before >= target or not _set_autogroup("self", target):
        return ""
    if os.getsid(0) == os.getpid():
        return f"own autogroup at nice {target}"
    atexit.register(_set_autogroup, "self", before)   # a shared session (a shell's): only while we run
    return f"session autogroup nice {target} until exit"


def _set_autogroup(pid: int | str, value: int) -> bool:
    try:
        with open(f"/proc/{pid}/autogroup", "w") as fh:
            fh.write(str(value))
        return True
    except OSError:
        return False


def applied() -> int | None:
    """The increment this process applied (0 = disabled), or None if `lower_priority` never ran."""
    return _applied


__all__ = ["DEFAULT_NICE", "ENV_VAR", "IDLE_ENV_VAR", "applied", "batch_idle_from_env",
           "batch_nice_from_env", "idle_policy_applied", "lower_priority"]
