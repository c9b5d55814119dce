"""A reason to leave the chat that states a lasting fact survives as that fact (session 15):
"I have to run, I have two kids to take care of! Talk soon." keeps "S has two kids", while a task
("a team meeting to run") or a momentary state ("my dinner is burning") stays dropped in a closing
turn. Positive cases failed on base 0c4ed78 (the fact was dropped whole, or the momentary state kept)."""

from __future__ import annotations

from datetime import datetime

import pytest

from arandu_pipelines.write import small_talk
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def _facts(text: str) -> list[str]:
    ctx = ExtractionContext(speaker_name="Ana", occurred_at=datetime(2023, 5, 8), addressee="Ben")
    return [f.fact_text for f in extract_offline(text, ctx).facts]


@pytest.mark.parametrize("text,fact", [
    ("I have to run, I have two kids to take care of! Talk soon.", "Ana has two kids"),
    ("I have to run, I have three dogs to feed. Bye!", "Ana has three dogs"),
    ("Gotta go, I have a dog to walk. Bye!", "Ana has a dog"),       # one fact "S has to go, S has ..." before
    ("I have two kids to take care of.", "Ana has two kids to take care of"),  # "take care of" is no farewell
])
def test_lasting_reason_kept(text: str, fact: str) -> None:
    assert fact in _facts(text)


def test_momentary_reason_dropped_in_closing_turn() -> None:
    assert not any("dinner" in f for f in _facts("I have to run, my dinner is burning! Talk soon."))


@pytest.mark.parametrize("text,word", [
    ("I have to go, I've got a team meeting to run. Talk soon!", "meeting"),   # a task
    ("Gotta run, I have game film to watch before practice. Bye!", "film"),
    ("I have to go, I have the kids to pick up. Bye!", "kids"),                # definite: no possession stated
    ("Take care of yourself, bye!", "care"),
])
def test_task_reasons_stay_dropped(text: str, word: str) -> None:
    assert not any(word in f for f in _facts(text))


@pytest.mark.parametrize("text,fact", [
    ("I have to run, my shift starts at six! Talk soon.", "Ana's shift starts at six"),   # habitual: lasting
    ("My dinner is burning.", "Ana's dinner is burning"),                                # no goodbye: not a reason
])
def test_guards_kept(text: str, fact: str) -> None:
    assert fact in _facts(text)


def test_lasting_reason_function() -> None:
    assert small_talk.lasting_reason("Ana has two kids to take care of", "Ana") == "Ana has two kids"
    assert small_talk.lasting_reason("Ana has a meeting to run", "Ana") is None
    assert small_talk.lasting_reason("Bo has two kids to feed", "Ana") is None
