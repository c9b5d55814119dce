"""An import chunk whose upsert partly fails: the failure is reported and the message retried,
never marked extracted with facts silently missing (issue 14 leftover: `_extract_chunk` dropped
the pipeline's per-item upsert errors). And events another runner extracted meanwhile are
counted as such, not as "extracted: 0"."""

from __future__ import annotations

import psycopg

from tests.conftest import rows

A = "upsert-errors"
WHEN = "2024-05-08T10:00:00+00:00"
TEXTS = ["My sister Maria lives in Porto.", "Carlos works at Vertix since 2021.",
         "I moved to Lisbon last year."]


def _sql(url: str, sql: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def _rows() -> list[dict]:
    return [{"agent_id": A, "session_id": "s", "speaker": "Rafael", "text": t, "occurred_at": WHEN,
             "message_id": f"m{i}"} for i, t in enumerate(TEXTS)]


# A real refusal by the database (no mock): facts naming Vertix cannot be inserted.
REFUSE = """
CREATE FUNCTION refuse_vertix() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.fact_text ILIKE '%vertix%' THEN RAISE EXCEPTION 'refused by test trigger'; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER refuse_vertix BEFORE INSERT ON memory_facts FOR EACH ROW EXECUTE FUNCTION refuse_vertix();
"""


async def test_a_fact_the_database_refuses_is_reported_and_its_message_retried(memory, fresh_db_url):
    _sql(fresh_db_url, REFUSE)
    report = await memory.import_messages(_rows(), chunk_size=64)
    assert any("refused by test trigger" in e for e in report.extraction_errors), report.extraction_errors
    status = dict(rows(fresh_db_url, "SELECT message_id, extraction_status FROM memory_events "
                                     "WHERE agent_id = %s", (A,)))
    assert status == {"m0": "done", "m1": "failed", "m2": "done"}
    assert report.events_extracted == 2
    (err,), = rows(fresh_db_url, "SELECT extraction_error FROM memory_events WHERE message_id = 'm1'")
    assert "could not be stored" in err and "refused by test trigger" in err
    facts = [t for (t,) in rows(fresh_db_url, "SELECT fact_text FROM memory_facts WHERE agent_id = %s", (A,))]
    assert any("Maria" in t for t in facts) and not any("Vertix" in t for t in facts)

    _sql(fresh_db_url, "DROP TRIGGER refuse_vertix ON memory_facts")
    retry = await memory.extract_pending(A)
    assert retry.events_extracted == 1 and not retry.extraction_errors
    assert rows(fresh_db_url, "SELECT count(*) FILTER (WHERE extraction_status = 'done'), count(*) "
                              "FROM memory_events WHERE agent_id = %s", (A,)) == [(3, 3)]
    facts = [t for (t,) in rows(fresh_db_url, "SELECT fact_text FROM memory_facts WHERE agent_id = %s "
                                              "AND valid_to IS NULL", (A,))]
    assert any("Vertix" in t for t in facts)
    assert len(facts) == len(set(facts)), facts  # the retry stored the missing fact once


async def test_events_extracted_by_another_runner_are_counted_and_shown(memory, fresh_db_url, capsys):
    """Before: an import racing `arandu dev`'s extraction sensor counted only its own messages:
    the CLI showed "extracted: 0" (or nothing at all) for messages that were in fact done."""
    from arandu_pipelines.cli import _print_report
    from arandu_pipelines.config import MemoryConfig
    from arandu_pipelines.types import ImportReport
    from arandu_pipelines.write.importer import _extract_chunk, _pending_events

    await memory.import_messages(_rows(), extract=False)
    events = await _pending_events(memory, A, 5, 100)
    other = await memory.extract_pending(A)  # the other runner gets there first
    assert other.events_extracted == 3
    report = ImportReport(rows_read=3, events_inserted=3)
    await _extract_chunk(memory, memory._pipeline, A, events, MemoryConfig(), report, None, None)
    assert (report.events_extracted, report.events_extracted_elsewhere) == (0, 3)
    _print_report(report)
    out = capsys.readouterr().out
    assert "extracted: 0 messages" in out and "+ 3 already extracted by another runner" in out
