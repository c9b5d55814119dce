"""`arandu-pipelines dev` / `demo`: the embedded PostgreSQL + Dagster (webserver and daemon).

Order matters, and each step avoids a known trap:

1. Start (or join) the embedded PostgreSQL of ARANDU_HOME *first*: every Dagster process reads
   `dagster.yaml` at start-up and connects to its storage right away.
2. Create the `arandu` (memory) and `dagster` (runs, event log, schedules) databases; migrate
   the memory schema.
3. Copy the repository's `dagster.yaml` (the one instance configuration, shared with plain
   `dagster dev` and `dg dev`) into `$DAGSTER_HOME`, and set ARANDU_DAGSTER_PG_URL (the
   ``postgresql+psycopg2://`` URL of the `dagster` database; the embedded server listens on a Unix
   socket only, so the URL carries ``?host=<socket dir>``), which its storage class uses.
4. Run ``dg dev -w workspace.yaml`` (``dagster dev`` without dagster-dg-cli) bound to 127.0.0.1 in its own process group, with DATABASE_URL,
   DAGSTER_HOME and ARANDU_IMPORT_DIR in its environment. Ctrl-C (or SIGTERM) is forwarded to
   it, and after it exits the embedded server is released (stopped if nobody else uses it).

The data directory never defaults to /root (see `store.embedded.default_home`). `demo` also
copies the bundled sample conversation into the drop directory, so the sensors import, extract
and consolidate it while you watch.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arandu_pipelines.settings import child_environ, settings

LOCATION_NAME = "arandu_pipelines"
REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE = REPO_ROOT / "examples" / "sample_conversation.jsonl"

# The repository's dagster.yaml, verbatim (tests/test_dagster_definitions.py keeps them equal);
# written next to DAGSTER_HOME when the package runs without its repository (an installed wheel).
DAGSTER_YAML = """\
# The Dagster instance of arandu-pipelines: one configuration for `arandu-pipelines dev`,
# `dagster dev` and `dg dev` started from the repository root (docs/dagster.md, "One instance").
# Deployments: docs/deploy.md. Nothing here is machine-specific; URLs come from the environment.

# Runs, event log and schedules in PostgreSQL: ARANDU_DAGSTER_PG_URL, else database `dagster` on
# the DATABASE_URL server, else on the embedded server of ARANDU_HOME (started on demand).
storage:
  custom:
    module: arandu_pipelines.resources.instance_storage
    class: AranduPostgresStorage
    config: {}

concurrency:
  runs:
    max_concurrent_runs: 8
    tag_concurrency_limits:
      # one queued-to-running run per agent: every partitioned run carries dagster/partition
      - key: dagster/partition
        value:
          applyLimitPerUniqueValue: true
        limit: 1
  pools:
    # `llm`: every asset that calls (or will call) the LLM; change at runtime with
    # `dagster instance concurrency set llm 4`
    default_limit: 2
    granularity: op

run_monitoring:
  enabled: true
  poll_interval_seconds: 30

# Re-launch a run only when its worker crashed; a run that failed in a step (a bad input file,
# a validation error: deterministic) is not retried. Step retries are the assets' RetryPolicy.
run_retries:
  enabled: true
  max_retries: 2
  retry_on_asset_or_op_failure: false

telemetry:
  enabled: false
nux:
  enabled: false
"""

WORKSPACE_YAML = f"""\
load_from:
  - python_module:
      module_name: arandu_pipelines.definitions
      location_name: {LOCATION_NAME}
"""


def psycopg2_url(libpq_uri: str) -> str:
    """The embedded server's libpq URI with the scheme dagster-postgres' SQLAlchemy engine needs."""
    from arandu_pipelines.resources.instance_storage import psycopg2_url as convert

    return convert(libpq_uri)


def dagster_yaml_text() -> str:
    """The instance configuration: the repository's dagster.yaml (or its packaged copy)."""
    repo = REPO_ROOT / "dagster.yaml"
    return repo.read_text(encoding="utf-8") if repo.is_file() else DAGSTER_YAML


def write_dagster_home(dagster_home: Path) -> Path:
    """DAGSTER_HOME with the project's one dagster.yaml (copied: Dagster reads it from there)."""
    dagster_home.mkdir(parents=True, exist_ok=True)
    (dagster_home / "dagster.yaml").write_text(dagster_yaml_text(), encoding="utf-8")
    return dagster_home / "dagster.yaml"


def workspace_file(dagster_home: Path) -> Path:
    """The repository's workspace.yaml, or the same content next to dagster.yaml (installed)."""
    repo = REPO_ROOT / "workspace.yaml"
    if repo.is_file():
        return repo
    path = dagster_home / "workspace.yaml"
    path.write_text(WORKSPACE_YAML, encoding="utf-8")
    return path


async def _migrate(url: str) -> None:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.providers.local_embeddings import LocalEmbeddings

    client = MemoryClient(url, embeddings=LocalEmbeddings())  # dimension only; no model load
    try:
        await client.initialize()
    finally:
        await client.close()


