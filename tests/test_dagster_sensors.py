"""Sensors, evaluated with build_sensor_context on a
persistent test instance and a real memory database."""

from __future__ import annotations

import json
import os
import shutil
import time
from datetime import UTC, datetime

import psycopg
import pytest
from dagster import (
    DagsterInstance,
    SensorResult,
    SkipReason,
    build_sensor_context,
)

from arandu_pipelines.partitions import AGENTS
from arandu_pipelines.sensors import import_sensor, pending_events_sensor
from tests.conftest import rows
from tests.test_dagster_assets import SAMPLE


def evaluate(sensor, instance: DagsterInstance, resources: dict | None, cursor: str | None):
    ctx = build_sensor_context(instance=instance, cursor=cursor,
                               resources={"memory": resources["memory"]} if resources else None)
    result = sensor(ctx)
    if isinstance(result, SkipReason):
        return [], cursor, result, []
    assert isinstance(result, SensorResult)
    return list(result.run_requests or []), result.cursor, result.skip_reason, list(
        result.dynamic_partitions_requests or [])


def age(path, seconds: float = 60) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


# ---- import sensor -----------------------------------------------------------------------------
def test_import_sensor_one_run_per_new_or_changed_file(instance, resources, drop_dir):
    reqs, cursor, skip, _ = evaluate(import_sensor, instance, resources, None)
    assert reqs == [] and "no new files" in str(skip)

    f = drop_dir / "conversation.jsonl"
    shutil.copyfile(SAMPLE, f)
    (drop_dir / "notes.txt").write_text("not a conversation")
    (drop_dir / ".hidden.jsonl").write_text("{}")
    reqs, cursor_fresh, _, _ = evaluate(import_sensor, instance, resources, cursor)
    assert reqs == []  # still being written (modified < 2 s ago)

    age(f)
    reqs, cursor1, _, _ = evaluate(import_sensor, instance, resources, cursor_fresh)
    assert len(reqs) == 1
    (req,) = reqs
    import hashlib

    sha = hashlib.sha256(f.read_bytes()).hexdigest()
    assert req.run_key == f"import:{sha}"
    assert req.run_config["ops"]["memory_events"]["config"] == {"path": str(f), "sha256": sha}
    assert req.tags["arandu/import_file"] == "conversation.jsonl"

    # same file again: nothing
    reqs, cursor2, skip, _ = evaluate(import_sensor, instance, resources, cursor1)
    assert reqs == [] and cursor2 == cursor1
    # touched but unchanged: nothing (re-hashed once, cursor updated)
    age(f, 30)
    reqs, cursor3, _, _ = evaluate(import_sensor, instance, resources, cursor2)
    assert reqs == [] and cursor3 != cursor2
    # changed content: one new run, new key
    with f.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"agent_id": "other", "session_id": "s", "speaker": "Bo", "text": "Hi, I'm Bo.",
                             "occurred_at": "2023-01-01T00:00:00Z"}) + "\n")
    age(f, 10)
    reqs, cursor4, _, _ = evaluate(import_sensor, instance, resources, cursor3)
    assert len(reqs) == 1 and reqs[0].run_key != req.run_key
    # a second file: only it
    g = drop_dir / "more.csv"
    g.write_text("agent_id,session_id,speaker,text,occurred_at\nx,s,Ann,I live in Porto,2023-02-01T10:00:00Z\n")
    age(g)
    reqs, _, _, _ = evaluate(import_sensor, instance, resources, cursor4)
    assert [r.tags["arandu/import_file"] for r in reqs] == ["more.csv"]


def test_import_sensor_run_imports_the_file(instance, resources, drop_dir, fresh_db_url):
    from arandu_pipelines.definitions import defs

    f = drop_dir / "c.jsonl"
    shutil.copyfile(SAMPLE, f)
    age(f)
    (req,), _, _, _ = evaluate(import_sensor, instance, resources, None)
    job = defs.resolve_job_def("import_job")
    result = job.execute_in_process(run_config=req.run_config, instance=instance,
                                    resources=resources, tags=req.tags)
    assert result.success
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events")[0][0] == 13


# ---- pending events sensor -------------------------------------------------------------------
def _add_events(url: str, agent: str, n: int, start: int = 0) -> None:
    with psycopg.connect(url) as conn:
        for i in range(start, start + n):
            conn.execute(
                "INSERT INTO memory_events (agent_id, speaker, message_id, text, occurred_at, content_hash) "
                "VALUES (%s, 'Rafael', %s, %s, %s, %s)",
                (agent, f"m{i}", f"message {i}", datetime(2023, 1, 1 + i % 28, tzinfo=UTC), f"h{i}"))


