"""The speaker's "You're right, <my news>" (write/drop_repair.agreed_lead): the agreement lead is
cut and the news kept as the speaker's, instead of the whole fact dropped as being about the
addressee. Invented sentences only (Ann speaks to Bob)."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.drop_repair import agreed_lead
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name="Ann", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Bob", previous_turns=prev or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_agreement_lead_cut_keeps_the_speakers_news():
    out = facts("You're right, our kiln only reaches about 1800 degrees, and real stoneware glaze needs 2300.",
                [("Bob", "Did the kiln get hot enough for the glaze?")])
    assert any(f.startswith("Ann's kiln only reaches about 1800 degrees") for f in out), out


def test_agreed_lead_unit():
    assert agreed_lead("Bob is right, Ann's kiln only reaches 1800 degrees", "Bob", "Ann") == \
        "Ann's kiln only reaches 1800 degrees"
    assert agreed_lead("Bob is so right, Ann has to sell the old van", "Bob", "Ann") == "Ann has to sell the old van"


def test_agreed_lead_guards():
    # the rest is about the addressee, or the head is no agreement, or the rest is too short
    assert agreed_lead("Bob is right, Bob's van is too old for the trip", "Bob", "Ann") is None
    assert agreed_lead("Bob is tired, Ann's kiln only reaches 1800 degrees", "Bob", "Ann") is None
    assert agreed_lead("Bob is right, Ann's too", "Bob", "Ann") is None
    assert agreed_lead("Bob is right about the kiln", "Bob", "Ann") is None
