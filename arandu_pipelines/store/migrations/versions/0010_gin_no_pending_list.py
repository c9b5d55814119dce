"""The text indexes take new rows at once instead of in a pending list that every search scans.

A GIN index with `fastupdate` (Postgres's default) appends new rows' entries to an unsorted pending
list and merges it into the index later (at VACUUM, or when it outgrows gin_pending_list_limit,
4 MB). Every search of the index scans that whole list. Messages and facts arrive continuously
(an import, the sensor-driven extraction runs), so the keyword searches of `retrieve()` — BM25
over messages and over facts, the multi-session phrase probe (read/multihop.py), the name lookups
by trigram — read a backlog that grows with the write load, exactly when they share the CPU
with it. Measured on conv-26 right after its import (pg_stat_statements, 150 questions): the
facts' keyword statements read 1,415 / 1,744 / 1,227 buffers per call with the list and 534 /
1,011 / ~600 without; after a few-thousand-row import without a vacuum, one phrase probe read
177 pages to find 30 rows, and the planner, seeing that cost, chose a scan of the agent's
messages instead of the index. Without the list each insert pays its index entries at once (the
work the merge would do later anyway), so a search costs the same during an import as after it.

Revision ID: 0010
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

INDEXES = ("ix_events_agent_fts", "ix_facts_agent_fts", "ix_entities_agent_name_trgm")


def upgrade() -> None:
    for index in INDEXES:
        op.execute(f"ALTER INDEX IF EXISTS {index} SET (fastupdate = off)")
    # entries already pending move into the index now, not at the next vacuum
    op.execute("SELECT gin_clean_pending_list(c.oid) FROM pg_class c "
               "WHERE c.relname IN ('ix_events_agent_fts', 'ix_facts_agent_fts', 'ix_entities_agent_name_trgm') "
               "AND c.relkind = 'i'")


def downgrade() -> None:
    for index in INDEXES:
        op.execute(f"ALTER INDEX IF EXISTS {index} RESET (fastupdate)")
