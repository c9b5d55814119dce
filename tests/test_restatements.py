"""Restatements across turns reinforce the fact already known (issue 19: "restatements
reinforce (NOOP + confirmation)"); a similar but different event stays a fact of its own.

A person who says the same thing again in a later message, in other words, must leave one fact in
`get_all()`, confirmed by the later message (reinforcement_count, last_confirmed_at,
memory_fact_confirmations), not two near-duplicates. Two events with different resolved dates
are two events however alike their texts (write/restatements.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.errors import ValidationError
from tests.conftest import rows


def day(d: int, m: int = 5) -> datetime:
    return datetime(2023, m, d, 12, tzinfo=UTC)


async def _facts(memory) -> list:
    return (await memory.get_all("u")).facts


async def say(memory, text: str, when: datetime, **kw):
    """Nadia answers Omar (a listener's turn first: "you" and "Omar" are then the addressee)."""
    await memory.write("u", "How have you been, Nadia?", "Omar", occurred_at=when.replace(hour=10))
    return await memory.write("u", text, "Nadia", occurred_at=when, **kw)


BACK = "Thanks for having my back, Omar."
# the same gratitude inside a longer sentence: the two SENTENCES' vectors stand at 0.79, under the
# near-identical rule's 0.92; the two facts' texts, the subject's name masked, at 0.97
BACK_AGAIN = ("Thanks for always having my back, Omar, it means the world after the mess with the "
              "landlord and the broken heater.")


@pytest.mark.parametrize("first, again", [
    (BACK, BACK_AGAIN),
    # said again in close words (caught by the sentence vectors already: must stay so)
    ("I'm so excited about my new pottery studio!", "I'm really excited about my pottery studio."),
])
async def test_a_restatement_in_a_later_message_confirms_the_fact(memory, fresh_db_url, first, again):
    a = await say(memory, first, day(1))
    b = await say(memory, again, day(20))
    (kept,) = a.facts_added
    assert b.facts_added == []
    assert [f.fact_id for f in b.facts_unchanged] == [kept.fact_id]
    (fact,) = await _facts(memory)
    assert fact.fact_id == kept.fact_id and fact.fact_text == kept.fact_text
    assert fact.reinforcement_count == 1 and fact.confirmed_event_ids == [b.event_id]
    assert rows(fresh_db_url, "SELECT last_confirmed_at FROM memory_facts") == [(day(20),)]


async def test_the_same_event_on_another_date_is_another_fact(memory):
    await memory.write("u", "I went to a jazz concert downtown last Friday.", "Nadia", occurred_at=day(8))
    b = await memory.write("u", "I went to a jazz concert downtown last weekend.", "Nadia",
                           occurred_at=day(12, 6))
    assert len(b.facts_added) == 1 and b.facts_unchanged == []
    facts = await _facts(memory)
    assert len(facts) == 2 and all(f.reinforcement_count == 0 for f in facts)


async def test_a_similar_event_with_another_object_stays_a_new_fact(memory):
    # the sentences' vectors stand at 0.93 (>= the near-identical rule's 0.92): two paintings
    await memory.write("u", "I painted a sunset over the lake.", "Nadia", occurred_at=day(1))
    b = await memory.write("u", "I painted a sunrise over the lake.", "Nadia", occurred_at=day(20))
    assert len(b.facts_added) == 1 and b.facts_unchanged == []
    assert len(await _facts(memory)) == 2


async def test_the_threshold_above_one_switches_restatements_off(memory):
    await say(memory, BACK, day(1))
    b = await say(memory, BACK_AGAIN, day(20), config_overrides={"reconcile_restatement_above": 1.5})
    assert len(b.facts_added) == 1 and len(await _facts(memory)) == 2


def test_the_threshold_is_validated_with_its_name():
    with pytest.raises(ValidationError, match="reconcile_restatement_above"):
        MemoryConfig(reconcile_restatement_above=3.0)


async def test_a_plan_told_again_with_another_date_is_the_same_plan(memory):
    # both dates lie after their messages ("next month" in May, then in June): the plan moved
    a = await say(memory, "I'm having an art show with my paintings next month.", day(8))
    b = await say(memory, "I'm having an art show with all my paintings next month.", day(9, 6))
    assert b.facts_added == [] and [f.fact_id for f in b.facts_unchanged] == [a.facts_added[0].fact_id]
    assert len(await _facts(memory)) == 1
