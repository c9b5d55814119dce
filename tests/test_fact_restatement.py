"""Near-duplicates within one message (issue 19, session 11): two sentences of one message that
say the same thing about the speaker are stored as one fact. `semantic_dedup_threshold` (0.80,
was 0.85) is the cosine of their sentence vectors above which they collapse; sentences that add
something (what the necklace is to her, the divorce) stay two facts."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.conftest import rows

WHEN = datetime(2023, 5, 8, 12, tzinfo=UTC)


async def test_a_restatement_in_the_same_message_is_stored_once(memory, fresh_db_url):
    await memory.write("u", "Running every morning helps me clear my mind. I run five miles every morning to "
                       "clear my head.", "Maria", occurred_at=WHEN)
    assert rows(fresh_db_url, "SELECT fact_text FROM memory_facts") == [
        ("Running every morning helps Maria clear Maria's mind",)]


async def test_sentences_that_add_something_stay_two_facts(memory, fresh_db_url):
    await memory.write("u", "My grandma gave me this necklace when I was a kid. I wear my grandma's necklace "
                       "every day because it reminds me of her.", "Maria", occurred_at=WHEN)
    await memory.write("v", "I got a lot of help from my support group. My support group really helped me get "
                       "through my divorce.", "Maria", occurred_at=WHEN)
    assert len(rows(fresh_db_url, "SELECT fact_text FROM memory_facts WHERE agent_id = 'u'")) == 2
    assert len(rows(fresh_db_url, "SELECT fact_text FROM memory_facts WHERE agent_id = 'v'")) == 2
