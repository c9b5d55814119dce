"""Demonstrative noun-phrase subjects that point back (write/demonstrative_subjects.py, called by
write/thing_antecedents.py): "That money covers ..." after "We won the grant" names the grant,
only when ONE compatible noun phrase (the same noun, or one the noun is a general word for) is
in the message before it or in the previous turn. Invented sentences only (Nadia speaks, Tom is
the other speaker), through the real extractor."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.demonstrative_subjects import hits
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.thing_antecedents import replacements
from arandu_pipelines.write.types import ExtractionContext


def ctx(prev: list[tuple[str | None, str]] | None = None) -> ExtractionContext:
    return ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                             addressee="Tom", previous_turns=prev or [])


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ctx(prev)).facts]


def reps(text: str, prev: list[tuple[str | None, str]] | None = None) -> set[tuple[str, str]]:
    return {(r.original, r.text) for r in replacements(text, ctx(prev))}


# ---- resolved (each failed before: the fact was lost or kept with "That") ------------------------------
def test_general_word_for_the_thing_said_before():
    out = facts("We won the $5,000 community grant! That money covers a new roof and new mats.")
    assert "Nadia's $5,000 community grant covers a new roof and new mats" in out, out
    out = facts("I got a raise at work! That money goes straight into my travel fund.")
    assert any(f.startswith("Nadia's raise goes straight into") for f in out), out
    assert not any(f.startswith("That money") for f in out), out


def test_same_noun_keeps_its_own_words():
    out = facts("We adopted a puppy from the shelter last week. That puppy chews everything.")
    assert "Nadia's puppy chews everything" in out, out
    out = facts("We got the house on Elm Street. This house has three bedrooms.")
    assert "Nadia's house has three bedrooms" in out, out


def test_that_thing_is_the_one_thing_just_before():
    out = facts("I finally bought the kayak I wanted. That thing is so fast.")
    assert "Nadia's kayak is so fast" in out, out


def test_the_previous_turn_flips_whose_it_is():
    assert reps("That apartment has a huge balcony.", [("Tom", "How is your new apartment?")]) == {
        ("That", "My")}
    assert reps("That truck needs new tires.", [("Tom", "I bought an old truck last month.")]) == {
        ("That", "Tom's")}
    assert reps("That truck broke down on the highway.", [("Tom", "I bought an old truck last month.")]) == {
        ("That", "Tom's")}


# ---- unchanged ---------------------------------------------------------------------------------
def test_bare_demonstratives_do_not_change():
    for text in ("That sounds great.", "That's so cool.", "This is the best day.", "That reminds me, I have a test.",
                 "Those were the days."):
        assert reps("We won the grant! " + text) == set(), text
        assert hits("We won the grant! " + text, None)[0] == 0, text


def test_two_candidates_or_none_leave_it():
    assert reps("I won a prize and got a bonus. That money goes into savings.") == set()
    assert reps("I got a new bike and a new car. That thing is so fast.") == set()
    assert reps("That money goes into savings.") == set()  # nothing before it
    assert reps("I love my garden. That money goes into savings.") == set()  # nothing compatible


def test_reactions_and_people_stay():
    assert reps("That bowl is gorgeous!", [("Tom", "Check out my new bowl.")]) == set()  # a verdict
    assert reps("That trail looks magical.", [("Tom", "We hiked the trail by the lake.")]) == set()  # seeming
    assert reps("That cabin is a gem.", [("Tom", "We rented the cabin again.")]) == set()  # an attribute
    assert reps("That kid works hard.", [("Tom", "My kid made the team.")]) == set()  # a person
    assert reps("Did that cabin sell?", [("Tom", "We rented the cabin again.")]) == set()  # a question


# ---- "The" + a general word, or the speaker's own thing again ------------------------------------------
def test_the_general_word():
    out = facts("We won the $5,000 community grant! The money covers a new roof and new mats.")
    assert "Nadia's $5,000 community grant covers a new roof and new mats" in out, out
    assert reps("I tried the new bakery on Main Street. The place sells amazing bagels.") == {
        ("The place", "The new bakery")}
    out = facts("We adopted a puppy from the shelter last week. The puppy chews everything.")
    assert "Nadia's puppy chews everything" in out, out


def test_the_stays_when_nothing_changes():
    assert reps("I saw the movie last night. The movie runs three hours.") == set()  # not the speaker's
    assert reps("I fixed the bike. The thing is, I never ride it.") == set()  # "The thing is": no thing
    assert reps("The money covers a new roof.") == set()
    assert reps("I won a prize and got a bonus. The money goes into savings.") == set()


def test_the_thing_the_other_speaker_asked_about_is_the_answerers():
    out = facts("The bakery is busier than ever, but I'm hanging in there.", [("Tom", "Hey! How's the bakery?")])
    assert any(f.startswith("Nadia's bakery is busier than ever") for f in out), out
    assert reps("The snow came early this year.", [("Tom", "How's the snow up there?")]) == set()  # nature
    assert reps("The game ended in a tie.", [("Tom", "How was the game?")]) == set()  # a public thing
    assert reps("The bakery is busier than ever.", [("Tom", "I walked past the bakery today.")]) == set()  # no question
