"""A third person's reported promise (write/said_promises.py): "My boss said she'd give me a raise"
-> "Ann's boss offered to give Ann a raise". Invented sentences only (Ann speaks to Bob), through
the real extractor; the positive cases gave no fact (dropped as `unanchored`) or a doubled
reporter ("Ann's mom said Ann's mom would ...") on base 7e8833d."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import said_promises
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.parses import ChunkParses
from arandu_pipelines.write.types import ExtractionContext


def texts(text: str) -> list[str]:
    ctx = ExtractionContext(speaker_name="Ann", occurred_at=datetime(2024, 5, 8, 12, tzinfo=UTC),
                            addressee="Bob", previous_turns=[("Bob", "How was your week?")], parses=ChunkParses())
    return [f.fact_text for f in extract_offline(text, ctx).facts]


@pytest.mark.parametrize(("text", "want"), [
    ("My manager said she'd give me a bonus in March.", "Ann's manager offered to give Ann a bonus"),
    ("Priya said she would lend me her camping stove for the trip.", "Priya offered to lend Ann her camping stove"),
    ("Marco told me he'll fix my bike this weekend.", "Marco offered to fix Ann's bike"),
    ("So my neighbor said he would feed the cats while I'm in Lisbon.", "Ann's neighbor offered to feed the cats"),
    ("Mom said she'd bake the cake for my graduation party.", "Ann's mom offered to bake the cake"),
    ("The landlord said he will repaint the kitchen.", "The landlord offered to repaint the kitchen"),
])
def test_promise_is_an_offer_with_the_reporter_once(text: str, want: str) -> None:
    out = texts(text)
    assert any(t.startswith(want) for t in out), out


@pytest.mark.parametrize("text", [
    "She said hi.",                                   # empty reports stay dropped
    "He said it was fine.",
    "Mom says hello.",
    "My dad said she would pick me up.",              # "she" is not the dad: someone else
    "Tom said she'd lend me her car.",                # Tom is no "she" (name table)
    "Sam told Ann she would help.",                   # "she" may be Ann
    "Dana said she would be late.",                   # no offer: a state
    "My sister said she'd already left.",             # "she had", no modal
    "My boss said she wouldn't give me a raise.",     # negated
    "Did your boss say she'd help?",                  # a question
    "My landlord said he'd raise the rent in August.",  # a change done to the speaker, no offer
    "My boss said he would fire me if I was late again.",  # a threat
])
def test_no_offer_read(text: str) -> None:
    assert not any("offered to" in t for t in texts(text)), texts(text)


def test_rewrite_needs_a_parse() -> None:
    s = "My manager said she'd give me a bonus."
    assert said_promises.rewrite_sentence(s, None) == s
    assert said_promises.rewrite_sentence(s, ChunkParses()) == "My manager offered to give me a bonus."


@pytest.mark.parametrize(("text", "want"), [
    ("My physio said I should stretch before every run.", "Ann's physio advised Ann to stretch before every run"),
    ("Keisha told me I should apply for the fellowship.", "Keisha advised Ann to apply for the fellowship"),
])
def test_said_i_should_is_advice(text: str, want: str) -> None:
    out = texts(text)
    assert any(t.startswith(want) for t in out), out


@pytest.mark.parametrize("text", [
    "He said I should relax.",                        # the reporter is an unresolved pronoun
    "My aunt said I should be proud.",                # a state, no advice with content
    "Keisha said I shouldn't worry about it.",        # negated
])
def test_no_advice_read(text: str) -> None:
    assert not any("advised" in t for t in texts(text)), texts(text)
