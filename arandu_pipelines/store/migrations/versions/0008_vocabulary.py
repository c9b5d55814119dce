"""memory_vocabulary: the words people wrote, per agent, for the query's vocabulary bridge.

BM25 matches the query's english stems against the messages' stems (migration 0002 keeps their
document frequencies). A typo on either side ("dacning"), a hyphen form ("destress" against
"de-stress") or a word the stemmer cuts oddly ("educaton" stays whole while "education" becomes
"educ") never meet there. The read side's vocabulary bridge (read/bridge.py) compares the query's
*surface* words with the surface words of the agent's messages, so it needs them, with the stem
each one is indexed under:

- `memory_vocabulary(agent_id, word, lexeme, df)`: `word` is a lower-cased whole word or whole
  hyphenated word of a message (the default parser's token types 1, 2, 16, 17: letters only; the
  parts of a hyphenated word are words of their own already through the tsvector), `lexeme` its
  english stem (stop words have none and are not kept), `df` in how many messages it occurs.
  `word` is COLLATE "C" so that the key's btree serves a first-letter range scan.

Kept by statement-level triggers over transition tables on memory_events, as 0002 does for the
term statistics: one aggregated upsert per INSERT statement, one decrement per DELETE statement
(a word whose count reaches 0 is removed: erasing messages erases their words too). Messages'
texts are immutable, so no UPDATE trigger. The key leads with agent_id.

Revision ID: 0008
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# Whole words and whole hyphenated words of the default parser (see ts_token_type('default')).
_WORDS = """
    SELECT n.agent_id, lower(t.token) AS word, count(DISTINCT n.id) AS n
    FROM {rows} n, ts_parse('default', n.text) AS t
    WHERE t.tokid IN (1, 2, 16, 17) AND length(t.token) BETWEEN 2 AND 40
    GROUP BY n.agent_id, lower(t.token)
"""

_FUNCS = f"""
CREATE OR REPLACE FUNCTION arandu_vocabulary_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_vocabulary AS v (agent_id, word, lexeme, df)
    SELECT w.agent_id, w.word, (ts_lexize('english_stem', w.word))[1], w.n
    FROM ({_WORDS.format(rows="arandu_new_rows")}) w
    WHERE (ts_lexize('english_stem', w.word))[1] IS NOT NULL
    ORDER BY w.agent_id, w.word
    ON CONFLICT (agent_id, word) DO UPDATE SET df = v.df + EXCLUDED.df;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION arandu_vocabulary_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH gone AS ({_WORDS.format(rows="arandu_old_rows")} ORDER BY 1, 2)
    UPDATE memory_vocabulary v SET df = v.df - g.n
    FROM gone g WHERE v.agent_id = g.agent_id AND v.word = g.word;
    DELETE FROM memory_vocabulary v USING (SELECT DISTINCT agent_id FROM arandu_old_rows) a
    WHERE v.agent_id = a.agent_id AND v.df <= 0;
    RETURN NULL;
END $$;
"""


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS fuzzystrmatch")
    op.execute("""
    CREATE TABLE memory_vocabulary (
        agent_id text NOT NULL,
        word text COLLATE "C" NOT NULL,
        lexeme text NOT NULL,
        df bigint NOT NULL,
        PRIMARY KEY (agent_id, word)
    )""")
    op.execute(_FUNCS)
    op.execute(
        "CREATE TRIGGER arandu_e_vocabulary_ins AFTER INSERT ON memory_events "
        "REFERENCING NEW TABLE AS arandu_new_rows FOR EACH STATEMENT "
        "EXECUTE FUNCTION arandu_vocabulary_add()"
    )
    op.execute(
        "CREATE TRIGGER arandu_e_vocabulary_del AFTER DELETE ON memory_events "
        "REFERENCING OLD TABLE AS arandu_old_rows FOR EACH STATEMENT "
        "EXECUTE FUNCTION arandu_vocabulary_remove()"
    )
    # Backfill for databases that already hold messages.
    op.execute(f"""
    INSERT INTO memory_vocabulary (agent_id, word, lexeme, df)
    SELECT w.agent_id, w.word, (ts_lexize('english_stem', w.word))[1], w.n
    FROM ({_WORDS.format(rows="memory_events")}) w
    WHERE (ts_lexize('english_stem', w.word))[1] IS NOT NULL""")


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS arandu_e_vocabulary_ins ON memory_events")
    op.execute("DROP TRIGGER IF EXISTS arandu_e_vocabulary_del ON memory_events")
    op.execute("DROP FUNCTION IF EXISTS arandu_vocabulary_add()")
    op.execute("DROP FUNCTION IF EXISTS arandu_vocabulary_remove()")
    op.execute("DROP TABLE IF EXISTS memory_vocabulary")
