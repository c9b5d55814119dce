"""Acts toward the listener that carry their object or reason (write/speech_acts.py, session 12,
branch listen12b): what the speaker values ("It means a lot to X"), happiness for the listener
with what they did, and a bare encouragement formula with the reason the turn gives for it; the
offer rule reads "I'd love to help". Sentences are invented (not from the dev conversations);
unit level through `extract_offline` with the real spaCy pipeline, no database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2024, 3, 2, 11, 0, tzinfo=UTC)


def run(text: str):
    return extract_offline(text, ExtractionContext("Tomas", WHEN, addressee="Aiko"))


def texts(r) -> list[str]:
    return [f.fact_text for f in r.facts]


@pytest.mark.parametrize(("text", "fact", "kind"), [
    # what the speaker values: a clause (infinitive or gerund) that "means a lot" (plain_forms writes the chat demonstrative "this recipe" as "the recipe", session 13)
    ("Thanks, Aiko. It means a lot to cook this recipe with you.", "Tomas values cooking the recipe with Aiko",
     "values"),
    ("Having friends at the climbing gym really means a lot.", "Tomas values having friends at the climbing gym",
     "values"),
    ("Feeling welcomed by all of you means the world.", "Tomas values feeling welcomed by Aiko and others", "values"),
    # happy for the listener, with what they did (the next sentence, the listener its subject)
    ("I'm so happy for you, Aiko. You finished the marathon and now you're coaching beginners!",
     "Tomas is happy for Aiko that Aiko finished the marathon and now Aiko is coaching beginners", "happy_for"),
    # a bare formula with the reason the turn gives for it
    ("You earned that promotion with all your late nights. Keep it up!",
     "Tomas encourages Aiko to keep it up, as Aiko earned that promotion with all Aiko's late nights",
     "encourages_reason"),
    ("You've got the talent and the patience for it. Don't quit, Aiko!",
     "Tomas encourages Aiko not to quit, as Aiko has the talent and the patience for it", "encourages_reason"),
    ("Remember you've got a whole team backing you up, me included. Keep going!",
     "Tomas encourages Aiko to keep going, as Aiko has a whole team backing Aiko up", "encourages_reason"),
    # the listener's words or deeds as the speaker finds them
    ("Thanks, Aiko! Your notes are really encouraging.", "Tomas finds Aiko's notes really encouraging",
     "finds_encouraging"),
    # the offer rule: "I'd" is one token in chat
    ("I'd love to help you with the garden.", "Tomas offered to help Aiko with the garden", "offer_help"),
])
def test_an_act_with_its_object_or_reason(text, fact, kind):
    r = run(text)
    assert texts(r) == [fact], texts(r)
    assert r.trace.get("speech_act") == kind
    assert r.facts[0].mentions == ["Aiko"]


@pytest.mark.parametrize("text", [
    "It means a lot.", "It means a lot to me that you came.", "Your support means a lot.",
    "It means a lot to hear that.",
    "I'm so happy for you!", "I'm so happy for you. You're so inspiring!", "Happy for you! You'll do great.",
    "Keep it up! You got this!", "Don't give up!", "You've got this. Keep going!",
    "Your garden is awesome!",
])
def test_without_an_object_or_reason_nothing(text):
    r = run(text)
    assert texts(r) == [], texts(r)


def test_encouragement_with_a_reason_is_added_beside_the_turns_fact():
    """`encourages_reason` is a BESIDE kind (what the speaker does for the listener)."""
    r = run("I adopted a beagle named Rufus last month. You've got the skills and the drive. Don't give up!")
    assert any("Rufus" in t for t in texts(r)), texts(r)
    assert "Tomas encourages Aiko not to give up, as Aiko has the skills and the drive" in texts(r), texts(r)
    # its evidence is the reason's sentence: the pipeline compares one message's facts by their
    # source sentences, and the bare formula read as a near-duplicate of "Plus my full support."
    act = next(f for f in r.facts if "encourages" in f.fact_text)
    assert act.source_text == "You've got the skills and the drive.", act.source_text


def test_happiness_and_values_stay_off_a_turn_with_a_fact():
    r = run("I adopted a beagle named Rufus last month. It means a lot to share this with you.")
    assert any("Rufus" in t for t in texts(r)), texts(r)
    assert not any("values" in t for t in texts(r)), texts(r)
