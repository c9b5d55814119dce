"""Agents are dynamic partitions: one partition key per agent_id, added by the sensors.

Every memory table is scoped by agent, so "materialize memory_facts for partition X" means "bring
agent X's facts up to date" and the UI shows, per agent, when each table was last rebuilt.
Dagster recommends staying below roughly 100k partitions per asset; docs/dagster.md describes
how to shard agents into hash buckets past that.
"""

from dagster import DynamicPartitionsDefinition

AGENTS = "agents"
agents_partitions = DynamicPartitionsDefinition(name=AGENTS)


def valid_partition_key(key: str) -> bool:
    """Whether Dagster accepts `key` as a partition key (no '...', no control characters)."""
    return "..." not in key and not any(ch in key for ch in "\a\b\f\n\r\t\v\0")
