"""Agreement around a substituted subject (session 17, branch agree17: write/agreement.py).

The person rewrite named the subject and conjugated the verb right after it, but a coordinated
verb ("... sits there and stare"), a relative clause's verb after "you" ("someone Ana trust"), a
compound subject's verb ("my dad and Dale is"), "'s" = has ("is already taken me"), "'d better"
("would better") and "myself" ("themselves" for a named person) read as broken English. All
sentences here are invented."""

from __future__ import annotations

from datetime import datetime

import pytest

from arandu_pipelines.write.extract_rules import _Who, extract_offline, rewrite_en
from arandu_pipelines.write.parses import ChunkParses
from arandu_pipelines.write.types import ExtractionContext

_PARSES = ChunkParses()


def third(text: str, speaker: str = "Quill", pron: str | None = None) -> str:
    return rewrite_en(text, _Who(speaker=speaker, addr="Marcus", pron=pron, parses=_PARSES))


# ---- coordinated verbs (parse-confirmed) ------------------------------------------------------

@pytest.mark.parametrize(("said", "written"), [
    ("Most evenings I just sit on the porch and stare", "Most evenings Quill just sits on the porch and stares"),
    ("I fold the laundry and iron the shirts on Sundays", "Quill folds the laundry and irons the shirts on Sundays"),
    ("I get up at six and jog along the canal", "Quill gets up at six and jogs along the canal"),
    ("I go to the climbing gym and lift weights", "Quill goes to the climbing gym and lifts weights"),
    ("I unlock the shop and then sweep the floor", "Quill unlocks the shop and then sweeps the floor"),
])
def test_coordinated_verb_takes_the_subjects_form(said: str, written: str) -> None:
    assert third(said) == written


@pytest.mark.parametrize(("said", "written"), [
    ("I want to sit by the fire and stare", "Quill wants to sit by the fire and stare"),   # the infinitive's
    ("I love pizza and pasta", "Quill loves pizza and pasta"),                          # nouns
    ("I collect stamps and coins", "Quill collects stamps and coins"),
    ("I walked to the pier and sat by the water", "Quill walked to the pier and sat by the water"),  # past
    ("I let them go and watch the show", "Quill let them go and watch the show"),          # past "let"
    ("My cats make me laugh and smile", "Quill's cats make Quill laugh and smile"),       # no substituted subject
    ("I need to pack and clean before Friday", "Quill needs to pack and clean before Friday"),
])
def test_coordination_that_keeps_its_form(said: str, written: str) -> None:
    assert third(said) == written


def test_no_parse_without_parses() -> None:
    """Callers without the chunk's parses (stance) keep the listed verbs only, as before."""
    out = rewrite_en("I just sit on the porch and stare", _Who(speaker="Quill"))
    assert out == "Quill just sits on the porch and stare"


# ---- relative clauses -------------------------------------------------------------------------

@pytest.mark.parametrize(("said", "written"), [
    ("Having someone you trust at the clinic helps a lot", "Having someone Marcus trusts at the clinic helps a lot"),
    ("Find something you enjoy on weekends", "Find something Marcus enjoys on weekends"),
    ("I love the way you paint skies", "Quill loves the way Marcus paints skies"),
])
def test_relative_clause_after_you(said: str, written: str) -> None:
    assert third(said) == written


@pytest.mark.parametrize(("said", "written"), [
    ("I will tell you everything", "Quill will tell Marcus everything"),
    ("Did you trust them?", "Did Marcus trust them?"),
    ("Thank you for the plants", "Thank Marcus for the plants"),
])
def test_you_that_is_no_relative_subject(said: str, written: str) -> None:
    assert third(said) == written


# ---- compound subjects ------------------------------------------------------------------------

@pytest.mark.parametrize(("said", "written"), [
    ("Rosa, my uncle and I are driving to Denver", "Rosa, Quill's uncle and Quill are driving to Denver"),
    ("My cousin and I were roommates in college", "Quill's cousin and Quill were roommates in college"),
    ("So my little sister and I love hiking", "So Quill's little sister and Quill love hiking"),
    ("The kids and I are baking bread", "The kids and Quill are baking bread"),
])
def test_compound_subject_keeps_the_plural(said: str, written: str) -> None:
    assert third(said) == written


