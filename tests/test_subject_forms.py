"""Third-party news subjects (write/subject_forms.py): a name never seen before that NER types a
person, the speaker's own "the baby / the kids" in a statement, "It was the first time X ...".
Invented sentences only (Ann speaks to Bob), through the real extractor."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.subject_forms import first_time, own_the
from arandu_pipelines.write.types import ExtractionContext


def facts(text: str, prev: list[tuple[str | None, str]] | None = None) -> list[str]:
    ctx = ExtractionContext(speaker_name="Ann", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Bob", previous_turns=prev or [])
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- a new name as the subject (NER PERSON) ---------------------------------------------------

def test_new_name_subject_gets_a_fact():
    out = facts("Daniel arrived on Friday, two weeks early!")
    assert any(f.startswith("Daniel arrived") for f in out), out


def test_new_full_name_subject_gets_a_fact():
    out = facts("Hannah Park finished her first marathon last week.")
    assert any(f.startswith("Hannah Park finished her first marathon") for f in out), out


# ---- the speaker's own "the X" ----------------------------------------------------------------

def test_the_baby_is_the_speakers():
    out = facts("The baby is due March 20th.")
    assert "Ann's baby is due on 20 March 2024" in out, out


def test_the_kids_are_the_speakers():
    out = facts("The kids loved the aquarium.")
    assert "Ann's kids loved the aquarium" in out, out


def test_the_noun_guards():
    assert own_the("The dog at the park bit me.") == "The dog at the park bit me."
    assert own_the("The kids next door are loud.") == "The kids next door are loud."
    assert own_the("The doctor said I'm fine.") == "The doctor said I'm fine."
    assert own_the("The baby is due when?") == "The baby is due when?"
    out = facts("We saw a dog on the trail. The dog was huge.")
    assert not any("Ann's dog" in f for f in out), out


# ---- "It was the first time X VP" ------------------------------------------------------------

def test_first_time_name_since():
    out = facts("This was the first time Daniel beat his brother at chess since 2019.")
    assert "Daniel beat his brother at chess for the first time since 2019" in out, out


def test_first_time_my_son():
    out = facts("It was the first time my son rode a horse.")
    assert "Ann's son rode a horse for the first time" in out, out


def test_first_time_guards():
    assert first_time("It was the first time in years.") == "It was the first time in years."
    assert first_time("That was the last time.") == "That was the last time."
    assert first_time("It was the second time we went there!") == "We went there for the second time!"


def test_the_noun_of_a_reaction_or_the_listeners_turn_stays():
    assert own_the("The kids look so cute, Bob!") == "The kids look so cute, Bob!"
    assert own_the("The kids loved it, Bob!") == "The kids loved it, Bob!"
    out = facts("The dog slept all afternoon.", [("Bob", "We finally took the dog to the lake!")])
    assert not any("Ann's dog" in f for f in out), out


def test_new_name_guards():
    out = facts("Cozy and inviting - perfect for a long weekend.")
    assert not any(f.startswith("Cozy") for f in out), out
    ex = extract_offline("Paris was amazing.", ExtractionContext(
        speaker_name="Ann", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC), addressee="Bob"))
    assert not any(f.rule_kind.startswith("generic.name") for f in ex.facts), ex.facts  # NER: GPE


# ---- "with us" after a specific subject (write/we_events.py) ----------------------------------

def test_staying_with_us_after_a_specific_subject_is_kept():
    out = facts("Maya's dad flew in from Denver and is staying with us until New Year.")
    assert any(f.startswith("Maya's dad flew in from Denver") for f in out), out


def test_generic_subject_with_us_still_dropped():
    out = facts("Life is staying with us.")
    assert not out, out
