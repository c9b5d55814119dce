"""Every offline fact says which rule kind produced it (issue 19, session 12), and a "let's"
turn's inclusive "we" is not stored as a fact about the speaker and others (write/inclusive_we.py).

The rule kind is what bench/fact_kinds.py scores precision by; it must survive the write path
(stored as memory_facts.rule_kind, migration 0012), so one test goes through `write()`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext
from tests.conftest import rows

WHEN = datetime(2024, 3, 8, 10, tzinfo=UTC)


def run(text: str, speaker: str = "Ana", addressee: str | None = "Ben"):
    return extract_offline(text, ExtractionContext(speaker, WHEN, addressee=addressee))


def kinds(text: str, **kw) -> dict[str, str | None]:
    return {f.fact_text: f.rule_kind for f in run(text, **kw).facts}


@pytest.mark.parametrize("text, kind", [
    ("I moved to Lisbon.", "verb.move"),
    ("My boss Priya promoted me last week.", "relterm"),  # the only statement of the relation (write/subsumed.py)
    ("I went hiking in the hills with my uncle.", "generic.speaker.event"),
    ("I want to learn the cello.", "generic.speaker.plan"),
])
def test_each_fact_carries_the_rule_kind_that_made_it(text, kind):
    got = kinds(text)
    assert kind in got.values(), got


def test_every_offline_fact_has_a_kind():
    r = run("I moved to Lisbon last year with my sister Eva. We love the food there. "
            "Your garden looks amazing, you should be proud of it!")
    assert r.facts and all(f.rule_kind for f in r.facts), [(f.fact_text, f.rule_kind) for f in r.facts]


async def test_the_rule_kind_is_stored_with_the_fact(memory, fresh_db_url):
    await memory.write("u", "I moved to Lisbon.", "Ana", occurred_at=WHEN)
    stored = rows(fresh_db_url, "SELECT fact_text, rule_kind FROM memory_facts WHERE valid_to IS NULL")
    assert ("Ana moved to Lisbon", "verb.move") in stored, stored


def test_bench_kind_table_counts_unique_gold_per_kind():
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from fact_kinds import kind_rows

    facts = [SimpleNamespace(kind="a"), SimpleNamespace(kind="b"), SimpleNamespace(kind="b")]
    # gold 0 matched by a and b, gold 1 by b only; fact 2 (kind b) matches nothing
    s = SimpleNamespace(facts=facts, fact_hit=[True, True, False], links=[(0, 0), (0, 1), (1, 1)])
    got = kind_rows(s)
    assert got["a"] == {"facts": 1, "matched": 1, "covered": 1, "unique": 0, "precision": 1.0}
    assert got["b"] == {"facts": 2, "matched": 1, "covered": 2, "unique": 1, "precision": 0.5}


# ---- inclusive "we" -------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "We have come such a long way, and the best is yet to come. Let's keep at it!",
    "Totally! We have grown so much this year - let's keep pushing.",
])
def test_a_lets_turns_inclusive_we_is_not_a_fact_about_the_speaker(text):
    got = kinds(text)
    assert not any("Ana and others" in t for t in got), got


@pytest.mark.parametrize("text, kept", [
    # a plan of the speaker's group: concrete (an attribute), kept although the turn says "let's"
    ("We are flying to Lisbon on Friday. Let's talk when I'm back!", "are flying to Lisbon"),
    # no "let's": the plural is the speaker's group
    ("We have come such a long way with the garden.", "have come such a long way with the garden"),
    # far from the "let's" sentence: another topic of the same turn
    (("We have come such a long way with the garden. It was a hard year for everyone. "
      "The kids loved the tomatoes. Let's catch up soon!"), "have come such a long way with the garden"),
])
def test_a_real_fact_in_the_first_person_plural_stays(text, kept):
    # who "we" is may be named by write/we_group.py ("Ana and the kids"): the fact stays either way
    got = kinds(text)
    assert any(t.startswith("Ana and ") and kept in t for t in got), got


# ---- advice to the listener -----------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "You could also sell your prints at the weekend market in Braga.",
    "Pinterest and Etsy can help you find new buyers for the prints.",
    "You should totally try the Tuesday pottery class at Clay Studio.",
])
def test_a_suggestion_to_the_listener_is_not_a_fact_about_them(text):
    got = kinds(text)
    assert not any(t.startswith(("Ben ", "Pinterest")) for t in got), got
    assert run(text).trace.get("refine_dropped", {}).get("advice") == 1


def test_what_the_listener_did_stays():
    got = kinds("You sold your prints at the market in Braga!")
    assert got == {"Ben sold his prints at the market in Braga": "generic.addr.event"}, got
