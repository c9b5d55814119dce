"""Consequence and commentary tails joined to a fact (session 18, tails18: write/clause_tails.py).

Invented sentences only. The extractor cases fail on the base 44f30ee (the fact kept the tail, or
read "kind of" as a verb); the module cases need the new module; the negative cases keep the fact
whole on both.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from arandu_pipelines.write import clause_tails, wellformed
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractionContext


def _facts(text: str, speaker: str = "Ines") -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, addressee="Omar", occurred_at=datetime(2023, 5, 1))
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- through the extractor (fail on the base) ------------------------------------------------------

def test_so_comment_is_cut() -> None:
    facts = _facts("My brother got engaged in Rome over New Year, so life has been a whirlwind.")
    assert "Ines's brother got engaged in Rome over New Year" in facts
    assert not any("whirlwind" in f for f in facts)


def test_so_news_of_a_named_subject_is_its_own_fact() -> None:
    facts = _facts("My uncle was a mechanic for thirty years, so my uncle keeps trying to fix my car.")
    assert "Ines's uncle was a mechanic for thirty years" in facts
    assert "Ines's uncle keeps trying to fix Ines's car" in facts


def test_but_news_is_its_own_fact() -> None:
    facts = _facts("I prefer tennis, but I came to watch Leo play once.")
    assert facts == ["Ines prefers tennis", "Ines came to watch Leo play once"]


def test_which_comment_and_though_are_cut() -> None:
    facts = _facts("My cousin calls my grandma every Friday though, which really lifts her mood.")
    assert facts == ["Ines's cousin calls Ines's grandma every Friday"]


def test_which_evaluation_is_cut() -> None:
    facts = _facts("My team now calls me Captain Byte, which is a silly joke.")
    assert "Ines's team now calls Ines Captain Byte" in facts
    assert not any("joke" in f for f in facts)


def test_talk_about_the_talk_is_cut() -> None:
    assert _facts("I finally have a free afternoon, so I thought I'd check in.") == ["Ines finally has a free afternoon"]


def test_hedge_kind_of_is_no_verb() -> None:
    facts = _facts("I kind of have one - I signed up for a 10k in June.")
    assert any(f.startswith("Ines kind of has one") for f in facts)
    assert not any("kinds of" in f for f in facts)


# ---- the module -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "subject", "head", "kind"), [
    ("Omar has worked at the bakery for ten years, so leaving is hard", "Omar",
     "Omar has worked at the bakery for ten years", "so_comment"),
    ("Tariq's coworkers now call Tariq Captain Byte, which is a silly joke", "Tariq",
     "Tariq's coworkers now call Tariq Captain Byte", "which_comment"),
    ("Nina ran farther this week to unwind, which has been great for Nina's sleep", "Nina",
     "Nina ran farther this week to unwind", "which_comment"),
    ("Nina's sister told Nina she was proud, which made Nina cry a little", "Nina",
     "Nina's sister told Nina she was proud", "which_comment"),
    ("Kai leaves the office at four every day, which feels illegal", "Kai",
     "Kai leaves the office at four every day", "which_comment"),
    ("Zoe has a free afternoon, so Zoe will keep it short", "Zoe", "Zoe has a free afternoon", "so_talk"),
    ("Zoe's old cat Rex ate a whole sock once, so Zoe believes it", "Zoe", "Zoe's old cat Rex ate a whole sock once",
     "so_thin"),
    ("Pia's sister moved to Leeds in March, so no more weekend visits", "Pia",
     "Pia's sister moved to Leeds in March", "so_comment"),
])
def test_cut(text: str, subject: str, head: str, kind: str) -> None:
    cut = clause_tails.split(text, subject)
    assert cut is not None and cut.head == head and cut.news == () and cut.kinds == (kind,)


def test_split_and_cut_together() -> None:
    cut = clause_tails.split("Ben's work is quiet after the launch, so Ben leaves at five every day, which is wild",
                             "Ben")
    assert cut is not None
    assert cut.head == "Ben's work is quiet after the launch"
    assert cut.news == (("Ben", "Ben leaves at five every day"),)


def test_contraction_in_the_tail() -> None:
    cut = clause_tails.split("Ravi sprained a wrist at the pool, so Ravi's been typing with one hand", "Ravi")
    assert cut is not None and cut.news == (("Ravi", "Ravi has been typing with one hand"),)


@pytest.mark.parametrize(("text", "subject"), [
    ("Kim bought Marley flooring, which is what studios usually use", "Kim"),  # describes a noun
    ("Pia wants to be a paramedic, which is like a nurse", "Pia"),
    ("Leo got hurt and paused pottery, which Leo uses for calm", "Leo"),  # object relative
    ("Earl fixed the shelves with Dale, which were driving Dale crazy", "Earl"),  # plural: a noun's
    ("Ravi is switching to day shifts in June, so Ravi will be home most evenings", "Ravi"),  # purpose
    ("Ana's dad is a retired plumber, so Ana's dad is helping Ana fix it", "Ana"),  # points back
    ("Mia was scared, but she jumped anyway", "Mia"),  # a contrast with no named subject
    ("Mia's bakery is on shaky ground right now, but Mia is staying positive", "Mia"),  # a stance
    ("Mia is a mix of excited and scared, but Mia is trying to learn as much as Mia can", "Mia"),  # modal
    ("Olive is the smallest, but Olive screams the loudest", "Megan"),  # a thin head
    ("Lena will ask Lena's dad, but Lena's dad won't listen", "Lena"),  # an owner's noun, no "'s" verb
    ("Sometimes it's hard when plans fail, but Jon is sure Jon will get there", "Jon"),  # no name opens
    ("Lost Jon's job as a banker, so Jon is taking a shot at a business", "Jon"),
    ("Dev is on Ann's team now, so Ann is technically his boss", "Ann"),  # "his" points back
    ("Jo spent so much on the trip, so much that Jo is broke", "Jo"),
])
def test_left_whole(text: str, subject: str) -> None:
    assert clause_tails.split(text, subject) is None


@pytest.mark.parametrize(("text", "expected"), [
    ("Bo hurt a knee but nothing tore, thankfully", "Bo hurt a knee but nothing tore"),
    ("Bo calls his mum every Sunday though", "Bo calls his mum every Sunday"),
    ("Bo is fine, though", "Bo is fine"),
    ("Bo went even though", "Bo went even though"),  # "even though" is no closing adverb
    ("Bo did it anyway", "Bo did it anyway"),  # no comma: "anyway" is "despite that", content
])
def test_closing_adverb(text: str, expected: str) -> None:
    assert wellformed.closing_adverb(text) == expected


def test_closing_adverb_through_the_extractor() -> None:
    facts = _facts("My grandpa bruised his hip but nothing broke, thankfully.")
    assert "Ines's grandpa bruised his hip but nothing broke" in facts
