"""A person introduced by an indefinite noun and a name is that name as the subject
(write/introduced_names.py, session 18). Invented sentences only (Nadia speaks, Tom listens),
through the real extractor and on the rewrite alone."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.introduced_names import gate, rewrite_sentence
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, asked: str = "How did it go?") -> list[str]:
    ctx = ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Tom", previous_turns=[("Tom", asked)])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- resolved (each failed before: no fact, or the indefinite phrase kept) ------------------------
def test_named_person_after_and_is_a_fact_of_its_own():
    out = facts("It's mostly old men playing chess, and a woman named Ruth has been playing for fifty years.")
    assert "Ruth has been playing for fifty years" in out, out


def test_apposed_name_after_one_fellow():
    out = facts("We had nine people at the first session. One lady, Margaret, is 88 and actually flew planes "
                "in the war.")
    assert "Margaret is 88 and actually flew planes in the war" in out, out


def test_named_subject_at_sentence_start():
    out = facts("A guy named Sam asked me out last week!")
    assert "Sam asked Nadia out" in out, out


def test_relation_noun_keeps_the_relation():
    out = facts("A coworker of mine named Priyanka just got promoted to director.")
    assert "Nadia's coworker Priyanka just got promoted to director" in out, out
    out = facts("An old friend named Sam moved to Denver last month.")
    assert any(f.startswith("Nadia's old friend Sam moved to Denver") for f in out), out


def test_the_rewrite_itself():
    assert rewrite_sentence("And a kid named Theo won the spelling bee.") == "And Theo won the spelling bee."
    assert rewrite_sentence("Then a puppy named Biscuit ran up to us.") == "Then Biscuit ran up to us."
    assert rewrite_sentence("This gentleman, Walter, fixed the sink.") == "Walter fixed the sink."


# ---- unchanged (negative cases: must not fire) ---------------------------------------------------
def test_a_thing_called_a_name_is_left():
    s = "The second one, a cozy place called Olive Grove, was incredible."
    assert rewrite_sentence(s) is s
    s = "A bakery called Crumbs opened on my street."
    assert rewrite_sentence(s) is s


def test_called_as_a_verb_is_left():
    for s in ("A friend called Sam yesterday.", "A neighbour called Maria about the fence.",
              "A coworker called Ben back after lunch."):
        assert rewrite_sentence(s) is s, s


def test_an_object_is_left():
    s = "I met a guy named Sam at the gym."
    assert rewrite_sentence(s) is s
    out = facts(s)
    assert "Nadia met a guy named Sam at the gym" in out, out


def test_a_list_and_a_possessive_are_left():
    for s in ("A friend, Sam, and I went hiking.", "My sister named her baby Rose.",
              "A friend's dog named Max bit me.", "One thing, Sam, is that we lost."):
        assert rewrite_sentence(s) is s, s


def test_gate_is_cheap_and_narrow():
    assert gate("an old fellow named Earl has been carving")
    assert gate("One fellow, Arthur, is 91")
    assert not gate("I went to the market and bought apples.")
    assert not gate("We named the cat.")
