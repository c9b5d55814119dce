"""Speech acts addressed to the other speaker (write/speech_acts.py, issue 19): one fact for a turn
that carries no other fact and does something toward the listener with content -- encourages,
offers help, thanks for something named, believes in, admires, thinks of them as X. Bare
formulas give nothing. Sentences are invented; unit level through `extract_offline` (the real
spaCy pipeline parses them), no database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import speech_acts
from arandu_pipelines.write.extract_rules import _rewrite_for_stance, extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 9, 14, 18, 30, tzinfo=UTC)


def run(text: str, speaker: str = "Priya", addressee: str | None = "Daniel"):
    return extract_offline(text, ExtractionContext(speaker, WHEN, addressee=addressee))


def texts(r) -> list[str]:
    return [f.fact_text for f in r.facts]


@pytest.mark.parametrize(("text", "fact"), [
    # imperatives addressed to the listener (root verb in base form, no subject)
    ("Keep going after your dreams, Daniel!", "Priya encourages Daniel to keep going after Daniel's dreams"),
    ("Wow! Keep pushing for that promotion, Daniel!", "Priya encourages Daniel to keep pushing for that promotion"),
    ("Don't let anything stop you.", "Priya encourages Daniel not to let anything stop Daniel"),
    ("Don't let the bad reviews bring you down.", "Priya encourages Daniel not to let the bad reviews bring Daniel down"),
    ("Remember that every setback teaches you something. Keep going!",
     "Priya encourages Daniel to remember that every setback teaches Daniel something"),
    # a formula with a promise that names something: the formula is the act
    ("Finding a flat is tough, Daniel. Hang in there and you'll find the right one soon!",
     "Priya encourages Daniel to hang in there"),
    # belief, help, thanks, admiration, appraisal
    ("I believe in you!", "Priya believes in Daniel"),
    ("I could help you with the bakery's website and the newsletter.",
     "Priya offered to help Daniel with the bakery's website and the newsletter"),
    ("Let me know if you need help with the move.", "Priya offered to help Daniel with the move"),
    ("Thanks for having my back.", "Priya is grateful to Daniel for having her back"),
    ("Thank you so much for driving me to the airport at 5 am!",
     "Priya is grateful to Daniel for driving her to the airport at 5 am"),
    ("Your belief in me means the world.", "Priya is grateful for Daniel's belief in her"),
    ("Way to turn your hobby into a business!", "Priya admires Daniel for turning Daniel's hobby into a business"),
    ("Wow, Daniel! You're definitely the perfect coach for that team.",
     "Priya thinks Daniel is definitely the perfect coach for that team"),
])
def test_an_act_toward_the_listener_is_one_fact(text, fact):
    r = run(text)
    assert texts(r) == [fact], texts(r)
    f = r.facts[0]
    assert f.subject == "Priya" and f.mentions == ["Daniel"] and f.source_text
    assert r.trace.get("speech_act")


@pytest.mark.parametrize("text", [
    "You got this!", "Good luck!", "Thanks!", "Thanks, Daniel!", "Keep it up!", "Keep going!",
    "Hang in there!", "Never give up!", "Don't quit, Daniel!", "Believe in yourself!", "Rock on!",
    "You're awesome!", "You're the best, Daniel!", "You're so inspiring!",
    "Thanks for the support!", "Thanks for asking!", "Your help means a lot.", "Appreciate your advice.",
    "Thanks for being there for me.",
])
def test_bare_formulas_give_nothing(text):
    r = run(text)
    assert texts(r) == [], texts(r)


@pytest.mark.parametrize("text", [
    "Love the colors!",  # dropped-subject first person, parsed as an imperative
    "Tell me more about the trip!", "Take a look at this.", "Keep me posted!", "Keep you posted on the move.",
    "Let's plan something special!", "Try the pasta at the new place!",  # talk, a proposal, advice
    "Don't forget to take breaks when you need to rest!", "Remember to book the tickets early!",  # advice
    "And remember, I'm always here for you.",  # about the speaker, not a thing to do
    "Are you going to keep going after your dreams?",  # a question
    "You're welcome, Daniel!",
])
def test_talk_and_advice_are_not_acts(text):
    r = run(text)
    assert not r.trace.get("speech_act"), texts(r)
    assert not any(w in t for t in texts(r) for w in ("encourages", "grateful", "thinks Daniel", "offered"))


def test_a_turn_with_a_real_fact_keeps_it_and_an_act_for_the_listener_beside_it():
    """Session 11 (cov2): an act of a `BESIDE` kind (help, thanks for something named,
    encouragement, support) is added beside the turn's own fact; appraisals are not."""
    r = run("I signed up for the half marathon in Lisbon last week. Keep going after your dreams, Daniel!")
    assert any("half marathon" in t for t in texts(r)), texts(r)
    assert "Priya encourages Daniel to keep going after Daniel's dreams" in texts(r), texts(r)
    assert r.trace.get("speech_act") == "encourages"
    r = run("I signed up for the half marathon in Lisbon last week. You're definitely the perfect coach for that team.")
    assert any("half marathon" in t for t in texts(r)), texts(r)
    assert not any("thinks Daniel" in t for t in texts(r)), texts(r)
    assert "speech_act" not in r.trace


@pytest.mark.parametrize(("text", "fact"), [
    ("I adopted a beagle named Rufus last month. I could help you with the garden this weekend.",
     "Priya offered to help Daniel with the garden this weekend"),
    ("I adopted a beagle named Rufus last month. Your belief in me means the world.",
     "Priya is grateful for Daniel's belief in her"),
])
def test_help_and_gratitude_are_added_beside_a_real_fact(text, fact):
    r = run(text)
    assert any("Rufus" in t for t in texts(r)), texts(r)
    assert fact in texts(r), texts(r)
    assert len(texts(r)) == len(set(texts(r)))


