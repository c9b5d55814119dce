""""Speaking of animals, I had an adventure": the topic lead is not a statement about the speaker
(it had become "Joel is speaking of animals, Joel had an adventure ..."). Invented sentences."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str) -> list[str]:
    ctx = ExtractionContext(speaker_name="Ann", occurred_at=datetime(2024, 3, 6, 12, tzinfo=UTC), addressee="Bob")
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_speaking_of_is_dropped_from_the_fact():
    got = facts("Speaking of animals, I found an injured owl by the lake.")
    assert got == ["Ann found an injured owl by the lake"], got


def test_talking_about_is_dropped_from_the_fact():
    got = facts("Talking about weddings, my cousin got engaged last month.")
    assert got and not any("talking" in f.lower() for f in got), got


def test_speaking_inside_a_sentence_is_kept():
    got = facts("I love speaking of my travels at the library club.")
    assert any("speaking of" in f for f in got), got


def test_a_gerund_clause_subject_is_not_a_lead():
    got = facts("Talking about money is hard for me, and I hate budgets.")
    assert any("Talking about money is hard" in f for f in got), got
