"""The Dagster layer in-process on a real server: every asset materializes (partitioned by
agent), metadata reports what changed, re-runs are idempotent, checks pass and fail."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
from dagster import AssetKey, DagsterInstance, materialize

from arandu_pipelines.assets import (
    CONSOLIDATION_ASSETS,
    EXTRACTION_TABLES,
    memory_events,
    memory_extraction,
)
from arandu_pipelines.assets.checks import MEMORY_HEALTH_CHECKS
from arandu_pipelines.partitions import AGENTS
from tests.conftest import rows

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_conversation.jsonl"
AGENT = "sample-rafael"


def meta(result, key: str) -> dict:
    """Materialization metadata of `key` in an in-process result, as plain values."""
    mats = [m for m in result.get_asset_materialization_events()
            if m.asset_key == AssetKey(key)]
    assert mats, f"{key} was not materialized"
    return {k: getattr(v, "value", v) for k, v in mats[-1].materialization.metadata.items()}


def checks_of(*keys: str) -> list:
    return [c for c in MEMORY_HEALTH_CHECKS
            if any(k.asset_key.to_user_string() in keys for k in c.check_keys)]


def import_sample(instance: DagsterInstance, resources: dict, path: Path = SAMPLE):
    return materialize([memory_events, *checks_of("memory_events")], instance=instance,
                       resources=resources,
                       run_config={"ops": {"memory_events": {"config": {"path": str(path)}}}})


def extract(instance: DagsterInstance, resources: dict, agent: str = AGENT, config: dict | None = None,
            checks: bool = True, raise_on_error: bool = True):
    if not instance.has_dynamic_partition(AGENTS, agent):
        instance.add_dynamic_partitions(AGENTS, [agent])
    run_config = {"ops": {"memory_extraction": {"config": config}}} if config else None
    return materialize([memory_extraction, *(checks_of(*EXTRACTION_TABLES) if checks else [])],
                       instance=instance, resources=resources, partition_key=agent,
                       run_config=run_config, raise_on_error=raise_on_error)


def test_import_asset_stores_events_and_reports_bad_rows(instance, resources, drop_dir, fresh_db_url):
    bad = drop_dir / "bad.jsonl"
    good_line = SAMPLE.read_text(encoding="utf-8").splitlines()[0]
    bad.write_text(f'{good_line}\n{{"agent_id": "a2", "session_id": "s", "speaker": "Bo", "text": "", "occurred_at": "2023-01-01T00:00:00Z"}}\n{{not json\n{{"agent_id": "a2", "session_id": "s", "speaker": "Bo", "text": "hi", "occurred_at": "yesterday-ish"}}' + "\n", encoding="utf-8")
    result = import_sample(instance, resources, bad)
    assert result.success
    md = meta(result, "memory_events")
    assert (md["rows_read"], md["rows_added"], md["rows_rejected"]) == (4, 1, 3)
    assert "empty text" in md["rejected_rows"] and "invalid JSON" in md["rejected_rows"]
    assert "unparseable occurred_at" in md["rejected_rows"]
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_quarantine")[0][0] == 3
    # the whole sample; its first line is already stored
    result = import_sample(instance, resources)
    md = meta(result, "memory_events")
    assert (md["rows_read"], md["rows_added"], md["rows_already_present"], md["rows_rejected"]) == (13, 12, 1, 0)
    assert md["agents"] == [AGENT] and md["dagster/row_count"] == 13
    assert rows(fresh_db_url, "SELECT count(*), min(occurred_at)::date::text FROM memory_events "
                              "WHERE agent_id = %s", (AGENT,))[0] == (13, "2023-03-01")
    # re-import: nothing new (events are unique per agent + message_id)
    assert meta(import_sample(instance, resources), "memory_events")["rows_added"] == 0


def test_import_whole_drop_directory_and_missing_file(instance, resources, drop_dir):
    shutil.copyfile(SAMPLE, drop_dir / "a.jsonl")
    result = materialize([memory_events], instance=instance, resources=resources)  # no config: all files
    assert meta(result, "memory_events")["rows_added"] == 13
    missing = materialize([memory_events], instance=instance, resources=resources, raise_on_error=False,
                          run_config={"ops": {"memory_events": {"config": {"path": str(drop_dir / "gone.jsonl")}}}})
    assert not missing.success


def test_extraction_multi_asset_materializes_five_tables(instance, resources, fresh_db_url):
    import_sample(instance, resources)
    result = extract(instance, resources)
    assert result.success
    facts = meta(result, "memory_facts")
    assert facts["events_extracted"] == 13 and facts["rows_added"] > 0 and facts["extraction_errors"] == 0
    assert facts["dagster/row_count"] == rows(fresh_db_url, "SELECT count(*) FROM memory_facts WHERE agent_id = %s", (AGENT,))[0][0]
    assert facts["mode"] == "offline rules" and facts["llm_tokens"] == 0
    assert "event_id" in facts["preview"]  # lineage to the message, row by row (by id, no text)
    for key in EXTRACTION_TABLES:
        md = meta(result, key)
        assert {"rows_added", "rows_updated", "rows_invalidated", "duration_ms", "preview"} <= md.keys()
        assert md["dagster/row_count"] > 0
    assert meta(result, "memory_entities")["rows_added"] >= 5
    lineage = meta(result, "memory_facts")["dagster/column_lineage"]
    assert lineage.deps_by_column["source_event_id"][0].asset_key == AssetKey("memory_events")
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE agent_id = %s "
                              "AND extraction_status <> 'done'", (AGENT,))[0][0] == 0
    checks = {e.check_name: e.passed for e in result.get_asset_check_evaluations()}
    assert checks == {"links_resolve": True, "relationships_resolve": True, "embedding_dimensions": True,
                      "no_duplicate_active_facts": True, "aliases_unique": True}
    # idempotent: nothing pending, nothing added
    again = extract(instance, resources)
    for key in EXTRACTION_TABLES:
        assert meta(again, key)["rows_added"] == 0
    assert meta(again, "memory_facts")["events_extracted"] == 0


def test_reextraction_rebuilds_from_events(instance, resources, fresh_db_url):
    # chunk_size=1 everywhere: a whole-agent rebuild and a rebuild "from June" then replay the
    # same decisions in the same order (see the report: same-chunk supersessions differ today)
    import_sample(instance, resources)
    extract(instance, resources, checks=False, config={"chunk_size": 1})
    facts = ("SELECT fact_text, valid_from::date::text, valid_to::date::text FROM memory_facts "
             "WHERE agent_id = %s ORDER BY 1, 2, 3")
    before = rows(fresh_db_url, facts, (AGENT,))
    result = extract(instance, resources, config={"rebuild": True, "chunk_size": 1}, checks=False)
    md = meta(result, "memory_facts")
    assert md["rebuild"] == "whole agent" and md["events_reset"] == 13 and md["events_extracted"] == 13
    assert md["facts_discarded"] == len(before)
    table = md["before_after"]
    assert "memory_facts" in table and "active_before" in table
    assert rows(fresh_db_url, facts, (AGENT,)) == before  # same rules, same events -> same memory
    partial = extract(instance, resources, checks=False,
                      config={"rebuild": True, "since": "2023-06-01T00:00:00Z", "chunk_size": 1})
    pm = meta(partial, "memory_facts")
    assert pm["rebuild"].startswith("from 2023-06-01") and pm["events_reset"] == 8
    assert pm["facts_reopened"] >= 1  # what June's messages had closed is open again before replay
    assert rows(fresh_db_url, facts, (AGENT,)) == before


def test_consolidation_graph_materializes_and_is_idempotent(instance, resources, fresh_db_url):
    import_sample(instance, resources)
    extract(instance, resources, checks=False)
    result = materialize(CONSOLIDATION_ASSETS, instance=instance, resources=resources, partition_key=AGENT)
    assert result.success
    keys = {"entity_importance", "entity_summaries", "entity_profiles", "entity_communities",
            "memory_clusters", "community_themes", "emotional_trends", "fact_vitality",
            "memory_meta_observations"}
    order = [e.step_key for e in result.all_events if e.event_type_value == "STEP_START"]
    assert order.index("entity_importance") < order.index("entity_summaries")
    assert order.index("entity_importance") < order.index("entity_profiles")
    for key in keys:
        md = meta(result, key)
        assert {"rows_added", "rows_updated", "rows_invalidated", "llm_tokens", "duration_ms"} <= md.keys(), key
    assert meta(result, "entity_importance")["rows_updated"] > 0
    assert meta(result, "entity_summaries")["rows_updated"] > 0
    assert meta(result, "memory_clusters")["dagster/row_count"] >= 1
    assert meta(result, "emotional_trends")["rows_updated"] == 13  # every event tagged
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_entities WHERE agent_id = %s "
                              "AND importance_score IS NOT NULL AND summary_text IS NOT NULL", (AGENT,))[0][0] > 3
    again = materialize(CONSOLIDATION_ASSETS, instance=instance, resources=resources, partition_key=AGENT)
    for key in keys:
        md = meta(again, key)
        assert (md["rows_added"], md["rows_updated"], md["rows_invalidated"]) == (0, 0, 0), key


def test_asset_checks_fail_on_planted_orphan_link(instance, resources, fresh_db_url):
    import_sample(instance, resources)
    extract(instance, resources, checks=False)
    with psycopg.connect(fresh_db_url) as conn:
        fact = conn.execute("SELECT id FROM memory_facts WHERE agent_id = %s LIMIT 1", (AGENT,)).fetchone()[0]
        conn.execute("INSERT INTO memory_fact_entity_links (agent_id, fact_id, entity_key) "
                     "VALUES (%s, %s, 'person:nobody')", (AGENT, fact))
        conn.execute("INSERT INTO memory_entity_aliases (agent_id, alias, canonical_entity_key) "
                     "VALUES (%s, 'ghost', 'person:ghost')", (AGENT,))
    result = extract(instance, resources, raise_on_error=False)
    checks = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert not checks["links_resolve"].passed and not checks["aliases_unique"].passed
    assert checks["links_resolve"].metadata["offending_rows"].value == 1
    examples = json.dumps(checks["links_resolve"].metadata["examples"].value)
    assert str(fact) in examples                  # the offending row by id ...
    assert "person:nobody" not in examples        # ... never by text derived from a message
    assert checks["relationships_resolve"].passed and checks["no_duplicate_active_facts"].passed


def test_events_extracted_check_warns_on_old_backlog(instance, resources, fresh_db_url):
    import_sample(instance, resources)
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("UPDATE memory_events SET created_at = now() - interval '2 hours' WHERE message_id = 'm01'")
    result = import_sample(instance, resources)  # the import job runs the events check
    (check,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "events_extracted"]
    assert not check.passed and check.severity.value == "WARN"
    assert check.metadata["offending_rows"].value == 1
