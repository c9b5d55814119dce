"""The generic restating path (rule kinds generic.*) on first-person chat sentences whose grammar
used to lose or cut the fact (issue 19, session 13). Sentences are invented paraphrases (other
names, other topics), unit level, no database."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.clause_ends import dangling
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 9, 14, 18, 30, tzinfo=UTC)


def run(text: str, speaker: str = "Dana", addressee: str | None = "Omar",
        previous: list[tuple[str | None, str]] | None = None):
    ctx = ExtractionContext(speaker, WHEN, addressee=addressee)
    if previous is not None:
        ctx.previous_turns = previous
    return extract_offline(text, ctx)


def texts(r) -> list[str]:
    return [f.fact_text for f in r.facts]


# ---- 1. a long fact is cut where a clause ends, never on its copula ------------------------------
def test_a_long_belief_is_not_cut_on_its_copula():
    """"so" after "are" is a degree word: cutting there left "... fairness are"."""
    r = run("Debates about climate policy and fairness in cities are so important and I'm grateful for "
            "getting the chance to speak up for the coastal towns.")
    assert texts(r), texts(r)
    for t in texts(r):
        assert not dangling(t), t
    assert any(t.startswith("Dana believes debates about climate policy and fairness in cities are so important")
               for t in texts(r)), texts(r)


def test_a_wh_clause_may_end_on_its_copula():
    assert not dangling("Seeing the harbour at dawn reminded Dana how small the town really is")
    assert dangling("Dana thinks long walks by the river are")


# ---- 6. the cap keeps a stated belief over plain narration ---------------------------------------
def test_the_cap_keeps_a_belief_beside_two_narrated_events():
    """Three free-text facts about the speaker, cap 2: a belief is typed knowledge, like an event."""
    r = run("I felt really nervous giving my lecture. I showed my own research and the mistakes I made "
            "along the way. Open talks about mental health and burnout are so essential for young doctors.")
    assert any(t.startswith("Dana believes open talks about mental health and burnout are so essential")
               for t in texts(r)), texts(r)


# ---- 2. a clause with its "I've" dropped before the speaker's clause -----------------------------
def test_a_dropped_subject_clause_before_so_i_keeps_its_content():
    """The cut before "so I can" lost "just been reading up on ... ": the subject is restored."""
    r = run("Bakery's doing fine, just been reading up on sourdough techniques so I can bake better loaves for regulars.")
    assert any(t.startswith("Dana has just been reading up on sourdough techniques") for t in texts(r)), texts(r)


def test_an_opener_without_a_dropped_subject_is_still_cut():
    r = run("It rained all week, but I finished the mural for the library.")
    assert any(t.startswith("Dana finished the mural for the library") for t in texts(r)), texts(r)


# ---- 3. "They" about the people the other speaker just asked about ------------------------------
ASKED = [("Omar", "What a lovely garden! How have your neighbours and cousins been helping you with it?")]


def test_they_resolves_to_the_people_the_question_asked_about():
    r = run("Thanks, Omar! They've been coming over every weekend bringing me seedlings, tools and advice.",
            previous=ASKED)
    assert any(t.startswith("Dana's neighbours and cousins have been coming over every weekend") for t in texts(r)), texts(r)


def test_they_stays_unresolved_when_the_question_names_two_groups():
    previous = [("Omar", "Did your parents meet your students at the fair?")]
    r = run("They've been talking about the fair all week with everyone they know.", previous=previous)
    assert not any("parents" in t or "students" in t for t in texts(r)), texts(r)


def test_they_stays_unresolved_after_the_speakers_own_turn():
    previous = [("Dana", "How have your neighbours been, by the way?")]
    r = run("They've been coming over every weekend bringing me seedlings and tools.", previous=previous)
    assert not any("neighbours" in t for t in texts(r)), texts(r)
