"""Elaborations (issue 19, session 11: write/elaboration.py): a message's later free-text fact
that opens with no subject of its own comments on the earlier fact and is not kept (an
unresolved "it" subject or a gerund evaluation wherever it stands); a fragment opening the
message, a causative, a demonstrative with its noun and an activity as subject stay."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import elaboration
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def facts(text: str) -> list[str]:
    r = extract_offline(text, ExtractionContext("Maria", WHEN, addressee="John"))
    return [f.fact_text for f in r.facts]


@pytest.mark.parametrize(("text", "kept", "gone"), [
    ("I went to a pride parade last week. It showed me how much my community has grown, it was amazing.",
     "Maria went to a pride parade", "It showed"),
    ("I finally finished my pottery project last weekend. Pretty proud of my pottery project!",
     "Maria finally finished", "Pretty proud"),
    ("We took the kids to the beach last month. Seeing my kids' faces so happy at the beach was the best!",
     "took the kids to the beach", "Seeing"),
    ("I read a book about starting a business. Makes me feel so motivated to keep going.",
     "Maria read a book about starting a business", "Makes"),
])
def test_a_later_subjectless_comment_is_not_a_second_fact(text, kept, gone):
    got = facts(text)
    assert any(kept in f for f in got), got
    assert not any(f.startswith(gone) for f in got), got


@pytest.mark.parametrize(("text", "kept"), [
    # the message's only fact: the pronoun points at the previous turn, the fact is the knowledge
    ("It made me even more determined to adopt.", "Maria became even more determined to adopt"),
    # a demonstrative with its noun names its thing
    ("I bought this necklace in Sweden. This necklace is super special to me - a gift from my grandma.",
     "The necklace is super special to Maria"),
    # an activity as subject is a fact about the speaker
    ("I joined a dance crew last year. Dancing is where I feel most alive.",
     "Dancing is where Maria feels most alive"),
])
def test_first_facts_named_things_and_activities_stay(text, kept):
    assert any(f.startswith(kept) for f in facts(text)), facts(text)


def test_only_free_text_facts_after_another_fact_are_dropped():
    a = ExtractedFact(fact_text="Maria went to a pride parade", subject="Maria")
    b = ExtractedFact(fact_text="It showed Maria how much the community has grown", subject="Maria")
    rule = ExtractedFact(fact_text="It is Maria's birthday", subject="Maria")
    free = {id(a), id(b)}
    kept, dropped = elaboration.drop([a, b, rule], lambda f: id(f) in free)
    assert kept == [a, rule]
    assert [(k, f.fact_text) for k, f in dropped] == [("pronoun", b.fact_text)]
    it = ExtractedFact(fact_text="It helps Maria keep track of ideas", subject="Maria")
    gives = ExtractedFact(fact_text="Gives Maria a visual of the progress", subject="Maria")
    kept, dropped = elaboration.drop([it, gives], lambda f: True)
    assert not kept and [k for k, _ in dropped] == ["pronoun", "fragment"]
    frag = ExtractedFact(fact_text="Makes Maria feel connected", subject="Maria")
    kept, dropped = elaboration.drop([frag, a], lambda f: True)
    assert kept == [frag, a] and not dropped


@pytest.mark.parametrize(("text", "kind"), [
    ("It really helps Maria reset and recharge", "pronoun"),
    ("It inspires Maria to keep making art, too", "pronoun"),
    ("It also showed Maria that tough times don't last", "pronoun"),
    ("It made Maria reflect on how far Maria has come", None),
    ("It's made Maria appreciate Maria's friends", None),
    ("Stuff like this mural are really special to Maria", "pronoun"),
    ("Reminds Maria how awesome life is", "fragment"),
    ("Almost as silly as when Maria fed a horse a carrot", "fragment"),
    ("Being around people who back Maria up is beyond words", "gerund"),
    ("Seeing Maria's kids' smiles was so awesome, and Maria is so thankful", None),
    ("This necklace is special to Maria", None),
    ("Dancing has kept Maria going", None),
    ("Maria felt it was amazing", None),
])
def test_kinds(text, kind):
    assert elaboration.kind_of(text) == kind


@pytest.mark.parametrize(("text", "first"), [
    ("It reminds Maria why Maria loves being a mom", None),  # an unresolved "it" as subject
    ("Seeing Maria's kids so happy at the beach was the best", None),  # an evaluation
    # a fragment opening the message: the speaker is its subject, the turn's knowledge
    ("Reminds Maria how much Maria loves performing", "Reminds Maria how much Maria loves performing"),
])
def test_pronoun_and_evaluation_go_wherever_they_stand_a_fragment_only_after_a_fact(text, first):
    f = ExtractedFact(fact_text=text, subject="Maria")
    kept, _ = elaboration.drop([f], lambda _: True)
    assert [k.fact_text for k in kept] == ([first] if first else [])


@pytest.mark.parametrize(("text", "want"), [
    # a base verb governed by "hope to": one plan, not a plan and a deed
    ("I hope to build my own family and put a roof over kids who haven't had that before.",
     ["Maria hopes to build her own family and put a roof over kids who haven't had that before"]),
    # two past actions still split; "joined" can only be a past, whatever precedes it
    ("I went hiking last week and got into a bad spot with some people.",
     ["Maria went hiking", "Maria got into a bad spot with some people"]),
    ("I want to learn the violin and joined a class last week.",
     ["Maria wants to learn the violin", "Maria joined a class"]),
])
def test_split_of_two_actions_respects_a_governing_plan(text, want):
    assert facts(text) == want
