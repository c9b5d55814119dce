"""Grammar defects in fact texts (session 13, branch grammar13b): classes found reading held-out
probe output, tested here on invented sentences (write/grammar_defects.py, write/language.conj_en,
extract_rules, bench/facts.py's `date_remnant` marker)."""

from datetime import datetime

import pytest

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.language import conj_en
from arandu_pipelines.write.types import ExtractionContext
from bench.facts import defects_of


def _result(text: str, speaker: str = "Rosa"):  # type: ignore[no-untyped-def]
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2023, 5, 8), addressee="Jamal")
    return extract_offline(text, ctx)


def _texts(text: str) -> list[str]:
    return [f.fact_text for f in _result(text).facts]


# 1. base verbs ending in "-ing" are verbs, not gerunds
@pytest.mark.parametrize(("verb", "want"), [
    ("bring", "brings"), ("sing", "sings"), ("ring", "rings"), ("swing", "swings"), ("cling", "clings"),
    ("fling", "flings"), ("sting", "stings"), ("spring", "springs"), ("string", "strings"), ("wring", "wrings"),
])
def test_base_verbs_ending_in_ing_are_conjugated(verb: str, want: str) -> None:
    assert conj_en(verb) == want


def test_gerunds_stay() -> None:
    assert conj_en("running") == "running"
    assert conj_en("singing") == "singing"


@pytest.mark.parametrize(("text", "want"), [
    ("I just bring the snacks to every practice.", "Rosa just brings the snacks"),
    ("I sing in the church choir on Sundays.", "Rosa sings in the church choir"),
])
def test_ing_verbs_in_facts(text: str, want: str) -> None:
    texts = _texts(text)
    assert any(t.startswith(want) for t in texts), texts


# 2. an inverted question is a question without "?", after laughter or an interjection too
@pytest.mark.parametrize("text", [
    "Haha do I know anything about boats. Not really!",
    "Lol did I ever tell you about my uncle's farm.",
    "Oh wow, have you been to the new aquarium.",
])
def test_inverted_question_after_laughter_is_no_fact(text: str) -> None:
    texts = _texts(text)
    assert not any(t.split()[0] in ("Do", "Did", "Have", "Has", "Does") for t in texts), texts
    assert not any("knows anything" in t or "ever tell" in t for t in texts), texts


# 3. a trailing hedge clause is cut; "shoutout to X" is a thanks, no fact
@pytest.mark.parametrize(("text", "want", "bad"), [
    ("I love hiking in the mountains, I guess.", "Rosa loves hiking in the mountains", "guesses"),
    ("I work better in the mornings I think.", "Rosa works better in the mornings", "thinks"),
    ("I adopted a cat last year I suppose.", "Rosa adopted a cat", "supposes"),
])
def test_trailing_hedge_is_cut(text: str, want: str, bad: str) -> None:
    texts = _texts(text)
    assert any(t.startswith(want) for t in texts), texts
    assert not any(bad in t for t in texts), texts


def test_hedge_inside_a_clause_stays() -> None:
    texts = _texts("I told my brother exactly what I think.")
    assert any("what she thinks" in t for t in texts), texts  # repeated_names (s18)


def test_shoutout_is_no_fact() -> None:
    texts = _texts("Shoutout to my swim coach I guess.")
    assert texts == [], texts


# 4. laughter is never a person nor an antecedent
@pytest.mark.parametrize("text", [
    "lol Ha! The terrier in him came out at the park.",
    "That was so funny, Hah! The terrier in him came out at the park.",
])
def test_laughter_is_no_person(text: str) -> None:
    r = _result(text)
    names = [e.name for e in r.entities]
    assert not any(n in ("Ha", "Hah") for n in names), names
    assert not any(" Ha " in f" {f.fact_text} " or "Hah" in f.fact_text for f in r.facts), [f.fact_text for f in r.facts]


# 5. verbless fragments
@pytest.mark.parametrize("text", ["Under my goal!", "With my kids at the lake!", "Behind my old school."])
def test_prepositional_fragment_is_no_fact(text: str) -> None:
    assert _texts(text) == []


def test_prepositional_opening_with_a_clause_stays() -> None:
    texts = _texts("In my free time I paint landscapes.")
    assert any("Rosa paints landscapes" in t for t in texts), texts


@pytest.mark.parametrize("text", ["Like 3 hours total lol", "Like a couple of weeks, tops.", "like twenty minutes"])
def test_like_before_an_amount_is_not_the_verb(text: str) -> None:
    texts = _texts(text)
    assert not any("likes" in t for t in texts), texts


def test_like_the_verb_still_restores_the_subject() -> None:
    texts = _texts("Like that painting a lot!")
    assert any(t.startswith("Rosa likes") for t in texts), texts


# 6. the date-remnant marker and a phrasal particle
def test_phrasal_over_is_no_date_remnant() -> None:
    assert "date_remnant" not in defects_of("Rosa checked the dog over")
    assert "date_remnant" not in defects_of("Rosa had to start over")
    assert "date_remnant" in defects_of("Rosa painted the fence over ; it took hours")
    assert "date_remnant" in defects_of("Maria took up the cello about ; it helps")


# 7. a verb coordinated with an infinitive stays a base form
@pytest.mark.parametrize(("text", "want"), [
    ("I want to live authentically and help others do the same.", "Rosa wants to live authentically and help others"),
    ("I get to share my story and help other kids.", "Rosa gets to share her story and help other kids"),
])
def test_infinitive_coordination_keeps_base_form(text: str, want: str) -> None:
    texts = _texts(text)
    assert any(t.startswith(want) for t in texts), texts


def test_finite_coordination_still_conjugated() -> None:
    texts = _texts("I go to work and love it every day.")
    assert not any("and love it" in t for t in texts), texts
    texts = _texts("I live in Lisbon and teach at a school there.")
    assert any("teaches" in t for t in texts), texts


# 7. a hyphenated verb conjugates its head ("colors-code" was found in the dev facts)
@pytest.mark.parametrize(("text", "want"), [
    ("I color-code my notes so I can find things fast.", "Rosa color-codes"),
    ("I double-check the locks before I leave.", "Rosa double-checks"),
    ("I fact-check my sources for the newsletter.", "Rosa fact-checks"),
])
def test_hyphenated_verb_conjugates_its_head(text: str, want: str) -> None:
    texts = _texts(text)
    assert any(t.startswith(want) for t in texts), texts


def test_laughter_words() -> None:
    from arandu_pipelines.write.grammar_defects import is_laughter

    assert all(is_laughter(w) for w in ("Ha", "Hah", "Haha!", "hehe", "lol", "Ahaha"))
    assert not any(is_laughter(w) for w in ("He", "Hi", "Hal", "Hannah", "Holly"))
