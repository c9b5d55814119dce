"""A restated fact keeps a link to every message that confirmed it (migration 0011).

Reconciliation merges "Still working at Acme" into the existing "Rafael works at Acme" (NOOP);
the fact's sources must then say "stated in message 1, confirmed in message 2", not only a
counter. Erasing the confirming message removes the link; a duplicate inside the fact's own
message is not a confirmation; `delete_all` leaves no row behind."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.conftest import rows


def day(d: int) -> datetime:
    return datetime(2023, 5, d, 12, tzinfo=UTC)


async def test_a_restatement_is_recorded_as_a_confirmation_of_the_fact(memory):
    a = await memory.write("u", "I work at Acme.", "Rafael", occurred_at=day(1))
    b = await memory.write("u", "Still working at Acme though.", "Rafael", occurred_at=day(5))
    c = await memory.write("u", "I am still working at Acme.", "Rafael", occurred_at=day(9))
    fact_id = a.facts_added[0].fact_id
    assert [f.fact_id for f in c.facts_unchanged] == [fact_id]
    page = await memory.get_all("u")
    (fact,) = [f for f in page.facts if f.fact_id == fact_id]
    assert fact.source_event_id == a.event_id
    assert fact.confirmed_event_ids == [b.event_id, c.event_id]  # oldest first
    one = await memory.get("u", fact_id)
    assert one is not None and one.confirmed_event_ids == [b.event_id, c.event_id]


async def test_a_new_fact_has_no_confirmation(memory):
    await memory.write("u", "I work at Acme.", "Rafael", occurred_at=day(1))
    await memory.write("u", "I live in Porto.", "Rafael", occurred_at=day(2))
    assert all(f.confirmed_event_ids == [] for f in (await memory.get_all("u")).facts)


async def test_a_duplicate_within_the_facts_own_message_is_not_a_confirmation(memory, fresh_db_url):
    await memory.write("u", "I work at Acme. I work at Acme.", "Rafael", occurred_at=day(1))
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_fact_confirmations") == [(0,)]


async def test_erasing_the_confirming_message_removes_the_confirmation(memory, fresh_db_url):
    await memory.write("u", "I work at Acme.", "Rafael", occurred_at=day(1), message_id="m1")
    await memory.write("u", "Still working at Acme though.", "Rafael", occurred_at=day(5), message_id="m2")
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_fact_confirmations") == [(1,)]
    report = await memory.delete_messages("u", message_ids=["m2"])
    (fact,) = (await memory.get_all("u")).facts
    assert fact.fact_text == "Rafael works at Acme" and fact.confirmed_event_ids == []
    # the counter no longer counts the erased restatement
    assert fact.reinforcement_count == 0 and report.updated["facts_unconfirmed"] == 1
    assert rows(fresh_db_url, "SELECT last_confirmed_at FROM memory_facts") == [(None,)]


async def test_erasing_one_of_two_confirmations_keeps_the_other_and_its_time(memory, fresh_db_url):
    await memory.write("u", "I work at Acme.", "Rafael", occurred_at=day(1), message_id="m1")
    await memory.write("u", "Still working at Acme though.", "Rafael", occurred_at=day(5), message_id="m2")
    c = await memory.write("u", "I am still working at Acme.", "Rafael", occurred_at=day(9), message_id="m3")
    await memory.delete_messages("u", message_ids=["m3"])
    (fact,) = (await memory.get_all("u")).facts
    assert fact.reinforcement_count == 1 and len(fact.confirmed_event_ids) == 1
    assert c.event_id not in fact.confirmed_event_ids
    assert rows(fresh_db_url, "SELECT last_confirmed_at FROM memory_facts") == [(day(5),)]


async def test_delete_all_erases_the_confirmations(memory, fresh_db_url):
    await memory.write("u", "I work at Acme.", "Rafael", occurred_at=day(1))
    await memory.write("u", "Still working at Acme though.", "Rafael", occurred_at=day(5))
    report = await memory.delete_all("u")
    assert report.rows.get("memory_fact_confirmations") == 1
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_fact_confirmations") == [(0,)]


async def test_the_cli_listing_says_how_often_a_fact_was_confirmed(memory, capsys):
    from arandu_pipelines.cli import print_memory

    await memory.write("u", "I work at Acme.", "Rafael", occurred_at=day(1))
    await memory.write("u", "Still working at Acme though.", "Rafael", occurred_at=day(5))
    await print_memory(memory, "u")
    out = capsys.readouterr().out
    assert "Rafael works at Acme  (conf" in out and "confirmed by 1 later message(s))" in out
