"""A plain first name as a sentence's subject (write/name_subjects.py): typed a person when the
he/she resolution put it there, when the conversation already showed it as a person or pet, or
when it is a known first name NER does not place; a one-word name no list knows, PERSON to NER
alone, is no antecedent of he/she. Invented sentences only (Ann speaks to Bob), through the real
extractor."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write import name_subjects
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def run(turns: list[tuple[str, str]]):
    """The extraction of the last turn, the earlier ones as context."""
    prev: list[tuple[str | None, str]] = []
    for who, text in turns[:-1]:
        prev.append((who, text))
    who, text = turns[-1]
    ctx = ExtractionContext(speaker_name=who, occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                            addressee="Bob" if who == "Ann" else "Ann", previous_turns=prev)
    return extract_offline(text, ctx)


def facts(*texts: str) -> list[str]:
    turns = [("Ann" if i % 2 == 0 else "Bob", t) for i, t in enumerate(texts)]
    if len(texts) % 2 == 0:  # the last turn is Ann's
        turns = [("Bob" if i % 2 == 0 else "Ann", t) for i, t in enumerate(texts)]
    return [f.fact_text for f in run(turns).facts]


def types(text: str, *prev: str) -> dict[str, str]:
    turns = [("Ann" if (len(prev) - i) % 2 == 0 else "Bob", t) for i, t in enumerate(prev)] + [("Ann", text)]
    return {e.name: e.entity_type for e in run(turns).entities}


# ---- a known first name ---------------------------------------------------------------------------

def test_first_name_with_copula():
    assert "Marco is a firefighter" in facts("Marco is a firefighter."), facts("Marco is a firefighter.")


def test_first_name_with_present_verb():
    assert "Marco runs every morning" in facts("Marco runs every morning.")


def test_first_name_ner_calls_an_organisation():
    out = facts("Tyler scored a goal.")
    assert "Tyler scored a goal" in out, out


def test_first_name_ner_does_not_tag():
    out = facts("Rose weighed seven pounds.")
    assert "Rose weighed seven pounds" in out, out


def test_first_name_ner_already_tags_person():  # passes on base too: the subjects14 path stays
    assert "Tyler passed the exam" in facts("Tyler passed the exam.")


# ---- put there by the he/she resolution ------------------------------------------------------

def test_resolved_pronoun_to_a_kin_name():
    out = facts("My son Tyler graduated from boot camp.", "Wow!",
                "He scored second in his class on the anatomy exam last week.")
    assert any(f.startswith("Tyler scored second in his class on the anatomy exam") for f in out), out


def test_resolved_pronoun_after_a_date():
    out = facts("I went on a date with Marco on Friday.", "How did it go?", "He is a firefighter.")
    assert "Marco is a firefighter" in out, out


def test_own_possessive_of_a_name_subject_stays():
    out = facts("My son Tyler graduated from boot camp.", "Wow!", "Tyler scored second in his class.")
    assert "Tyler scored second in his class" in out, out


# ---- known to the conversation -----------------------------------------------------------------

def test_name_no_list_knows_apposed_to_kin_in_an_earlier_turn():
    assert not name_subjects.is_first_name("Tavi")  # so only the earlier turn can say who Tavi is
    out = facts("My nephew Tavi is visiting.", "Nice!", "Tavi scored two goals on Saturday.")
    assert any(f.startswith("Tavi scored two goals") for f in out), out


def test_unknown_name_alone_stays_unread():  # guard: no list, no context, no NER PERSON
    assert not any(f.startswith("Tavi") for f in facts("Tavi scored two goals on Saturday."))


def test_pet_named_in_an_earlier_turn_is_a_pet():
    got = types("Rufus sleeps all day.", "We adopted a puppy named Rufus.", "Cute!")
    assert got.get("Rufus") == "pet", got


def test_from_turns_reads_appositions():
    got = name_subjects.from_turns([("Ann", "My son Tyler left. Rufus, my dog, misses him."),
                                    ("Bob", "a kitten called Mochi")], ["Ann", "Bob"],
                                   frozenset({"son", "dog", "kitten"}), frozenset({"dog", "kitten"}))
    assert got["tyler"] == "person" and got["rufus"] == "pet" and got["mochi"] == "pet", got
    assert got["ann"] == "person"


# ---- the converse: no he/she antecedent from NER alone ---------------------------------------------

def test_team_name_is_no_he_across_turns():
    out = facts("Brookfield made the semifinals.", "Nice!", "He's a junior on the varsity team.")
    assert not any(f.startswith("Brookfield") for f in out), out


def test_team_name_is_no_he_in_the_message():
    out = facts("Brookfield made the semifinals. He scored twice in the quarterfinal.")
    assert not any("Brookfield scored" in f for f in out), out


# ---- guards: left alone ---------------------------------------------------------------------------

def test_place_is_no_person():
    assert types("Paris is lovely in spring.").get("Paris") != "person"
    assert not any(f.startswith("Paris") for f in facts("Paris is lovely in spring."))


def test_weekday_is_no_person():
    assert not any(f.startswith("Monday") for f in facts("Monday was rough."))


def test_company_is_no_person():
    assert types("Apple released a phone.").get("Apple") != "person"
    assert not any(f.startswith("Apple") for f in facts("Apple released a phone."))


def test_capitalised_common_word_is_no_person():
    assert "Running" not in types("Running keeps me sane.")
    assert not any(f.startswith("Hope") for f in facts("Hope you are well."))
    assert types("Grace is a virtue.").get("Grace") != "person"


def test_verb_test():
    assert name_subjects.table_candidate("Tyler", " scored a goal")
    assert name_subjects.table_candidate("Marco", " also runs")
    assert not name_subjects.table_candidate("Tyler", " and me")
    assert not name_subjects.table_candidate("Hope", " is a virtue")  # COMMON
    assert not name_subjects.table_candidate("April", " was rainy")  # a month


def test_organisation_with_a_person_verb_is_no_he():
    out = facts("Westfield won the final. He scored twice in the second half.")
    assert not any("Westfield scored" in f for f in out), out


def test_first_name_after_a_time_word():
    out = facts("Yesterday Tyler scored a goal.")
    assert any(f.startswith("Tyler scored a goal") for f in out), out
    assert not any(f.startswith("Apple") for f in facts("Today Apple released a phone."))


def test_unlisted_name_asked_about_stays_the_antecedent_of_he():
    """Lead's merge fix (session 15): a name no first-name list knows ("Jaylen") and that nothing
    uses as a place is still the person "he" stands for (names15 had made every unlisted name
    that only NER types PERSON no antecedent, which lost a boxer's news on the held-out probe)."""
    out = facts("Is Jaylen still training hard? You said he had another fight coming up.",
                "He qualified for the regional tournament in November.")
    assert any(f.startswith("Jaylen qualified for the regional tournament") for f in out), out
