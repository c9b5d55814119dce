"""A person named again in their own fact reads as the pronoun a careful writer uses
(write/repeated_names.py, session 18). Invented sentences."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace

import pytest

from arandu_pipelines.write import repeated_names
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.parses import ChunkParses
from arandu_pipelines.write.types import ExtractionContext


def _rewritten(text: str, subject: str) -> str:
    fact = SimpleNamespace(fact_text=text, subject=subject)
    repeated_names.apply([fact], ChunkParses())
    return str(fact.fact_text)


@pytest.mark.parametrize(("text", "subject", "written"), [
    # a clause subject of a finite verb
    ("Greta has been knitting since Greta was nine", "Greta",
     "Greta has been knitting since she was nine"),
    ("Harold believes if Harold keeps saving, Harold will buy the boat", "Harold",
     "Harold believes if he keeps saving, he will buy the boat"),
    # an object, and the subject of a small clause
    ("Greta loves her friends because they keep Greta motivated", "Greta",
     "Greta loves her friends because they keep her motivated"),
    ("Harold saw a heron on the lake and it made Harold so happy", "Harold",
     "Harold saw a heron on the lake and it made him so happy"),
    ("Greta believes the garden is important to Greta", "Greta",
     "Greta believes the garden is important to her"),
    # a possessive in another clause
    ("Harold sold the van so Harold can pay for Harold's course", "Harold",
     "Harold sold the van so he can pay for his course"),
    # the object of a verb whose own subject is the person: reflexive
    ("Greta wants to treat Greta to a spa day", "Greta", "Greta wants to treat herself to a spa day"),
    # a kin noun that shows the gender
    ("Greta's uncle was a baker for thirty years, so Greta's uncle still bakes every Sunday", "Greta",
     "Greta's uncle was a baker for thirty years, so he still bakes every Sunday"),
])
def test_a_repeat_becomes_the_pronoun(text: str, subject: str, written: str) -> None:
    assert _rewritten(text, subject) == written


@pytest.mark.parametrize(("text", "subject"), [
    # unknown gender: "they" would need a new verb agreement
    ("Quill has been knitting since Quill was nine", "Quill"),
    # another person of the same gender stands between: "she" could be Ines
    ("Greta met Ines at the market before Greta went home", "Greta"),
    # a role noun of no shown gender stands between: "she" could be the coach
    ("Greta trained all winter and the coach said Greta is ready", "Greta"),
    # a role noun that is a person of its own, even after "a": "she" could be the nurse
    ("Greta fell on the ice and a nurse said Greta is fine", "Greta"),
    # a compound subject and a conjunct keep the names
    ("Greta and Harold bought a tandem so Greta and Harold can ride together", "Greta"),
    ("Greta was thrilled when Greta and her sister won the quiz", "Greta"),
    # the fact opens with someone else's possessive
    ("Greta's boss thinks Greta works too hard", "Greta"),
])
def test_a_repeat_that_keeps_the_name(text: str, subject: str) -> None:
    assert _rewritten(text, subject) == text


def test_a_month_between_is_no_person() -> None:
    """ "June" and "August" are also first names; a date between must not keep the repeat."""
    assert (_rewritten("Greta started the course on 2 June 2023 because Greta got a new job", "Greta")
            == "Greta started the course on 2 June 2023 because she got a new job")


def test_no_parse_no_change() -> None:
    fact = SimpleNamespace(fact_text="Greta has been knitting since Greta was nine", subject="Greta")
    repeated_names.apply([fact], None)
    assert fact.fact_text == "Greta has been knitting since Greta was nine"


def _facts(text: str, speaker: str) -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 2), addressee="Marcus")
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_the_extractor_writes_the_pronoun() -> None:
    """First-person resolution wrote "Beatrice has been painting since Beatrice was twelve"."""
    facts = _facts("I've been painting watercolors since I was twelve.", "Beatrice")
    assert "Beatrice has been painting watercolors since she was twelve" in facts, facts


def test_the_extractor_keeps_the_name_of_unknown_gender() -> None:
    facts = _facts("I've been painting watercolors since I was twelve.", "Quill")
    assert "Quill has been painting watercolors since Quill was twelve" in facts, facts
