"""Fact shape (session 12, branch defect12): facts with no subject, an unresolved pronoun subject,
a cut-off end or a cut-out date are repaired or dropped (write/fact_shape.py, the `shape` check
of write/fact_quality.py, the date rules of write/temporal.py and `_glued_date`). Crafted turns,
not the dev conversations' own sentences; unit level, no database."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.fact_shape import name_subject, shape
from arandu_pipelines.write.temporal import absolutize
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 8, 28, 15, 19, tzinfo=UTC)


def texts(text: str, speaker: str = "Maria", addressee: str = "John") -> list[str]:
    return [f.fact_text for f in extract_offline(text, ExtractionContext(speaker, WHEN, addressee=addressee)).facts]


# ---- dates: a relative phrase is never cut out leaving a hole ------------------------------------
def test_a_hedged_quantity_ago_is_written_relative_to_the_message_date():
    out, start = absolutize("I took up the cello about three years ago; it relaxes me.", WHEN)
    assert out == "I took up the cello about three years before 28 August 2023; it relaxes me."
    assert start is not None and start.date() == datetime(2020, 8, 28).date()
    assert absolutize("We met around a year ago.", WHEN)[0] == "We met around a year before 28 August 2023."


def test_a_fact_keeps_a_readable_time_where_the_date_stood():
    facts = texts("I took up the cello about three years ago; it helps me unwind after work.")
    assert facts and facts[0].startswith("Maria took up the cello about three years before 28 August 2023"), facts
    assert not any(" ;" in f or "about ;" in f for f in facts), facts


def test_a_date_that_ends_its_clause_after_the_verb_stays():
    facts = texts("My cousin adopted last year. Now they have a lovely daughter.")
    assert "Maria's cousin adopted in 2022" in facts, facts
    # a date beside an object is still moved to valid_from only
    assert texts("I joined a choir yesterday.") == ["Maria joined a choir"]


# ---- subjectless and pronoun subjects ------------------------------------------------------------
@pytest.mark.parametrize(("turn", "want"), [
    ("I volunteered at the food bank. It made me want to help more families in my town.",
     "Maria wanted to help more families in her town"),
    ("I read a memoir about a climber. It taught me patience and how to trust my body.",
     "Maria learned patience and how to trust her body"),
    ("Went to the harbour festival last weekend. It made me even more determined to learn sailing.",
     "Maria became even more determined to learn sailing"),
    ("Reminds me how much I love sailing with my brother.",
     "Maria is reminded how much she loves sailing with her brother"),
    ("Here's the quilt. Pretty proud of my grandmother's quilting pattern!",
     "Maria is pretty proud of her grandmother's quilting pattern"),
    ("I've been one 'cause I quit my job at the bank. I opened a bakery in Porto.",
     "Maria quit her job at the bank"),
    ("I'm feeling inspired by spring so I'm planning a few. Any ideas?",
     "Maria is feeling inspired by spring"),
])
def test_a_fact_is_repaired_to_name_its_subject(turn, want):
    facts = texts(turn)
    assert want in facts, facts


def test_an_unresolved_possessive_subject_is_dropped():
    assert texts("Their kindness got me through the winter in Oslo.") == []


def test_a_fragment_that_only_comments_on_the_earlier_fact_is_still_dropped():
    # session 11 (write/elaboration.py): the reaction after the event is not repaired back in
    facts = texts("I finally finished my pottery project last weekend. Pretty proud of my pottery project!")
    assert not any("proud" in f for f in facts), facts


def test_the_second_verb_of_a_causative_is_not_given_to_the_person():
    # "it ... gave me hope": "it" gave, not Maria
    assert (name_subject("It made Maria feel welcome in the choir and gave Maria a lot of hope", "Maria")
            == "Maria felt welcome in the choir")
    # with one word left ("Maria felt welcome") the cause is lost: defect12b drops it (test_fact_shape_b.py)


def test_a_fact_of_another_shape_is_left_alone():
    for text in ("Maria bought a car and a bike", "Maria is one of the founders", "These figurines remind Maria of home"):
        assert shape(text, "Maria") == text
        assert name_subject(text, "Maria") == text


def test_a_truncated_fact_with_no_clause_to_keep_is_dropped():
    assert shape("Maria told John to focus on why John started this", "Maria") is None


# ---- the benchmark's markers ---------------------------------------------------------------------
def test_bench_markers_flag_the_new_defect_classes():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import facts as bench_facts  # the bench script (bench/ is no package)

    def marks(text: str) -> set[str]:
        return {name for name, rx in bench_facts.DEFECTS.items() if rx.search(text)}

    assert "subjectless" in marks("Makes Maria feel welcome")
    assert "subjectless" in marks("Pretty proud of Maria's quilt")
    assert "pronoun_subject" in marks("It made Maria feel welcome")
    assert "pronoun_subject" in marks("Maria has been one 'cause Maria quit")
    assert "truncated_end" in marks("Maria is planning a few")
    assert "date_remnant" in marks("Maria took up the cello about ; it helps")
    for fine in ("Maria is one of the founders", "Having supportive people around, Maria feels safe",
                 "The figurines remind Maria of home", "Maria took up the cello about three years before 28 August 2023"):
        assert not marks(fine), (fine, marks(fine))


def test_a_causative_left_with_a_bare_verb_is_dropped():
    assert name_subject("It's made Maria grow, and even got Maria out of Maria's desk job", "Maria") is None
    assert name_subject("It made Maria feel welcome at the choir", "Maria") == "Maria felt welcome at the choir"


def test_feels_like_yesterday_is_no_date():
    assert absolutize("Feels like just yesterday I put this dress on!", WHEN)[0] == (
        "Feels like just yesterday I put this dress on!")
    assert absolutize("I wore this dress yesterday.", WHEN)[0] == "I wore this dress on 27 August 2023."
