"""Issue 6 — reliability and security of the Dagster layer.

* SIGKILL of a real extraction run (the code location's `extraction_job`, executed in a
  subprocess on a shared Dagster instance) at a random moment; then the real
  `pending_events_sensor` is evaluated with the cursor it left and the run it requests is
  executed. Every message is stored once, every event extracted once, the facts equal an
  uninterrupted run's, and the resume touched only what the kill left pending.
* Idempotency: a replayed sensor tick gives the same run keys (Dagster dedups them) or no work;
  re-running a finished extraction partition or a finished import run changes no row.
* Secrets: an LLM api_key configured on the `llm` resource never reaches the run's event log,
  run record, captured logs, metadata or the memory tables.
* The dev server binds the Dagster webserver to 127.0.0.1 by default.

The crash test uses the `hashing` embeddings (ARANDU_EMBEDDINGS=hashing, a supported setting of
the code location) so each subprocess starts in ~2 s instead of loading MiniLM; the extraction
logic is the same.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from dagster import (
    AssetKey,
    DagsterInstance,
    DagsterRunStatus,
    EnvVar,
    RunsFilter,
    SensorResult,
    SkipReason,
    build_sensor_context,
)

from arandu_pipelines.partitions import AGENTS
from arandu_pipelines.resources import (
    EmbeddingsResource,
    LLMResource,
    MemoryStoreResource,
)
from arandu_pipelines.sensors import import_sensor, pending_events_sensor
from tests.conftest import _admin_url, rows
from tests.test_reliability_crash import LINES, T0

ROOT = Path(__file__).resolve().parents[1]
TRIALS = int(os.environ.get("ARANDU_CRASH_TRIALS", "20"))
AGENT = "dag-crash"
MESSAGES = 20
CRASH_TEMPLATE = "arandu_dagster_crash_template"
# Every extraction run of the crash test uses chunk_size=1: one commit per event, so kills land
# between many commit points, and the decisions are the same whichever run makes them (with
# larger chunks the entity a fact is filed under can depend on which events share a chunk, e.g.
# "Maria and Bruno got married" -> person:maria with chunk 1, person:bruno with chunk 64).
CHUNK = {"ops": {"memory_extraction": {"config": {"chunk_size": 1}}}}

DAGSTER_YAML = "telemetry:\n  enabled: false\n"

# The run workers. A zygote process imports Dagster and loads the code location's Definitions
# once (resources from the environment: DATABASE_URL is an EnvVar, resolved when a run starts);
# for each trial it forks a run worker in its own session, which points DATABASE_URL and
# DAGSTER_HOME at the trial's database and instance and executes extraction_job for the
# partition, as the daemon's run worker would. The worker says READY right before the run
# starts; the zygote reports its exit status. (Forking saves ~5 s of imports per trial.)
ZYGOTE = """
import json, os, sys
from dagster import DagsterInstance
from arandu_pipelines.definitions import defs
from arandu_pipelines.resources import EmbeddingsResource
EmbeddingsResource(provider="hashing").get()
job = defs.resolve_job_def("extraction_job")
print("LOADED", flush=True)
for line in sys.stdin:
    spec = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setsid()
            os.environ.update(spec["env"])
            instance = DagsterInstance.get()
            print("READY", os.getpid(), flush=True)
            result = job.execute_in_process(instance=instance, partition_key=spec["partition"],
                                            tags=spec["tags"], run_config=spec["run_config"])
            code = 0 if result.success else 2
        finally:
            sys.stdout.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print("EXIT", pid, status, flush=True)
