"""A fragment answer to the other speaker's question states its fact with the question's predicate
(write/qa_pairs.py). Invented dialogues (other names and topics than the dev conversations); no
database. The positive cases fail without the module (the fragment alone gives no fact); the
guards below them keep the precision: no fact from an exclamation, a bare "yes", a question about
a third person or an unresolved pronoun, nor beside a full-sentence answer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2024, 3, 9, 18, 0, tzinfo=UTC)


def facts(answer: str, *previous: tuple[str, str], speaker: str = "Rosa") -> list[tuple[str, str | None]]:
    ctx = ExtractionContext(speaker, WHEN, addressee="Tomas", previous_turns=list(previous))
    return [(f.fact_text, f.rule_kind) for f in extract_offline(answer, ctx).facts]


@pytest.mark.parametrize(("previous", "answer", "expected"), [
    ([("Tomas", "That medal looks heavy! How long have you been running marathons?")],
     "Six years now! Still love every race.", "Rosa has been running marathons for six years now"),
    ([("Tomas", "Nice flat. How long have you lived in Valencia?")],
     "About ten years.", "Rosa has lived in Valencia for about ten years"),
    ([("Rosa", "We adopted a kitten last month."), ("Tomas", "So sweet! What did you name it?")],
     "Pepper! She climbs everything.", "Rosa's kitten is named Pepper"),
    ([("Rosa", "I've got a parrot and a tortoise at home."), ("Tomas", "Fun combo! What are their names?")],
     "Kiwi and Shelly! They ignore each other.", "Rosa's parrot and tortoise are named Kiwi and Shelly"),
    ([("Tomas", "I'm looking for a new walk. What's your favorite hiking trail?")],
     "The Lycian Way!", "Rosa's favorite hiking trail is the Lycian Way"),
    ([("Tomas", "You look so tanned! Where did you travel last summer?")],
     "Iceland! The glaciers were unreal.", "Rosa traveled to Iceland last summer"),
    ([("Tomas", "Your kitchen smells amazing. What kind of bread do you bake?")],
     "Mostly sourdough.", "Rosa bakes mostly sourdough"),
    ([("Tomas", "Big family dinners? How many siblings do you have?")],
     "Four!", "Rosa has four siblings"),
    ([("Tomas", "Do you have any kids?")],
     "Yes, two! They keep me busy.", "Rosa has two kids"),
    ([("Tomas", "Do you play any instruments?")],
     "Yep, the cello.", "Rosa plays the cello"),
    ([("Tomas", "When did you take up pottery?")],
     "Last spring.", "Rosa took up pottery last spring"),
    ([("Tomas", "Who's your favorite painter?")],
     "Frida Kahlo, obviously.", "Rosa's favorite painter is Frida Kahlo"),
    ([("Tomas", "What do you do for a living?")],
     "Nursing!", "Rosa does nursing for a living"),
])
def test_a_fragment_answer_states_the_question_s_fact(previous, answer, expected):
    got = facts(answer, *previous)
    assert (expected, next((k for t, k in got if t == expected), None)) in got, got
    assert any(t == expected and (k or "").startswith("qa_pair.") for t, k in got), got


def test_the_answer_s_first_person_is_the_answerer():
    got = [t for t, _ in facts("My older cousin.", ("Tomas", "Who did you go skiing with?"))]
    # "her" (the subject's own, write/readability.py, gendered since gender17), not Tomas's
    assert "Rosa went skiing with her older cousin" in got, got


def test_a_bare_since_answer_replaces_its_restatement():
    got = [t for t, _ in facts("Since I was nine or so.", ("Tomas", "How long have you been sailing?"))]
    assert got == ["Rosa has been sailing since she was nine or so"], got


# ---- guards: no composed fact ----------------------------------------------------------------------
@pytest.mark.parametrize(("previous", "answer"), [
    ([("Tomas", "How was the festival?")], "So much fun! We danced all night."),  # a "how" judgement
    ([("Tomas", "Do you have any pets?")], "Yes! Love them."),  # a bare yes
    ([("Tomas", "What's Lia's favorite color?")], "Blue."),  # a third person
    ([("Tomas", "Cute! What are their names?")], "Kiwi and Shelly!"),  # "their": nothing named before
    ([("Tomas", "Where did you go?")], "We went to Iceland for a week."),  # a full sentence
    ([("Tomas", "What did you think of it?")], "Absolutely loved it!"),  # no fragment
    ([("Tomas", "Why did you quit?")], "Burnout, mostly."),  # a reason
    ([("Rosa", "Where did you go?")], "Lisbon!"),  # the speaker's own question
    ([("Tomas", "What are we cooking tonight?")], "Pasta!"),  # "we"
])
def test_no_fact_is_composed_when_unsure(previous, answer):
    got = facts(answer, *previous)
    assert not any((k or "").startswith("qa_pair.") for _, k in got), got


# ---- session 15 (branch qa15): more wh-questions a fragment answers --------------------------
# "how" + a verb of doing (its answer is the means), "when"/"where" + "is <the/your N>", a wh-word
# as the subject ("Which festival picked the film?"), "they" for the answerer's two people, and a
# fragment followed by a clause of its own ("Board games, and Sam always wins."). Each case failed
# on 70a6e31 (no qa_pair fact).
@pytest.mark.parametrize(("previous", "answer", "expected"), [
    ([("Rosa", "I have been restoring an old sailboat."), ("Tomas", "How do you keep the varnish even?")],
     "A foam brush and thin coats. Patience too.", "Rosa keeps the varnish even with a foam brush and thin coats"),
    ([("Tomas", "Your accent is great. How did you learn Japanese?")],
     "Watching anime with subtitles.", "Rosa learned Japanese by watching anime with subtitles"),
    ([("Rosa", "We finally booked the wedding venue!"), ("Tomas", "Congrats!! When is the wedding?")],
     "October 12th at the old mill! Still need a cake.", "Rosa's wedding is on 12 October 2024 at the old mill"),
    ([("Tomas", "When is your recital?")], "March 30th.", "Rosa's recital is on 30 March 2024"),
    ([("Tomas", "Where is your studio?")], "Above the bakery on Main Street.",
     "Rosa's studio is above the bakery on Main Street"),
    ([("Rosa", "My short film got into a festival!"), ("Tomas", "Which festival picked the film?")],
     "Lakeside Shorts. They screen forty films a year.", "Lakeside Shorts picked Rosa's film"),
    ([("Tomas", "Who taught you to knit?")], "My grandmother.", "Rosa's grandmother taught Rosa to knit"),
    ([("Rosa", "My brother and Sam meet every Friday."), ("Tomas", "What do they play?")],
     "Board games, and Sam always wins.", "Rosa's brother and Sam play board games"),
    ([("Tomas", "When did you move to Leeds?")], "June 2nd.", "Rosa moved to Leeds on 2 June 2023"),
    ([("Rosa", "Sunday lunch was at my dad's place again."),
      ("Tomas", "Your dad and Lucia are so cute together. What do they play after lunch?")],
     "Dominoes, and Lucia always wins.", "Rosa's dad and Lucia play dominoes after lunch"),
    ([("Rosa", "Lucia and my uncle go to the park on Saturdays."), ("Tomas", "What do they play at the park?")],
     "Cards, mostly.", "Lucia and Rosa's uncle play cards at the park"),
    ([("Rosa", "My uncle and his wife Lucia come over on Sundays."), ("Tomas", "What do they cook?")],
     "Dumplings, and Lucia makes the sauce.", "Rosa's uncle and his wife Lucia cook dumplings"),
    ([("Tomas", "How did you get to Vienna?")], "Night bus from Prague.", "Rosa got to Vienna by night bus from Prague"),
    ([("Rosa", "We bought a cabin!"), ("Tomas", "Where is the cabin?")], "Right by the river.",
     "Rosa's cabin is right by the river"),
    ([("Tomas", "How do you brew your tea?")], "In a glass pot, like my aunt.",
     "Rosa brews her tea in a glass pot, like her aunt"),  # readability (defects16), repeated_names (s18)
    ([("Tomas", "How did you meet your wife?")], "A friend's wedding.", "Rosa met her wife at a friend's wedding"),
    ([("Tomas", "How do you spend your evenings?")], "Knitting, mostly.", "Rosa spends her evenings knitting"),
    ([("Rosa", "We are opening the bakery in late summer."), ("Tomas", "Cool."),
      ("Rosa", "It took two years of planning."), ("Tomas", "When is the grand opening?")],
     "August 26th!", "Rosa's grand opening is on 26 August 2024"),
])
def test_more_question_forms_take_the_fragment(previous, answer, expected):
    got = facts(answer, *previous)
    assert any(t == expected and (k or "").startswith("qa_pair.") for t, k in got), got


def test_a_resolved_date_is_the_fact_s_event_date():
    ctx = ExtractionContext("Rosa", WHEN, addressee="Tomas", previous_turns=[("Tomas", "When is your recital?")])
    got = [f for f in extract_offline("March 30th.", ctx).facts if (f.rule_kind or "").startswith("qa_pair.")]
    assert [(f.event_date.date().isoformat() if f.event_date else None) for f in got] == ["2024-03-30"], got


def test_the_clause_after_the_fragment_keeps_its_own_fact():
    got = facts("Board games, but Sam hates losing.", ("Rosa", "My brother and Sam meet every Friday."),
                ("Tomas", "What do they play?"))
    assert ("Rosa's brother and Sam play board games", "qa_pair.what") in got, got
    assert any("Sam hates losing" in t and not (k or "").startswith("qa_pair.") for t, k in got), got


@pytest.mark.parametrize(("previous", "answer"), [
    ([("Tomas", "How do you like the new job?")], "Love the team."),  # a judgement, not a means
    ([("Tomas", "How did you find the course?")], "Pretty tough stuff."),
    ([("Tomas", "How do you feel about the move?")], "Nervous excitement, mostly."),
    ([("Tomas", "How did you two meet?")], "A salsa class."),  # "you two": not the answerer alone
    ([("Tomas", "How would you describe your style?")], "Cozy chaos."),  # a description, not a means
    ([("Tomas", "How do you pronounce your name?")], "Ro-sa."),
    ([("Rosa", "I am so tired today."), ("Tomas", "When is the game?")], "Sunday at noon."),  # whose game?
    ([("Rosa", "I watched the whole thing."), ("Tomas", "Which team won the final?")], "The Hawks."),
    ([("Tomas", "When is your flight?")], "Not sure yet."),  # no answer
    ([("Rosa", "We booked the wedding venue!"), ("Tomas", "When is the wedding?")], "October?"),  # a question back
    ([("Rosa", "I entered the baking contest."), ("Tomas", "Who won the contest?")], "Tomas!"),  # a vocative
    ([("Tomas", "How did you get so good at chess?")], "Amazing, right?"),
    ([("Rosa", "Sam cooked dinner."), ("Tomas", "What do they cook?")], "Mostly curries."),  # "they": no pair
    ([("Tomas", "When did you start running?")], "Wow, great question."),  # a reaction
    ([("Rosa", "Oliver did the silliest thing."), ("Tomas", "What's the funniest thing Oliver's done?")],
     "Oliver's hilarious!"),  # a clause, and a relative-clause question
])
def test_new_forms_leave_reactions_and_unanchored_questions_alone(previous, answer):
    got = facts(answer, *previous)
    assert not any((k or "").startswith("qa_pair.") for _, k in got), got
