"""Precision filters and readability of kept facts (issue 19, write/precision.py).

Each filter drops its class through the real offline extractor (the drop reason is counted in
the trace under the filter's name) and keeps a near miss that is a real fact. Unit level, no
database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import precision, readability
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def run(text: str, speaker: str = "Maria"):
    return extract_offline(text, ExtractionContext(speaker, WHEN, addressee="John"))


def texts(r) -> list[str]:
    return [f.fact_text for f in r.facts]


@pytest.mark.parametrize(("reason", "dropped", "kept"), [
    # nothing but the subject, light verbs, evaluations and vague words
    ("content_free", "Those moments really make me thankful.", "Those moments at the lake make me thankful."),
    ("content_free", "I showed lots of love and support.", "I showed lots of love to my neighbour's dog."),
    ("content_free", "I might try it sometime.", "I might try pottery sometime."),
    # an unresolved pronoun object in the main clause, with at most one content word besides
    ("vague_pronoun", "I needed to do it for my biz.", "I needed to do the accounts for my biz."),
    ("vague_pronoun", "I painted it because it was calming.", "I painted it at the lake because it was calming."),
    # a short maxim turned into a belief: nothing about the speaker or anything named
    ("generic_opinion", "Marketing is key.", "Networking with local florists is key."),
    ("generic_opinion", "I believe family is everything.", "Talking about inclusivity and acceptance is crucial."),
])
def test_each_filter_drops_its_class_and_keeps_a_near_miss(reason, dropped, kept):
    r = run(dropped)
    assert texts(r) == [], texts(r)
    assert r.trace["refine_dropped"].get(reason) == 1, r.trace
    assert len(texts(run(kept))) == 1, texts(run(kept))


def test_disabled_filter_keeps_the_fact():
    """The filters are data: a benchmark narrows `ENABLED` to measure one; off, the fact stays."""
    saved = set(precision.ENABLED)
    try:
        precision.ENABLED.clear()
        assert texts(run("Those moments really make me thankful.")) == ["The moments really make Maria thankful"]
    finally:
        precision.ENABLED.update(saved)


def test_rule_facts_are_not_filtered():
    """Only free-text facts (restated sentences) are judged: a rule's match is knowledge."""
    assert "Maria lives in Porto" in texts(run("I live in Porto."))


def test_a_pronoun_of_an_embedded_clause_is_not_vague():
    assert not precision.vague_pronoun("Gina thinks of the big goal and why Gina is doing it", "Gina")
    assert precision.vague_pronoun("Gina needed to do it for Gina's biz", "Gina")


def test_exclamation_tail_is_cut_not_the_fact():
    r = run("We want the mural to spread understanding and acceptance - let's make it happen!")
    assert texts(r) == ["Maria and others want the mural to spread understanding and acceptance"], texts(r)
    assert precision.cut_exclamation("Love it - love it") == "Love it - love it"  # < 3 words left


def test_informativeness_counts_topic_words_only():
    assert precision.informativeness("Caroline saw some pretty cool stuff", "Caroline") == 0
    assert precision.informativeness("Melanie did a painting", "Melanie") == 1
    assert precision.informativeness("Caroline went to the beach because it was calming", "Caroline") == 1


# ---- readability: a possessive repeating its clause's subject becomes a pronoun ---------------
@pytest.mark.parametrize(("text", "subject", "pronoun", "want"), [
    ("Melanie took Melanie's kids to a park", "Melanie", None, "Melanie took her kids to a park"),
    ("Melanie took Melanie's kids to a park", "Melanie", "she", "Melanie took her kids to a park"),
    ("Melanie and others all made Melanie's own pots", "Melanie", "she", "Melanie and others all made their own pots"),
    ("Caroline has known these friends for 4 years, since Caroline moved from Caroline's home country", "Caroline",
     None, "Caroline has known these friends for 4 years, since Caroline moved from her home country"),
    ("Melanie took the kids and fed Melanie's dog", "Melanie", None, "Melanie took the kids and fed her dog"),
    # near misses: the possessive is not the clause subject's, or another name stands between
    ("Caroline's friends are Caroline's rocks", "Caroline", None, "Caroline's friends are Caroline's rocks"),
    ("Caroline met Ana at Caroline's house", "Caroline", None, "Caroline met Ana at Caroline's house"),
    ("Books guide Caroline, motivate Caroline and help Caroline", "Caroline", None,
     "Books guide Caroline, motivate Caroline and help Caroline"),
    ("Ana and Maria visited Maria's aunt", "Maria", None, "Ana and Maria visited Maria's aunt"),
])
def test_repeated_possessive_of_the_clause_subject_becomes_a_pronoun(text, subject, pronoun, want):
    assert readability.pronouns(text, subject, pronoun) == want


def test_extractor_output_uses_the_pronoun():
    assert texts(run("Since we last spoke, I took my kids to a park by the river.")) == [
        "Maria took her kids to a park by the river"]
