"""The sentence-level event index (memory_event_units, migration 0007; issue 19).

A message's stored vector is the mean of its sentence units, so in a long message one sentence a
question is about is outweighed by the others. Each unit vector is kept and the semantic message
signal scores an event by max(event vector, best unit)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arandu_pipelines.read import semantic
from tests.conftest import rows

A = "units-agent"
T = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)

LONG = ("I spent the whole morning repainting the kitchen cabinets a pale green. "
        "My grandmother's old violin was finally repaired by a luthier in Porto. "
        "The paint fumes gave me a headache, so I opened every window in the flat. "
        "Then I scrubbed the brushes and the drip trays until lunchtime. "
        "Tomorrow I will sand the doors of the hallway cupboard and buy more primer. "
        "Phew, what a day.")
DISTRACTORS = [
    "I love listening to classical music on the radio in the evening.",
    "My neighbour plays the cello every night after dinner.",
    "The concert hall downtown reopened last week after the renovation.",
    "We went to a string quartet recital on Sunday and it was lovely.",
    "My cousin is learning the guitar from online videos.",
    "The orchestra is touring Spain this summer.",
]
QUESTION = "Who repaired the grandmother's violin?"


def _units(url: str, agent: str = A) -> list[tuple]:
    return rows(url, "SELECT e.message_id, count(*) FROM memory_event_units u JOIN memory_events e "
                     "ON e.agent_id = u.agent_id AND e.id = u.event_id WHERE u.agent_id = %s "
                     "GROUP BY e.message_id ORDER BY 1", (agent,))


async def _write_all(memory, agent: str = A) -> None:
    await memory.write(agent, LONG, speaker_name="Ana", message_id="long", occurred_at=T)
    for i, text in enumerate(DISTRACTORS):
        await memory.write(agent, text, speaker_name="Ana", message_id=f"d{i}",
                           occurred_at=T + timedelta(minutes=i + 1))


async def test_units_are_stored_for_a_multi_sentence_message_and_erased_with_it(memory, fresh_db_url):
    await _write_all(memory)
    await _write_all(memory, "other-agent")
    # six sentences -> five rows: the last is too short to index (MIN_UNIT_WORDS); a
    # one-sentence message's unit is its event vector: no rows
    assert _units(fresh_db_url) == [("long", 5)]
    assert rows(fresh_db_url, "SELECT array_agg(unit_idx ORDER BY unit_idx) FROM memory_event_units "
                              "WHERE agent_id = %s", (A,)) == [([0, 1, 2, 3, 4],)]
    dims = rows(fresh_db_url, "SELECT DISTINCT vector_dims(embedding_vec) FROM memory_event_units")
    assert dims == [(384,)]

    await memory.delete_messages(A, message_ids=["long"])
    assert _units(fresh_db_url) == []
    assert _units(fresh_db_url, "other-agent") == [("long", 5)]

    await memory.write(A, LONG, speaker_name="Ana", message_id="long2", occurred_at=T)
    assert _units(fresh_db_url) == [("long2", 5)]
    await memory.delete_all(A)
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_event_units WHERE agent_id = %s", (A,)) == [(0,)]
    assert _units(fresh_db_url, "other-agent") == [("long", 5)]


async def test_a_question_about_one_sentence_of_a_long_message_finds_it(memory, fresh_db_url, embeddings):
    await _write_all(memory)
    (long_id,), = rows(fresh_db_url, "SELECT id::text FROM memory_events WHERE message_id = 'long'")
    emb = list((await embeddings.embed([QUESTION]))[0])

    async def top(n_rows: int) -> list[str]:
        async with memory._engine.connect() as conn:
            hits = await semantic.search(conn, "e", "true", {"a": A}, emb, 3, n_rows)
        return [i for i, _ in hits]

    # exact (small agent) and HNSW (big agent) paths both rank the message first
    assert (await top(10))[0] == long_id
    assert (await top(10**6))[0] == long_id
    r = await memory.retrieve(A, QUESTION)
    assert r.events and r.events[0].event_id == long_id, [e.text[:40] for e in r.events]

    # the control: by its mean vector alone the long message is outranked by the distractors
    rows(fresh_db_url, "DELETE FROM memory_event_units RETURNING 1")
    assert (await top(10))[0] != long_id


async def test_a_huge_message_stores_a_bounded_number_of_unit_rows(memory, fresh_db_url):
    """A message of thousands of sentences keeps at most MAX_UNITS_PER_EVENT unit rows (the rest
    is covered by the message's own vector), so one write never inserts thousands of rows."""
    from arandu_pipelines.write.pipeline import MAX_UNITS_PER_EVENT

    text = " ".join(f"Sentence number {i} talks about the garden today." for i in range(600))
    r = await memory.write("huge", text, speaker_name="Ana")
    assert r.success, r.error
    n = rows(fresh_db_url, "SELECT count(*) FROM memory_event_units WHERE agent_id = 'huge'")[0][0]
    assert n == MAX_UNITS_PER_EVENT
