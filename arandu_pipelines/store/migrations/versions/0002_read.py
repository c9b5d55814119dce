"""Read-side schema: per-agent term statistics for BM25, and the indexes the read plan uses.

Postgres full-text ranking (`ts_rank`) has no inverse document frequency, so a query word that
occurs in half of an agent's messages (a speaker's name) weighs as much as a rare one. BM25 needs
document frequencies per agent; counting them at query time costs a heap visit per matching row
(tens of milliseconds for an agent with 100,000 facts). So they are kept up to date here, by
statement-level triggers over transition tables: one aggregated upsert per INSERT/DELETE
statement, whatever its row count, so set-based imports stay set-based.

- `memory_term_stats(agent_id, kind, lexeme, df)`: in how many rows of the agent the lexeme occurs
  (`kind` 'e' = memory_events, 'f' = memory_facts, all versions).
- `memory_doc_stats(agent_id, kind, n_docs, total_len)`: row count and summed tsvector length,
  for BM25's average document length; `n_docs` also tells the read plan whether an agent is small
  enough for exact vector search.

Upserts are issued in (agent_id, lexeme) order so concurrent writers lock rows in the same order
and cannot deadlock. Texts are immutable in this schema (events never change; facts are
superseded, not edited), but an UPDATE that does change a fact's text is handled too.

Revision ID: 0002
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_FUNCS = """
CREATE OR REPLACE FUNCTION arandu_term_stats_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k char(1) := TG_ARGV[0];
BEGIN
    INSERT INTO memory_term_stats AS s (agent_id, kind, lexeme, df)
    SELECT n.agent_id, k, l.lexeme, count(*)
    FROM arandu_new_rows n, unnest(n.search_vector) AS l
    GROUP BY n.agent_id, l.lexeme
    ORDER BY n.agent_id, l.lexeme
    ON CONFLICT (agent_id, kind, lexeme) DO UPDATE SET df = s.df + EXCLUDED.df;
    INSERT INTO memory_doc_stats AS d (agent_id, kind, n_docs, total_len)
    SELECT n.agent_id, k, count(*), coalesce(sum(length(n.search_vector)), 0)
    FROM arandu_new_rows n GROUP BY n.agent_id ORDER BY n.agent_id
    ON CONFLICT (agent_id, kind) DO UPDATE
        SET n_docs = d.n_docs + EXCLUDED.n_docs, total_len = d.total_len + EXCLUDED.total_len;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION arandu_term_stats_remove() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k char(1) := TG_ARGV[0];
BEGIN
    WITH gone AS (
        SELECT o.agent_id, l.lexeme, count(*) AS n
        FROM arandu_old_rows o, unnest(o.search_vector) AS l
        GROUP BY o.agent_id, l.lexeme ORDER BY o.agent_id, l.lexeme
    )
    UPDATE memory_term_stats s SET df = s.df - g.n
    FROM gone g WHERE s.agent_id = g.agent_id AND s.kind = k AND s.lexeme = g.lexeme;
    DELETE FROM memory_term_stats s USING (SELECT DISTINCT agent_id FROM arandu_old_rows) a
    WHERE s.agent_id = a.agent_id AND s.kind = k AND s.df <= 0;
    WITH gone AS (
        SELECT o.agent_id, count(*) AS n, coalesce(sum(length(o.search_vector)), 0) AS len
        FROM arandu_old_rows o GROUP BY o.agent_id ORDER BY o.agent_id
    )
    UPDATE memory_doc_stats d SET n_docs = greatest(d.n_docs - g.n, 0),
        total_len = greatest(d.total_len - g.len, 0)
    FROM gone g WHERE d.agent_id = g.agent_id AND d.kind = k;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION arandu_term_stats_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k char(1) := TG_ARGV[0];
BEGIN
    -- Only rows whose indexed text changed count; the usual UPDATEs (valid_to, counters) leave
    -- here after one join.
    IF NOT EXISTS (SELECT 1 FROM arandu_old_rows o JOIN arandu_new_rows n ON n.id = o.id
                   WHERE n.search_vector IS DISTINCT FROM o.search_vector) THEN
        RETURN NULL;
    END IF;
    WITH ch AS (
        SELECT o.agent_id, o.search_vector AS ov, n.search_vector AS nv
        FROM arandu_old_rows o JOIN arandu_new_rows n ON n.id = o.id
        WHERE n.search_vector IS DISTINCT FROM o.search_vector
    ), delta AS (
        SELECT agent_id, lexeme, sum(n) AS n FROM (
            SELECT ch.agent_id, l.lexeme, 1 AS n FROM ch, unnest(ch.nv) l
            UNION ALL
            SELECT ch.agent_id, l.lexeme, -1 FROM ch, unnest(ch.ov) l
        ) x GROUP BY agent_id, lexeme HAVING sum(n) <> 0
    )
    INSERT INTO memory_term_stats AS s (agent_id, kind, lexeme, df)
    SELECT agent_id, k, lexeme, n FROM delta ORDER BY agent_id, lexeme
    ON CONFLICT (agent_id, kind, lexeme) DO UPDATE SET df = s.df + EXCLUDED.df;
    UPDATE memory_doc_stats d SET total_len = d.total_len + x.delta FROM (
        SELECT o.agent_id, sum(coalesce(length(n.search_vector), 0)
                               - coalesce(length(o.search_vector), 0)) AS delta
        FROM arandu_old_rows o JOIN arandu_new_rows n ON n.id = o.id
        WHERE n.search_vector IS DISTINCT FROM o.search_vector GROUP BY o.agent_id) x
    WHERE d.agent_id = x.agent_id AND d.kind = k;
    RETURN NULL;
