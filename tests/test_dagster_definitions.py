"""The code location loads, and its shape is what docs/dagster.md promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dagster import AssetKey, Backoff, DynamicPartitionsDefinition

ROOT = Path(__file__).resolve().parents[1]
TABLE_ASSETS = {"memory_events", "memory_facts", "memory_entities", "memory_entity_aliases",
                "memory_entity_relationships", "memory_fact_entity_links", "memory_clusters",
                "memory_meta_observations"}
CONSOLIDATION = {"entity_importance", "entity_summaries", "entity_profiles", "entity_communities",
                 "memory_clusters", "community_themes", "emotional_trends", "fact_vitality",
                 "memory_meta_observations"}


@pytest.fixture(scope="module")
def defs():
    from arandu_pipelines.definitions import defs

    return defs


@pytest.fixture(scope="module")
def graph(defs):
    return defs.resolve_asset_graph()


def test_definitions_load_with_every_asset(defs, graph):
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert TABLE_ASSETS <= keys and CONSOLIDATION <= keys
    assert len(keys) == 15


def test_groups_kinds_partitions(graph):
    groups = {k.to_user_string(): graph.get(k).group_name for k in graph.get_all_asset_keys()}
    assert groups["memory_events"] == "ingestion"
    assert {k for k, g in groups.items() if g == "extraction"} == TABLE_ASSETS - {
        "memory_events", "memory_clusters", "memory_meta_observations"}
    assert {k for k, g in groups.items() if g == "consolidation"} == CONSOLIDATION
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert "postgres" in node.kinds, key
        if key.to_user_string() != "memory_events":
            assert isinstance(node.partitions_def, DynamicPartitionsDefinition)
            assert node.partitions_def.name == "agents"
    assert graph.get(AssetKey("memory_events")).partitions_def is None


def test_lineage_from_events_to_every_table(graph):
    up = {k.to_user_string(): {p.to_user_string() for p in graph.get(k).parent_keys}
          for k in graph.get_all_asset_keys()}
    assert up["memory_facts"] == {"memory_events"}
    assert up["memory_fact_entity_links"] == {"memory_facts", "memory_entities"}
    assert up["entity_summaries"] >= {"entity_importance"}  # importance first
    assert up["entity_profiles"] >= {"entity_importance"}
    assert up["community_themes"] == {"memory_clusters"}
    assert up["memory_meta_observations"] >= {"community_themes", "emotional_trends"}
    # every asset descends from the event log
    for key in graph.get_all_asset_keys():
        seen, todo = set(), [key]
        while todo:
            k = todo.pop()
            seen.add(k.to_user_string())
            todo.extend(graph.get(k).parent_keys)
        assert "memory_events" in seen, key


def test_pools_retries_and_checks(defs, graph):
    from arandu_pipelines.assets import memory_extraction
    from arandu_pipelines.assets.consolidation import (
        entity_importance,
        entity_summaries,
    )

    assert memory_extraction.op.pool == "llm" and entity_summaries.op.pool == "llm"
    assert entity_importance.op.pool is None  # pure SQL
    policy = memory_extraction.op.retry_policy
    assert policy.max_retries >= 1 and policy.backoff == Backoff.EXPONENTIAL
    checks = {(c.asset_key.to_user_string(), c.name) for c in graph.asset_check_keys}
    assert checks == {
        ("memory_fact_entity_links", "links_resolve"),
        ("memory_entity_relationships", "relationships_resolve"),
        ("memory_facts", "embedding_dimensions"),
        ("memory_facts", "no_duplicate_active_facts"),
        ("memory_events", "events_extracted"),
        ("memory_entity_aliases", "aliases_unique"),
    }


def test_consolidation_is_automated_with_freshness_and_checks_are_per_agent(graph):
    from arandu_pipelines.partitions import agents_partitions

    for name in CONSOLIDATION:
        node = graph.get(AssetKey(name))
        assert node.automation_condition is not None, name
        assert node.freshness_policy is not None, name
    for key in graph.asset_check_keys:
        spec = graph.get(key)
        if key.asset_key.to_user_string() == "memory_events":
            continue   # the unpartitioned event log: a store-wide check
        assert spec.partitions_def == agents_partitions, key


def test_jobs_sensors_schedules_resources(defs):
    repo = defs.get_repository_def()
    assert {j.name for j in repo.get_all_jobs()} >= {"import_job", "extraction_job", "reextraction_job",
                                                     "consolidation_job"}
    assert {s.name for s in repo.sensor_defs} == {"import_sensor", "pending_events_sensor",
                                                  "agent_partitions_sensor", "memory_automation_sensor"}
    assert {s.name for s in repo.schedule_defs} == set()   # the cron is an AutomationCondition
    assert set(defs.resources) == {"memory", "llm", "embeddings"}
    assert defs.resources["llm"].get() is None  # offline unless ARANDU_LLM_* is set
    rebuild = defs.resolve_job_def("reextraction_job")
    assert rebuild.partitions_def is not None


def test_resources_come_from_the_environment():
    code = ("from arandu_pipelines.definitions import defs; r = defs.resources; "
            "print(type(r['memory'].database_url).__name__, r['llm'].configured)")
    env = {**os.environ, "DATABASE_URL": "postgresql://u@h/db", "ARANDU_LLM_BASE_URL": "http://x/v1",
           "ARANDU_LLM_MODEL": "m"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split()[0] == "EnvVar"


def test_dagster_cli_validates_the_workspace():
    ws = yaml.safe_load((ROOT / "workspace.yaml").read_text())
    (entry,) = ws["load_from"]
    assert entry["python_module"] == {"module_name": "arandu_pipelines.definitions",
                                      "location_name": "arandu_pipelines"}
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    out = subprocess.run([sys.executable, "-m", "dagster", "definitions", "validate", "-w",
                          str(ROOT / "workspace.yaml")], capture_output=True, check=False, text=True, cwd=ROOT,
                         env=env, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Validation successful for code location arandu_pipelines" in out.stdout + out.stderr


def test_one_committed_instance_configuration(tmp_path):
    """Issue 16: the top-level dagster.yaml is the instance of `dagster dev`, `dg dev` and the
    launcher alike: Postgres storage, one run per agent, the llm pool, run retries that leave
    deterministic step failures alone, telemetry off."""
    from dagster._core.instance.config import dagster_instance_config

    from arandu_pipelines.devserver import DAGSTER_YAML, write_dagster_home

    committed = (ROOT / "dagster.yaml").read_text()
    assert DAGSTER_YAML == committed            # the packaged copy is the same file
    config, _ = dagster_instance_config(str(ROOT))   # validates against Dagster's schema
    assert config["storage"]["custom"]["class"] == "AranduPostgresStorage"
    runs = config["concurrency"]["runs"]
    assert runs["tag_concurrency_limits"] == [
        {"key": "dagster/partition", "value": {"applyLimitPerUniqueValue": True}, "limit": 1}]
    assert config["concurrency"]["pools"]["granularity"] == "op"
    assert config["run_retries"] == {"enabled": True, "max_retries": 2,
                                     "retry_on_asset_or_op_failure": False}
    assert config["telemetry"] == {"enabled": False}
    home = tmp_path / "dagster"
    assert write_dagster_home(home).read_text() == committed
    ignored = (ROOT / ".gitignore").read_text()
    assert ".tmp_dagster_home_*/" in ignored and "/storage/" in ignored


def test_dg_loads_the_same_code_location_name():
    import tomllib

    dg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["dg"]["project"]
    ws = yaml.safe_load((ROOT / "workspace.yaml").read_text())["load_from"][0]["python_module"]
    from arandu_pipelines.devserver import LOCATION_NAME

    assert dg["code_location_name"] == ws["location_name"] == LOCATION_NAME
    assert dg["code_location_target_module"] == ws["module_name"]


def test_instance_storage_url_comes_from_the_environment(monkeypatch, pg_server_url):
    from arandu_pipelines.resources.instance_storage import dagster_storage_url

    monkeypatch.setenv("ARANDU_DAGSTER_PG_URL", "postgresql://u:p@db.example/dag")
    assert dagster_storage_url() == "postgresql+psycopg2://u:p@db.example/dag"
    monkeypatch.delenv("ARANDU_DAGSTER_PG_URL")
    monkeypatch.setenv("DATABASE_URL", pg_server_url)   # the memory's server -> database `dagster`
    url = dagster_storage_url()
    assert url.startswith("postgresql+psycopg2://") and "/dagster" in url
    import psycopg

    with psycopg.connect(pg_server_url) as conn:
        assert conn.execute("SELECT 1 FROM pg_database WHERE datname = 'dagster'").fetchone()


DAGSTER_LAYER = ["assets", "sensors", "resources", "jobs", "definitions.py",
                 "partitions.py", "devserver.py"]


def test_the_dagster_layer_holds_no_sql():
    """The Dagster shell calls the library; every statement lives in the library (store/, write/,
    read/, background/), where the SQL sweep and the library's tests see it."""
    import re

    pkg = ROOT / "arandu_pipelines"
    files = [f for part in DAGSTER_LAYER for f in ((pkg / part).rglob("*.py") if (pkg / part).is_dir()
                                                   else [pkg / part])]
    assert len(files) > 8
    sql = re.compile(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b\s")
    offenders = [f"{f.relative_to(ROOT)}:{i}" for f in files
                 for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
                 if "sqlalchemy" in line or sql.search(line)]
    assert offenders == []
