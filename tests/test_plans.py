"""Concrete plans survive `unanchored` (write/plans.py, session 16); empty ones stay dropped.

All sentences are invented."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def texts(text: str, speaker: str = "Ben", prev: list[tuple[str, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee="Ana", previous_turns=prev or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


@pytest.mark.parametrize(("text", "fact"), [
    ("I will be coaching a team of nine kids.", "Ben will be coaching a team of nine kids"),
    ("I'll put together a choir of twelve voices.", "Ben will put together a choir of twelve voices"),
    # the ", but ..." tail after the plan is cut
    ("I still have to fix the porch roof and the fence, but the worst is over.",
     "Ben still has to fix the porch roof and the fence"),
    ("I'll take a break from the garden and the bakery for a while.",
     "Ben will take a break from the garden and the bakery for a while"),
])
def test_a_plan_naming_what_will_be_done_is_kept(text, fact):
    assert fact in texts(text)


def test_a_plan_hedged_with_probably_is_a_decision():
    prev = [("Ana", "How did the tasting go?")]
    got = texts("The tasting was great. We will probably go with the Thai caterer.", prev=prev)
    assert "Ben and others will probably go with the Thai caterer" in got


@pytest.mark.parametrize("text", [
    "I'll let you know.",
    "We'll see.",
    "I'll try.",
    "I will keep going.",
    "I'm gonna make it happen.",
    "I will keep pushing and make my dreams come true.",
    "I'll do my best to help the kids at the shelter.",
    "I'll be there for the whole week.",  # no action
    "I will be so nervous.",
    "I'll tell him.",
    "I will send it.",
    "I will bring my camera.",  # one content word: nothing to know later
    "We can do great things together.",  # ability, not a plan
    "I should go do my grocery shopping.",
    "It must be fun, I will probably love it.",  # a guess stays a guess
])
def test_empty_plans_stay_dropped(text):
    assert texts(text) == []


@pytest.mark.parametrize("text", [
    "I'll save it as my weekend treat.",  # "it" with nothing to stand for: what is planned is unnamed
    "I'll send the slides to you later.",  # a promise of the chat
])
def test_unnamed_objects_and_chat_promises_stay_dropped(text):
    assert texts(text) == []


def test_an_it_object_resolved_from_the_previous_turn_is_a_plan():
    prev = [("Ana", "What happened to the engine of your truck?")]
    got = texts("It cracked last week. I'll rebuild it with my uncle's spare parts.", prev=prev)
    assert any(t.startswith("Ben will rebuild") and "engine" in t for t in got), got


def test_a_month_is_never_what_it_stands_for():
    # write/antecedents.py: "it" stood for "March" ("Ben is going to frame March for the hallway")
    prev = [("Ana", "Tom and I want to mail the letters in March.")]
    got = texts("I am going to frame it for the hallway.", prev=prev)
    assert got and not any("March" in t for t in got), got
