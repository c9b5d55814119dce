"""Comma splices split into their statements (write/comma_splices.py, session 17); invented sentences."""

from __future__ import annotations

from datetime import datetime

import pytest

from arandu_pipelines.write.comma_splices import split
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


@pytest.mark.parametrize(("text", "subject", "head", "tail"), [
    ("Marco had better go help Linda bake, she's burning everything in the oven", "Marco",
     "Marco had better go help Linda bake", "Linda is burning everything in the oven"),
    ("Elena is healing fast, she's stronger than Tom", "Elena", "Elena is healing fast", "Elena is stronger than Tom"),
    ("Omar got a spot on the team, Omar is training every morning", "Omar",
     "Omar got a spot on the team", "Omar is training every morning"),
    ("Red is Ivy's color, it makes Ivy feel brave", "Ivy", "Red is Ivy's color", "Red makes Ivy feel brave"),
    ("Ivo has been painting murals lately, it keeps Ivo calm", "Ivo",
     "Ivo has been painting murals lately", "Painting murals keeps Ivo calm"),
    ("Lena bought a new kayak, it cost Lena $900", "Lena", "Lena bought a new kayak", "Lena's new kayak cost Lena $900"),
    ("Lena bought a canoe, it was heavy and slow", "Lena", "Lena bought a canoe", None),
])
def test_splice_splits(text: str, subject: str, head: str, tail: str | None) -> None:
    parts = split(text, subject)
    assert parts is not None and parts.head == head and parts.tail == tail


@pytest.mark.parametrize(("text", "subject"), [
    ("Ana is tired, Bob says", "Ana"),
    ("When Ana moved to Lisbon, she got a dog", "Ana"),
    ("Ana bought apples, pears, and plums", "Ana"),
    ("Ana had a baby, it's a girl", "Ana"),
    ("Ana wants the job; when Ana gets it, Ana is sure the rest will follow", "Ana"),
    ("Taking Bob's tip, Ana is repainting the shed", "Ana"),
    ("Kim, Ana's aunt and Ana are driving north", "Ana"),
])
def test_left_whole(text: str, subject: str) -> None:
    assert split(text, subject) is None


def test_ambiguous_pronoun_is_cut() -> None:
    parts = split("Ana met Joe and Tom at the fair, he was very kind", "Ana")
    assert parts is not None and parts.head == "Ana met Joe and Tom at the fair" and parts.tail is None


def _facts(text: str, speaker: str = "Marco") -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 5, 1), addressee="Sam")
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_extractor_splits_pronoun_tail() -> None:
    facts = _facts("Well, I'd better go help Linda pack, she's labeling every box in the garage.")
    assert not any("she's" in f for f in facts)
    assert any(f.startswith("Linda is labeling") for f in facts)


def test_extractor_cuts_evaluation() -> None:
    facts = _facts("We all built our own birdhouses, it was fun and relaxing!")
    assert facts and not any("it was" in f for f in facts)


def test_impersonal_head_before_subject_is_cut() -> None:
    """"Sometimes it's hard when things don't go Nora's way, but Nora is sure ...": the head names
    Nora only as an owner; the fact is Nora's clause (fact_quality._opener)."""
    facts = _facts("Sometimes it's hard when plans don't go my way, but I'm sure if I keep trying, "
                   "I'll open the bakery!", speaker="Nora")
    assert not any(f.startswith("Sometimes") for f in facts)


def test_impersonal_head_with_other_subject_stays() -> None:
    facts = _facts("It was tough, but I'm okay now after the surgery on my knee.", speaker="Nora")
    assert any(f.startswith("Nora is okay now") for f in facts)


@pytest.mark.parametrize(("text", "want"), [
    ("Ivy's aunt's gardening", "Ivy's aunt is gardening"),
    ("Ivy's painting", "Ivy's painting"),
    ("Ivy loves Tom's dad's cooking", "Ivy loves Tom's dad's cooking"),
    ("Ivy's aunt's cooking dinner", "Ivy's aunt's cooking dinner"),
])
def test_owner_noun_progressive(text: str, want: str) -> None:
    """An owner's noun's "'s" before a closing "-ing" word is "is" (plain_forms.contractions)."""
    from arandu_pipelines.write.plain_forms import contractions
    assert contractions(text) == want
