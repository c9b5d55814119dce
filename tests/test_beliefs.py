"""Session 12 (cov12): a belief stated in a later clause ("..., but I'm sure X", "... - I'm still
thinking that X") is kept as "S believes X"; empty or listener-guessing clauses are not."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def texts(text: str) -> list[str]:
    r = extract_offline(text, ExtractionContext("Priya", WHEN, addressee="Daniel"))
    return [f.fact_text for f in r.facts]


def test_a_belief_after_but_is_kept():
    assert "Priya believes renting out the spare room will cover the mortgage" in texts(
        "Money's been tight since the layoff, but I'm sure renting out the spare room will cover the mortgage.")


def test_a_belief_after_a_dash_is_kept():
    assert "Priya believes nursing school is the right path" in texts(
        "Volunteering at the clinic changed a lot for me - I'm still thinking that nursing school is the right path.")


def test_empty_or_listener_beliefs_give_nothing():
    for text in ("It's tough, but I'm sure it'll be worth it.", "We'll get there, I'm sure we'll make it!",
                 "Once I find a place, I'm sure the rest will follow!",
                 "I'm sure you feel great knowing your students are doing well."):
        assert not any("believes" in t for t in texts(text)), (text, texts(text))


def test_a_general_statement_with_a_plural_subject_is_believed():
    assert "Priya believes good boots help avoid blisters on long hikes" in texts(
        "Good boots help avoid blisters on long hikes.")
    assert "Priya believes patience and practice can help beginners really improve" in texts(
        "Totally! Patience and practice can help beginners really improve.")
    assert "Priya believes houseplants bring so much calm" in texts("Houseplants bring so much calm too, though.")


def test_personal_thin_imperative_and_gerund_statements_are_not_general_beliefs():
    for text in ("Music brings us together.", "Flowers bring joy.", "Stay motivated and keep going!",
                 "Having a plan can help with motivation.", "Their love and help have been so important.",
                 "Dancing brings me joy.", "Those moments make being a parent worth it."):
        assert not any("believes" in t for t in texts(text)), (text, texts(text))
