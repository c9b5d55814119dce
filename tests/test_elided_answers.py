"""An answer that leaves out what the yes/no question said is completed from the question
(write/elided_answers.py). Invented dialogues (other names and topics than the conversations); no
database. The first cases fail without the module ("Marco did", "Rosa went on ...", no fact at all
for "I will!"); the guards keep complete answers and other question forms as they were."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2024, 3, 9, 18, 0, tzinfo=UTC)


def facts(answer: str, *previous: tuple[str, str], speaker: str = "Rosa") -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee="Tomas", previous_turns=list(previous))
    return [f.fact_text for f in extract_offline(answer, ctx).facts]


@pytest.mark.parametrize(("question", "answer", "expected"), [
    ("Did Marco agree to join the band?", "He did, and we're rehearsing next week!",
     # "we" after a question about the band: the speaker and her band (write/we_couple.py, session 18)
     ["Marco agreed to join the band, and Rosa and her band are rehearsing"]),
    ("Did you end up going to the pottery fair?", "I went last Sunday. The glazes were gorgeous.",
     ["Rosa went to the pottery fair on 3 March 2024"]),
    ("Are you still taking the Spanish class?", "I'm starting in October. Can't wait.",
     ["Rosa is starting the Spanish class in October"]),
    ("Do you still swim?", "I do, but only on weekends now.", ["Rosa still swims, but only on weekends now"]),
    ("Did your tomatoes survive the frost?", "They did, and the basil came back too.",
     ["Rosa's tomatoes survived the frost, and the basil came back too"]),
    ("Did you at least finish the puzzle?", "We did, 1000 pieces in two days!",
     ["Rosa and others finished the puzzle, 1000 pieces"]),
    ("Will you enter the chili contest?", "I will! My recipe is ready.", ["Rosa will enter the chili contest"]),
    ("Have you booked the flights?", "I have, finally.", ["Rosa has booked the flights"]),
    ("Can you still play the violin?", "I can, though my fingers are slow.", ["Rosa can still play the violin"]),
    ("Did Ines ever call you back?", "She didn't, sadly.", ["Ines didn't call Rosa back, sadly"]),
    ("Oh fun, did you like the movie?", "I did! The ending was wild.", ["Rosa liked the movie"]),
    ("Did Pablo fix my bike?", "He did, it rides great.", ["Pablo fixed Tomas's bike"]),
    ("Did Maya drive you to the airport, by the way?", "She did! At six in the morning.",
     ["Maya drove Rosa to the airport"]),
    ("Did you finally sand that old dresser?", "I did! It looks brand new.", ["Rosa sanded the old dresser"]),
    ("Did your coach give you any advice for the final?", "He did! Breathe and pace myself.",
     ["Rosa's coach gave Rosa some advice for the final"]),
    ("Is your brother coming to the reunion?", "He is! He booked a flight.", ["Rosa's brother is coming to the reunion"]),
])
def test_completed_from_the_question(question: str, answer: str, expected: list[str]) -> None:
    got = facts(answer, ("Tomas", question))
    for e in expected:
        assert e in got, got
    assert not any(g.endswith((" did", " does", " will", " went")) for g in got), got


@pytest.mark.parametrize(("previous", "answer", "gone", "kept"), [
    # no question supplies the predicate: the bare head goes, a clause after "but" stays
    ([("Tomas", "I always thought you loved the city more than anything.")],
     "I do, but with Lucia gone I want a quieter street.", "Rosa does", "With Lucia gone"),
    ([("Tomas", "The invitations finally went out.")], "Ines told me! Such good news.", "Ines told Rosa", None),
])
def test_nothing_to_complete_from(previous: list[tuple[str, str]], answer: str, gone: str, kept: str | None) -> None:
    got = facts(answer, *previous)
    assert not any(g.startswith(gone) for g in got), got
    if kept:
        assert any(g.startswith(kept) for g in got), got


@pytest.mark.parametrize(("question", "answer", "expected"), [
    # complete answers stay as they are
    ("Did you finish the mural?", "I finished it yesterday!", "Rosa finished the mural"),
    ("How was the trip?", "I went with my sister. We had fun.", "Rosa went with"),
    # a wh-question is qa_pairs', not this module's
    ("Where did you go last weekend?", "I went hiking with Pablo.", "Rosa went hiking with Pablo"),
])
def test_complete_answers_unchanged(question: str, answer: str, expected: str) -> None:
    got = facts(answer, ("Tomas", question))
    assert any(g.startswith(expected) for g in got), got


@pytest.mark.parametrize(("question", "answer"), [
    ("Did you go to the lake or the mountains?", "We did, it was lovely."),  # alternative question: yes to which?
    ("Did Marco call you?", "I did, actually."),  # the answer's subject is not the question's
    ("Will you enter the chili contest?", "No, I will not."),  # a "no" first
    ("Did you see Marco?", "I will tomorrow."),  # another auxiliary
    ("Wow! Did you join in?", "I did! It was amazing."),  # the completion would name nothing
    ("Does she know Marco?", "She does! They met at school."),  # an unresolved "she": no fact written
])
def test_mismatches_give_no_completion(question: str, answer: str) -> None:
    got = facts(answer, ("Tomas", question))
    assert not any(w in g for g in got for w in ("enter the chili", "called Rosa", "went to the lake",
                                                   "saw Marco", "see Marco", "called Marco",
                                                   "joined in", "knows Marco")), got


def test_own_question_is_not_answered() -> None:
    """The speaker's own last question is no question to them."""
    got = facts("I did, and it was great.", ("Rosa", "Did you see the game?"))
    assert not any("saw the game" in g for g in got), got


def test_an_aside_before_the_complement_is_no_ellipsis() -> None:
    """ "I am, honestly, the best cook in town" has its complement after the aside: it was read as
    an elided "I am," with no question to complete from and dropped (merge of elide17)."""
    assert facts("I am, honestly, the best cook in town.") == ["Rosa is, honestly, the best cook in town"]
    assert facts("I am, honestly, the best cook in town.", ("Tomas", "Are you still cooking?")) == [
        "Rosa is, honestly, the best cook in town"]


def test_a_completion_longer_than_a_fact_may_be_is_not_made() -> None:
    """The question's whole verb phrase made a fact of 25+ words on an unread held-out set (the
    bench's long_sentence marker); a completion over `fact_quality.MAX_WORDS` is not made, and an
    answer that has only its clause keeps the clause, as when no question supplies the predicate."""
    from arandu_pipelines.write.fact_quality import MAX_WORDS

    q = ("Will you enter the annual chili cook-off at the old downtown community center with your "
         "grandmother's secret family recipe from Oaxaca and the smoked peppers from your own garden this fall?")
    got = facts("I will!", ("Tomas", q))
    assert all(len(g.split()) <= MAX_WORDS for g in got), got
    assert not any("chili cook-off" in g for g in got), got
    short = facts("I will!", ("Tomas", "Will you enter the chili contest?"))
    assert short == ["Rosa will enter the chili contest"], short
