"""Two people joined by "and" as a sentence's subject (write/conjoined_subjects.py): the pair is
read as a person subject, the fact keeps both as written, and no verb rule writes a fact for the
second conjunct alone. Invented sentences only (Ann speaks to Bob), through the real extractor."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write import conjoined_subjects as C
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext, ExtractionResult


def run(text: str, *prev: str) -> ExtractionResult:
    """Ann's message `text`, the earlier turns (alternating, the last before it Bob's) as context."""
    turns = [("Ann" if (len(prev) - i) % 2 == 0 else "Bob", t) for i, t in enumerate(prev)]
    ctx = ExtractionContext(speaker_name="Ann", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC), addressee="Bob",
                            previous_turns=list(turns))
    return extract_offline(text, ctx)


def facts(text: str, *prev: str) -> list[str]:
    return [f.fact_text for f in run(text, *prev).facts]


def people(text: str, *prev: str) -> set[str]:
    return {e.name for e in run(text, *prev).entities if e.entity_type == "person" and e.name != "Ann"}


# ---- the pair is a person subject, the fact keeps both -------------------------------------------

def test_name_and_his_wife():
    r = run("Jake and his wife bought a house in Denver.")
    got = {f.fact_text: f.subject for f in r.facts}
    assert got.get("Jake and his wife bought a house in Denver") == "Jake", got


def test_name_and_her_sister():
    assert "Priya and her sister opened a bakery" in facts("Priya and her sister opened a bakery.")


def test_two_names_got_married_keeps_both_and_no_half_fact():
    out = facts("Tyler and Rose got married last weekend.")
    assert "Rose got married" not in out, out
    assert any(f.startswith("Tyler and Rose got married") for f in out), out
    assert {"Tyler", "Rose"} <= people("Tyler and Rose got married last weekend.")


def test_two_names_moved_no_fact_for_the_second_alone():
    out = facts("Jake and Emma moved to Denver.")
    assert "Emma moved to Denver" not in out, out
    assert "Jake and Emma moved to Denver" in out, out


def test_ner_places_one_first_name_the_other_outweighs():
    # the small NER model types "Tyler" GPE here and "Rose" PERSON: the pair is two people
    out = facts("Tyler and Rose are engaged.")
    assert out == ["Tyler and Rose are engaged"], out


def test_name_and_my_sister():
    out = facts("Jake and my sister got married.")
    assert "Ann's sister got married" not in out, out
    assert "Jake and Ann's sister got married" in out, out


def test_my_sister_and_name_no_fact_for_the_name_alone():
    out = facts("My sister and Tom moved to Denver.")
    assert "Tom moved to Denver" not in out, out
    assert "Ann's sister and Tom moved to Denver" in out, out


def test_name_the_conversation_showed():
    # no first-name list knows "Tavi": the earlier turn apposed it to a kin noun
    out = facts("Tavi and his mom went to the zoo.", "My nephew Tavi is visiting.", "Nice!")
    assert "Tavi and his mom went to the zoo" in out, out


def test_split_second_action_repeats_the_pair():
    out = facts("Tyler and Rose got married and moved to Denver.")
    assert "Tyler and Rose moved to Denver" in out, out
    assert not {"Rose moved to Denver", "Tyler moved to Denver", "Rose got married"} & set(out), out


def test_split_second_action_repeats_a_kin_pair():
    out = facts("Jake and my sister got married and moved to Austin.")
    assert "Jake and Ann's sister moved to Austin" in out, out


def test_her_of_someone_named_before_is_not_the_first_conjunct():
    # "her" cannot be Jake's: it stays the cousin's, and no verb fact for "her sister" alone
    out = facts("My cousin Lily called. Jake and her sister got engaged.")
    assert "Jake and Lily's sister got engaged" in out, out


def test_three_names():
    out = facts("Tyler, Rose and Sam went camping.")
    assert out == ["Tyler, Rose and Sam went camping"], out
    assert {"Tyler", "Rose", "Sam"} <= people("Tyler, Rose and Sam went camping.")


# ---- guards: left as they were ----------------------------------------------------------------------

def test_places_are_no_pair_of_people():
    assert not people("Paris and Rome were lovely.") & {"Paris", "Rome"}
    assert not any(f.startswith("Paris") for f in facts("Paris and Rome were lovely."))


def test_three_places():
    assert not people("Paris, Rome and Florence were lovely.") & {"Paris", "Rome", "Florence"}


def test_first_names_ner_places_without_a_person_side():
    assert not people("Florence and Sydney were beautiful.") & {"Florence", "Sydney"}


def test_common_nouns():
    assert "Salt" not in people("Salt and pepper is all you need.")
    assert not any(f.startswith("Salt") for f in facts("Salt and pepper is all you need."))


def test_her_of_someone_named_before_unchanged():
    assert "Jake and Lily's sister bought a house" in facts("My cousin Lily called. Jake and her sister bought a house.")


def test_me_and_name_unchanged():
    assert "Ann and Tom went hiking" in facts("Me and Tom went hiking.")


def test_name_and_i_compound_unchanged():
    assert "Tom and Ann got married" in facts("Tom and I got married.")


def test_single_name_unchanged():
    assert "Tyler got married" in facts("Tyler got married.")


def test_kin_pair_unchanged():
    assert "Ann's brother and his girlfriend adopted a cat" in facts("My brother and his girlfriend adopted a cat.")


# ---- the text readings ----------------------------------------------------------------------------

def test_conjunct_after():
    body = "Jake and his wife bought a house."
    cj = C.conjunct_after(body, 4)
    assert cj is not None and cj.name is None and body[cj.start:cj.end] == "his wife"
    body = "Tyler and Rose got married."
    cj = C.conjunct_after(body, 5)
    assert cj is not None and cj.name == "Rose"
    body = "Jake and my best friend moved away."
    cj = C.conjunct_after(body, 4)
    assert cj is not None and body[cj.start:cj.end] == "my best friend"
    body = "Jake and Emma's son moved away."
    cj = C.conjunct_after(body, 4)
    assert cj is not None and body[cj.start:cj.end] == "Emma's son"
    assert C.conjunct_after("Jake and Emma's wedding was beautiful.", 4) is None
    body = "Tyler, Rose and Sam went camping."
    cj = C.conjunct_after(body, 5)
    assert cj is not None and cj.name == "Sam" and cj.middle == ((7, "Rose"),)
    assert C.conjunct_after("Salt and pepper is all you need.", 4) is None
    assert C.conjunct_after("Jake and his wife's car broke down.", 4) is None  # no kin noun before the predicate
    assert C.conjunct_after("Tyler and Rose Garden tickets.", 5) is None  # no predicate


def test_pair_subject():
    assert C.pair_subject("Jake and Ann's sister got married", "Jake") == "Jake and Ann's sister"
    assert C.pair_subject("Jake bought a car and a house", "Jake") is None


def test_first_conjunct():
    assert C.first_conjunct("Tyler and ") == ("Tyler", True)
    assert C.first_conjunct("Last weekend, Tyler and ") == ("Tyler", True)
    assert C.first_conjunct("My sister and ") == (None, True)
    assert C.first_conjunct("Tyler, Rose and ") == ("Tyler", True)
    assert C.first_conjunct("I met Tyler and ") is None  # not the sentence's subject
    assert C.first_conjunct("My car and ") is None


def test_possessive_agrees():
    assert C.possessive_agrees("his", "m") and C.possessive_agrees("her", None) and C.possessive_agrees("my", "m")
    assert not C.possessive_agrees("her", "m")


def test_pair_is_people():
    assert C.pair_is_people(C.WEAK, C.WEAK)
    assert C.pair_is_people(C.PLACED, C.STRONG)
    assert not C.pair_is_people(C.WEAK, C.PLACED)
    assert not C.pair_is_people(C.NONE, C.STRONG)
    assert C.pair_is_people(C.WEAK, C.PLACED, C.STRONG) and not C.pair_is_people(C.WEAK, C.WEAK, C.PLACED)