"""


def _messages(agent: str = AGENT) -> list[dict]:
    return [{"agent_id": agent, "session_id": f"s{i // 10}", "speaker": "Rafael",
             "text": f"{LINES[i % len(LINES)]} (note {i})",
             "occurred_at": (T0 + timedelta(minutes=i)).isoformat(), "message_id": f"{agent}-m{i}"}
            for i in range(MESSAGES)]


def _hashing() -> EmbeddingsResource:
    return EmbeddingsResource(provider="hashing", dimensions=384)


def _resources(url: str, import_dir: Path | None = None, llm: LLMResource | None = None,
               embeddings: EmbeddingsResource | None = None) -> dict:
    return {"memory": MemoryStoreResource(database_url=url,
                                          import_dir=str(import_dir) if import_dir else None),
            "llm": llm or LLMResource(), "embeddings": embeddings or _hashing()}


def _instance(home: Path) -> DagsterInstance:
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text(DAGSTER_YAML)
    return DagsterInstance.from_config(str(home))


def _tick(sensor, instance: DagsterInstance, resources: dict, cursor: str | None):
    """One sensor evaluation: (run requests, new cursor, skip reason, partitions to add)."""
    ctx = build_sensor_context(instance=instance, cursor=cursor,
                               resources={"memory": resources["memory"]})
    result = sensor(ctx)
    if isinstance(result, SkipReason):
        return [], cursor, result, []
    assert isinstance(result, SensorResult)
    parts = [k for r in result.dynamic_partitions_requests or [] for k in r.partition_keys]
    return list(result.run_requests or []), result.cursor, result.skip_reason, parts


def _run_tags(sensor_name: str, req) -> dict[str, str]:
    """The tags the sensor daemon puts on a run it launches for `req` (run-key dedup uses them)."""
    return {**req.tags, "dagster/sensor_name": sensor_name, "dagster/run_key": req.run_key}


def _execute(job_name: str, instance: DagsterInstance, resources: dict, req, sensor_name: str,
             run_config: dict | None = None):
    from arandu_pipelines.definitions import defs

    if req.partition_key and not instance.has_dynamic_partition(AGENTS, req.partition_key):
        instance.add_dynamic_partitions(AGENTS, [req.partition_key])
    job = defs.resolve_job_def(job_name)
    return job.execute_in_process(run_config=run_config or req.run_config or None,
                                  instance=instance, resources=resources,
                                  partition_key=req.partition_key,
                                  tags=_run_tags(sensor_name, req))


def _already_launched(instance: DagsterInstance, sensor_name: str, run_key: str) -> bool:
    """The sensor daemon's dedup: a run of this sensor with this run key exists -> skip it."""
    return bool(instance.get_run_records(RunsFilter(
        tags={"dagster/sensor_name": sensor_name, "dagster/run_key": run_key}), limit=1))


def _meta(result, key: str) -> dict:
    mats = [m for m in result.get_asset_materialization_events() if m.asset_key == AssetKey(key)]
    assert mats, f"{key} was not materialized"
    return {k: getattr(v, "value", v) for k, v in mats[-1].materialization.metadata.items()}


def _memory_tables(url: str) -> list[str]:
    return [t for (t,) in rows(url, "SELECT table_name FROM information_schema.tables WHERE "
                                    "table_schema = 'public' AND table_type = 'BASE TABLE' "
                                    "AND table_name LIKE 'memory%%' ORDER BY 1")]


def _table_counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
                for t in _memory_tables(url)}


def _fingerprints(url: str) -> dict[str, str]:
    """md5 over every row of every memory table (what a no-op re-run must not change)."""
    with psycopg.connect(url) as conn:
        return {t: conn.execute(f'SELECT md5(coalesce(string_agg(x::text, \'|\' ORDER BY x::text), \'\')) '
                                f'FROM "{t}" x').fetchone()[0] for t in _memory_tables(url)}


def _facts(url: str, agent: str = AGENT) -> list[tuple]:
    """The memory an extraction produced, independent of ids and wall-clock times."""
    return sorted(rows(url, "SELECT e.message_id, f.fact_text, f.entity_key, f.valid_from, "
                            "f.valid_to IS NULL FROM memory_facts f JOIN memory_events e "
                            "ON e.id = f.source_event_id WHERE f.agent_id = %s", (agent,)))


def _entities(url: str, agent: str = AGENT) -> list[tuple]:
    return sorted(rows(url, "SELECT canonical_key, entity_type FROM memory_entities "
                            "WHERE agent_id = %s", (agent,)))


def _create_db(server: str, name: str, template: str) -> str:
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return _admin_url(server, name)


def _drop_db(server: str, name: str) -> None:
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def crash_template(pg_server_url, template_db):
    """A database holding the 30 stored, not yet extracted events (imported once)."""
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.providers.hashing_embeddings import HashingEmbeddings

    url = _create_db(pg_server_url, CRASH_TEMPLATE, template_db)

    async def load() -> None:
        client = MemoryClient(url, embeddings=HashingEmbeddings(384))
        await client.initialize()
        try:
            report = await client.import_messages(_messages(), extract=False)
            assert report.events_inserted == MESSAGES
        finally:
            await client.close()

    asyncio.run(load())
    yield CRASH_TEMPLATE
    _drop_db(pg_server_url, CRASH_TEMPLATE)


@pytest.fixture(scope="module")
def zygote(pg_server_url):
    z = Zygote(_admin_url(pg_server_url, "not_used_until_a_run_starts"))  # loads in the background
    yield z
    z.close()


