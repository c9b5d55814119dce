"""Small broken forms a reader deletes (session 18, branch polish18). Invented sentences only.

- a repeated name inside a reported clause ("Greta says Harold lost Harold's keys"),
  write/repeated_names.py;
- a verb after ", then" and "like" after an adverb left unconjugated ("... then crash", "really
  like"), write/agreement.py and the rewriter in write/extract_rules.py;
- a comma splice whose second subject is "his/her <person>", write/comma_splices.py;
- a ", since" reason, an ", and they <verdict>" and a "but don't ..." order, write/clause_tails.py;
- "The fifth one, Moose, has ..." left as "Moose, has ...", write/introduced_names.py;
- "can make ramen and scrambled eggs" split into "S scrambled eggs", write/fact_quality.py;
- a hedged comparison fragment "Kind of like S's defense", write/plain_forms.py.
"""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace

import pytest

from arandu_pipelines.write import (
    clause_tails,
    comma_splices,
    introduced_names,
    plain_forms,
    repeated_names,
)
from arandu_pipelines.write.extract_rules import _Who, extract_offline, rewrite_en
from arandu_pipelines.write.parses import ChunkParses
from arandu_pipelines.write.types import ExtractionContext

_PARSES = ChunkParses()


def _facts(text: str, speaker: str = "Greta") -> list[str]:
    ctx = ExtractionContext(speaker_name=speaker, occurred_at=datetime(2024, 3, 2), addressee="Harold",
                            parses=ChunkParses())
    return [f.fact_text for f in extract_offline(text, ctx).facts]


# ---- a reported clause's own subject repeated --------------------------------------------------

def _renamed(text: str, subject: str) -> str:
    fact = SimpleNamespace(fact_text=text, subject=subject)
    repeated_names.apply([fact], _PARSES)
    return str(fact.fact_text)


@pytest.mark.parametrize(("text", "written"), [
    ("Greta says Harold has found Harold's calling early", "Greta says Harold has found his calling early"),
    ("Greta thinks Harold misses Harold's dog", "Greta thinks Harold misses his dog"),
    ("Greta said that Harold sold the van so Harold can pay for Harold's course",
     "Greta said that Harold sold the van so he can pay for his course"),
    # a stance before the clause (session 18, lead: "Howard is confident Nadia will crush Nadia's goal")
    ("Greta is confident Harold will win Harold's first race", "Greta is confident Harold will win his first race"),
])
def test_a_reported_subject_repeated_becomes_the_pronoun(text: str, written: str) -> None:
    assert _renamed(text, "Greta") == written


@pytest.mark.parametrize("text", [
    "Greta says Harold met Tom before Harold left",      # "he" could be Tom
    "Greta says Harold and Tom sold Harold's van",       # a compound subject
    "Greta says Quill lost Quill's keys",                # unknown gender
    "Greta visited Harold and Harold's dog",             # no reported clause: Harold is an object
])
def test_a_reported_subject_that_keeps_the_name(text: str) -> None:
    assert _renamed(text, "Greta") == text


# ---- verbs after ", then" and "like" after an adverb -------------------------------------------

def _third(text: str) -> str:
    return rewrite_en(text, _Who(speaker="Quill", addr="Marcus", pron=None, parses=_PARSES))


@pytest.mark.parametrize(("said", "written"), [
    ("I usually swim right after I get home, then crash", "Quill usually swims right after Quill gets home, then crashes"),
    ("I feed the cats, then make coffee", "Quill feeds the cats, then makes coffee"),
    ("I finish work at five, then pick up the kids", "Quill finishes work at five, then picks up the kids"),
    ("I really like Tom's office", "Quill really likes Tom's office"),
    ("I usually like the quiet mornings", "Quill usually likes the quiet mornings"),
    ("I like hiking", "Quill likes hiking"),
])
def test_the_second_verb_takes_the_subjects_form(said: str, written: str) -> None:
    assert _third(said) == written


@pytest.mark.parametrize(("said", "written"), [
    ("I cook dinner, then we eat together", "Quill cooks dinner, then Quill and others eat together"),  # own subject
    ("I like the fall, then winter", "Quill likes the fall, then winter"),  # no verb after "then"
    ("I like totally forgot", "Quill like totally forgot"),  # a filler "like"
    ("I like, really want it", "Quill like, really want it"),
    ("I would like a cake", "Quill would like a cake"),
])
def test_no_second_verb_no_change(said: str, written: str) -> None:
    assert _third(said) == written


# ---- a comma splice with "his/her <person>" -----------------------------------------------------

