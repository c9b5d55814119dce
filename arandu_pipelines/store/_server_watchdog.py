"""Watchdog of one embedded PostgreSQL server: stops it once no process that uses it is alive.

Run as a script (never imported by the library: it must start fast and small, with the standard
library and psutil only) by `store/embedded.py` when a process starts or joins the server:

    python _server_watchdog.py ARANDU_HOME PGDATA [INTERVAL]

Every INTERVAL seconds (ARANDU_SERVER_WATCH_SEC, read by the parent through settings.py;
default 2) it takes the home lock, drops the leases of
processes that are gone (`kill -9`, OOM, power-cut of a container...) and, when none is left,
stops the server (fast shutdown) and exits. A process that joins takes its lease under the same
lock, so the server is never stopped under a process that has just joined it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
import time
from pathlib import Path

import psutil


def start_time(pid: int) -> float | None:
    """The process's start time, or None if it is gone or a zombie (a lease's identity check)."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return proc.create_time()
    except (psutil.NoSuchProcess, psutil.AccessDenied, ProcessLookupError):
        return None


def live_leases(leases: Path) -> list[int]:
    """Pids holding a lease in `leases` whose process is still the one that took it; stale
    leases (process gone, or pid reused) are removed. Also used by store/embedded.py."""
    alive = []
    for path in leases.glob("*") if leases.is_dir() else []:
        try:
            pid, started = int(path.name), float(path.read_text().strip() or "nan")
        except (ValueError, OSError):
            path.unlink(missing_ok=True)
            continue
        now = start_time(pid)
        if now is not None and abs(now - started) < 1.0:
            alive.append(pid)
        else:
            path.unlink(missing_ok=True)
    return sorted(alive)


def _postmaster(data: Path) -> int | None:
    try:
        pid = int((data / "postmaster.pid").read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if start_time(pid) is not None else None


def _stop(data: Path, timeout: float = 30.0) -> None:
    pid = _postmaster(data)
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)  # PostgreSQL's fast shutdown
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and start_time(pid) is not None:
        time.sleep(0.05)


def main(home: Path, data: Path, interval: float = 2.0) -> int:
    run = home / "run"
    me = f"{os.getpid()} "
    while True:
        time.sleep(interval)
        with open(run / "server.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            pidfile = run / "watchdog.pid"
            with contextlib.suppress(OSError):
                if not pidfile.read_text().startswith(me):
                    return 0  # another watchdog took over
            if live_leases(run / "leases"):
                continue
            _stop(data)
            with contextlib.suppress(OSError):
                pidfile.unlink()
            return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]),
                  float(sys.argv[3]) if len(sys.argv) > 3 else 2.0))
