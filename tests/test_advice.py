"""Advice and proposals to the listener (write/advice.py, session 13, branch advice13): advice the
listener asked for, advice the speaker marks as such, and a proposal of something to do together
become one fact; unasked imperatives, formulas and answers to the listener's own proposal do not.
Sentences are invented (other names and topics than the dev conversations); unit level through
`extract_offline` with the real spaCy pipeline, no database."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2024, 3, 2, 11, 0, tzinfo=UTC)


def run(text: str, previous: str | None = None):
    prev = [("Aiko", previous)] if previous else []
    return extract_offline(text, ExtractionContext("Tomas", WHEN, addressee="Aiko", previous_turns=prev))


def advice(r) -> list[str]:
    return [f.fact_text for f in r.facts if (f.rule_kind or "").startswith("advice.")]


@pytest.mark.parametrize(("previous", "text", "fact"), [
    # imperatives answering a request for tips, in the turn's order, generic second person
    ("I want to start keeping bees. Got any tips for a beginner?",
     ("Sure! Join a local beekeeping club and read up on hive diseases. Order your bees early in the winter. "
      "And don't forget to wear a veil, since the stings can be nasty."),
     ("Tomas recommends joining a local beekeeping club and reading up on hive diseases, ordering one's bees "
      "early in the winter, and wearing a veil for a beginner")),
    # the request's topic as purpose; a capital first verb the tagger takes for a proper noun
    ("Any advice on how to sleep better before exams?",
     "Totally. Switch off your phone an hour before bed. Keep a notebook by your bed, Aiko.",
     ("Tomas recommends switching off one's phone an hour before bed and keeping a notebook by one's bed "
      "to sleep better before exams")),
    # a negated imperative; "you should" advice
    ("Do you have any suggestions for my first marathon?",
     "Don't be afraid to walk the water stations. You should also taper for two weeks.",
     "Tomas recommends not being afraid to walk the water stations and tapering for two weeks"),
])
def test_requested_advice(previous, text, fact):
    r = run(text, previous)
    assert advice(r) == [fact], [f.fact_text for f in r.facts]
    f = next(f for f in r.facts if f.rule_kind == "advice.requested")
    assert f.mentions == ["Aiko"]
    assert r.trace.get("advice") == "requested"


def test_marked_advice_without_a_request():
    r = run("Pottery takes patience. My advice? Wedge your clay well before you throw it.")
    assert advice(r) == ["Tomas recommends wedging one's clay well before one throws it"], advice(r)
    assert r.trace.get("advice") == "marked"


@pytest.mark.parametrize(("previous", "text", "fact"), [
    ("The weather has been lovely lately.", "It really has! Wanna do a picnic at the lake next weekend?",
     "Tomas suggests doing a picnic at the lake next weekend with Aiko"),
    ("I finally finished my thesis!", "Congrats! How about we plan a road trip to the coast?",
     "Tomas suggests planning a road trip to the coast with Aiko"),
])
def test_a_proposal_to_do_something_together(previous, text, fact):
    r = run(text, previous)
    assert advice(r) == [fact], [f.fact_text for f in r.facts]
    assert r.trace.get("advice") == "joint"


@pytest.mark.parametrize(("previous", "text"), [
    # unasked imperatives are talk
    ("I'm off to the festival tonight.", "Have fun! Take lots of pictures and enjoy the music."),
    ("I'm off to the festival tonight.", "Take care! Let me know how it goes."),
    # asked, but only formulas, talk or showing
    ("Any tips for the audition?", "Keep going! Believe in yourself!"),
    ("Any tips for the audition?", "Check out this video of my audition!"),
    # a request that is not for advice
    ("Can you send me the photos?", "Sure, give me a minute and look in your inbox."),
    # proposals that are offers or requests, or that answer the listener's own proposal
    ("I'm learning the ukulele.", "Wanna see my new guitar?"),
    ("I'm learning the ukulele.", "Wanna show me a song sometime?"),
    ("Let's go hiking this weekend!", "Sure, or wanna do a bike ride along the river instead?"),
])
def test_no_advice_from_talk(previous, text):
    r = run(text, previous)
    assert advice(r) == [], advice(r)


def test_advice_is_not_doubled_as_encouragement():
    """An imperative of the encouragement table inside asked-for advice is advice only."""
    r = run("My advice: stay curious and keep practicing your scales every morning.",
            "Any tips for learning the violin?")
    kinds = [f.rule_kind for f in r.facts]
    assert "speech_act.encourages" not in kinds, [(f.rule_kind, f.fact_text) for f in r.facts]
    assert advice(r) == [("Tomas recommends staying curious and keeping practicing one's scales every morning "
                          "for learning the violin")], advice(r)


def test_portuguese_is_left_alone():
    r = run("Faça uma lista e comece cedo.", "Alguma dica para a mudança?")
    assert advice(r) == []


def test_advice_replaces_its_restatement():
    """"My advice: X" used to be restated as "Tomas's advice: X"; the advice fact takes its place."""
    r = run("My advice: label every box and pack the kitchen last.", "Any tips for moving house?")
    assert [f.fact_text for f in r.facts] == [
        "Tomas recommends labeling every box and packing the kitchen last for moving house"], \
        [(f.rule_kind, f.fact_text) for f in r.facts]


def test_advice_gets_the_chat_spellings_other_facts_get() -> None:
    """Advice is composed after fact_quality's checks; its chat words were kept ("for running a
    successful biz")."""
    ctx = ExtractionContext(speaker_name="Jon", occurred_at=datetime(2023, 5, 8), addressee="Gina",
                            previous_turns=[("Gina", "Got any advice or tips on running a successful biz?")])
    texts = [f.fact_text for f in extract_offline(
        "Make sure ur stuff stands out and build relationships with ur customers.", ctx).facts]
    assert any(t.startswith("Jon recommends") for t in texts), texts
    assert not any(re.search(r"\b(?:biz|ur)\b", t) for t in texts), texts
