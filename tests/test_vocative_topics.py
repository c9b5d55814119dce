"""A name set off after "And" is a topic, not the listener, when the conversation already talked
about that someone else (session 18: "You raised them ... And Olive, the little tyrant?" was
stored as "Olive raised them from tiny bottle babies"). Invented sentences."""

from __future__ import annotations

from datetime import datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

_PREVIOUS = [("Ana", "My kitten Olive screams the loudest at feeding time."), ("Frank", "Ha, what a tyrant!")]


def _facts(text: str, addressee: str | None = "Ana", previous: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name="Frank", occurred_at=datetime(2023, 5, 10), addressee=addressee,
                            previous_turns=_PREVIOUS if previous is None else previous)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_a_named_topic_is_not_the_one_you_talk_to() -> None:
    facts = _facts("You fed them every two hours for weeks. And Olive, the little tyrant? Is she still loud?")
    assert not any(f.startswith("Olive fed") for f in facts), facts


def test_the_listener_named_after_and_is_still_the_listener() -> None:
    facts = _facts("And Ana, you told me your brother moved to Porto last week.")
    assert not any("Olive" in f for f in facts), facts
    assert any(f.startswith("Ana's brother moved to Porto") or "Ana told Frank" in f for f in facts), facts


def test_without_a_known_listener_the_vocative_names_them() -> None:
    facts = _facts("And Bea, you finally moved to Porto last week!", addressee=None, previous=[])
    assert any(f.startswith("Bea") and "moved to Porto" in f for f in facts), facts
