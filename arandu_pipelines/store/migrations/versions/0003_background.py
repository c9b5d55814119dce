"""Background layer: extraction bookkeeping time and indexes for the sensors and jobs.

* ``memory_events.extraction_updated_at``: when the extraction status or attempt count last
  changed, kept by a trigger so every writer (the write pipeline, the importer, re-extraction)
  stamps it without knowing about it. The pending-events sensor uses it to back off retries of
  failed events (1, 2, 4, ... minutes) and the health check uses ``created_at`` for its SLA.
* ``memory_entities (agent_id, community_key)`` and ``memory_clusters (agent_id, entity_key)`` for
  the community and clustering jobs (every index leads with agent_id, as in 0001). The sensor's
  scan over all agents' unextracted events uses 0001's partial ``ix_events_agent_pending``.

Revision ID: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memory_events ADD COLUMN IF NOT EXISTS extraction_updated_at timestamptz")
    op.execute("""
    CREATE OR REPLACE FUNCTION arandu_touch_extraction() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.extraction_status IS DISTINCT FROM OLD.extraction_status
           OR NEW.extraction_attempts IS DISTINCT FROM OLD.extraction_attempts THEN
            NEW.extraction_updated_at := now();
        END IF;
        RETURN NEW;
    END $$""")
    op.execute("DROP TRIGGER IF EXISTS trg_events_extraction_touch ON memory_events")
    op.execute(
        "CREATE TRIGGER trg_events_extraction_touch BEFORE UPDATE OF extraction_status, "
        "extraction_attempts ON memory_events FOR EACH ROW EXECUTE FUNCTION arandu_touch_extraction()"
    )
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_entities_agent_community ON memory_entities "
        "(agent_id, community_key) WHERE community_key IS NOT NULL"
    )
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_clusters_agent_entity ON memory_clusters (agent_id, entity_key)"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_clusters_agent_entity")
    op.execute("DROP INDEX IF EXISTS ix_entities_agent_community")
    op.execute("DROP TRIGGER IF EXISTS trg_events_extraction_touch ON memory_events")
    op.execute("DROP FUNCTION IF EXISTS arandu_touch_extraction()")
    op.execute("ALTER TABLE memory_events DROP COLUMN IF EXISTS extraction_updated_at")
