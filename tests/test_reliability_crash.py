"""Issue 6 — crash safety of import + extraction.

A subprocess runs `arandu-pipelines import FILE` (extraction on) and is SIGKILLed at a random
moment; then the same import is run again to completion. Afterwards every input message is
stored exactly once (by message_id), every event is extracted exactly once (status done) and no
fact is duplicated (same agent + source event + text).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arandu_pipelines.write.importer import read_rows
from tests.conftest import rows

TRIALS = int(os.environ.get("ARANDU_CRASH_TRIALS", "20"))
MESSAGES = 30
T0 = datetime(2024, 2, 1, 8, 0, tzinfo=UTC)
LINES = [
    "My sister Maria lives in Lisbon.", "Maria works at Google.", "I adopted a dog named Bolt.",
    "My friend Bruno moved to Porto.", "Bruno is a doctor at the Santa Maria hospital.",
    "I started learning the guitar in January.", "Maria and Bruno got married last summer.",
    "I am allergic to peanuts.", "My boss Carla runs the Madrid office.", "Bolt loves the beach.",
]


def _write_file(path: Path, agent: str) -> list[str]:
    ids = []
    with path.open("w", encoding="utf-8") as fh:
        for i in range(MESSAGES):
            ids.append(f"{agent}-m{i}")
            fh.write(json.dumps({
                "agent_id": agent, "session_id": f"s{i // 10}", "speaker": "Rafael",
                "text": f"{LINES[i % len(LINES)]} (note {i})",
                "occurred_at": (T0 + timedelta(minutes=i)).isoformat(), "message_id": ids[-1],
            }) + "\n")
    return ids


def _spawn(url: str, path: Path) -> subprocess.Popen:
    env = dict(os.environ, DATABASE_URL=url, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "arandu_pipelines.cli", "import", str(path)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


async def test_rerun_of_an_interrupted_import_extracts_what_was_left_pending(memory, fresh_db_url,
                                                                             tmp_path):
    """The crash window, deterministically: rows stored, process dies before extracting. Before
    the fix in `importer._resume_unfinished` a re-run skipped them (already stored) forever."""
    path = tmp_path / "half.jsonl"
    ids = _write_file(path, "half")
    await memory.import_messages(list(read_rows(path))[:20], extract=False)  # "killed" here
    report = await memory.import_messages(read_rows(path))
    assert report.events_inserted == MESSAGES - 20 and report.events_extracted == MESSAGES
    assert rows(fresh_db_url, "SELECT extraction_status, count(*) FROM memory_events GROUP BY 1") \
        == [("done", MESSAGES)]
    again = await memory.import_messages(read_rows(path))  # nothing left to do: no re-extraction
    assert again.events_inserted == 0 and again.events_extracted == 0
    assert len(ids) == MESSAGES


@pytest.mark.slow
async def test_sigkill_during_import_then_rerun_is_exactly_once(memory, fresh_db_url, tmp_path):
    rng = random.Random(int(os.environ.get("ARANDU_CRASH_SEED", "6")))
    # the state each kill left behind: (stored events, extracted events)
    at_kill: list[tuple[int, int]] = []
    t_start = time.perf_counter()
    agents = []
    for trial in range(TRIALS):
        agent = f"crash-{trial}"
        agents.append(agent)
        path = tmp_path / f"{agent}.jsonl"
        ids = _write_file(path, agent)
        proc = _spawn(fresh_db_url, path)
        delay = rng.uniform(0.5, 4.0)
        try:
            proc.wait(timeout=delay)  # finished before the kill: still a valid trial
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        at_kill.append(rows(fresh_db_url, "SELECT count(*), count(*) FILTER (WHERE "
                            "extraction_status = 'done') FROM memory_events WHERE agent_id = %s",
                            (agent,))[0])
        # re-run the same import to completion
        report = await memory.import_messages(read_rows(path), source=str(path))
        assert not report.extraction_errors, report.extraction_errors
        stored = rows(fresh_db_url, "SELECT message_id, count(*) FROM memory_events WHERE "
                      "agent_id = %s GROUP BY 1", (agent,))
        assert sorted(m for m, _ in stored) == sorted(ids), f"trial {trial}: lost messages"
        assert all(n == 1 for _, n in stored), f"trial {trial}: duplicated messages"
        status = rows(fresh_db_url, "SELECT extraction_status, count(*) FROM memory_events "
                      "WHERE agent_id = %s GROUP BY 1", (agent,))
        assert status == [("done", MESSAGES)], f"trial {trial} (killed at {at_kill[-1]}): {status}"
        dup = rows(fresh_db_url, "SELECT source_event_id, fact_text, count(*) FROM memory_facts "
                   "WHERE agent_id = %s GROUP BY 1, 2 HAVING count(*) > 1", (agent,))
        assert dup == [], f"trial {trial}: duplicated facts {dup[:3]}"
        assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts WHERE agent_id = %s",
                    (agent,))[0][0] > 0
    elapsed = time.perf_counter() - t_start
    # Same outcome as an import that was never interrupted: compare with a clean reference run.
    ref_agent = "crash-reference"
    ref = tmp_path / f"{ref_agent}.jsonl"
    _write_file(ref, ref_agent)
    await memory.import_messages(read_rows(ref))
    ref_facts = rows(fresh_db_url, "SELECT count(*) FROM memory_facts WHERE agent_id = %s",
                     (ref_agent,))[0][0]
    per_agent = dict(rows(fresh_db_url, "SELECT agent_id, count(*) FROM memory_facts WHERE "
                          "agent_id LIKE 'crash-%%' AND agent_id <> %s GROUP BY 1", (ref_agent,)))
    print(f"\n[crash] {TRIALS} SIGKILL trials x {MESSAGES} messages in {elapsed:.1f}s; killed "
          f"before any event stored: {sum(1 for s, _ in at_kill if s == 0)}, after storing before "
          f"extracting: {sum(1 for s, d in at_kill if s and d == 0)}, mid-extraction: "
          f"{sum(1 for s, d in at_kill if 0 < d < s)}, after finishing: "
          f"{sum(1 for s, d in at_kill if s and d == s)}; at_kill={at_kill}; "
          f"reference facts {ref_facts}, per-trial facts {sorted(set(per_agent.values()))}")
    assert set(per_agent.values()) == {ref_facts}