def prepare(home: Path | None = None) -> tuple[Any, dict[str, str]]:
    """Steps 1-3: server, databases, schema, dagster.yaml. Returns (server handle, env)."""
    from arandu_pipelines.store.embedded import (
        default_home,
        ensure_database,
        start_server,
    )

    home = Path(home or default_home())
    home.mkdir(parents=True, exist_ok=True)
    server = start_server(home)
    memory_url = settings.database_url or ensure_database(server, "arandu")
    dagster_url = settings.dagster_pg_url or psycopg2_url(
        ensure_database(server, "dagster"))
    asyncio.run(_migrate(memory_url))
    dagster_home = settings.dagster_home or home / "dagster"
    write_dagster_home(dagster_home)
    import_dir = settings.import_dir or home / "imports"
    import_dir.mkdir(parents=True, exist_ok=True)
    env = {
        "ARANDU_HOME": str(home),
        "DATABASE_URL": memory_url,
        "ARANDU_DAGSTER_PG_URL": dagster_url,
        "DAGSTER_HOME": str(dagster_home),
        "ARANDU_IMPORT_DIR": str(import_dir),
    }
    return server, env


DEFAULT_HOST = "127.0.0.1"  # loopback only: the UI can launch runs and shows the memory's data


def dagster_dev_command(workspace: Path, host: str = DEFAULT_HOST, port: int = 3000) -> list[str]:
    """The command line `run_dev` launches (webserver bound to `host`): `dg dev` on the
    workspace (what Dagster 1.13 recommends; `dagster dev` prints a "superseded" warning), or
    `dagster dev` where dagster-dg-cli is not installed. Both run the same webserver and daemon."""
    dg = Path(sys.executable).with_name("dg")
    if dg.is_file():
        return [str(dg), "dev", "-w", str(workspace), "-h", host, "-p", str(port)]
    return [sys.executable, "-m", "dagster", "dev", "-w", str(workspace), "-h", host, "-p", str(port)]


def run_dev(host: str = DEFAULT_HOST, port: int = 3000, demo: bool = False) -> int:
    """Run Dagster on the embedded database until Ctrl-C or SIGTERM; returns the exit status.

    The signal handlers are installed first: a SIGTERM while the server starts or the schema
    migrates is remembered, the start-up (seconds) completes, Dagster is not launched and the
    embedded server is released — instead of this process dying and leaving PostgreSQL behind.
    Once Dagster runs, a signal is forwarded to its process group and `_stop` escalates to
    SIGTERM / SIGKILL on a deadline, so the command never hangs."""
    state: dict[str, Any] = {"signal": None, "proc": None}

    def on_signal(signum: int, _frame: Any) -> None:
        first = state["signal"] is None
        state["signal"] = signum
        proc = state["proc"]
        if proc is not None:   # before Dagster starts, the flag alone stops the start-up
            _signal_group(proc, signal.SIGINT if first else signal.SIGTERM)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    server = None
    proc = None
    try:
        print("arandu-pipelines: starting the embedded PostgreSQL ...", flush=True)
        server, extra = prepare()
        if state["signal"] is not None:
            return 0   # stopped while starting: nothing launched; `finally` releases the server
        env = child_environ({**extra, "PYTHONUNBUFFERED": "1"})
        workspace = workspace_file(Path(extra["DAGSTER_HOME"]))
        cmd = dagster_dev_command(workspace, host, port)
        print(f"arandu-pipelines: DAGSTER_HOME={extra['DAGSTER_HOME']}\n"
              f"arandu-pipelines: drop conversation files (JSONL / CSV / Parquet) in "
              f"{extra['ARANDU_IMPORT_DIR']}\n"
              f"arandu-pipelines: Dagster UI on http://{host}:{port} (Ctrl-C stops everything)",
              flush=True)
        # cwd = DAGSTER_HOME: Dagster warns when the working directory holds another
        # dagster.yaml (the repository's, of which DAGSTER_HOME holds the copy)
        proc = subprocess.Popen(cmd, env=env, start_new_session=True, cwd=extra["DAGSTER_HOME"])
        state["proc"] = proc
        if state["signal"] is not None:   # arrived between the check above and Popen
            _signal_group(proc, signal.SIGINT)
        if demo:
            _drop_sample(Path(extra["ARANDU_IMPORT_DIR"]), host, port)
        while proc.poll() is None:
            try:
                proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                continue
    except KeyboardInterrupt:   # Ctrl-C with the default handler (e.g. not the main thread)
        pass
    finally:
        # a second signal during shutdown only escalates (see on_signal), never interrupts it
        if proc is not None:
            _stop(proc)
        for s, h in previous.items():
            signal.signal(s, h)
        if server is not None:
            server.cleanup()
    if state["signal"] is not None:
        print("arandu-pipelines: stopped.", flush=True)
        return 0
    return (proc.returncode or 0) if proc is not None else 1


def _drop_sample(import_dir: Path, host: str, port: int) -> None:
    target = import_dir / SAMPLE.name
    shutil.copyfile(SAMPLE, target)
    agent = "sample-rafael"
    print(f"arandu-pipelines demo: copied {SAMPLE.name} into {import_dir}.\n"
          f"  Watch http://{host}:{port}/runs : import_job -> extraction_job ({agent}) -> "
          "its consolidation (launched by memory_automation_sensor).\n"
          f"  Then ask memory:  arandu-pipelines retrieve {agent} \"Where does Rafael work?\"",
          flush=True)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stop(proc: subprocess.Popen, grace: float = 30.0) -> None:
    """SIGINT the dagster dev group, then SIGTERM, then SIGKILL; reap the children."""
    if proc.poll() is None:
        _signal_group(proc, signal.SIGINT)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(timeout=10)
    # stragglers of the group (code server, run workers) after dagster dev itself exited
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    _signal_group(proc, signal.SIGKILL)
