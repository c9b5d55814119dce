"""Facts a careful reader of get_all() would still rewrite (session 13, branch readable13,
write/plain_forms.py): a noun's chat contraction, a chat demonstrative, "us" after a preposition,
fragments; and the bench markers that count them. Crafted turns, not the dev conversations' own
sentences; no database."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path

from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.plain_forms import contractions, demonstratives
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2023, 8, 28, 15, 19, tzinfo=UTC)


def texts(text: str, speaker: str = "Maria", addressee: str = "John") -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee=addressee)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- a noun's "'s" contraction: "is"/"has" by the next word, possessives untouched --------------
def test_a_noun_contraction_before_a_name_possessive_is_is():
    assert texts("Green's my favorite color, it calms me down.") == [
        "Green is Maria's favorite color, it calms Maria down"]


def test_a_noun_contraction_before_a_progressive_or_a_participle():
    assert texts("My brother's doing great at his new job in Lisbon.") == [
        "Maria's brother is doing great at his new job in Lisbon"]
    assert texts("My sister's been amazing through all of this; she helped me move.")[0].startswith(
        "Maria's sister has been amazing")
    assert texts("Photography's allowed me to see my city in a new way.") == [
        "Photography has allowed Maria to see Maria's city in a new way"]


def test_a_noun_contraction_before_an_adverb_or_a_predicate_adjective():
    assert texts("Swimming's mostly my dad's hobby.") == ["Swimming is mostly Maria's dad's hobby"]
    assert contractions("Ana's son's ok and back at school") == "Ana's son is ok and back at school"
    assert contractions("The store's going good") == "The store is going good"
    # a possessive is never written as a verb
    cases = ["Maria's daughter's painting won a prize at school", "Veggies are Oliver's favorite",
             "Maria's dog, Max, loves the beach", "Maria's favorite book is Dune", "It's Maria's turn"]
    assert [contractions(c) for c in cases] == cases
    # and the contraction beside them is written out
    assert contractions("Maria's dog's fine now") == "Maria's dog is fine now"


# ---- a chat demonstrative whose referent is not in the fact -------------------------------------
def test_this_after_a_verb_is_an_indefinite_article():
    assert texts("I built this wooden bookshelf for my daughter's room.") == [
        "Maria built a wooden bookshelf for her daughter's room"]
    assert texts("I ran into this amazing street musician in the park yesterday.") == [
        "Maria ran into an amazing street musician in the park"]


def test_these_and_those_before_a_noun_are_the_and_time_phrases_stay():
    assert texts("I volunteer at the shelter because I love helping these dogs.") == [
        "Maria volunteers at the shelter because she loves helping the dogs"]
    assert texts("We found these lovely flowers on our walk.") == [
        "Maria and others found some lovely flowers on their walk"]
    keep = ["Maria started running this year", "Maria is busy these days", "Maria admires those who paint",
            "Maria values sharing this with John"]
    assert [demonstratives(k) for k in keep] == keep
    assert demonstratives("Throughout this journey Maria kept going") == "Throughout the journey Maria kept going"
    assert demonstratives("Maria watched as she took those first steps") == "Maria watched as she took the first steps"


# ---- "us" after a preposition ------------------------------------------------------------------
def test_both_of_us_is_the_two_speakers_and_within_us_all_is_everyone():
    assert texts("Gardening has a special meaning to both of us.") == [
        "Gardening has a special meaning to both Maria and John"]
    from arandu_pipelines.write.plain_forms import group_objects
    assert group_objects("Maria planted a tree to remind others that within Maria and others all is hope",
                         "Maria", "John") == "Maria planted a tree to remind others that within everyone is hope"


# ---- fragments ---------------------------------------------------------------------------------
def test_a_comparison_fragment_and_time_flies_are_not_facts():
    assert texts("Almost as funny as when my dad tried to ride a camel.") == []
    assert texts("Time flies - feels like just last week I started this job.") == []
    # a subordinate "as soon as" clause is no fragment
    from arandu_pipelines.write.plain_forms import fragment
    assert not fragment("As soon as Maria starts, all Maria's worries vanish")


# ---- bench markers -----------------------------------------------------------------------------
def _bench():
    path = Path(__file__).resolve().parents[1] / "bench" / "facts.py"
    spec = importlib.util.spec_from_file_location("bench_facts_readable13", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_bench_markers_flag_each_class_and_not_the_clean_forms():
    bench = _bench()
    flagged = {
        "noun_contraction": ["Blue's Ana's favorite", "Ana's son's ok and fine", "Ana's family's been great",
                             "Store's going good"],
        "fragment": ["Almost as silly as when Ana fed a horse", "Time flies- feels like yesterday"],
        "demonstrative": ["Ana made this painting", "Ana is obsessed with those, so Ana bought more"],
        "group_phrase": ["within Ana and others all is the key", "a special meaning to both of Ana and others"],
    }
    for marker, examples in flagged.items():
        for text in examples:
            assert marker in bench.defects_of(text), (marker, text)
    clean = ["Ana's painting won a prize", "Veggies are Oliver's favorite", "It's Ana's turn",
             "Ana started running this year", "Ana admires those who paint", "As soon as Ana starts, Ana relaxes",
             "Ana and others all made pots", "Ana made a painting"]
    for text in clean:
        assert not set(bench.defects_of(text)) & set(flagged), text


def test_is_with_adverbs_before_been_is_has():
    # "He's always been ..." was written "Tyler is always been ..." (seen at the session-14 merge)
    from arandu_pipelines.write.plain_forms import polish

    assert polish("Tyler is always been the one patching up his friends", "Dale") == \
        "Tyler has always been the one patching up his friends"
    assert polish("Tyler is already had two interviews", "Dale") == "Tyler has already had two interviews"
    assert polish("The cake is already gone", "Dale") == "The cake is already gone"  # English as it is
