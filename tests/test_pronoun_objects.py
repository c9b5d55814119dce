"""News about a third person or pet said with a pronoun whose antecedent is in an earlier turn
(write/person_antecedents.py, session 15): a possessive subject "Her driving test ...", an object
"We drove him ...", the speaker's kin word ("Dad") and a pet named earlier, through the real
extractor with the earlier turns as context. Invented dialogue only (Nadia speaks, Tom listens)."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.person_antecedents import replacements
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, prev: list[tuple[str | None, str]], speaker: str = "Nadia",
          addressee: str = "Tom") -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee=addressee, previous_turns=prev)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_a_possessive_subject_names_the_person_of_an_earlier_turn():
    out = facts("Very proud. Her driving test is in late May, so we are practicing parallel parking every evening.",
                [("Nadia", "My daughter Emma is learning to drive."), ("Tom", "Proud?")])
    assert any(f.startswith("Emma's driving test is in late May") for f in out), out
    out = facts("Her recital is on Friday.", [("Nadia", "My niece Olivia plays the piano."), ("Tom", "Cool!")])
    assert any(f.startswith("Olivia's recital is on Friday") for f in out), out


def test_the_subject_and_the_object_of_later_sentences_take_the_person_asked_about():
    out = facts("Hey Tom. He shipped out to Fort Benning last Monday. We drove him to the office at five in the morning.",
                [("Nadia", "My son Jacob joined the Army."), ("Tom", "Wow, how is he doing?")])
    assert any(f.startswith("Jacob shipped out to Fort Benning") for f in out), out
    assert any("drove Jacob to the office" in f for f in out), out
    assert not any("drove him" in f for f in out), out


def test_an_object_takes_the_speakers_kin_word_of_an_earlier_turn():
    out = facts("Pretty well. We took him to his favourite diner on Sunday.",
                [("Nadia", "Dad is staying with us now."), ("Tom", "How is it going?")])
    assert any("dad to his favourite diner on Sunday" in f for f in out), out
    assert not any("took him" in f for f in out), out
    # the other speaker's "Dad" is theirs
    ctx = ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC), addressee="Tom",
                            previous_turns=[("Tom", "Dad is visiting us."), ("Nadia", "Nice!")])
    assert [r.text for r in replacements("I drove him to the airport on Monday.", ctx)] == ["Tom's dad"]


def test_an_object_after_the_kin_word_of_the_same_message_and_its_possessive_stays():
    out = facts("It was a surprise, Dad cried a little. We took him to his favourite diner and he told the same "
                "fishing stories.", [("Nadia", "Dad is staying with us now."), ("Tom", "How is it going?")])
    assert any("dad to his favourite diner" in f for f in out), out
    assert not any("took him" in f or "dad's favourite" in f for f in out), out


def test_a_pet_named_two_turns_back_is_the_subject_of_the_news():
    out = facts("He is doing great, but we had a funny incident. He stole a whole pizza off the counter on Wednesday.",
                [("Nadia", "We adopted a puppy named Rufus last week!"), ("Tom", "Aww! How is he?")])
    assert any(f.startswith("Rufus stole a whole pizza off the counter") for f in out), out
    # "He is doing great" is Rufus too; since session 18 the ", but we had ..." tail is split off
    # (write/clause_tails.py) and the mood of the moment alone is dropped, as any other
    assert not any(f.startswith("He ") for f in out), out
    out = facts("She ate a hair tie. We took her to the vet on Monday.",
                [("Nadia", "My cat Luna is sick."), ("Tom", "Oh no, what happened?")])
    assert "Luna ate a hair tie" in out, out
    assert any("took Luna to the vet on Monday" in f for f in out), out


def test_a_possessed_role_noun_is_not_an_occupation():
    out = facts("Her vet appointment is on Friday.", [("Nadia", "My cat Luna is sick."), ("Tom", "Oh no!")])
    assert any(f.startswith("Luna's vet appointment is on Friday") for f in out), out
    assert "Luna's vet" not in out, out
    # guard: the copula "'s" keeps its occupation
    assert "Nadia's sister is a teacher" in facts("My sister's a teacher.", [])


def test_her_for_the_listener_or_nobody_named_stays_as_today():
    out = facts("I told her about the move.", [("Nadia", "Sorry I was late."), ("Tom", "No worries.")],
                addressee="Bea")
    assert "Nadia told her about the move" in out, out


def test_two_candidates_leave_the_object_alone():
    out = facts("We drove him to the airport on Monday.",
                [("Nadia", "My son Jacob and my brother Peter visited."), ("Tom", "Nice!")])
    assert not any("Jacob" in f or "Peter" in f or "brother" in f for f in out), out
    assert any("drove him to the airport" in f for f in out), out


def test_an_object_whose_clause_has_a_third_person_subject_stays():
    # "My brother drove him": the brother may be anyone's driver; "He called him": not himself
    out = facts("My brother drove him to the airport on Monday.",
                [("Nadia", "My son Jacob is home."), ("Tom", "Nice!")])
    assert not any("drove Jacob" in f for f in out), out
    out = facts("He called him on Monday.", [("Nadia", "My son Jacob is home."), ("Tom", "How is he?")])
    assert not any("called Jacob" in f for f in out), out


def test_an_object_of_a_speakers_verb_is_resolved():
    out = facts("I hugged him at the station on Friday.", [("Nadia", "My son Jacob came home."), ("Tom", "Aww!")])
    assert "Nadia hugged Jacob at the station on Friday" in out, out


def test_a_pronoun_far_into_the_message_takes_the_referent_an_earlier_one_took():
    out = facts("He shipped out to Fort Benning last Monday. The whole week before was a blur of packing, paperwork, "
                "goodbyes with the neighbours, a last barbecue in the yard and far too little sleep for all of us. "
                "We drove him to the recruiting office at five on Sunday.",
                [("Nadia", "My son Jacob joined the Army."), ("Tom", "Wow, how is he doing?")])
    assert any("drove Jacob to the recruiting office" in f for f in out), out


def test_an_object_takes_the_relative_or_role_the_other_speaker_asked_about():
    out = facts("Better. We visited her at the hospital on Sunday.",
                [("Nadia", "I had a rough week."), ("Tom", "How is your mom?")])
    assert any("visited their mom at the hospital on Sunday" in f for f in out), out
    out = facts("Great, I met her for lunch on Tuesday.",
                [("Nadia", "Work is busy."), ("Tom", "How is your new client doing?")])
    assert any("met her new client for lunch on Tuesday" in f for f in out), out


def test_question_auxiliary_is_no_part_of_the_name():
    """Lead's merge fix (session 15): NER read "Will Kenji" of "Will Kenji manage ...?" as one
    name, so "He'll have help" became "Will Kenji will have help ..."."""
    out = facts("He'll have help from my niece Clara, who's working with us this summer.",
                [("Tom", "Will Kenji manage the bakery alone while you're gone?")])
    assert any(f.startswith("Kenji will have help from") for f in out), out
    assert not any("Will Kenji" in f for f in out), out
