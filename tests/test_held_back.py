"""A turn's last resort (write/held_back.py, issue 19, session 11): a generic "we/us" statement
or a bare mood that `fact_quality.refine` drops comes back as the turn's fact only when the whole
message ends with no other fact; beside another fact it stays dropped. Sentences are invented;
unit level through `extract_offline` (the real spaCy pipeline), no database."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write import held_back
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

WHEN = datetime(2023, 9, 14, 18, 30, tzinfo=UTC)


def texts(text: str, speaker: str = "Priya", addressee: str | None = "Daniel") -> list[str]:
    return [f.fact_text for f in extract_offline(text, ExtractionContext(speaker, WHEN, addressee=addressee)).facts]


def test_generic_we_statement_is_the_fact_of_a_turn_with_no_other() -> None:
    got = texts("Wow, Daniel, that's great! Music is awesome for bringing us together and showing us who we are. "
                "What else helps you out?")
    assert len(got) == 1 and got[0].startswith("Music is awesome for bringing Priya and others together"), got


def test_bare_mood_is_the_fact_of_a_turn_with_no_other() -> None:
    got = texts("Thanks, Daniel! I felt so proud and grateful.")
    assert got == ["Priya felt so proud and grateful"], got


def test_beside_another_fact_the_generic_statement_stays_dropped() -> None:
    got = texts("We went hiking in the Alps with my brother last weekend. Music is awesome for bringing us together.")
    assert got and not any("Music" in t for t in got), got


def test_generic_statement_is_preferred_over_a_mood() -> None:
    got = texts("I felt so proud and grateful. Music is awesome for bringing us together!")
    assert len(got) == 1 and got[0].startswith("Music is awesome"), got


def test_nothing_is_held_outside_an_extraction() -> None:
    fact = ExtractedFact(subject="Priya", fact_text="Priya felt so proud", attribute_key=None)
    held_back.hold("mood", fact)  # no collect() active: not kept anywhere
    result = ExtractionResult(mode="rules")
    with held_back.collect():
        held_back.restore(result)
    assert result.facts == []
