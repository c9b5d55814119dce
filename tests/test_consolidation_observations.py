"""Consolidation of an agent that really produces meta-observations (issue 14, item 2).

The observation summary used to key its per-type counts by `row.t` — in SQLAlchemy 2 that is the
Row's own `.t` (the row as a tuple), not the column — so the Dagster asset failed with
`DagsterInvalidMetadata` for every agent that had an observation, after its writes committed.
These messages go through the real extractor; the move from Lisbon to Porto supersedes a fact,
which the offline consolidation reports as a `trend`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from dagster import materialize

from arandu_pipelines import background as bg
from arandu_pipelines.assets import CONSOLIDATION_ASSETS
from arandu_pipelines.store import status
from tests.conftest import rows
from tests.test_dagster_assets import extract, import_sample, meta

AGENT = "obs-agent"
T0 = datetime(2024, 3, 1, 9, tzinfo=UTC)
MESSAGES = ["I live in Lisbon.", "I work at Acme.", "I love cycling.", "I moved to Porto.",
            "I went hiking with Ana.", "I went hiking again with Ana."]


def conversation() -> list[dict]:
    return [{"agent_id": AGENT, "session_id": "s1", "speaker": "Rafael", "text": body,
             "occurred_at": (T0 + timedelta(hours=i)).isoformat(), "message_id": f"m{i}"}
            for i, body in enumerate(MESSAGES)]


async def test_observation_summary_counts_by_type_and_serialises(memory):
    report = await memory.import_messages(conversation())
    assert report.events_extracted == len(MESSAGES)
    result = await bg.run_consolidation(memory.engine, AGENT)
    assert result.observations_created >= 1 and result.by_type.get("trend", 0) >= 1
    async with memory.engine.connect() as conn:
        by_type, top = await status.observation_summary(conn, AGENT)
    assert by_type == result.by_type  # {"trend": 1}: keyed by the type name, not the row
    assert all(isinstance(k, str) for k in by_type)
    json.dumps(by_type)
    assert top and top[0]["type"] == "trend"


def test_dagster_consolidation_succeeds_for_an_agent_with_observations(
        instance, resources, drop_dir, fresh_db_url):
    path = drop_dir / "moves.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in conversation()), encoding="utf-8")
    import_sample(instance, resources, path)
    extract(instance, resources, agent=AGENT, checks=False)
    result = materialize(CONSOLIDATION_ASSETS, instance=instance, resources=resources,
                         partition_key=AGENT, raise_on_error=False)
    failed = [e.step_key for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert result.success and not failed, failed
    md = meta(result, "memory_meta_observations")
    assert md["active_by_type"] == {"trend": 1}
    assert md["dagster/row_count"] == 1
    json.dumps(md["active_by_type"])
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_meta_observations WHERE agent_id = %s "
                              "AND is_active", (AGENT,))[0][0] == 1
    # the next consolidation of that agent succeeds too (it used to fail forever after)
    again = materialize(CONSOLIDATION_ASSETS, instance=instance, resources=resources,
                        partition_key=AGENT, raise_on_error=False)
    assert again.success
    assert meta(again, "memory_meta_observations")["active_by_type"] == {"trend": 1}
