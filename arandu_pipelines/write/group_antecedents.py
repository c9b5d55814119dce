"""People "they" stands for: a plural group of people or two people joined by "and" (session 16,
branch they16), as candidates for write/org_antecedents.py.

Chat news says "My parents retired last year. They bought an RV", "Tyler and Rose got married.
They moved to Denver", "The boys brought socks to practice. They collected 300 pairs". The fact
needs a subject it can name; "They bought an RV" is dropped (`subject_first`). org_antecedents
resolved "they" only to ONE organisation and counted every plural phrase and coordination as a
competitor with nothing to say. This module gives those competitors words, so that the same
"exactly one candidate" rule (org_antecedents' `_pick`) resolves them when they are the only
thing "they" could be:

- `group_phrase`: a plural noun phrase whose head is a kin / role / people noun ("my parents",
  "the boys", "our kids", "your students" said by the other speaker -> "my students"), with a
  determiner or possessive: a bare plural ("Kids are resilient. They ...") is a generalisation,
  and a count or quantifier ("two friends", "some kids", "all parents") is not one group;
- `pair_phrase`: "<Name> and <Name>" / "<Name> and his wife" / "my aunt and her husband": every
  conjunct a name or a possessed kin / role noun (the small NER model tags first names ORG or GPE
  often, so any name tag counts) unless NER places them all ("Lisbon and Porto were lovely.
  They ..." is left alone: the brief's antecedents are people, organisations and groups);
- `generic`: "they" in an idiom about people in general ("they say it's going to rain", "as
  they say", "they don't make them like that anymore", "they call it ..."), never resolved.

The verb of a plural antecedent needs no agreement change ("they bought" -> "my parents bought";
"they're" -> "my parents are"). English only; the parse is org_antecedents'.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

# a class or camp whose people "they" are: "He graduated from his obedience class! They gave him a
# certificate" (not org_antecedents' ORG_NOUNS: write/thing_antecedents.py reads "my class" as a thing for "it")
GROUP_NOUNS = frozenset({"class", "camp", "squad", "crew", "troop", "course", "workshop"})
# people nouns for a group that are not kin or role nouns of one person
_GROUP_PEOPLE = frozenset({
    "kids", "children", "parents", "grandparents", "friends", "boys", "girls", "guys", "folks", "twins", "students",
    "teammates", "classmates", "coworkers", "co-workers", "colleagues", "neighbors", "neighbours", "players",
    "cousins", "siblings", "brothers", "sisters", "sons", "daughters", "grandkids", "grandchildren", "in-laws",
    "parents-in-law", "kiddos", "teens", "teenagers", "volunteers", "members", "campers", "scouts", "dancers",
    "musicians", "singers", "athletes", "swimmers", "runners", "clients", "patients", "residents", "seniors",
    "roommates", "housemates", "bandmates", "buddies", "pals", "besties", "ladies", "fellas"})
# words before a plural head that make it no one group ("two friends", "some kids", "all parents")
_NOT_ONE_GROUP = frozenset({"some", "many", "all", "most", "few", "several", "any", "no", "other", "lots", "both",
                            "such", "more", "those", "these", "a"})
_PLACES = frozenset({"GPE", "LOC", "FAC"})
_OWNERS = frozenset({"my", "our", "your", "the", "his", "her", "their"})
# "they" in a saying about people in general
_GENERIC_RE = re.compile(
    r"(?i)(?:\bas\s+they\s+say\b|\bthey\s+(?:always\s+|often\s+)?(?:say|says|reckon|claim)\b(?!\s+(?:me|us|him|her|"
    r"you|so\b))|\bthey\s+(?:don['’]t|do\s+not|never|no\s+longer)\s+make\b|\bthey\s+call\s+(?:it|"
    r"that|this|them)\b|\bthey\s+tell\s+you\b)")


@lru_cache(maxsize=1)
def people_plurals() -> frozenset[str]:
    """Plural nouns for people: kin and role nouns made plural, and group nouns."""
    from arandu_pipelines.write.conjoined_subjects import _nouns

    return frozenset({n for n in _nouns() if n.endswith("s") or n in ("children", "grandchildren")}) | _GROUP_PEOPLE


PLURAL_PEOPLE_RE = re.compile(r"(?i)\b(?:my|our|your|the|his|her|their)\s+(?:[a-z-]+\s+){0,2}?(?:"
                              + "|".join(sorted((re.escape(w) for w in _GROUP_PEOPLE), key=len, reverse=True))
                              + r"|[a-z-]+s)\b")
PAIR_RE = re.compile(r"\b(?:[A-Z][a-z'’]+|(?i:my|his|her|their|our)\s+[a-z-]+)\s+(?:and|&)\s+"
                     r"(?:(?:my|his|her|their|our)\s+[a-z]+|[A-Z][a-z'’]+)\b")


def hints_people(text: str) -> bool:
    """Cheap prefilter: a possessed / definite plural or "<Name> and ..." in `text`."""
    return any(m.group(0).split()[-1].lower() in people_plurals() for m in PLURAL_PEOPLE_RE.finditer(text)) \
        or PAIR_RE.search(text) is not None


def generic(tok: Any) -> bool:
    """Whether the "they" token opens a saying about people in general."""
    doc = tok.doc
    start = max(0, tok.idx - 4)
    return _GENERIC_RE.match(doc.text, start) is not None or _GENERIC_RE.match(doc.text, tok.idx) is not None


def group_phrase(chunk: Any, phrase: Any) -> str | None:
    """The words for a plural people phrase ("my parents" -> what `phrase(chunk)` says), or None
    when it is no one group: a bare plural, a count or quantifier, no people noun."""
    root = chunk.root
    if root.tag_ not in ("NNS", "NNPS") or root.lower_ not in people_plurals():
        return None
    words = [t for t in chunk if t.dep_ != "punct"]
    if not words or words[0].lower_ not in _OWNERS:
        return None
    if any(t.lower_ in _NOT_ONE_GROUP or t.tag_ == "CD" or t.dep_ == "nummod" for t in words):
        return None
    said: str | None = phrase(chunk)
    return said


def _conjunct(tok: Any, labels: dict[int, str]) -> bool:
    """A conjunct "they" may stand for with the others: a name (NER may leave it untagged or tag it
    PERSON, ORG, NORP or a place: the small model tags first names ORG / GPE often, "Tyler and
    Rose" has Tyler ORG, and two organisations are what "they" stands for as well), or a possessed
    kin / role noun ("his wife", "my aunt"); not a date, an amount or a thing."""
    from arandu_pipelines.write.conjoined_subjects import _nouns

    if tok.pos_ == "PROPN":
        return labels.get(tok.i, "") in ("", "PERSON", "GPE", "NORP", "ORG", "FAC", "LOC")
    return tok.pos_ == "NOUN" and tok.tag_ == "NN" and tok.lower_ in _nouns() \
        and any(c.dep_ == "poss" for c in tok.children)


def pair_phrase(root: Any, labels: dict[int, str]) -> tuple[str, list[int]] | None:
    """The text of "<X> and <Y>" (or "<X>, <Y> and <Z>") headed by `root` when every conjunct is a
    name or a possessed kin noun and not all are places, with the conjuncts' token indices; None
    otherwise ("you and Ana" is not said in the current speaker's words). `labels`: NER label by
    token index."""
    conjs = [root]
    cur = root
    while True:
        nxt = next((c for c in cur.children if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN")), None)
        if nxt is None:
            break
        conjs.append(nxt)
        cur = nxt
    if len(conjs) < 2:
        return None
    if not all(_conjunct(t, labels) for t in conjs) or all(labels.get(t.i) in _PLACES for t in conjs):
        return None  # "Paris and Rome were lovely. They ...": places, not who "they" are
    doc = root.doc
    span = doc[root.left_edge.i: conjs[-1].i + 1]
    if any(t.lower_ in ("your", "you") for t in span):
        return None
    return span.text, [t.i for t in conjs]


def class_phrase(chunk: Any) -> str | None:
    """A class or camp as "the <words>" when its owner is a third person or none is said ("his
    obedience class", "obedience class" -> "the obedience class": whose class it is stays in the
    sentence that said it); None for the speakers' own ("my class": org_antecedents says it)."""
    words = [t for t in chunk if t.dep_ != "punct"]
    if not words:
        return None
    first = words[0]
    if first.dep_ == "poss" and first.lower_ in ("his", "her", "their"):
        words = words[1:]
    elif first.dep_ in ("det", "poss"):
        return None
    rest = "".join(t.text_with_ws for t in words).strip()
    return f"the {rest}" if rest else None
