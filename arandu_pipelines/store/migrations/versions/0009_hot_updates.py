"""Room on the heap pages of facts and entities, so their frequent updates are HOT.

`retrieve()` bumps `times_retrieved` / `last_retrieved_at` of every fact it returns (read/counters.py
coalesces the bumps into one UPDATE a second), reconciliation confirms and supersedes facts, and
every mention updates its entity. None of those columns is indexed, so Postgres could update the
rows in place on the same page (a heap-only tuple: no new entry in any index) — but only when the
page has room. At the default fillfactor (100) the import packs the pages full, so almost every
update wrote a new tuple elsewhere and inserted it into every index of the table, including the
HNSW vector index (a graph search per row) and the GIN text index. Measured on conv-26 (273
facts, 150 questions, embedded server): 13 % of the facts' updates were HOT and one counters flush
cost 52 ms of server CPU (43k buffers); at fillfactor 80, 67 % HOT and 13 ms (11k buffers). That
flush runs on the serving process's connections, on the cores answering the next query.

The setting applies to pages written from now on; existing rows move to roomier pages as they are
updated (or at a VACUUM FULL an operator may choose to run). Downgrade restores the default.

Revision ID: 0009
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

FILLFACTOR = 80
TABLES = ("memory_facts", "memory_entities")


def upgrade() -> None:
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} SET (fillfactor = {FILLFACTOR})")


def downgrade() -> None:
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} RESET (fillfactor)")