@pytest.fixture(scope="module")
def reference(pg_server_url, crash_template):
    """The memory of an uninterrupted extraction run (the code location's job, default config)."""
    from arandu_pipelines.definitions import defs

    name = f"dag_ref_{os.getpid()}"
    url = _create_db(pg_server_url, name, crash_template)
    home = Path(tempfile.mkdtemp(prefix="arandu-dag-ref-"))
    try:
        instance = _instance(home)
        instance.add_dynamic_partitions(AGENTS, [AGENT])
        t, t_epoch = time.perf_counter(), time.time()
        result = defs.resolve_job_def("extraction_job").execute_in_process(
            instance=instance, resources=_resources(url), partition_key=AGENT, run_config=CHUNK)
        elapsed = time.perf_counter() - t
        assert result.success
        # when the extraction step ended, counted from the start of execute_in_process
        (step_end,) = [e.timestamp - t_epoch for e in instance.all_logs(result.run_id)
                       if e.dagster_event and e.dagster_event.event_type_value == "STEP_SUCCESS"
                       and e.dagster_event.step_key == "memory_extraction"]
        facts, entities = _facts(url), _entities(url)
        assert facts and rows(url, "SELECT count(*) FROM memory_events WHERE extraction_status "
                                   "<> 'done'")[0][0] == 0
        yield {"facts": facts, "entities": entities, "seconds": elapsed, "step_end": step_end}
    finally:
        _drop_db(pg_server_url, name)
        shutil.rmtree(home, ignore_errors=True)


