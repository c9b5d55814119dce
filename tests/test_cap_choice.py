"""The per-subject cap keeps the news, not a placeholder or a long aside (write/cap_choice.py,
fact_quality._rank / _cap; session 16, cap16). Invented sentences only."""

from __future__ import annotations

from datetime import datetime

import pytest

from arandu_pipelines.write import cap_choice
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.fact_quality import _GENERIC, _cap, _content
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext


def _capped(subject: str, texts: list[tuple[str, str]]) -> list[str]:
    """The texts `_cap` keeps of restated sentences (text, rule kind) about one subject."""
    facts = [ExtractedFact(subject, t, attribute_key=kind or None, importance_category="conversational",
                           confidence=0.8, rule_kind=f"generic.speaker.{kind or 'plain'}") for t, kind in texts]
    token = _GENERIC.set(frozenset(id(f) for f in facts))
    try:
        return [f.fact_text for f in _cap(facts)]
    finally:
        _GENERIC.reset(token)


def _turn(prev: list[tuple[str, str]], speaker: str, text: str) -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 4),
                            addressee=prev[-1][0], previous_turns=prev)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- whole turns: these lost the news before cap16 ----------------------------------------------
def test_a_placeholder_deed_gives_way_to_what_the_thing_was() -> None:
    out = _turn([("Omar", "How have you been?")], "Nora",
                "I finally did the thing I've been talking about for years. I opened a pottery studio "
                "downtown. We had our very first class on Friday.")
    assert "Nora opened a pottery studio downtown" in out, out
    assert not any("did the thing" in t for t in out), out


def test_an_age_is_kept_over_a_habit_of_the_same_person() -> None:
    out = _turn([("Omar", "How is your grandpa?")], "Nora",
                "My grandpa is ninety-two and very proud. He still insists on mowing his own lawn. "
                "He fell off the ladder but nothing broke, thankfully.")
    assert "Nora's grandpa is ninety-two and very proud" in out, out


def test_a_plan_after_now_counts_as_opening_with_its_subject() -> None:
    out = _turn([("Omar", "How did the recital go?")], "Nora",
                "My uncle played the cello in an orchestra in his thirties, which I had completely "
                "forgotten about. He still remembers all the pieces. Now my uncle wants to come every week.")
    assert "Now Nora's uncle wants to come every week" in out, out


# ---- the cap itself ---------------------------------------------------------------------------------
def test_a_pair_opening_with_the_subject_second_is_about_the_subject() -> None:
    out = _capped("Joel", [("Joel will mail it but don't read it until after 18 April 2023", ""),
                           ("Joel knows how tax season goes", ""),
                           ("Rachel and Joel want to send it to publishers in March", "plan")])
    assert "Rachel and Joel want to send it to publishers in March" in out
    assert "Joel knows how tax season goes" not in out


def test_a_bare_deed_with_a_date_is_no_better_than_its_siblings() -> None:
    """"Finished on Saturday": finished what? The date alone does not lift it (negative)."""
    out = _capped("Hana", [("Hana finished on Saturday", "event"), ("Hana passed the written test", "event"),
                           ("Hana is officially certified to skipper a small keelboat", "event")])
    assert out == ["Hana passed the written test", "Hana is officially certified to skipper a small keelboat"]


def test_order_and_length_decide_when_no_sign_differs() -> None:
    """Negative: three plain facts with none of the signs keep the old choice (most content words)."""
    texts = [("Ivo likes quiet mornings by the lake", ""), ("Ivo reads a lot", ""),
             ("Ivo walks the old dog along the river every evening", "")]
    assert _capped("Ivo", texts) == ["Ivo likes quiet mornings by the lake",
                                     "Ivo walks the old dog along the river every evening"]


# ---- the signs --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "subject", "expected"), [
    ("Now Ann's dad wants to come every week", "Ann", True),
    ("Then Ann moved to a bigger flat", "Ann", True),
    ("Rachel and Ann want to send it in March", "Ann", True),
    ("Ann and Rachel want to send it in March", "Ann", True),
    ("Now everyone says Ann is crazy", "Ann", False),       # the subject is not what the fact opens with
    ("Seeing Ann's students improve is a joy", "Ann", False),
    ("Rachel said Ann was late", "Ann", False),
])
def test_opens_with(text: str, subject: str, expected: bool) -> None:
    assert cap_choice.opens_with(text, subject) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Ann finally did the thing Ann has been talking about for years", True),
    ("Ann finally did something Ann has wanted for ages", True),
    ("Ann ran into some people who said something rude", False),  # "something" is no deed here
    ("Ann did the dishes", False),
    ("Ann made something to catch the eye", False),
])
def test_vague_deed(text: str, expected: bool) -> None:
    assert cap_choice.vague_deed(text) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Ann's dad is eighty-one and very stubborn", True),
    ("Ann's first recital is in June at the town hall", True),
    ("Ann ran 12 km along the coast", True),
    ("Ann finished on Saturday", False),          # nothing but the date besides the deed
    ("Ann may visit her aunt soon", False),       # "may" is no month
    ("Ann is the one who organised everything", False),
])
def test_dated(text: str, expected: bool) -> None:
    assert cap_choice.dated(text, _content) is expected