END $$;
"""


def upgrade() -> None:
    op.execute("""
    CREATE TABLE memory_term_stats (
        agent_id text NOT NULL,
        kind char(1) NOT NULL,
        lexeme text NOT NULL,
        df bigint NOT NULL,
        PRIMARY KEY (agent_id, kind, lexeme)
    )""")
    op.execute("""
    CREATE TABLE memory_doc_stats (
        agent_id text NOT NULL,
        kind char(1) NOT NULL,
        n_docs bigint NOT NULL DEFAULT 0,
        total_len bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (agent_id, kind)
    )""")
    op.execute(_FUNCS)
    for table, kind in (("memory_events", "e"), ("memory_facts", "f")):
        op.execute(
            f"CREATE TRIGGER arandu_{kind}_stats_ins AFTER INSERT ON {table} "
            "REFERENCING NEW TABLE AS arandu_new_rows FOR EACH STATEMENT "
            f"EXECUTE FUNCTION arandu_term_stats_add('{kind}')"
        )
        op.execute(
            f"CREATE TRIGGER arandu_{kind}_stats_del AFTER DELETE ON {table} "
            "REFERENCING OLD TABLE AS arandu_old_rows FOR EACH STATEMENT "
            f"EXECUTE FUNCTION arandu_term_stats_remove('{kind}')"
        )
    op.execute(
        "CREATE TRIGGER arandu_f_stats_upd AFTER UPDATE ON memory_facts "
        "REFERENCING OLD TABLE AS arandu_old_rows NEW TABLE AS arandu_new_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION arandu_term_stats_change('f')"
    )
    # Backfill for databases that already hold rows.
    op.execute("""
    INSERT INTO memory_term_stats (agent_id, kind, lexeme, df)
    SELECT agent_id, 'e', l.lexeme, count(*) FROM memory_events, unnest(search_vector) l
    GROUP BY 1, 3
    UNION ALL
    SELECT agent_id, 'f', l.lexeme, count(*) FROM memory_facts, unnest(search_vector) l
    GROUP BY 1, 3""")
    op.execute("""
    INSERT INTO memory_doc_stats (agent_id, kind, n_docs, total_len)
    SELECT agent_id, 'e', count(*), coalesce(sum(length(search_vector)), 0) FROM memory_events
    GROUP BY 1
    UNION ALL
    SELECT agent_id, 'f', count(*), coalesce(sum(length(search_vector)), 0) FROM memory_facts
    GROUP BY 1""")
    # Keep embeddings inline in the heap row: a 384-d vector (1.5 kB) pushes a message row past
    # the TOAST threshold, and every similarity computed then costs a TOAST fetch (3x the buffer
    # reads of the exact scan over an agent's messages). Applies to rows written from now on.
    for table in ("memory_events", "memory_facts"):
        op.execute(f"ALTER TABLE {table} ALTER COLUMN embedding_vec SET STORAGE PLAIN")
    # Session neighbours (context turns) and the fact -> source-event mapping are read by id
    # lists; these cover the remaining access paths of the read plan.
    op.execute(
        "CREATE INDEX ix_events_agent_session_time ON memory_events "
        "(agent_id, session_id, occurred_at, id)"
    )
    op.execute(
        "CREATE INDEX ix_facts_agent_valid_from ON memory_facts (agent_id, valid_from DESC, id) "
        "WHERE valid_to IS NULL"
    )


def downgrade() -> None:
    for table in ("memory_events", "memory_facts"):
        op.execute(f"ALTER TABLE {table} ALTER COLUMN embedding_vec SET STORAGE EXTERNAL")
    op.execute("DROP INDEX IF EXISTS ix_facts_agent_valid_from")
    op.execute("DROP INDEX IF EXISTS ix_events_agent_session_time")
    for table, kind in (("memory_events", "e"), ("memory_facts", "f")):
        op.execute(f"DROP TRIGGER IF EXISTS arandu_{kind}_stats_ins ON {table}")
        op.execute(f"DROP TRIGGER IF EXISTS arandu_{kind}_stats_del ON {table}")
    op.execute("DROP TRIGGER IF EXISTS arandu_f_stats_upd ON memory_facts")
    op.execute("DROP FUNCTION IF EXISTS arandu_term_stats_add()")
    op.execute("DROP FUNCTION IF EXISTS arandu_term_stats_remove()")
    op.execute("DROP FUNCTION IF EXISTS arandu_term_stats_change()")
    op.execute("DROP TABLE IF EXISTS memory_doc_stats")
    op.execute("DROP TABLE IF EXISTS memory_term_stats")