# ---- 1. SIGKILL of extraction runs ----------------------------------------------------------------
class Zygote:
    """The forking run-worker launcher (see ZYGOTE)."""

    def __init__(self, placeholder_url: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARANDU_LLM_")}
        env.update(DATABASE_URL=placeholder_url, ARANDU_EMBEDDINGS="hashing", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-c", ZYGOTE], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        self._buf = b""
        self._loaded = False

    def _line(self, timeout: float) -> str | None:
        """The next line of the zygote's output, or None after `timeout` s."""
        import select

        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError("the zygote exited")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode().strip()

    def _next(self, prefix: str, timeout: float) -> list[str] | None:
        while True:
            line = self._line(timeout)
            if line is None:
                return None
            if line.startswith(prefix + " "):
                return line.split()[1:]

    def run(self, url: str, home: Path, spec: dict, delay: float,
            anchor=None) -> tuple[bool, float]:
        """Fork a run worker, SIGKILL it `delay` s after READY (or, with `anchor`, after
        `anchor()` first returns true) unless it exits first.
        Returns (killed, seconds from READY to exit when it was not killed)."""
        if not self._loaded:
            line = self._line(180)
            assert line == "LOADED", f"zygote did not start: {line!r}"
            self._loaded = True
        spec = {**spec, "env": {"DATABASE_URL": url, "DAGSTER_HOME": str(home)}}
        self.proc.stdin.write((json.dumps(spec) + "\n").encode())
        self.proc.stdin.flush()
        (pid,) = self._next("READY", 60)
        t = time.monotonic()
        self.ready_at = time.time()
        while anchor is not None and not anchor():
            exited = self._next("EXIT", 0.02)
            if exited is not None:
                assert exited == [pid, "0"], f"run worker failed: {exited}"
                return False, time.monotonic() - t
        self.anchored_after = time.monotonic() - t
        exited = self._next("EXIT", delay)
        if exited is not None:
            assert exited == [pid, "0"], f"run worker failed: {exited}"
            return False, time.monotonic() - t
        try:
            os.killpg(int(pid), signal.SIGKILL)
        except ProcessLookupError:  # it exited just now
            pass
        exited = self._next("EXIT", 60)
        assert exited and exited[0] == pid
        return exited[1] == str(signal.SIGKILL), 0.0

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def _done(url: str) -> int:
    return rows(url, "SELECT count(*) FROM memory_events WHERE extraction_status = 'done'")[0][0]


def _snapshot(url: str) -> tuple[dict, dict]:
    """Events already done (id -> extraction stamps) and every fact (id -> created_at, text)."""
    done = {r[0]: r[1:] for r in rows(
        url, "SELECT id::text, extracted_at, extraction_updated_at, extraction_attempts FROM "
             "memory_events WHERE agent_id = %s AND extraction_status = 'done'", (AGENT,))}
    facts = {r[0]: r[1:] for r in rows(
        url, "SELECT id::text, created_at, fact_text, source_event_id::text FROM memory_facts "
             "WHERE agent_id = %s", (AGENT,))}
    return done, facts


@pytest.mark.slow
def test_sigkill_of_extraction_runs_then_sensor_resume_is_exactly_once(
        pg_server_url, zygote, crash_template, reference, monkeypatch, tmp_path):
    # one Dagster instance (run + event log storage) shared by the run workers and the sensor,
    # as in a deployment; each trial has its own copy of the memory database
    home = tmp_path / "dagster"
    instance = _instance(home)
    rng = random.Random(int(os.environ.get("ARANDU_CRASH_SEED", "6")))
    monkeypatch.delenv("ARANDU_STALE_PENDING_MINUTES", raising=False)
    monkeypatch.delenv("ARANDU_RETRY_BASE_SECONDS", raising=False)
    # Calibration: one uninterrupted worker run on this machine, now: when its first and last
    # events were extracted, counted from READY. Two kinds of random delay, alternating:
    # * even trials: uniform(0, 1.3 x (start + last - first)) s after READY, where `start` is
    #   when the extraction began in the latest odd trials (else the calibration's `first`);
    # * odd trials: uniform(0, 1.3 x (last - first)) s after the run's first event committed
    #   (the parent polls the database), so kills land inside the extraction even when the
    #   machine's load shifts the run's start-up (it does: others benchmark on 2 cores).
    cal = f"dag_crash_{os.getpid()}_cal"
    url = _create_db(pg_server_url, cal, crash_template)
    try:
        instance.add_dynamic_partitions(AGENTS, [AGENT])
        killed, cal_took = zygote.run(url, home, {"partition": AGENT, "tags": {}, "run_config": CHUNK},
                                      120)
        assert not killed
        first, last = rows(url, "SELECT extract(epoch FROM min(extracted_at)), extract(epoch FROM "
                                "max(extracted_at)) FROM memory_events")[0]
        first, last = float(first) - zygote.ready_at, float(last) - zygote.ready_at
        assert _facts(url) == reference["facts"]  # a forked worker extracts the same memory
    finally:
        _drop_db(pg_server_url, cal)
    span = max(last - first, 0.2)
    starts: list[float] = []  # odd trials: seconds from READY to the first extracted event
    ends: list[float] = []  # even trials: estimated end of the extraction, from READY
    ran: list[float] = []  # durations of runs that finished before their kill
    landed: list[tuple[int, int]] = []  # (events done, facts) when the kill landed
    resumed: list[int] = []
    t_start = time.perf_counter()
    for trial in range(TRIALS):
        name = f"dag_crash_{os.getpid()}_{trial}"
        url = _create_db(pg_server_url, name, crash_template)
        res = _resources(url)
        try:
            # tick 1: the agent's events are new -> one extraction run (+ the partition)
            (req,), cursor1, _, parts = _tick(pending_events_sensor, instance, res, None)
            assert parts == [] and req.partition_key == AGENT  # added by the calibration run
            instance.add_dynamic_partitions(AGENTS, parts)
            spec = {"partition": AGENT, "tags": _run_tags("pending_events_sensor", req),
                    "run_config": CHUNK}
            if trial % 2 == 0:
                end = (max(starts[-2:]) if starts else first) + span
                ends.append(round(end, 1))
                killed, took = zygote.run(url, home, spec, rng.uniform(0.0, 1.3 * end))
            else:
                killed, took = zygote.run(url, home, spec, rng.uniform(0.0, 1.3 * span),
                                          anchor=lambda url=url: _done(url) > 0)
                starts.append(zygote.anchored_after)
            if not killed:
                ran.append(round(took, 1))
            done_before, facts_before = _snapshot(url)
            landed.append((len(done_before), trial % 2))
            pending_after_kill = MESSAGES - len(done_before)

            # tick 2 with the cursor tick 1 left: the killed run still looks in flight and the
            # backlog is not stale yet -> no duplicate run
            reqs, cursor2, _, _ = _tick(pending_events_sensor, instance, res, cursor1)
            assert reqs == [], f"trial {trial}: duplicate request while the run is in flight"
            # the run-monitoring daemon notices the dead run worker and fails the run (run_monitoring
            # is on in the dagster.yaml `dev` writes); the sensor's in-flight guard then lets go
            for rec in instance.get_run_records(RunsFilter(statuses=[
                    DagsterRunStatus.STARTED, DagsterRunStatus.STARTING, DagsterRunStatus.NOT_STARTED])):
                assert killed, f"trial {trial}: unfinished run although the worker exited"
                instance.report_run_failed(rec.dagster_run, "run worker was SIGKILLed")
            # tick 3, once the backlog counts as stale: one resume run iff something is pending
            monkeypatch.setenv("ARANDU_STALE_PENDING_MINUTES", "0.0001")
            time.sleep(0.02)
            reqs, cursor3, skip, _ = _tick(pending_events_sensor, instance, res, cursor2)
            monkeypatch.delenv("ARANDU_STALE_PENDING_MINUTES")
            if pending_after_kill == 0:
                assert reqs == [] and "no events waiting" in str(skip)
                resumed.append(0)
            else:
                assert len(reqs) == 1, f"trial {trial}: {reqs}"
                (again,) = reqs
                assert again.partition_key == AGENT and again.tags["arandu/trigger"] == "stale"
                assert again.run_key != req.run_key  # not deduplicated away by Dagster
                result = _execute("extraction_job", instance, res, again, "pending_events_sensor",
                                  run_config=CHUNK)
                assert result.success
                md = _meta(result, "memory_facts")
                # the resume processed exactly what the kill left pending, not the whole agent
                assert md["events_extracted"] == pending_after_kill, (trial, md["events_extracted"])
                resumed.append(md["events_extracted"])
            # tick 4: nothing left
            reqs, _, skip, _ = _tick(pending_events_sensor, instance, res, cursor3)
            assert reqs == [] and "no events waiting" in str(skip)

            # every message exactly once
            stored = rows(url, "SELECT message_id, count(*) FROM memory_events WHERE agent_id = %s "
                               "GROUP BY 1", (AGENT,))
            assert sorted(m for m, _ in stored) == sorted(m["message_id"] for m in _messages())
            assert all(n == 1 for _, n in stored), f"trial {trial}: duplicated messages"
            # every event extracted exactly once (one successful attempt each)
            status = rows(url, "SELECT extraction_status, extraction_attempts, count(*) FROM "
                               "memory_events WHERE agent_id = %s GROUP BY 1, 2", (AGENT,))
            assert status == [("done", 1, MESSAGES)], f"trial {trial} (landed {landed[-1]}): {status}"
            dup = rows(url, "SELECT source_event_id, fact_text, count(*) FROM memory_facts WHERE "
                            "agent_id = %s GROUP BY 1, 2 HAVING count(*) > 1", (AGENT,))
            assert dup == [], f"trial {trial}: duplicated facts {dup[:3]}"
            # the same memory as an uninterrupted run
            assert _facts(url) == reference["facts"], f"trial {trial} (landed {landed[-1]})"
            assert _entities(url) == reference["entities"], f"trial {trial}"
            # what was done before the resume is untouched: same stamps, same fact rows
            done_after, facts_after = _snapshot(url)
            for ev, stamps in done_before.items():
                assert done_after[ev] == stamps, f"trial {trial}: event {ev} re-extracted"
            for fid, (created, text, _src) in facts_before.items():
                assert fid in facts_after and facts_after[fid][:2] == (created, text), \
                    f"trial {trial}: fact {fid} rewritten"
        finally:
            _drop_db(pg_server_url, name)
    elapsed = time.perf_counter() - t_start
    before = sum(1 for d, _ in landed if d == 0)
    during = sum(1 for d, _ in landed if 0 < d < MESSAGES)
    after = sum(1 for d, _ in landed if d == MESSAGES)
    by_mode = {m: sorted(d for d, k in landed if k == m) for m in (0, 1)}
    print(f"\n[dagster-crash] {TRIALS} trials x {MESSAGES} events in {elapsed:.1f}s; reference "
          f"run {reference['seconds']:.1f}s (extraction step ended at {reference['step_end']:.1f}s, "
          f"{len(reference['facts'])} facts); calibration worker run {cal_took:.1f}s, its events "
          f"extracted {first:.1f}-{last:.1f}s after READY; first event extracted in odd trials "
          f"{min(starts):.1f}-{max(starts):.1f}s after READY; kill delays 0-1.3x{ends} s after "
          f"READY (even trials), 0-{1.3 * span:.1f}s after the first extracted event (odd trials); "
          f"SIGKILLed {TRIALS - len(ran)}, finished first {len(ran)} ({ran} s); state at the kill: "
          f"no event extracted {before}, mid-extraction {during}, extraction finished {after}; "
          f"events done at kill: even trials {by_mode[0]}, odd trials {by_mode[1]}; events "
          f"extracted by the resume "
          f"run {resumed}")
    assert before + during + after == TRIALS


# ---- 2. idempotency of sensor ticks and re-runs -------------------------------------------------
@pytest.fixture
def dagster_instance(tmp_path):
    instance = _instance(tmp_path / "dagster-home")
    yield instance
    instance.dispose()


def _store(url: str, messages: list[dict]) -> None:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.providers.hashing_embeddings import HashingEmbeddings

    async def load() -> None:
        client = MemoryClient(url, embeddings=HashingEmbeddings(384))
        await client.initialize()
        try:
            await client.import_messages(messages, extract=False)
        finally:
            await client.close()

    asyncio.run(load())


def test_replayed_extraction_tick_dedups_and_rerun_changes_nothing(fresh_db_url, dagster_instance):
    instance, res = dagster_instance, _resources(fresh_db_url)
    _store(fresh_db_url, _messages("idem-a") + _messages("idem-b")[:5])
    # the same tick twice (same cursor, same state): the same run keys and partitions
    first = _tick(pending_events_sensor, instance, res, None)
    replay = _tick(pending_events_sensor, instance, res, None)
    keys = sorted(r.run_key for r in first[0])
    assert len(keys) == 2 and keys == sorted(r.run_key for r in replay[0])
    assert first[3] == replay[3] == ["idem-a", "idem-b"]
    assert json.loads(first[1])["agents"].keys() == json.loads(replay[1])["agents"].keys()
    # the next tick with the cursor it left: no new work
    reqs, _, skip, _ = _tick(pending_events_sensor, instance, res, first[1])
    assert reqs == [] and "already requested" in str(skip)

    req_a = next(r for r in first[0] if r.partition_key == "idem-a")
    assert not _already_launched(instance, "pending_events_sensor", req_a.run_key)
    result = _execute("extraction_job", instance, res, req_a, "pending_events_sensor")
    assert result.success and _meta(result, "memory_facts")["events_extracted"] == MESSAGES
    # Dagster would drop a replayed request for the same key: a run with it exists
    assert _already_launched(instance, "pending_events_sensor", req_a.run_key)
    replay = _tick(pending_events_sensor, instance, res, None)  # a lost cursor: replay from scratch
    assert [r.partition_key for r in replay[0]] == ["idem-b"]  # idem-a has nothing left
    assert [r.run_key for r in replay[0]] == [r.run_key for r in first[0] if r.partition_key == "idem-b"]

    # re-running the finished partition: no row of any memory table changes
    counts, prints = _table_counts(fresh_db_url), _fingerprints(fresh_db_url)
    again = _execute("extraction_job", instance, res, req_a, "pending_events_sensor")
    assert again.success
    for key in ("memory_facts", "memory_entities", "memory_entity_aliases",
                "memory_entity_relationships", "memory_fact_entity_links"):
        md = _meta(again, key)
        assert (md["rows_added"], md["rows_updated"], md["rows_invalidated"]) == (0, 0, 0), key
    assert _meta(again, "memory_facts")["events_extracted"] == 0
    assert _table_counts(fresh_db_url) == counts
    assert _fingerprints(fresh_db_url) == prints
    print(f"\n[dagster-idempotency] extraction re-run: {sum(counts.values())} rows in "
          f"{len(counts)} memory tables unchanged ({counts})")


def test_import_sensor_same_file_same_run_key_and_rerun_adds_nothing(fresh_db_url, dagster_instance,
                                                                     tmp_path):
    instance = dagster_instance
    drop = tmp_path / "imports"
    drop.mkdir()
    res = _resources(fresh_db_url, drop)
    f = drop / "conversation.jsonl"
    lines = [json.dumps(m) for m in _messages("idem-import")]
    lines += ['{"agent_id": "idem-import", "text": "no speaker, no time"}', "{broken json"]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    old = time.time() - 60
    os.utime(f, (old, old))
    first = _tick(import_sensor, instance, res, None)
    replay = _tick(import_sensor, instance, res, None)
    assert [r.run_key for r in first[0]] == [r.run_key for r in replay[0]] and len(first[0]) == 1
    assert first[1] == replay[1]  # the import cursor is a pure function of the directory
    (req,) = first[0]
    assert _tick(import_sensor, instance, res, first[1])[0] == []  # same file, next tick: nothing
    # the same bytes under another name: the same run key -> deduplicated by Dagster
    shutil.copyfile(f, drop / "copy-of-conversation.jsonl")
    os.utime(drop / "copy-of-conversation.jsonl", (old, old))
    (copy_req,) = _tick(import_sensor, instance, res, first[1])[0]
    assert copy_req.run_key == req.run_key

    result = _execute("import_job", instance, res, req, "import_sensor")
    assert result.success
    md = _meta(result, "memory_events")
    assert (md["rows_added"], md["rows_rejected"]) == (MESSAGES, 2)
    assert _already_launched(instance, "import_sensor", copy_req.run_key)
    counts, prints = _table_counts(fresh_db_url), _fingerprints(fresh_db_url)
    # re-running the import run (a retry, or a manual re-execution) and importing the copy
    for again_req in (req, copy_req):
        again = _execute("import_job", instance, res, again_req, "import_sensor")
        assert again.success and _meta(again, "memory_events")["rows_added"] == 0
    after = _table_counts(fresh_db_url)
    assert after == counts, {t: (counts[t], after[t]) for t in counts if counts[t] != after[t]}
    assert _fingerprints(fresh_db_url) == prints
    print(f"\n[dagster-idempotency] import re-run x2: {sum(counts.values())} rows unchanged ({counts})")


# ---- 3. secrets in Dagster ------------------------------------------------------------------------
SECRET = "sk-arandu-dagster-9f8e7d6c5b4a39281706f5e4d3c2b1a0"


def _assert_no_secret(where: str, text: str) -> None:
    assert SECRET not in text, f"api key leaked in {where}"
    assert SECRET[10:] not in text, f"part of the api key leaked in {where}"


def _scan_run(instance: DagsterInstance, run_id: str) -> int:
    """Every event-log record of the run (events, metadata, errors, logs) and its run record."""
    from dagster._serdes import serialize_value

    records = instance.all_logs(run_id)
    for rec in records:
        _assert_no_secret(f"event log record {rec.dagster_event_type or 'log'}",
                          serialize_value(rec))
        _assert_no_secret("event log message", rec.user_message or "")
    _assert_no_secret("run record (config, tags)", serialize_value(instance.get_run_by_id(run_id)))
    return len(records)


def _scan_files(root: Path) -> int:
    """Every file under the instance directory: sqlite storages and captured compute logs."""
    n = 0
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert SECRET.encode() not in data and SECRET[10:].encode() not in data, path
            n += 1
    return n


def _quick_retry(assets_def):
    """The same extraction multi-asset (same specs, partitions, pool, compute function) with one
    immediate retry instead of 2 retries after 30 s and 60 s, so the failure path is quick."""
    from dagster import RetryPolicy, multi_asset

    from arandu_pipelines.partitions import agents_partitions

    return multi_asset(name=assets_def.op.name, specs=list(assets_def.specs),
                       partitions_def=agents_partitions, pool="llm", can_subset=False,
                       retry_policy=RetryPolicy(max_retries=1, delay=0))(
        assets_def.op.compute_fn.decorated_fn)


@pytest.mark.parametrize("endpoint", ["refused", "fake"])
@pytest.mark.slow  # > 10 s on the shared 2-core machine
def test_llm_api_key_never_reaches_dagster_logs_or_metadata(fresh_db_url, tmp_path, monkeypatch,
                                                            capfd, endpoint):
    from dagster import materialize

    from arandu_pipelines.assets import CONSOLIDATION_ASSETS, memory_extraction
    from tests.fake_openai import INFORMED, FakeOpenAI, Status, defaults

    home = tmp_path / "dagster-home"
    instance = _instance(home)
    agent = "secret-agent"
    _store(fresh_db_url, [
        {"agent_id": agent, "session_id": "s", "speaker": "Rafael", "message_id": f"m{i}",
         "text": text, "occurred_at": (T0 + timedelta(days=i)).isoformat()}
        for i, text in enumerate(["Ana Souza works at Acme Corp in Lisbon.",
                                  "My sister Maria lives in Porto."])])
    monkeypatch.setenv("ARANDU_TEST_LLM_KEY", SECRET)  # as ARANDU_LLM_API_KEY is, via EnvVar
    extraction = _quick_retry(memory_extraction)
    fake = FakeOpenAI().start()
    try:
        if endpoint == "fake":
            # the first message is extracted; every request about the second gets a 401 whose
            # message shows the key masked the way OpenAI does (prefix and last 4 characters)
            fake.on("Maria lives in Porto", Status(401, f"Incorrect API key provided: "
                                                        f"{SECRET[:5]}{'*' * 20}{SECRET[-4:]}"))
            fake.on(INFORMED, {"entities": [{"name": "Ana Souza", "type": "person"},
                                            {"name": "Acme Corp", "type": "organization"}],
                               "facts": [{"subject": "Ana Souza", "text": "Ana Souza works at Acme Corp",
                                          "confidence": 0.9}],
                               "relations": [], "updated_profiles": []})
            defaults(fake)
            fake.on(lambda body: True, {})  # anything else: an empty (valid JSON) answer
            base_url = fake.url
        else:
            base_url = "http://127.0.0.1:1/v1"  # connection refused
        llm = LLMResource(base_url=base_url, api_key=EnvVar("ARANDU_TEST_LLM_KEY"), model="fake")
        res = _resources(fresh_db_url, llm=llm)
        instance.add_dynamic_partitions(AGENTS, [agent])
        t = time.perf_counter()
        runs = [materialize([extraction], instance=instance, resources=res,
                            partition_key=agent, raise_on_error=False)]
        took = [time.perf_counter() - t]
        runs.append(materialize(CONSOLIDATION_ASSETS, instance=instance, resources=res,
                                partition_key=agent, raise_on_error=False))
        elapsed = time.perf_counter() - t
        took.append(elapsed - took[0])
        if endpoint == "fake":  # the key was really configured and sent
            assert fake.requests and all(r.headers.get("authorization") == f"Bearer {SECRET}"
                                         for r in fake.requests)
    finally:
        fake.stop()
    records = sum(_scan_run(instance, r.run_id) for r in runs)
    instance_logs = [rec for r in runs for rec in instance.all_logs(r.run_id)]
    for r in runs:
        for mat in r.get_asset_materialization_events():
            _assert_no_secret("materialization metadata", repr(mat.materialization.metadata))
        for ev in r.all_events:
            _assert_no_secret("run event", repr(ev))
    instance.dispose()
    files = _scan_files(home)
    out, err = capfd.readouterr()
    _assert_no_secret("stdout", out)
    _assert_no_secret("stderr", err)
    for t in _memory_tables(fresh_db_url):
        assert rows(fresh_db_url, f'SELECT count(*) FROM "{t}" x WHERE x::text LIKE %s',
                    (f"%{SECRET[10:]}%",)) == [(0,)], t
    status = rows(fresh_db_url, "SELECT extraction_status, count(*) FROM memory_events GROUP BY 1 "
                                "ORDER BY 1")
    # the error paths really ran and reached the event log (so the scan above is not vacuous)
    logs = instance_logs
    if endpoint == "refused":
        assert status == [("failed", 2)] and not runs[0].success
        kinds = [e.event_type_value for e in runs[0].all_events]
        assert "STEP_UP_FOR_RETRY" in kinds and "STEP_FAILURE" in kinds  # retried, then failed
        failure = next(e for e in runs[0].all_events if e.event_type_value == "STEP_FAILURE")
        error = failure.step_failure_data.error
        text = "".join(str(x) for x in (error, error.cause) if x)
        assert "extraction failed for every event" in text and "Connection error" in text, text
    else:
        assert status == [("done", 1), ("failed", 1)] and runs[0].success
        md = _meta(runs[0], "memory_facts")
        assert md["extraction_errors"] == 1 and md["events_extracted"] == 1 and md["llm_tokens"] > 0
        assert "401" in json.dumps(md["errors"]) or "API key" in json.dumps(md["errors"])
        assert any("extraction error" in (r.user_message or "") for r in logs)
    print(f"\n[dagster-secrets] {endpoint}: runs {[r.success for r in runs]} in "
          f"{' + '.join(f'{x:.1f}' for x in took)} s (extraction + consolidation), "
          f"{records} event-log records, {files} instance files, stdout/stderr "
          f"({len(out) + len(err)} chars) scanned; events {status}; "
          f"LLM requests {len(fake.requests)}")


def test_code_location_snapshot_shows_the_env_var_not_the_key(tmp_path):
    """What the code server sends to the webserver (the UI's resource and config views): with
    ARANDU_LLM_API_KEY set, the repository snapshot names the variable, never its value."""
    code = (
        "from dagster._core.remote_representation.external_data import RepositorySnap\n"
        "from dagster._serdes import serialize_value\n"
        "from arandu_pipelines.definitions import defs\n"
        "snap = serialize_value(RepositorySnap.from_def(defs.get_repository_def()))\n"
        f"print(len(snap), 'ARANDU_LLM_API_KEY' in snap, {SECRET!r} in snap, {SECRET[10:]!r} in snap)\n"
    )
    env = dict(os.environ, ARANDU_LLM_API_KEY=SECRET, ARANDU_LLM_BASE_URL="http://127.0.0.1:1/v1",
               ARANDU_LLM_MODEL="fake", DATABASE_URL="postgresql://nobody@127.0.0.1:1/none",
               ARANDU_EMBEDDINGS="hashing", DAGSTER_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    size, names_var, full, part = out.stdout.split()
    _assert_no_secret("subprocess output", out.stdout + out.stderr)
    assert (names_var, full, part) == ("True", "False", "False")
    print(f"\n[dagster-secrets] repository snapshot: {size} chars, names ARANDU_LLM_API_KEY, "
          "key absent")


# ---- 4. the dev server binds to 127.0.0.1 -----------------------------------------------------------
def test_dev_server_binds_the_webserver_to_loopback_by_default():
    import inspect

    from dagster._cli.dev import dev_command

    from arandu_pipelines.cli import build_parser
    from arandu_pipelines.devserver import DEFAULT_HOST, dagster_dev_command, run_dev

    assert DEFAULT_HOST == "127.0.0.1"
    assert inspect.signature(run_dev).parameters["host"].default == "127.0.0.1"
    assert inspect.signature(dagster_dev_command).parameters["host"].default == "127.0.0.1"
    # what `arandu-pipelines dev` / `demo` run with no --host
    for command in ("dev", "demo"):
        args = build_parser().parse_args([command])
        assert args.host == "127.0.0.1", command
        cmd = dagster_dev_command(Path("workspace.yaml"), args.host, args.port)
        assert cmd[1:4] == ["-m", "dagster", "dev"] or (Path(cmd[0]).name == "dg" and cmd[1] == "dev")
        assert cmd[cmd.index("-h") + 1] == "127.0.0.1" and cmd.count("-h") == 1
        assert "0.0.0.0" not in cmd and "--host" not in cmd
    assert dagster_dev_command(Path("w.yaml"))[-4:] == ["-h", "127.0.0.1", "-p", "3000"]
    # `-h` is dagster dev's webserver host option (not help), and run_dev launches this command
    host_opt = next(p for p in dev_command.params if "-h" in p.opts)
    assert host_opt.name == "host"
    from dagster_dg_cli.cli.dev import (
        dev_command as dg_dev_command,  # `dg dev`, the same option
    )

    assert next(p for p in dg_dev_command.params if "-h" in p.opts).name == "host"
    assert "dagster_dev_command(workspace, host, port)" in inspect.getsource(run_dev)
    # an explicit --host is passed through unchanged (binding elsewhere is a deliberate choice)
    args = build_parser().parse_args(["dev", "--host", "0.0.0.0", "--port", "3111"])
    assert dagster_dev_command(Path("w.yaml"), args.host, args.port)[-4:] == \
        ["-h", "0.0.0.0", "-p", "3111"]
