"""News about the speaker's people and roles said in ordinary ways (write/people_forms.py): a bare
kin word used as a name, a comma splice, a third party acting on the speaker, an "As a X, I ..."
role opener, and the speaker's own group. Invented sentences only (Nadia speaks, Tom listens);
each gave no fact (or a dropped one) before people_forms."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def ctx() -> ExtractionContext:
    return ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                             addressee="Tom")


def facts(text: str) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ctx()).facts]


# 1. a capitalised kin word used as a name

def test_a_kin_word_as_a_subject_name():
    assert "Nadia's mum started a pottery class" in facts("Mum started a pottery class."), facts(
        "Mum started a pottery class.")
    out = facts("Grandpa finally sold his old truck.")
    assert any(f.startswith("Nadia's grandpa") and "sold" in f for f in out), out


def test_a_kin_word_as_a_name_mid_sentence():
    out = facts("I drove Nana to her checkup on Friday.")
    # the rewrite says "Nadia drove her nana" (the pronoun for a repeated name, write/name_gender.py)
    assert any(f.startswith("Nadia drove") and ("Nadia's nana" in f or "her nana" in f) for f in out), out


def test_a_vocative_kin_word_is_not_rewritten():
    res = extract_offline("Love you, Mom!", ctx())
    assert not any("Nadia's mom" in f.fact_text for f in res.facts), [f.fact_text for f in res.facts]


# 2. a comma splice is two sentences

def test_a_comma_splice_gives_each_clause_its_fact():
    out = facts("My sister got engaged in March, she wants a small wedding by the sea.")
    assert any(f.startswith("Nadia's sister got engaged") for f in out), out
    assert any("wants a small wedding by the sea" in f for f in out), out
    assert not any("Nadia Nadia" in f for f in out), out


def test_a_splice_with_a_pronoun_subject_is_two_facts():
    out = facts("My brother quit his job in May, he is starting a bakery.")
    assert any(f.startswith("Nadia's brother quit his job in May") and "bakery" not in f for f in out), out
    assert "Nadia's brother is starting a bakery" in out, out


def test_a_splice_whose_subject_is_the_speakers_person():
    out = facts("I finally finished the quilt, my sister just sewed the border.")
    assert any(f.startswith("Nadia finally finished the quilt") and "border" not in f for f in out), out
    assert any(f.startswith("Nadia's sister just sewed the border") for f in out), out


def test_the_kin_name_and_the_splice_together():
    out = facts("Dad moved in with me last weekend, we decided he shouldn't live alone anymore.")
    assert "Nadia's dad moved in with Nadia" in out, out
    assert not any("Nadia Nadia" in f for f in out), out


def test_a_clause_completing_the_first_is_no_splice():
    res = extract_offline("I'm sure with a bit of luck, I can finish the quilt by June.", ctx())
    assert len(res.sentences) == 1
    assert not any(f.fact_text.startswith("Nadia can finish") for f in res.facts), [f.fact_text for f in res.facts]
    res = extract_offline("Exams are hard, but with a study group, I can get through them.", ctx())
    assert len(res.sentences) == 1, res.sentences
    res = extract_offline("We all have busy weeks, but if we plan ahead, we find time to rest.", ctx())
    assert not any(f.fact_text.startswith("Nadia and others find time") for f in res.facts), [
        f.fact_text for f in res.facts]


def test_a_subordinate_head_is_no_splice():
    res = extract_offline("When the rain stopped, we walked to the harbor.", ctx())
    assert all(s.startswith("When the rain stopped") for s in res.sentences), res.sentences


def test_the_message_sentences_stay_as_written():
    text = "Papa moved in with me last month, we turned the study into his bedroom."
    res = extract_offline(text, ctx())
    assert res.sentences == [text], res.sentences
    assert res.facts and all(f.source_text == text for f in res.facts), [f.source_text for f in res.facts]


# 3. a third party acting on the speaker

def test_a_third_party_introduced_by_name_acting_on_the_speaker():
    out = facts("A neighbor, Ruth, taught me to knit last winter.")
    assert any(f.startswith("Nadia's neighbor Ruth taught Nadia to knit") for f in out), out


def test_a_friend_of_mine_acting_on_the_speaker():
    out = facts("A friend of mine talked me into running a half marathon.")
    assert any(f.startswith("Nadia's friend talked Nadia into running a half marathon") for f in out), out


def test_an_unnamed_third_party_is_the_speakers():
    out = facts("A classmate lent me her notes for the exam.")
    assert any(f.startswith("Nadia's classmate lent Nadia") for f in out), out


def test_a_named_apposition_after_my():
    out = facts("My roommate, Jonas, taught me to cook risotto.")
    assert any(f.startswith("Nadia's roommate Jonas taught Nadia to cook risotto") for f in out), out


# 4. a role opener

def test_a_role_opener_gives_the_role_and_the_clause():
    out = facts("As a night nurse I sleep through most of the day, so weekends feel strange.")
    assert "Nadia is a night nurse" in out, out
    assert any(f.startswith("Nadia sleeps through most of the day") for f in out), out


def test_a_role_with_an_adverb_before_the_verb():
    out = facts("As a mom of two, I rarely sleep past six.")
    assert "Nadia is a mom of two" in out, out


def test_a_period_of_life_is_no_role():
    out = facts("As a teenager I hated mornings.")
    assert not any("Nadia is a teenager" in f for f in out), out


# 5. the speaker's own group

def test_the_speakers_own_group():
    out = facts("Our book club has twelve members now.")
    assert any(f.startswith("Nadia's book club has twelve members") for f in out), out


# cost: a message of many splices parses at most MAX_PARSES of its sentences here

def test_parses_per_message_are_bounded():
    from arandu_pipelines.write import parses, people_forms

    text = " ".join(f"I painted fence number {i} on Monday, we ran out of paint by noon." for i in range(30))
    before = parses.STATS[people_forms.STAGE]
    extract_offline(text, ctx())
    assert 0 < parses.STATS[people_forms.STAGE] - before <= people_forms.MAX_PARSES


def test_a_stranger_acting_on_the_speaker_is_not_theirs():
    """ "A man asked if he could buy my bass" was "Nadia's man even asked if Nadia's man could buy ...":
    the opener rewrite that makes "A coworker dragged me" the speaker's coworker read "man" as a
    relation. Nouns for anyone (man, woman, guy, kid ...) are no relation; relational ones still are."""
    for text in ("A man even asked if he could buy the bass, but I told him it's going on my dad's mantel.",
                 "A woman at the market asked if she could buy my bread.",
                 "A guy from work gave me a ride."):
        assert not any(re.search(r"'s (?:man|woman|guy)\b", f) for f in facts(text)), facts(text)
    assert any(f.startswith("A guy from work gave") for f in facts("A guy from work gave me a ride."))
    assert any(f.startswith("Nadia's coworker dragged") for f in facts("A coworker dragged me to a salsa class."))
