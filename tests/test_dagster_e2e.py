"""End to end: `arandu-pipelines dev` (embedded PostgreSQL + dagster webserver + daemon on
127.0.0.1), a conversation file dropped in the import directory, and the sensors carrying it
through import -> extraction -> consolidation. Bounded in time; every process is stopped."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample_conversation.jsonl"
STARTUP_TIMEOUT = 180
PIPELINE_TIMEOUT = 300


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _libpq(pgdata: Path, db: str) -> str:
    """Connection string from postmaster.pid (port on line 4, socket directory on line 5)."""
    lines = (pgdata / "postmaster.pid").read_text().splitlines()
    return f"host={lines[4]} port={lines[3]} user=postgres dbname={db}"


def _wait(predicate, timeout: float, what: str, log: Path, interval: float = 2.0):
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as exc:  # noqa: BLE001 - polling: any error means not up yet; the last one is reported
            last_error = exc
        time.sleep(interval)
    tail = log.read_text(errors="replace")[-4000:] if log.exists() else ""
    pytest.fail(f"timed out after {timeout}s waiting for {what} (last error: {last_error})\n{tail}")


@pytest.mark.slow
def test_dev_server_imports_extracts_and_consolidates_a_dropped_file():
    home = Path(tempfile.mkdtemp(prefix="arandu-e2e-", dir="/tmp"))
    port = _free_port()
    log = home / "dev.log"
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "DAGSTER_HOME", "ARANDU_IMPORT_DIR", "ARANDU_DAGSTER_PG_URL")}
    env.update(ARANDU_HOME=str(home), ARANDU_SENSOR_INTERVAL_SECONDS="5", PYTHONUNBUFFERED="1",
               ARANDU_EMBEDDINGS="hashing",   # the write below shares the database: same provider
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arandu_pipelines.cli", "dev", "--host", "127.0.0.1",
             "--port", str(port)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    timings: dict[str, float] = {}
    try:
        _wait(lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=5).status == 200,
              STARTUP_TIMEOUT, "the Dagster webserver", log)
        timings["webserver_up"] = time.monotonic() - t0
        assert (home / "dagster" / "dagster.yaml").is_file()
        shutil.copyfile(SAMPLE, home / "imports" / "conversation.jsonl")
        t1 = time.monotonic()
        dagster_db = _libpq(home / "pgdata", "dagster")
        memory_db = _libpq(home / "pgdata", "arandu")

        def runs() -> dict[str, str]:
            with psycopg.connect(dagster_db) as conn:
                got = conn.execute("SELECT pipeline_name, status FROM runs ORDER BY create_timestamp").fetchall()
            failed = [r for r in got if r[1] in ("FAILURE", "CANCELED")]
            assert not failed, f"runs failed: {failed}\n{log.read_text(errors='replace')[-4000:]}"
            return {name: status for name, status in got}

        def succeeded(job: str) -> bool:
            return runs().get(job) == "SUCCESS"

        def consolidated(agent: str) -> bool:
            """A successful run of the consolidation graph for `agent` (launched by the
            automation sensor: Dagster's implicit asset job, tagged with the partition)."""
            with psycopg.connect(dagster_db) as conn:
                got = conn.execute(
                    "SELECT r.status FROM runs r JOIN run_tags t ON t.run_id = r.run_id "
                    "WHERE t.key = 'dagster/partition' AND t.value = %s AND r.run_body LIKE "
                    "'%%entity_importance%%'", (agent,)).fetchall()
            return ("SUCCESS",) in got

        _wait(lambda: succeeded("import_job"), PIPELINE_TIMEOUT, "the import run", log)
        timings["import"] = time.monotonic() - t1
        _wait(lambda: succeeded("extraction_job"), PIPELINE_TIMEOUT, "the extraction run", log)
        timings["extraction"] = time.monotonic() - t1
        with psycopg.connect(memory_db) as conn:
            facts = conn.execute("SELECT count(*) FROM memory_facts WHERE agent_id = 'sample-rafael'").fetchone()[0]
            pending = conn.execute("SELECT count(*) FROM memory_events WHERE extraction_status <> 'done'").fetchone()[0]
        assert facts > 0 and pending == 0
        _wait(lambda: consolidated("sample-rafael"), PIPELINE_TIMEOUT, "the consolidation run", log)
        timings["consolidation"] = time.monotonic() - t1
        with psycopg.connect(memory_db) as conn:
            scored = conn.execute("SELECT count(*) FROM memory_entities WHERE agent_id = 'sample-rafael' "
                                  "AND importance_score IS NOT NULL").fetchone()[0]
        assert scored > 0
        with psycopg.connect(dagster_db) as conn:
            partitions = conn.execute("SELECT partition FROM dynamic_partitions "
                                      "WHERE partitions_def_name = 'agents'").fetchall()
        assert partitions == [("sample-rafael",)]
        # an agent written by serving code (MemoryClient.write(), extracted inline) joins the graph
        lines = (home / "pgdata" / "postmaster.pid").read_text().splitlines()
        url = f"postgresql://postgres@/arandu?host={lines[4]}&port={lines[3]}"
        import asyncio

        from arandu_pipelines.client import MemoryClient
        from arandu_pipelines.providers.hashing_embeddings import HashingEmbeddings

        async def serve() -> None:
            async with MemoryClient(url, embeddings=HashingEmbeddings(384)) as client:
                await client.write("served-agent", "s1", "Ana", "I moved to Porto and I work at Nimbus.")

        t2 = time.monotonic()
        asyncio.run(serve())
        _wait(lambda: consolidated("served-agent"), PIPELINE_TIMEOUT,
              "the consolidation of an agent written by MemoryClient.write()", log)
        timings["written_agent_consolidated"] = time.monotonic() - t2
    finally:
        proc.send_signal(signal.SIGINT)  # what Ctrl-C does; the dev server forwards it
        try:
            code = proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
            code = None
        timings["total"] = time.monotonic() - t0
        print("e2e timings (s):", {k: round(v, 1) for k, v in timings.items()})
    try:
        assert code == 0, log.read_text(errors="replace")[-3000:]
        with socket.socket() as s:  # the webserver is gone
            assert s.connect_ex(("127.0.0.1", port)) != 0
        _wait(lambda: not (home / "pgdata" / "postmaster.pid").exists(), 30,
              "the embedded PostgreSQL to stop", log, 0.5)
        try:
            os.killpg(proc.pid, 0)
            pytest.fail("processes of the dev server are still running")
        except ProcessLookupError:
            pass
    finally:
        shutil.rmtree(home, ignore_errors=True)
