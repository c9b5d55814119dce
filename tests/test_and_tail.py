"""A clause of its own after ", and" survives `subject_first` (write/drop_repair.but_tail, session
17): "It's in Denver, and the coach asked me to drive the team bus" was dropped whole because the
head before the comma does not name the speaker. Invented sentences, through the real extractor
(Nadia speaks, Tom is the other speaker), and the repair itself."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.drop_repair import but_tail
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Tom", previous_turns=prev or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- kept (each was dropped before) -------------------------------------------------------------------
def test_the_later_clause_with_its_own_subject_is_kept():
    out = facts("Wouldn't miss it. It's in Denver, and the coach asked me to drive the team bus.",
                [("Tom", "Will you go with him to the tournament?")])
    assert "The coach asked Nadia to drive the team bus" in out, out
    out = facts("They're staging a musical in March, and the director already asked me to sing the lead.")
    assert any(f.startswith("The director already asked Nadia to sing the lead") for f in out), out


def test_repair_after_and():
    assert but_tail("The race is in Denver, and the coach asked Nadia to drive the bus", "Nadia") == \
        "The coach asked Nadia to drive the bus"
    assert but_tail("It was late, and Nadia's car broke down on the way", "Nadia") == \
        "Nadia's car broke down on the way"


# ---- unchanged -------------------------------------------------------------------------------------------
def test_no_clause_of_its_own_after_and():
    # an imperative and a fragment are no clause of their own
    assert but_tail("Sure, and keep Nadia posted on the puppies", "Nadia") is None
    assert but_tail("It was fun, and now a choir at Nadia's wedding", "Nadia") is None
    # a tail that does not name the subject, or an empty pronoun again
    assert but_tail("The race is in Denver, and the coach asked Tom to drive", "Nadia") is None
    assert but_tail("It's been crazy, and it was worth it for Nadia", "Nadia") is None
    # ", but" as before
    assert but_tail("It's been stressful, but dancing has kept Nadia going", "Nadia") == "Dancing has kept Nadia going"


def test_addressee_and_plain_sentences_stay():
    assert not any("Tom should come" in f for f in facts("That was fun, and you should come next time."))
    assert "Nadia's car broke down on the highway" in facts("The weather was awful, and my car broke down on the highway.")
