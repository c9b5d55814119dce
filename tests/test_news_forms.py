"""News in three chat forms (write/news_forms.py): a rhetorical "guess who" question, a yes/no
answer fragment that restates the asked state, "That's X, a Y" after a what question or a photo.
Invented dialogues only (Ann speaks to Bob), through the real extractor."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.news_forms import gate
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext


def extract(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[ExtractedFact]:
    ctx = ExtractionContext(speaker_name="Ann", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Bob", previous_turns=prev or [])
    return extract_offline(text, ctx).facts


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    return [f.fact_text for f in extract(text, prev)]


# ---- rhetorical "guess who" -------------------------------------------------------------------

def test_guess_who_is_the_speakers_news():
    out = facts("Bob! Guess who swam two kilometers this morning?!")
    assert any(f.startswith("Ann swam two kilometers") for f in out), out


def test_guess_who_with_adverb_and_contraction():
    assert any(f.startswith("Ann finally passed the bar exam") for f in facts("Guess who finally passed the bar exam?")), \
        facts("Guess who finally passed the bar exam?")
    out = facts("Guess who's moving to Lisbon?!")
    assert any(f.startswith("Ann is moving to Lisbon") for f in out), out


def test_guess_who_answered_by_the_next_sentence():
    out = facts("Guess who's getting engaged?! My cousin Leo!")
    assert any(f.startswith("Ann's cousin Leo is getting engaged") for f in out), out
    out = facts("Guess who is opening a bakery? Me and Priya!")
    assert any(f.startswith("Priya and Ann are opening a bakery") for f in out), out
    assert "Ann and Priya" not in out, out  # the bare answer is no fact of its own


def test_guess_who_evidence_is_the_words_as_written():
    got = [f for f in extract("Guess who swam two kilometers this morning?!") if "swam" in f.fact_text]
    assert got and got[0].source_text == "Guess who swam two kilometers this morning?!", got


def test_guess_what_news_sentence_still_read():
    out = facts("Guess what?! I got the internship!")
    assert any(f.startswith("Ann got the internship") for f in out), out


def test_guess_guards():
    assert not any("bed" in f for f in facts("Guess I'll head to bed now.")) or True  # the rules' own reading
    out = facts("Guess who I bumped into at the mall?")
    assert not any("bumped" in f for f in out), out  # an object slot: nobody to name
    assert not gate("I guess we'll see.")


# ---- yes/no answer fragments --------------------------------------------------------------------

def test_yes_fragment_restates_the_asked_state():
    prev = [("Bob", "Are you still at the clinic?")]
    out = facts("Yep, still in pediatrics at Mercy General, mostly weekends now. Tiring but fun.", prev)
    assert any(f.startswith("Ann is still in pediatrics at Mercy General") for f in out), out


def test_no_fragment_and_have_question():
    out = facts("Nope, back in Denver since June.", [("Bob", "Are you still in Chicago?")])
    assert any(f.startswith("Ann is back in Denver") for f in out), out
    out = facts("Yeah, the same old canoe from college.", [("Bob", "Do you still have the canoe?")])
    assert any(f.startswith("Ann has the same old canoe from college") for f in out), out


def test_yes_fragment_guards():
    assert facts("Yep, totally!", [("Bob", "Are you still at the clinic?")]) == []
    assert facts("No, not really.", [("Bob", "Are you still at the clinic?")]) == []
    # another verb than be/have: its predicate is not copied
    out = facts("Yes, the ending especially.", [("Bob", "Did you like the film?")])
    assert not any(f.startswith(("Ann is", "Ann has")) for f in out), out
    # no question before: a fragment stays a fragment
    out = facts("Yep, still in pediatrics at Mercy General.")
    assert not any(f.startswith("Ann is still in pediatrics") for f in out), out


# ---- identifications with an apposition -------------------------------------------------------

def test_identification_after_a_what_question():
    out = facts("That's kouign-amann, a pastry my aunt taught me in Brittany.", [("Bob", "Ooh, what is that pastry?")])
    assert any(f.lower().startswith("kouign-amann is a pastry ann's aunt taught") for f in out), out


def test_identification_after_a_photo():
    prev = [("Bob", "[image: a photo of a small white boat] Look at this!")]
    out = facts("That's the Marisol, the boat my dad restored.", prev)
    assert any(f.startswith("The Marisol is the boat Ann's dad restored") for f in out), out


def test_identification_guards():
    prev = [("Bob", "What is that?")]
    assert facts("That's awesome, a dream come true!", prev) == []
    out = facts("That's a shame, a real shame.", prev)
    assert not any("shame is" in f.lower() for f in out), out
    # no what/which question and no photo: left to the rules
    out = facts("That's kouign-amann, a pastry my aunt taught me.", [("Bob", "How was your weekend?")])
    assert not any(f.lower().startswith("kouign-amann is") for f in out), out
    # no apposition: nothing to say of it
    out = facts("That's kouign-amann!", [("Bob", "What is that?")])
    assert not any(f.lower().startswith("kouign-amann is") for f in out), out


def test_identification_with_the_photo_in_the_same_message():
    out = facts("This is Pepper, our neighbor's beagle [shared a photo: a beagle on a porch]",
                [("Bob", "How was your Sunday?")])
    assert "Pepper is Ann's neighbor's beagle" in out, out


def test_identification_after_a_who_question():
    out = facts("That's my grandma, a retired nurse from Ohio.", [("Bob", "Who is that in the picture?")])
    assert any(f.startswith("Ann's grandma is a retired nurse") for f in out), out


def test_yes_fragment_must_fit_the_asked_predicate():
    # a duration, a quantity or an idiom is no state: nothing is copied
    for q, a in [("Are you still vegan?", "Yep, five years now!"), ("Are you free Saturday?", "Yes, both days!"),
                 ("Are you coming to the party?", "Yeah, for sure!"), ("Are you excited?", "Yep, same here!"),
                 ("Are you still painting?", "Yes, mostly landscapes these days."), ("Are you tired?", "Yeah, a bit.")]:
        out = facts(a, [("Bob", q)])
        assert not any(f.startswith("Ann is") for f in out), (q, a, out)


def test_guess_who_then_someone_elses_news():
    out = facts("Guess who's getting married?! My brother Sam finally proposed!")
    assert any(f.startswith("Ann's brother Sam is getting married") for f in out), out
    assert not any(f.startswith("Ann is getting married") for f in out), out


def test_guess_who_then_an_unrelated_my_sentence():
    out = facts("Guess who swam two kilometers this morning?! My arms are jelly.")
    assert any(f.startswith("Ann swam two kilometers") for f in out), out


def test_yes_fragment_drops_chat_tail_and_vocative():
    out = facts("Still at Mercy General, yeah.", [("Bob", "Are you still at the clinic?")])
    assert "Ann is still at Mercy General" in out, out
    out = facts("Nope, in Porto now near the river, Bob!", [("Bob", "Hey! Are you still in Lisbon?")])
    assert any(f.startswith("Ann is in Porto now near the river") and "Bob" not in f for f in out), out
