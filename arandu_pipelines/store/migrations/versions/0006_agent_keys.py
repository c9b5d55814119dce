"""Keys that lead with agent_id, so the schema can be distributed by agent (e.g. Citus).

Until 0005 every table's primary key was a bare uuid and the foreign keys joined on that uuid
alone, so a fact could (as far as the schema knew) point at another agent's message, and a table
sharded by `agent_id` could not enforce its keys on one shard. Here:

- primary key `(agent_id, id)` on every table keyed by a uuid (memory_term_stats and
  memory_doc_stats were already `(agent_id, ...)`);
- every foreign key carries the agent: `(agent_id, fact_id) REFERENCES memory_facts (agent_id, id)`;
  `ON DELETE SET NULL` uses PostgreSQL 15's column-list form `SET NULL (fact_id)` so deleting the
  referenced row clears the reference and never the (NOT NULL) agent_id;
- the unique keys the ON CONFLICT clauses name already led with agent_id (0001) and are kept.

Existing rows are kept: only constraints and indexes are rebuilt. A row referencing another
agent's row (never written by this library) makes the upgrade stop at the new foreign key, with
PostgreSQL naming the constraint and the key, and changes nothing (the migration is one
transaction).

Lookups by id alone (`WHERE id = ANY(:ids)` on the tables below, in the write pipeline, the
retrieval counters and background jobs) lost the index the old bare primary key gave them; a
plain, non-unique index on `id` keeps them fast. Non-unique indexes need not lead with the
distribution column.

memory_quarantine is the exception: its agent_id is NULL for an import row whose agent_id was
missing or invalid, so it keeps its bare `id` key and stays a local (undistributed) table.

Revision ID: 0006
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import text

from arandu_pipelines.errors import DatabaseError

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# Tables whose primary key becomes (agent_id, id), parents before children.
KEYED = (
    "memory_events",
    "memory_clusters",
    "memory_facts",
    "memory_fact_entity_links",
    "memory_entities",
    "memory_entity_aliases",
    "memory_entity_relationships",
    "memory_meta_observations",
    "memory_attribute_registry",
    "memory_intentions",
    "session_observations",
)

# (table, column, referenced table, on delete): the foreign keys of 0001, by their default names.
FOREIGN_KEYS = (
    ("memory_facts", "source_event_id", "memory_events", "CASCADE"),
    ("memory_facts", "supersedes_fact_id", "memory_facts", "SET NULL"),
    ("memory_facts", "cluster_id", "memory_clusters", "SET NULL"),
    ("memory_fact_entity_links", "fact_id", "memory_facts", "CASCADE"),
    ("memory_entity_relationships", "evidence_fact_id", "memory_facts", "SET NULL"),
    ("memory_entity_relationships", "evidence_event_id", "memory_events", "SET NULL"),
    ("memory_intentions", "source_event_id", "memory_events", "CASCADE"),
    ("session_observations", "merged_into_id", "session_observations", "SET NULL"),
)

# Tables read by id alone somewhere in the library: they keep a (non-unique) index on id.
ID_INDEXES = (
    ("memory_events", "ix_events_id"),
    ("memory_facts", "ix_facts_id"),
    ("memory_entities", "ix_entities_id"),
    ("memory_clusters", "ix_clusters_id"),
)


def _fk_name(table: str, column: str) -> str:
    return f"{table}_{column}_fkey"


def _drop_foreign_keys() -> None:
    for table, column, _ref, _action in FOREIGN_KEYS:
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {_fk_name(table, column)}")


def require_pg15(server_version_num: int) -> None:
    """`ON DELETE SET NULL (column)` is PostgreSQL 15 syntax; say so rather than a syntax error."""
    if server_version_num < 150000:
        raise DatabaseError(
            f"this PostgreSQL server is version {server_version_num // 10000}; arandu-pipelines "
            "needs PostgreSQL 15 or newer (DATABASE_URL): its foreign keys use "
            "ON DELETE SET NULL (column)"
        )


def upgrade() -> None:
    require_pg15(int(op.get_bind().execute(text("SHOW server_version_num")).scalar_one()))
    _drop_foreign_keys()
    for table in KEYED:
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey")
        op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_pkey PRIMARY KEY (agent_id, id)")
    for table, index in ID_INDEXES:
        op.execute(f"CREATE INDEX {index} ON {table} (id)")
    for table, column, ref, action in FOREIGN_KEYS:
        on_delete = f"SET NULL ({column})" if action == "SET NULL" else action
        op.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {_fk_name(table, column)} "
            f"FOREIGN KEY (agent_id, {column}) REFERENCES {ref} (agent_id, id) "
            f"ON DELETE {on_delete}"
        )


def downgrade() -> None:
    _drop_foreign_keys()
    for _table, index in ID_INDEXES:
        op.execute(f"DROP INDEX IF EXISTS {index}")
    for table in KEYED:
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey")
        op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_pkey PRIMARY KEY (id)")
    for table, column, ref, action in FOREIGN_KEYS:
        op.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {_fk_name(table, column)} "
            f"FOREIGN KEY ({column}) REFERENCES {ref} (id) ON DELETE {action}"
        )
