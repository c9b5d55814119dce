"""His / her instead of the singular "their" when the chat shows the gender (session 17, branch
gender17: write/name_gender.py `pronoun_for`, used by write/readability.py, write/own_possessive.py
and write/agreement.py `reflexive`). Invented turns and names; no database.

Names: Greta, Ingrid (female in the name lists), Tobias, Bruno (male), Zephyr, Oriel (in neither
list: unknown unless the chat says)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import name_gender
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.own_possessive import apply
from arandu_pipelines.write.readability import pronouns
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 8, 28, 15, 19, tzinfo=UTC)


def texts(text: str, speaker: str, previous: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee="Ana", previous_turns=previous or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- the one choice ---------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "case", "form"), [
    ("Greta", "possessive", "her"),
    ("Tobias", "possessive", "his"),
    ("Tobias", "reflexive", "himself"),
    ("Greta", "object", "her"),
    ("Zephyr", "possessive", "their"),          # unknown gender
    ("Tobias and others", "possessive", "their"),  # a plural subject
    ("Greta and her team", "possessive", "their"),
    ("Greta's kids", "possessive", "their"),     # a phrase, not a person's name
])
def test_pronoun_for(name: str, case: str, form: str) -> None:
    assert name_gender.pronoun_for(name, case) == form


# ---- readability: a repeated "S's" in S's own clause ------------------------------------------

@pytest.mark.parametrize(("text", "subject", "written"), [
    ("Greta sold Greta's old kayak", "Greta", "Greta sold her old kayak"),
    ("Tobias repaired Tobias's roof after the storm", "Tobias", "Tobias repaired his roof after the storm"),
    # a compound subject: its own member is the person's, a later repeat the pair's
    ("Ingrid and Ingrid's choir had Ingrid's first rehearsal", "Ingrid",
     "Ingrid and her choir had their first rehearsal"),
])
def test_known_gender_takes_his_or_her(text: str, subject: str, written: str) -> None:
    assert pronouns(text, subject) == written


@pytest.mark.parametrize(("text", "subject", "source", "written"), [
    ("Zephyr repaired Zephyr's roof", "Zephyr", None, "Zephyr repaired their roof"),           # unknown
    ("Tobias and others booked Tobias's venue", "Tobias", None, "Tobias and others booked their venue"),
    # the speaker said "our": the group's, never "his"
    ("Bruno helps out with Bruno's reading club", "Bruno", "I help out with our reading club",
     "Bruno helps out with their reading club"),
    # a plural "S and others" nearer than the subject: theirs (no "source" needed)
    ("Greta loves how dancing lets Greta and others share Greta's joy", "Greta", None,
     "Greta loves how dancing lets Greta and others share their joy"),
    # another name between: untouched
    ("Greta met Oriel at Greta's house", "Greta", None, "Greta met Oriel at Greta's house"),
])
def test_unknown_plural_or_ours_keeps_their(text: str, subject: str, source: str | None, written: str) -> None:
    assert (pronouns(text, subject, source=source) if source else pronouns(text, subject)) == written


# ---- own_possessive: "S and S's group" --------------------------------------------------------

def test_speaker_and_own_group() -> None:
    assert apply("Ingrid and Ingrid's kids went camping") == "Ingrid and her kids went camping"
    assert apply("Tobias and Tobias's band played downtown") == "Tobias and his band played downtown"
    assert apply("Zephyr and Zephyr's family went camping") == "Zephyr and their family went camping"
    assert apply("Greta went hiking with Greta and her family") == "Greta went hiking with her family"
    assert apply("Greta went hiking with Oriel and their dog") == "Greta went hiking with Oriel and their dog"


# ---- through the extractor --------------------------------------------------------------------

def test_extractor_writes_his_or_her_for_my() -> None:
    assert texts("I finally sold my old kayak to a neighbour.", "Greta") == [
        "Greta finally sold her old kayak to a neighbour"]
    assert texts("I repaired my roof last weekend after the storm.", "Tobias") == [
        "Tobias repaired his roof after the storm"]
    assert texts("Me and my kids went camping at the lake.", "Ingrid") == [
        "Ingrid and her kids went camping at the lake"]


def test_reflexive_and_possessive_agree() -> None:
    assert texts("I taught myself to knit from videos and I knitted my first scarf.", "Ingrid") == [
        "Ingrid taught herself to knit from videos and Ingrid knitted her first scarf"]


def test_chat_evidence_gives_the_gender() -> None:
    said = "I repaired my roof last weekend after the storm."
    assert texts(said, "Zephyr") == ["Zephyr repaired their roof after the storm"]
    assert texts(said, "Zephyr", [("Ana", "How is your brother Zephyr doing?")]) == [
        "Zephyr repaired his roof after the storm"]


def test_other_peoples_their_and_plural_stay() -> None:
    assert texts("I love watching my students reach their goals at the studio.", "Bruno") == [
        "Bruno loves watching his students reach their goals at the studio"]
    assert texts("We booked our venue for the wedding in June.", "Tobias") == [
        "Tobias and others booked their venue for the wedding in June"]
    assert texts("I volunteer at our community garden every Sunday.", "Greta") == [
        "Greta volunteers at their community garden every Sunday"]
