"""Issue 16: `arandu-pipelines dev` stops on SIGTERM (what systemd, Docker and CI send) at any
moment — while the embedded server starts, or with Dagster running — within a bounded time,
leaving no process and no PostgreSQL behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from tests.test_dagster_e2e import _free_port, _wait

ROOT = Path(__file__).resolve().parents[1]


def _start(home: Path, port: int, log: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "DAGSTER_HOME", "ARANDU_IMPORT_DIR", "ARANDU_DAGSTER_PG_URL")}
    env.update(ARANDU_HOME=str(home), PYTHONUNBUFFERED="1", ARANDU_EMBEDDINGS="hashing",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "arandu_pipelines.cli", "dev", "--port", str(port)],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


@pytest.mark.slow
@pytest.mark.parametrize("when", ["starting", "running"])
def test_dev_stops_on_sigterm(when):
    home = Path(tempfile.mkdtemp(prefix="arandu-sigterm-", dir="/tmp"))
    port, log = _free_port(), home / "dev.log"
    proc = _start(home, port, log)
    try:
        if when == "starting":
            _wait(lambda: (home / "pgdata").exists(), 60, "the data directory", log, 0.2)
            time.sleep(1.0)
        else:
            _wait(lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info",
                                                 timeout=5).status == 200, 180, "the webserver", log)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            pytest.fail("dev did not stop within 90 s of SIGTERM\n" + log.read_text(errors="replace")[-3000:])
        print(f"stopped {time.monotonic() - t0:.1f}s after SIGTERM ({when})")
        assert code == 0, log.read_text(errors="replace")[-3000:]
        _wait(lambda: not (home / "pgdata" / "postmaster.pid").exists(), 30,
              "the embedded PostgreSQL to stop", log, 0.5)
        with pytest.raises(ProcessLookupError):
            os.killpg(proc.pid, 0)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        shutil.rmtree(home, ignore_errors=True)
