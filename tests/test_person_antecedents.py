"""Person antecedents (write/person_antecedents.py): "he"/"she"/"his"/"her" resolved to the one
person or pet named earlier in the message or the previous turns, and left alone whenever that is
not clear. Invented dialogue only (Nadia speaks, Tom is the other speaker)."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def ctx(prev: list[tuple[str | None, str]] | None = None) -> ExtractionContext:
    return ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                             addressee="Tom", previous_turns=prev or [])


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ctx(prev)).facts]


def test_a_pet_named_two_turns_back_and_its_name():
    out = facts("He's a beagle mix, about two years old. His name is Biscuit.",
                [("Nadia", "I adopted a rescue dog last weekend!"), ("Tom", "Aww, what breed?")])
    assert "Nadia's rescue dog is a beagle mix, about two years old" in out, out
    assert "Nadia's rescue dog is named Biscuit" in out, out


def test_the_other_speakers_question_names_the_person_in_their_words():
    out = facts("He's doing great, he got into med school!", [("Tom", "How's your brother?")])
    assert out and all("Nadia's brother" in f for f in out), out
    assert any("got into med school" in f for f in out), out


def test_gender_agreement_picks_the_one_that_fits():
    out = facts("She just moved to Lisbon for work.",
                [("Nadia", "My brother called me yesterday."), ("Tom", "Oh nice. And how is your sister?")])
    assert any(f.startswith("Nadia's sister") and "Lisbon" in f for f in out), out
    assert not any("brother" in f for f in out), out
    # the only relative named is a "he": "she" is someone else, the sentence stays as it is
    out = facts("She loves the beach.", [("Tom", "I went hiking with my dad.")])
    assert not any("dad" in f for f in out), out


def test_the_speakers_are_never_the_antecedent():
    out = facts("Yes, he taught me to bake sourdough last spring.",
                [("Tom", "Nadia, is your uncle still in town? Sam says hi.")])
    assert any(f.startswith("Nadia's uncle taught Nadia") for f in out), out
    # Tom's friend Sam is a second candidate when the question is not about the uncle
    out = facts("Yes, he taught me to bake sourdough last spring.",
                [("Tom", "Sam says hi. I told Nadia about your uncle.")])
    assert not any("uncle" in f or "Sam" in f for f in out), out


def test_two_candidates_of_the_same_gender_leave_the_sentence_alone():
    reply = "He started a new job at the hospital."
    assert any("Nadia's brother started" in f for f in facts(reply, [("Tom", "How is your brother?")]))
    out = facts(reply, [("Tom", "How are your brother and your dad?")])
    assert not any("brother" in f or "dad" in f for f in out), out


def test_a_pet_and_a_person_across_two_turns_are_ambiguous():
    reply = "She's staying with us for a week."
    assert any("Nadia's sister is staying" in f for f in facts(reply, [("Nadia", "My sister is visiting.")])), \
        facts(reply, [("Nadia", "My sister is visiting.")])
    out = facts(reply, [("Nadia", "My sister is visiting."), ("Tom", "Did you see my new puppy?")])
    assert not any("sister" in f or "puppy" in f for f in out), out


def test_a_reaction_to_a_shown_photo_is_not_resolved():
    prev = [("Tom", "Here's a pic of my cat Oliver. Can you show me one of Oscar?")]
    out = facts("He's so cute! He loves climbing the bookshelf.", prev)
    assert not any("Oscar" in f for f in out), out
    # the same reply to a question about Oscar himself
    out = facts("He loves climbing the bookshelf.", [("Tom", "How is Oscar doing?")])
    assert any(f.startswith("Oscar loves climbing") for f in out), out


def test_in_the_same_message_a_relative_is_resolved_and_a_name_left_to_the_rules():
    out = facts("My sister came over yesterday. She is moving to Denver next month.")
    assert any(f.startswith("Nadia's sister is moving to Denver") for f in out), out
    out = facts("My granddaughter Lily came over on Sunday. She just turned eight.")
    assert "Lily just turned eight" in out, out


def test_the_message_keeps_its_own_sentences():
    """The rules read the resolved text; the result's sentences and facts' source sentences stay
    as written (the write pipeline embeds them as the message's search vectors)."""
    text = "He's doing great. He got into med school!"
    r = extract_offline(text, ctx([("Tom", "How's your brother?")]))
    assert any("Nadia's brother got into med school" in f.fact_text for f in r.facts), r.facts
    assert [s.strip() for s in r.sentences] == ["He's doing great.", "He got into med school!"]
    assert {f.source_text.strip() for f in r.facts if f.source_text} <= {s.strip() for s in r.sentences}


def test_a_possessive_takes_the_other_speakers_relative_with_their_name():
    from arandu_pipelines.write.person_antecedents import replacements

    reps = replacements("I tried her croissants yesterday.", ctx([("Tom", "My wife started a bakery.")]))
    assert [(r.original, r.text) for r in reps] == [("her", "Tom's wife's")]


# ---- session 18 (miss18): the last question asks about someone of the other gender ----------------
def test_the_question_before_names_the_one_the_gender_fits():
    prev = [("Tom", "Did Marco start at the new school? How is Emma doing?")]
    out = facts("He started on Monday and already made two friends.", prev)
    assert "Marco started on Monday and already made two friends" in out, out


def test_the_last_question_still_comes_first():
    out = facts("She's doing great, she loves her new job.",
                [("Tom", "Did Marco start at the new school? How is Emma doing?")])
    assert "Emma loves her new job" in out, out
    out = facts("He started on Monday and already made two friends.",
                [("Tom", "Did Marco start at the new school? How is Sam doing?")])
    assert "Sam started on Monday and already made two friends" in out, out


def test_no_question_before_that_fits_leaves_the_pronoun():
    out = facts("He started on Monday and already made two friends.",
                [("Tom", "Did Lucy start at the new school? How is Emma doing?")])
    assert not any(f.startswith(("Lucy", "Emma")) for f in out), out
