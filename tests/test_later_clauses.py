"""A long sentence's later clause about the speaker survives (session 16, clause16): a second
independent clause after a subordinate one (", and on Fridays I ...", ", and when we ... we ..."),
and a clause after a fronted phrase ("On our anniversary, we ..."). Sentences are invented
(other names, other topics), unit level, no database."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.clause_ends import fronted_head, names_subject
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.later_clauses import split
from arandu_pipelines.write.types import ExtractionContext
from arandu_pipelines.write.we_events import fronted_subject

WHEN = datetime(2023, 9, 14, 18, 30, tzinfo=UTC)


def texts(text: str, speaker: str = "Dana") -> list[str]:
    return [f.fact_text for f in extract_offline(text, ExtractionContext(speaker, WHEN, addressee="Omar")).facts]


def has(facts: list[str], *words: str) -> bool:
    return any(all(w in f for w in words) for f in facts)


# ---- the second clause after a subordinate one is a fact of its own (failed before) -------------
def test_second_clause_after_while_clause_survives():
    facts = texts("I stretch on the balcony every morning while the kettle boils, and on Tuesday evenings "
                  "I join a pottery workshop at the arts center downtown.")
    assert has(facts, "Dana stretches on the balcony every morning"), facts
    assert has(facts, "Dana joins a pottery workshop at the arts center downtown", "on Tuesday evenings"), facts


def test_second_clause_after_because_clause_with_a_dated_adjunct():
    facts = texts("I knit scarves every winter because it calms me and my nieces adore them, and last month "
                  "I started a glassblowing course with my cousin.")
    assert has(facts, "Dana knits scarves every winter"), facts
    assert has(facts, "Dana started a glassblowing course"), facts


def test_a_long_pair_of_clauses_keeps_both():
    facts = texts("I've been a lifeguard at Pinecrest Lake Public Beach for eleven summers, and I've trained the "
                  "junior guards for about four.")
    assert has(facts, "Dana has been a lifeguard at Pinecrest Lake Public Beach"), facts
    assert has(facts, "Dana has trained the junior guards"), facts


def test_a_fronted_when_clause_moves_after_its_clause():
    facts = texts("My uncle and I finally started clearing out the old garage, and when we moved the "
                  "workbench we found a box of postcards from 1952 behind it!")
    assert has(facts, "clearing out the old garage"), facts
    assert has(facts, "found a box of postcards from 1952", "when"), facts


def test_a_fronted_phrase_is_no_clause_of_its_own():
    """"On our anniversary, we danced ..." was cut to "On Dana's anniversary" or dropped as a
    generic "we"."""
    facts = texts("On our silver anniversary, we waltzed in the garden to the same tune we waltzed to at our wedding.")
    assert has(facts, "waltzed in the garden"), facts
    assert "On Dana's silver anniversary" not in facts, facts


# ---- unit level -----------------------------------------------------------------------------------
def test_split_moves_a_fronted_adjunct_and_drops_a_link_word():
    assert split("Dana walks the dog every morning while the city sleeps, and on Sundays Dana bakes rye "
                 "bread for the whole street", "Dana") == (
        "Dana walks the dog every morning while the city sleeps",
        "Dana bakes rye bread for the whole street on Sundays")
    assert split("Dana fixed the fence because it was falling apart after the storm, and then Dana "
                 "painted the shed", "Dana") == (
        "Dana fixed the fence because it was falling apart after the storm", "Dana painted the shed")


def test_names_subject_and_fronted_subject():
    assert not names_subject("On Dana's birthday", "Dana")
    assert fronted_head("On Dana's birthday", "Dana")
    assert not fronted_head("It was a reminder to love Dana's garden", "Dana")
    assert names_subject("On her birthday Dana", "Dana")
    assert fronted_subject("On Dana's birthday, Dana and others hiked up the ridge", "Dana")
    assert not fronted_subject("In life, Dana and others all need friends", "Dana")
    assert not fronted_subject("In the end, Dana and others learn what matters", "Dana")


# ---- negatives: forms that must not split or change ---------------------------------------------
def test_no_split_when_the_name_is_not_the_clause_subject():
    """"and the puppy Dana adopted is ..." : Dana is inside the clause's subject, no restart."""
    assert split("Dana adopted a puppy last month which was a big step for the family, and the puppy Dana "
                 "adopted is a beagle", "Dana") is None
    facts = texts("I adopted a puppy last month which was a big step for our family, and the puppy I adopted "
                  "is a beagle who loves long walks in the park.")
    assert not any(f.startswith("Dana is a beagle") for f in facts), facts


def test_no_split_for_a_pair_or_an_owner():
    assert split("Dana painted the kitchen while the kids were at camp, and on Friday Dana and Lee "
                 "went to the coast", "Dana") is None
    assert split("Dana painted the kitchen while the kids were at camp, and on Friday Dana's sister "
                 "came over to help", "Dana") is None


def test_a_short_two_clause_fact_stays_one():
    facts = texts("I bake bread every morning, and on Saturdays I sell it at the market.")
    assert len([f for f in facts if "bake" in f]) == 1, facts
    assert has(facts, "bakes bread every morning", "sells it at the market"), facts