@pytest.mark.parametrize(("text", "head", "tail"), [
    ("Greta loves jazz, her uncle plays the trumpet in a band", "Greta loves jazz",
     "Greta's uncle plays the trumpet in a band"),
    ("Harold sold his boat, his brother needed the money", "Harold sold his boat", "Harold's brother needed the money"),
])
def test_a_possessive_splice_is_a_fact_of_its_own(text: str, head: str, tail: str) -> None:
    cut = comma_splices.split(text, text.split()[0])
    assert cut is not None and (cut.head, cut.tail) == (head, tail)


@pytest.mark.parametrize("text", [
    "Greta loves jazz, her uncle's band plays on Fridays",       # an owner's noun, no verb
    "Greta loves jazz, her records are in the attic",            # no person noun
    "Greta met Ines and Tom at the fair, her sister was there",  # "her" could be Ines's
    "Greta visited Ines, her aunt lives in Oslo",
])
def test_a_possessive_splice_left_whole(text: str) -> None:
    assert comma_splices.split(text, "Greta") is None


# ---- reason, verdict and order tails -------------------------------------------------------------

@pytest.mark.parametrize(("text", "head"), [
    ("Greta named the boat Seagull, since Greta and others are close to the harbor", "Greta named the boat Seagull"),
    ("Greta and her band are rehearsing a new song Greta wrote, and they sound better every week",
     "Greta and her band are rehearsing a new song Greta wrote"),
    ("Greta painted the fence, and it looks great", "Greta painted the fence"),
    ("Greta will email it but don't read it until after Friday", "Greta will email it"),
    ("Greta will email the draft, but please don't share it with anyone", "Greta will email the draft"),
])
def test_a_comment_tail_is_cut(text: str, head: str) -> None:
    cut = clause_tails.split(text, "Greta")
    assert cut is not None and cut.head == head and not cut.news


@pytest.mark.parametrize("text", [
    "Greta named the boat Seagull, since it's her favorite bird",  # an "it" reason says what it is
    "Greta has known Ines for ten years, since they are neighbors",  # a stretch of time: a date
    "Greta gave Ines her old car, since she bought a new one",  # a past reason: news
    "Greta sent Harold a sketch of the dog, and he looks exactly how Harold imagined",
    "Greta finished the course, and she is on the list for the next one",
    "Greta adopted two cats, and they are brothers",  # what they are, no verdict
    "Greta would love to help but don't have time",  # the speaker's elided "I", no order
    "Greta loves the show, but never watches the finale",
    'Greta says "call me, but don\'t be late"',
])
def test_a_tail_that_stays(text: str) -> None:
    assert clause_tails.split(text, "Greta") is None


# ---- "The fifth one, Moose, has ..." --------------------------------------------------------------

@pytest.mark.parametrize(("said", "written"), [
    ("The fifth one, Moose, has a heart murmur.", "Moose has a heart murmur."),
    ("So the little one, Pip, is a girl.", "So Pip is a girl."),
])
def test_the_counted_one_is_its_name(said: str, written: str) -> None:
    assert introduced_names.rewrite_sentence(said) == written


@pytest.mark.parametrize("said", [
    "I met the fifth one, Moose, yesterday.",  # an object
    "The vet, Dr Lee, said he is fine.",      # "the" + another noun: left to the rules
])
def test_other_the_appositions_stay(said: str) -> None:
    assert introduced_names.rewrite_sentence(said) == said


def test_the_extractor_leaves_no_apposition_comma() -> None:
    facts = _facts("Ha, no, one is enough! The fifth one, Moose, has a heart murmur, so the vet wants a "
                   "specialist to check him.")
    assert facts and all(not f.startswith("Moose,") for f in facts), facts
    assert any(f.startswith("Moose has a heart murmur") for f in facts), facts


# ---- a skill with a coordinated noun ------------------------------------------------------------

def test_a_skill_is_kept_whole() -> None:
    """"scrambled" was read as a second past action: "Greta scrambled eggs"."""
    assert _facts("Uh... I can make ramen and scrambled eggs lol.") == ["Greta can make ramen and scrambled eggs"]


def test_two_past_actions_still_split() -> None:
    assert _facts("I went to the market and bought fresh figs.") == ["Greta went to the market",
                                                                    "Greta bought fresh figs"]


def test_other_modals_stay_dropped() -> None:
    assert _facts("I can make it work.") == []


# ---- a hedged comparison fragment ----------------------------------------------------------------

@pytest.mark.parametrize(("text", "is_fragment"), [
    ("Kind of like Greta's defense", True),
    ("Sort of like Greta's old car", True),
    ("Kinda like a movie", True),
    ("Greta kind of likes the new logo", False),
])
def test_a_hedged_comparison_is_a_fragment(text: str, is_fragment: bool) -> None:
    assert plain_forms.fragment(text) is is_fragment
