"""People "they" (write/group_antecedents.py, through write/org_antecedents.py): a plural group of
people or a pair of people joined by "and" as the one antecedent of a subject "they"; a class for
its people; generic "they" never. Invented sentences only (Nadia speaks, Tom is the other
speaker)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def ctx(prev: list[tuple[str | None, str]] | None = None) -> ExtractionContext:
    return ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                             addressee="Tom", previous_turns=prev or [])


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ctx(prev)).facts]


# ---- resolved (each failed before the change) -------------------------------------------------------
def test_they_after_the_speakers_plural_kin():
    out = facts("My grandparents retired last spring. They bought a camper van.")
    assert "Nadia's grandparents bought a camper van" in out, out


def test_they_after_two_named_people_keeps_both():
    out = facts("Marcus and Elena finally eloped. They moved to Halifax.")
    assert "Marcus and Elena moved to Halifax" in out, out


def test_they_after_a_name_and_a_kin_phrase_and_a_contraction():
    out = facts("Jasper and his wife bought a farmhouse. They're redoing the kitchen now.")
    assert any(f.startswith("Jasper and his wife are redoing the kitchen") for f in out), out


def test_they_after_two_kin_phrases():
    out = facts("My aunt and her husband visited. They stayed for a week.")
    assert any(f.startswith("Nadia's aunt and her husband stayed for a week") for f in out), out


def test_they_for_a_class():
    out = facts("I signed up for a ceramics class. They gave me a free apron.")
    assert "The ceramics class gave Nadia a free apron" in out, out


# ---- left alone ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "They say it's going to snow all weekend.",
    "My grandparents sold the farm. They say it's going to snow all weekend.",
    "My grandparents sold the farm. They don't make barns like that anymore.",
    "My grandparents sold the farm. As they say, time flies.",
])
def test_generic_they_is_never_resolved(text: str):
    out = facts(text)
    assert not any("snow" in f or "barns" in f or "flies" in f for f in out), out


def test_a_bare_plural_or_a_count_is_no_group():
    out = facts("Toddlers are amazingly stubborn. They refuse naps.")
    assert not any("refuse naps" in f for f in out), out
    out = facts("I met three volunteers at the rally. They invited me to a phone bank.")
    assert not any("volunteers invited" in f for f in out), out


def test_two_places_are_no_pair_and_two_candidates_are_ambiguous():
    out = facts("Lisbon and Porto were lovely. They were crowded though.")
    assert not any("Porto were crowded" in f for f in out), out
    # a group and an organisation: "they" could be either
    out = facts("My nephews toured the museum. They loved the sharks.")
    assert not any("loved the sharks" in f and ("nephews" in f or "museum" in f) for f in out), out


def test_an_object_them_for_people_is_left_as_written():
    out = facts("My cousins flew in on Friday. I picked them up at the airport.")
    assert not any("picked Nadia's cousins" in f or "picked up Nadia's cousins" in f for f in out), out


def test_the_other_speakers_my_phrase_is_not_taken_into_a_pair():
    out = facts("Yes! They stayed a whole week.", [("Tom", "Did my brother and his fiancee visit you?")])
    assert not any("Nadia's brother" in f or "my brother" in f for f in out), out
