"""A title or a quotation keeps its own words: its "I", "me" and "you" are not the speaker and the
listener (session 18: "You Can't Take It with You" was stored as "Ana Can't Take It with Ana").
Invented sentences."""

from __future__ import annotations

from datetime import datetime

import pytest

from arandu_pipelines.write.extract_rules import _Who, extract_offline, rewrite_en
from arandu_pipelines.write.second_person import outside_quotes
from arandu_pipelines.write.types import ExtractionContext
from bench.facts import defects_of


def _facts(text: str) -> list[str]:
    ctx = ExtractionContext(speaker_name="Frank", occurred_at=datetime(2023, 5, 10), addressee="Ana")
    return [f.fact_text for f in extract_offline(text, ctx).facts]


@pytest.mark.parametrize(("said", "title"), [
    ('We watched "Me Before You" last night, I cried.', '"Me Before You"'),
    ("My book club is reading 'Where You Go' this month.", "'Where You Go'"),
    ("My favourite song is “I Will Survive” and I sing it every day.", "“I Will Survive”"),
])
def test_a_title_keeps_its_pronouns(said: str, title: str) -> None:
    facts = _facts(said)
    assert any(title in f for f in facts), facts
    assert not any("Ana" in f for f in facts), facts


def test_the_rewrite_skips_a_quotation_but_not_the_words_around_it() -> None:
    who = _Who("Frank", addr="Ana")
    assert (rewrite_en('My dad said "you did great" and I believe him', who)
            == 'Frank\'s dad said "you did great" and Frank believes him')


def test_an_apostrophe_opens_no_quotation() -> None:
    who = _Who("Frank", addr="Ana")
    assert rewrite_en("I'm glad you're coming to Rosa's party", who) == "Frank is glad Ana is coming to Rosa's party"


def test_you_outside_a_title_is_still_the_listener() -> None:
    assert outside_quotes('you loved "Me Before You"', lambda s: s.replace("you", "Ana")) == 'Ana loved "Me Before You"'
    facts = _facts("You told me your sister moved to Lisbon.")
    assert any(f.startswith("Ana told Frank her sister moved to Lisbon") for f in facts), facts


def test_the_benchmark_does_not_count_a_title_as_an_unresolved_pronoun() -> None:
    assert defects_of('Frank and others watched "Me Before You"') == []
    assert defects_of("Frank told you about it") == ["second_person"]
