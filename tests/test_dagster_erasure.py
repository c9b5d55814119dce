"""Issue 16: erasure reaches Dagster. Run metadata (previews, check examples) holds ids and
counts, never text that `forget` / `delete_all` could not remove from Dagster's event log; an
erased agent's partition is removed.

A conversation with distinctive words goes through the real assets (import, extraction with its
checks, the whole consolidation graph) on a persistent instance; after erasure every file of the
instance (SQLite run/event storage, compute logs, artifacts) is scanned for those words."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from dagster import build_sensor_context, materialize

from arandu_pipelines.assets import CONSOLIDATION_ASSETS
from arandu_pipelines.partitions import AGENTS
from arandu_pipelines.sensors import agent_partitions_sensor
from tests.test_dagster_assets import extract, import_sample

AGENT = "erase-me"
# Words that appear only in this conversation (names, places, a pet): the probes.
SECRETS = ["Zorblaxine", "Quuxcorp", "Vantorreal", "Blimpkin"]
LINES = [
    ("Maya", "My sister Zorblaxine works at Quuxcorp in Vantorreal."),
    ("Maya", "Zorblaxine has a dog called Blimpkin."),
    ("Maya", "I moved to Vantorreal in 2021 and I love it there."),
    ("Rui", "Quuxcorp is hiring engineers in Vantorreal this spring."),
    ("Maya", "Blimpkin is a very happy dog and Zorblaxine walks him daily."),
]


def _write_conversation(path: Path) -> None:
    path.write_text("\n".join(json.dumps({
        "agent_id": AGENT, "session_id": "s1", "speaker": speaker, "text": text,
        "occurred_at": f"2024-03-0{i + 1}T10:00:00+00:00", "message_id": f"e{i}"})
        for i, (speaker, text) in enumerate(LINES)) + "\n")


def _scan(root: Path) -> dict[str, list[str]]:
    """Files of the Dagster instance that contain any probe word (case-insensitive)."""
    found: dict[str, list[str]] = {}
    for f in root.rglob("*"):
        if f.is_file():
            data = f.read_bytes().lower()
            hits = [w for w in SECRETS if w.lower().encode() in data]
            if hits:
                found[str(f.relative_to(root))] = hits
    return found


def _run_everything(instance, resources, path: Path) -> None:
    assert import_sample(instance, resources, path).success
    assert extract(instance, resources, agent=AGENT).success          # with the per-agent checks
    assert materialize(CONSOLIDATION_ASSETS, instance=instance, resources=resources,
                       partition_key=AGENT).success


def _client(url: str, embeddings, name: str, *args, **kwargs):
    from arandu_pipelines.client import MemoryClient

    async def go():
        async with MemoryClient(url, embeddings=embeddings) as client:
            return await getattr(client, name)(*args, **kwargs)

    return asyncio.run(go())


def test_dagster_storage_holds_no_erasable_text(instance, resources, tmp_path, fresh_db_url, embeddings):
    path = tmp_path / "secret.jsonl"
    _write_conversation(path)
    _run_everything(instance, resources, path)
    root = Path(instance.root_directory)
    # the memory holds the words (so the probe is meaningful) ...
    from tests.conftest import rows
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts WHERE agent_id = %s "
                              "AND fact_text ILIKE '%%Zorblaxine%%'", (AGENT,))[0][0] > 0
    # ... and runs did materialize with metadata (previews, check results)
    assert any(root.rglob("*.db"))
    # erase one speaker, then the whole agent: Dagster's storage never held their words
    _client(fresh_db_url, embeddings, "delete_messages", AGENT, speaker="Rui")
    assert _scan(root) == {}
    _client(fresh_db_url, embeddings, "delete_all", AGENT)
    assert _scan(root) == {}


def test_delete_all_removes_the_agents_partition(instance, resources, tmp_path, fresh_db_url, embeddings):
    path = tmp_path / "secret.jsonl"
    _write_conversation(path)
    _run_everything(instance, resources, path)
    assert AGENT in instance.get_dynamic_partitions(AGENTS)
    _client(fresh_db_url, embeddings, "delete_all", AGENT)
    result = agent_partitions_sensor(build_sensor_context(
        instance=instance, resources={"memory": resources["memory"]}))
    (request,) = result.dynamic_partitions_requests
    assert type(request).__name__ == "DeleteDynamicPartitionsRequest"
    assert list(request.partition_keys) == [AGENT]
