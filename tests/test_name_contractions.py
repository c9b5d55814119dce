"""A person's name with a contracted "is" / "has" opens a clause (write/name_contractions.py,
session 18). Invented sentences only (Nadia speaks, Tom listens), through the real extractor
and on the rewrite alone."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.name_contractions import gate, rewrite_sentence
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, asked: str = "How are Lily and Sam?") -> list[str]:
    ctx = ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Tom", previous_turns=[("Tom", asked)])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- resolved (each failed before: no fact) ------------------------------------------------------
def test_state_then_comma_splice_about_the_name():
    out = facts("Lily's great, she walked for the first time last Monday.")
    assert "Lily walked for the first time" in out, out


def test_contracted_is_before_an_adverb():
    out = facts("And Emma's finally home from the hospital!")
    assert "Emma is finally home from the hospital" in out, out


def test_contracted_has_before_been():
    out = facts("Emma's been sick all week.", "How's Emma?")
    assert any(f.startswith("Emma has been sick") for f in out), out


def test_the_rewrite_itself():
    assert rewrite_sentence("Leah's going to learn so much.") == "Leah is going to learn so much."
    assert rewrite_sentence("Oh, Sam's got a new job!") == "Oh, Sam has got a new job!"
    assert rewrite_sentence("Nora's great!") == "Nora is great!"


# ---- unchanged (negative cases: must not fire) ---------------------------------------------------
def test_possessives_stay():
    for s in ("Emma's great aunt visited us.", "Emma's back hurts after the move.", "Emma's bike got stolen.",
              "Emma's good friend Sam came over.", "Emma's home is near the lake."):
        assert rewrite_sentence(s) is s, s


def test_words_that_are_no_names_stay():
    for s in ("Store's going good, we hired two people.", "Life's been busy.", "It's great, thanks.",
              "Everything's fine.", "Painting's great for relaxing."):
        assert rewrite_sentence(s) is s, s


def test_a_preface_before_but_stays():
    s = "Emma's doing great, but my new worry is that she turned sixteen in March."
    assert rewrite_sentence(s) is s
    out = facts(s)
    assert "Nadia's new worry is that she turned sixteen in March" in out, out


def test_not_at_the_sentence_start_stays():
    s = "I think Emma's doing great."
    assert rewrite_sentence(s) is s


def test_gate():
    assert gate("Nora's great, she smiled")
    assert not gate("Nora's bike is red.")
