"""Which messages confirmed a fact: one row per (fact, message that restated it).

Reconciliation merges a restatement into the fact it repeats (NOOP): "Jon is staying positive"
said again three sessions later reinforces the existing fact instead of storing a second one.
Until now only a counter (`reinforcement_count`) and `last_confirmed_at` remembered that; the
restating message itself was lost, so `get()`/`get_all()` could say where a fact was first stated
but not where it was said again. This table keeps the link: `get_all()` shows the fact as
"stated in X, confirmed in Y, Z" (`FactDetail.confirmed_event_ids`). Both ends cascade, so
erasing the confirming message (or the fact) removes the row with it.

Revision ID: 0011
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE memory_fact_confirmations (
        agent_id text NOT NULL,
        fact_id uuid NOT NULL,
        event_id uuid NOT NULL,
        confirmed_at timestamptz NOT NULL,
        PRIMARY KEY (agent_id, fact_id, event_id),
        -- agent-carrying keys, as every foreign key since migration 0006
        CONSTRAINT memory_fact_confirmations_fact_fkey FOREIGN KEY (agent_id, fact_id)
            REFERENCES memory_facts (agent_id, id) ON DELETE CASCADE,
        CONSTRAINT memory_fact_confirmations_event_fkey FOREIGN KEY (agent_id, event_id)
            REFERENCES memory_events (agent_id, id) ON DELETE CASCADE
    )""")
    # the cascade from memory_events looks rows up by event
    op.execute("CREATE INDEX ix_fact_confirmations_agent_event ON memory_fact_confirmations (agent_id, event_id)")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS memory_fact_confirmations")
