"""memory_event_units: one vector per sentence unit ("Speaker: sentence") of a message.

The write pipeline embeds every sentence of a message once and stores the message's vector as
the length-weighted mean of them (write/pipeline.py `_embed`). A long message's mean is dominated
by its other sentences, so a question about one of them can miss it. Until issue 19 the rule
extractor's restated-sentence facts carried those sentence vectors and acted as a sentence-level
index; precision-first extraction dropped them, and this table keeps that index on the message
itself: the semantic message signal scores an event by max(event vector, best unit).

Only messages with more than one unit get rows (a one-sentence message's unit IS its event
vector). Keys lead with agent_id like 0006's, and the foreign key to the event cascades, so
deleting a message (delete_messages, delete_all) deletes its units. The vector index is HNSW over
the vectors cast to halfvec, as 0005 does for events and facts; agent filtering is the read
path's iterative scan (read/semantic.py), the primary key's btree serves small agents' exact scan.

Revision ID: 0007
"""

from __future__ import annotations

from alembic import context, op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _dim() -> int:
    dim = int(context.config.attributes.get("embedding_dimensions", 384))
    if not 1 <= dim <= 16000:
        raise ValueError(f"embedding_dimensions must be between 1 and 16000, got {dim}")
    return dim


def upgrade() -> None:
    d = _dim()
    op.execute(f"""
        CREATE TABLE memory_event_units (
            agent_id text NOT NULL,
            event_id uuid NOT NULL,
            unit_idx int NOT NULL,
            embedding_vec vector({d}),
            PRIMARY KEY (agent_id, event_id, unit_idx),
            CONSTRAINT memory_event_units_event_fkey FOREIGN KEY (agent_id, event_id)
                REFERENCES memory_events (agent_id, id) ON DELETE CASCADE
        )""")
    op.execute("CREATE INDEX ix_event_units_embedding ON memory_event_units USING hnsw "
               f"((embedding_vec::halfvec({d})) halfvec_cosine_ops)")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS memory_event_units")