@pytest.mark.parametrize(("said", "written"), [
    ("I love my brother and I miss him", "Quill loves Quill's brother and Quill misses him"),
    ("The show ended and I cried", "The show ended and Quill cried"),
    ("I called my aunt and I feel better", "Quill called Quill's aunt and Quill feels better"),
])
def test_and_i_that_opens_a_clause_is_singular(said: str, written: str) -> None:
    assert third(said) == written


# ---- contractions -----------------------------------------------------------------------------

@pytest.mark.parametrize(("said", "written"), [
    ("He's already taken me under his wing", "Omar has already taken Quill under his wing"),
    ("He's made a bench for the garden", "Omar has made a bench for the garden"),
    ("He's taught me to carve spoons", "Omar has taught Quill to carve spoons"),
])
def test_s_before_a_participle_and_object_is_has(said: str, written: str) -> None:
    assert third(said, pron="Omar") == written


@pytest.mark.parametrize(("said", "written"), [
    ("He's known as the best baker in town", "Omar is known as the best baker in town"),
    ("He's known for his sourdough", "Omar is known for his sourdough"),
    ("He's lost without his glasses", "Omar is lost without his glasses"),
    ("He's been carving for years", "Omar has been carving for years"),
])
def test_s_that_stays_is(said: str, written: str) -> None:
    assert third(said, pron="Omar") == written


@pytest.mark.parametrize(("said", "written"), [
    ("I'd better go help Ines pack", "Quill had better go help Ines pack"),
    ("I'd best call the landlord", "Quill had best call the landlord"),
    ("I'd rather stay home tonight", "Quill would rather stay home tonight"),
    ("I'd love a bigger garden", "Quill would love a bigger garden"),
])
def test_d_better_is_had(said: str, written: str) -> None:
    assert third(said) == written


# ---- reflexives -------------------------------------------------------------------------------

@pytest.mark.parametrize(("speaker", "said", "written"), [
    ("Hugo", "I'm rebuilding the boat myself", "Hugo is rebuilding the boat himself"),
    ("Marta", "I taught myself to knit", "Marta taught herself to knit"),
    ("Quill", "I'm rebuilding it myself", "Quill is rebuilding it"),            # unknown gender, emphatic
    ("Quill", "I taught myself to knit", "Quill taught themselves to knit"),   # unknown gender, object
    ("Quill", "You should write him yourself", "Marcus should write him himself"),
    ("Quill", "Having confidence in yourself matters", "Having confidence in themselves matters"),
])
def test_reflexive_of_a_named_person(speaker: str, said: str, written: str) -> None:
    assert third(said, speaker=speaker) == written


def test_ourselves_stays_plural() -> None:
    assert third("We built the shed ourselves", speaker="Hugo") == "Hugo and others built the shed themselves"


# ---- through the extractor --------------------------------------------------------------------

def _facts(text: str, speaker: str = "Quill") -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 2), addressee="Marcus")
    return [f.fact_text for f in extract_offline(text, ctx).facts]


def test_extractor_writes_the_coordinated_verb() -> None:
    facts = _facts("Most evenings I just sit on the porch and stare at the hills.")
    assert any("sits on the porch and stares" in f for f in facts), facts


def test_extractor_writes_the_plural_of_a_compound_subject() -> None:
    facts = _facts("Rosa, my uncle and I are driving to Denver on Friday.")
    assert any("Quill are driving to Denver" in f for f in facts), facts
    assert not any("Quill is driving" in f for f in facts), facts


def test_had_better_is_a_modal_for_the_unanchored_check() -> None:
    """ "I'd better go ..." was written "would better" and dropped as an unanchored modal; as
    "had better" it must stay a modal (an errand of the moment, nothing named)."""
    facts = _facts("Thanks! I'd better go sweep the garage before it gets dark.")
    assert not any("better go sweep" in f for f in facts), facts


@pytest.mark.parametrize(("said", "written"), [
    ("It's got a wood stove and a loft", "The cabin has got a wood stove and a loft"),
    ("It's been empty since spring", "The cabin has been empty since spring"),
    ("It's tiny but cozy", "The cabin is tiny but cozy"),
])
def test_its_got_with_an_antecedent_is_has(said: str, written: str) -> None:
    from arandu_pipelines.write.extract_rules import _with_antecedent

    assert _with_antecedent(said, "the cabin") == written
