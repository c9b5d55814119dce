"""Object "that <noun>" and a count with no noun ("the first two") named from the talk
(session 18, objects18: write/object_demonstratives.py). Invented sentences only (Nadia speaks,
Tom is the other speaker), through the real extractor. A wrong name is worse than the pronoun:
two phrases with the noun, "our X", a bare "the X", a time ("that day"), people for a count and
a subject "That X" leave the fact alone."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Tom", previous_turns=prev or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def has(out: list[str], *parts: str) -> bool:
    return any(all(p in f for p in parts) for f in out)


# ---- named --------------------------------------------------------------------------------------
def test_that_noun_named_from_the_other_speakers_turn():
    out = facts("You're going to smash that record.",
                [("Tom", "I ran well today. My record for the mile is six minutes flat.")])
    assert has(out, "Tom will smash his record for the mile"), out  # "his": repeated_names (lead, s18)


def test_that_noun_named_from_the_same_message():
    out = facts("I fixed my grandmother's old sewing machine last month. My aunt wants to borrow that machine now.")
    assert has(out, "borrow Nadia's grandmother's old sewing machine"), out


def test_count_without_noun_gets_the_asked_plural():
    out = facts("We finished the first two. The second was a pasta class, and it was wonderful.",
                [("Tom", "Nice! How are the cooking classes going?")])
    assert has(out, "finished the first two cooking classes"), out


# ---- left alone ---------------------------------------------------------------------------------
def test_two_phrases_with_the_noun_stay():
    out = facts("I'm going to frame that poster.",
                [("Tom", "I bought a poster of the harbor. And a poster of the old lighthouse.")])
    assert not has(out, "the harbor") and not has(out, "lighthouse"), out


def test_whose_phrase_and_bare_the_stay():
    out = facts("I want to try that recipe.", [("Tom", "I made our family recipe for dumplings.")])
    assert not has(out, "dumplings"), out
    out = facts("I read that book twice.", [("Tom", "Did you like the book?")])
    assert has(out, "that book"), out


def test_time_relative_clause_and_subject_stay():
    out = facts("I had a dentist appointment that day.", [("Tom", "We had the race on Sunday, the day of the fair.")])
    assert not has(out, "day of the fair"), out
    out = facts("I finally bought that lamp you showed me.", [("Tom", "I love my brass lamp from the market.")])
    assert not has(out, "market"), out
    out = facts("That record is going to fall soon.", [("Tom", "My record for the mile is six minutes flat.")])
    assert not has(out, "for the mile"), out


def test_count_for_people_or_two_plurals_stays():
    out = facts("We visited the first three.", [("Tom", "Did you see the kids at the fair?")])
    assert not has(out, "kids"), out
    out = facts("We tried the first two.", [("Tom", "How are the cooking classes and the dance lessons going?")])
    assert not has(out, "classes") and not has(out, "lessons"), out


# ---- his / her that nothing in the fact can own (write/object_possessives.py) --------------------
def said_by(speaker: str, text: str) -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Tom", previous_turns=[])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_possessive_named_from_the_one_person_of_the_message():
    out = facts("Speaking of Sam, I finally read his novel last week.")
    assert has(out, "read Sam's novel"), out
    out = facts("Speaking of Sam, we finally recorded his interview last Tuesday.")
    assert has(out, "recorded Sam's interview"), out


def test_possessive_named_from_a_name_another_fact_has_as_subject():
    out = said_by("Marcus", "Maria picked the first song. I'm choosing a song from her childhood for the second dance.")
    assert has(out, "from Maria's childhood"), out


def test_possessive_with_an_owner_in_the_fact_or_between_stays():
    out = facts("I met Maria at the market. I bought her bread for the week.")
    assert not has(out, "Maria's bread"), out  # "bought her bread": whose bread, or bread for her
    out = facts("Speaking of Sam, my dad finally read his novel last week.")
    assert not has(out, "Sam's novel"), out  # the dad may be the owner
    out = facts("Sam and Leo came over. I finally read his novel last week.")
    assert not has(out, "Sam's novel") and not has(out, "Leo's novel"), out  # two men
    out = said_by("Marcus", "Sam came over yesterday. I lent him his old bike back.")
    assert not has(out, "Sam's old bike"), out  # Marcus may own it: the fact has a name of that gender


# ---- a quoted title as what "it" is (write/object_it.py) ---------------------------------------
def test_it_named_by_a_quoted_title_past_a_verbless_description():
    out = facts('I chose "A Tale of Two Cities" by Charles Dickens. A real favourite of mine. I have read it three times.')
    assert has(out, 'read "A Tale of Two Cities" three times'), out


def test_two_titles_or_things_stay():
    # before: a title's first words were a noun phrase of their own ("has read the Tale three times")
    out = facts('I chose "A Tale of Two Cities" and "Emma" for the club. I have read it three times.')
    assert has(out, "read it three times"), out
    out = facts("I bought a lamp and a rug at the market. A real bargain. I painted it blue.")
    assert not has(out, "painted the lamp") and not has(out, "painted the rug") and not has(out, "bargain blue"), out