def test_pending_sensor_runs_per_agent_and_cursor_advances(instance, resources, fresh_db_url):
    reqs, cursor0, skip, _ = evaluate(pending_events_sensor, instance, resources, None)
    assert reqs == [] and "no events waiting" in str(skip)

    _add_events(fresh_db_url, "agent-a", 3)
    _add_events(fresh_db_url, "agent-b", 2, 100)
    _add_events(fresh_db_url, "agent...c", 1, 200)  # not a valid partition key: skipped, not fatal
    reqs, cursor1, _, parts = evaluate(pending_events_sensor, instance, resources, cursor0)
    assert sorted(r.partition_key for r in reqs) == ["agent-a", "agent-b"]
    newest_a = rows(fresh_db_url, "SELECT id::text FROM memory_events WHERE agent_id = 'agent-a' "
                                  "ORDER BY created_at DESC, id DESC LIMIT 1")[0][0]
    assert f"extract:agent-a:{newest_a}" in {r.run_key for r in reqs}
    assert all(r.tags["arandu/trigger"] == "new-events" for r in reqs)
    assert parts and sorted(parts[0].partition_keys) == ["agent-a", "agent-b"]
    state1 = json.loads(cursor1)
    assert set(state1["agents"]) == {"agent-a", "agent-b"} and state1["watermark"]

    # nothing new (the runs are still queued): no new requests, no duplicate runs
    instance.add_dynamic_partitions(AGENTS, ["agent-a", "agent-b"])
    reqs, cursor2, skip, parts = evaluate(pending_events_sensor, instance, resources, cursor1)
    assert reqs == [] and parts == [] and "already requested" in str(skip)

    # a new event for agent-a only: one run for agent-a, cursor moves forward
    time.sleep(0.01)
    _add_events(fresh_db_url, "agent-a", 1, 50)
    reqs, cursor3, _, parts = evaluate(pending_events_sensor, instance, resources, cursor2)
    assert [r.partition_key for r in reqs] == ["agent-a"] and parts == []
    state3 = json.loads(cursor3)
    assert state3["agents"]["agent-a"]["t"] > state1["agents"]["agent-a"]["t"]
    assert state3["watermark"] > state1["watermark"]

    # agent-b gets extracted: it leaves the cursor
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("UPDATE memory_events SET extraction_status = 'done' WHERE agent_id = 'agent-b'")
    _, cursor4, _, _ = evaluate(pending_events_sensor, instance, resources, cursor3)
    assert set(json.loads(cursor4)["agents"]) == {"agent-a"}


def test_pending_sensor_retries_failed_events_with_backoff(instance, resources, fresh_db_url, monkeypatch):
    _add_events(fresh_db_url, "agent-f", 2)
    (req,), cursor, _, _ = evaluate(pending_events_sensor, instance, resources, None)
    # the run failed: events marked failed once (the trigger stamps extraction_updated_at)
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("UPDATE memory_events SET extraction_status = 'failed', extraction_attempts = 1, "
                     "extraction_error = 'LLM timeout' WHERE agent_id = 'agent-f'")
        stamped = conn.execute("SELECT bool_and(extraction_updated_at IS NOT NULL) FROM memory_events "
                               "WHERE agent_id = 'agent-f'").fetchone()[0]
    assert stamped
    reqs, cursor, skip, _ = evaluate(pending_events_sensor, instance, resources, cursor)
    assert reqs == [] and "backing off" in str(skip)  # first retry after 60 s
    monkeypatch.setenv("ARANDU_RETRY_BASE_SECONDS", "0")
    reqs, cursor, _, _ = evaluate(pending_events_sensor, instance, resources, cursor)
    assert len(reqs) == 1 and reqs[0].tags["arandu/trigger"] == "retry"
    assert reqs[0].run_key == f"{req.run_key}:retry2"  # attempts summed over the agent's events
    reqs, cursor, _, _ = evaluate(pending_events_sensor, instance, resources, cursor)
    assert reqs == []  # requested once per attempt count
    # out of attempts: left for a person (and the health check), never requested again
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("UPDATE memory_events SET extraction_attempts = 5 WHERE agent_id = 'agent-f'")
    reqs, _, skip, _ = evaluate(pending_events_sensor, instance, resources, cursor)
    assert reqs == [] and "no events waiting" in str(skip)


def test_pending_sensor_rerequests_stale_pending(instance, resources, fresh_db_url, monkeypatch):
    _add_events(fresh_db_url, "agent-s", 1)
    (req,), cursor, _, _ = evaluate(pending_events_sensor, instance, resources, None)
    # the run never happened (cancelled); after the stale period the agent is requested again
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("UPDATE memory_events SET created_at = now() - interval '1 hour'")
    state = json.loads(cursor)
    state["agents"]["agent-s"]["req"] = time.time() - 3600
    monkeypatch.setenv("ARANDU_STALE_PENDING_MINUTES", "10")
    (again,), _, _, _ = evaluate(pending_events_sensor, instance, resources, json.dumps(state))
    assert again.tags["arandu/trigger"] == "stale" and again.run_key.startswith(req.run_key + ":stale")
    # ... but not while a run of that agent is in flight (a long backlog is being worked on)
    from dagster import DagsterRunStatus

    from arandu_pipelines.definitions import defs

    instance.create_run_for_job(job_def=defs.resolve_job_def("extraction_job"),
                                tags={"dagster/partition": "agent-s"}, status=DagsterRunStatus.STARTED)
    reqs, _, _, _ = evaluate(pending_events_sensor, instance, resources, json.dumps(state))
    assert reqs == []


# ---- consolidation cadence ----------------------------------------------------------------------
# The consolidation graph is automated (tests/test_dagster_automation.py); its cron is configurable.
@pytest.mark.parametrize("cron", ["0 */4 * * *"])
def test_consolidation_cadence_is_configurable(cron):
    import subprocess
    import sys

    code = ("from arandu_pipelines.assets.consolidation import entity_importance as a; "
            "c = next(iter(a.automation_conditions_by_key.values())); "
            "print([ch.get_label() for ch in c.children])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "ARANDU_CONSOLIDATION_CRON": cron})
    assert f"on cron tick {cron}" in out.stdout