def test_one_act_beside_a_fact_in_table_order():
    r = run("I adopted a beagle named Rufus last month. Thanks for driving me to the airport. "
            "I could help you with the garden this weekend.")
    acts = [t for t in texts(r) if "grateful" in t or "offered" in t]
    assert acts == ["Priya offered to help Daniel with the garden this weekend"], texts(r)  # table order
    r = run("I'm so grateful you drove me to the airport at 5 am, I owe you one. Keep going after your dreams!")
    assert len(texts(r)) == len(set(texts(r))), texts(r)


@pytest.mark.parametrize("text", [
    "I'm here to support you.", "I'm always here to support you, Daniel!", "I'll always be there to back you.",
])
def test_here_to_support_you_is_support(text):
    r = run(text)
    assert texts(r) == ["Priya supports Daniel"], texts(r)
    assert r.trace.get("speech_act") == "supports"


@pytest.mark.parametrize("text", [
    "I'm here for you.", "I'm here for you no matter what!", "Thanks for your backing!", "Thanks for askin'!",
])
def test_being_there_and_thanks_for_backing_give_nothing(text):
    assert texts(run(text)) == [], texts(run(text))


def test_at_most_one_act_per_turn_in_table_order():
    r = run("Keep going after your dreams! Thanks for driving me to the airport. I believe in you.")
    assert texts(r) == ["Priya is grateful to Daniel for driving her to the airport"], texts(r)


def test_no_addressee_no_act():
    assert texts(run("Keep going after your dreams!", addressee=None)) == []
    assert texts(run("I believe in you!", addressee=None)) == []


def test_portuguese_is_left_to_the_restating_rules():
    """No Portuguese parser is installed: a Portuguese turn gets no speech-act fact (the same
    encouragement in English does)."""
    r = run("Continue correndo atrás dos seus sonhos, Daniel! Eu acredito em você.")
    assert "speech_act" not in r.trace
    assert not any("encourages" in t or "incentiva" in t for t in texts(r)), texts(r)


def test_without_a_parser_only_the_pattern_kinds_remain():
    """spaCy pipeline "none": imperatives cannot be told from dropped-subject sentences, so no
    encouragement; the kinds read off the words (thanks, belief, help) still work."""
    ctx = ExtractionContext("Priya", WHEN, addressee="Daniel", spacy_model="none")
    said = ["Keep going after your dreams!", "I believe in you."]
    found = speech_acts.acts(" ".join(said), ctx, said, _rewrite_for_stance, model="none")
    assert [a.kind for a in found] == ["believes_in"], found
    with_parser = speech_acts.acts(" ".join(said), ctx, said, _rewrite_for_stance)
    assert [a.kind for a in with_parser] == ["believes_in", "encourages"], with_parser


def test_one_act_for_a_long_message_extracted_in_windows():
    """A message over MAX_WINDOW_CHARS is extracted window by window; the act is chosen once for
    the whole message (per window, each half gave its own act)."""
    from arandu_pipelines.write.extract_rules import MAX_WINDOW_CHARS

    half = MAX_WINDOW_CHARS // 2 + 200
    first = "Keep going after your dreams! " * (half // 30)
    second = "Thanks for driving me to the airport. " * (half // 38)
    r = run(first + second)
    assert texts(r) == ["Priya is grateful to Daniel for driving her to the airport"], texts(r)  # table order


# ---- session 10 (cov30): confidence in the listener, pride, "I'd appreciate your X" ------------
@pytest.mark.parametrize(("text", "fact"), [
    # a prediction about the listener that names two things (measured on the dev pair: 3 of 4
    # such facts matched an annotator's observation; it was talk before)
    ("Wow Daniel, you're gonna kill it in that race. Good luck.", "Priya is confident Daniel will kill it in that race"),
    ("You'll ace the interview at the bakery!", "Priya is confident Daniel will ace the interview at the bakery"),
    ("Yeah, Daniel, I'll watch your game! So proud of you!", "Priya is proud of Daniel"),
    ("Sounds great. I'd really appreciate your help with the website and the newsletter.",
     "Priya is grateful for Daniel's help with the website and the newsletter"),
])
def test_confidence_pride_and_appreciation_toward_the_listener(text, fact):
    r = run(text)
    assert texts(r) == [fact], texts(r)
    assert r.trace.get("speech_act") in ("confident", "proud_of", "grateful")


@pytest.mark.parametrize("text", ["You're gonna kill it!", "You'll be fine.", "You will do great!",
                                  "You're going to love it!"])
def test_bare_predictions_give_nothing(text):
    assert texts(run(text)) == [], texts(run(text))


def test_confidence_is_not_added_beside_a_real_fact():
    r = run("I signed up for the half marathon in Lisbon last week. You're gonna kill it in that race too!")
    assert not any("confident" in t for t in texts(r)), texts(r)


def test_proud_of_you_for_x_stays_with_the_stance_kind():
    """"Proud of you for X" is write/stance.py's `proud_of` (it judges X); the speech act is
    only the bare "So proud of you!"."""
    r = run("I'm so proud of you for sticking with it.")
    assert r.trace.get("speech_act") is None, texts(r)


def test_no_act_beside_a_fact_from_the_same_sentence():
    """The sentence already gave the turn's fact: its act would restate it."""
    r = run("I could help you with the garden since I started a landscaping business in Porto.")
    assert len([t for t in texts(r) if "garden" in t]) == 1, texts(r)
