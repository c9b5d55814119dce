"""Two people joined by "and" as a sentence's subject (session 15, branch conj15).

Chat news about third parties often has two subjects: "Jake and his wife bought a house in
Denver", "Tyler and Rose got married last weekend", "Priya and her sister opened a bakery". The
entity scan (`extract_rules._scan_entities`) typed a sentence-initial first name only when a
verb-like word followed it (write/name_subjects.py), so "Jake and ..." typed nobody and the turn
gave no fact; and the verb rules search their subject backwards from the verb, so they found only
the second conjunct ("Rose got married", "Ana's sister got married" for "Jake and my sister got
married"), a fact that loses the other person.

Two readings, both pure text functions here (the extractor holds the entity state):

- `conjunct_after(body, end)`: after a sentence-initial name ending at `end`, the second
  conjunct of "<Name> and <Name | my/his/her/their/our [adjective] kin-or-role noun>" when a
  predicate follows it ("are", "got", "moved", "bought", "live" ...). The scan grades each
  conjunct with name_subjects' evidence (known to the conversation or NER PERSON; a known first
  name NER does not place; one NER places; none) and `pair_is_people` decides for the pair, so
  both names are typed people: "Paris and Rome were lovely" types neither (Rome is no first
  name), "Salt and pepper ..." is no name at all.
- `first_conjunct(prefix)`: the text before a verb rule's subject ends "<X> and " where X is a
  name or a possessive kin / role phrase at the start of the sentence (after a time word): the
  rule's subject is then a second conjunct, and the caller writes no attribute fact for it.

Why no attribute fact for a pair (the choice the brief left open, from how facts reconcile):
a fact has ONE subject entity, and reconciliation keys single-valued attributes
(relationship_status, location, ...) by (entity, attribute). "Rose got married" alone files the
pair's news on one of them; one attribute fact per person ("Tyler got married" + "Rose got
married") beside the sentence's own fact triples the facts of one sentence, which the subsumed
check (write/subsumed.py) cannot fold because slot facts are kept for a slot-less container, and
facts per gold observation is the target the held-out conversations miss. So the generic fact
writes the sentence with BOTH people as written ("Tyler and Rose got married on the weekend of
6 May 2023"), filed on the first person with the second in its mentions, and no verb rule writes
a fact for one conjunct. The compound with the speaker ("Ana and I moved ...") is unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from arandu_pipelines.write import kin_antecedents, name_subjects
from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.person_antecedents import PERSON_NOUNS

STAGE = "conjoined_subjects"

# how much a conjunct looks like a person (the extractor grades each name: `_name_evidence`)
NONE, PLACED, WEAK, STRONG = 0, 1, 2, 3


def pair_is_people(*grades: int) -> bool:
    """Two conjuncts are read as two people when each is a person by some evidence and the pair
    as a whole is not a place's: both WEAK or better (two known first names NER does not place),
    or one STRONG (known to the conversation, NER PERSON, a "his wife" phrase) and the other at
    least a first name NER placed. The small NER model places first names often ("Tyler and Rose
    are engaged": Tyler GPE, Rose PERSON); two things joined by "and" are of one kind, so the
    other conjunct's evidence decides (each of three or more: "Tyler, Rose and Sam went ...").
    "Paris and Rome were lovely": Rome is no first name;
    "Florence and Sydney were beautiful": no STRONG side to outweigh Sydney's GPE."""
    lo, hi = min(grades), max(grades)
    return lo >= PLACED and (hi == STRONG or lo >= WEAK)

# adverbs between a plural subject and its verb ("Tyler and Rose just got married", "both moved")
_ADVERBS = frozenset({"just", "also", "finally", "really", "always", "never", "still", "recently", "actually",
                      "already", "officially", "even", "usually", "often", "both", "all", "together", "now", "happily"})
# finite words that agree with a plural subject
_PLURAL_FINITE = frozenset({
    "are", "were", "have", "had", "do", "did", "will", "would", "can", "could", "should", "might", "may", "must",
    "aren't", "weren't", "haven't", "hadn't", "don't", "didn't", "won't", "can't", "couldn't", "got", "get", "went",
    "made", "used", "plan", "want", "need", "love", "like", "live", "work", "run", "own", "moved",
})
_WORD_RE = re.compile(r"[A-Za-z][a-z'’-]*")


@lru_cache(maxsize=1)
def _nouns() -> frozenset[str]:
    """Kin and role nouns a possessive conjunct may end with (singular and plural)."""
    base = set(PERSON_NOUNS) | set(kin_antecedents.ROLE_NOUNS) | set(L.REL_TERMS_EN)
    return frozenset(base | {n + "s" for n in base if not n.endswith("s")} | {"kids", "children", "parents"})


def predicate_follows(rest: str) -> bool:
    """The words after a plural subject start with a verb: "got", "are", "moved", "just bought",
    "live"; not a noun, a preposition or "you" ("Salt and pepper is all you need" never gets here)."""
    words = _WORD_RE.findall(rest[:60])[:4]
    while words and words[0].lower() in _ADVERBS:
        words = words[1:]
    if not words or not words[0].islower():
        return False
    w = words[0].replace("’", "'")
    if w in _PLURAL_FINITE or w in L.PERSON_VERBS_EN or w in L.IRREGULAR_PAST_EN:
        return True
    return len(w) > 4 and w.endswith("ed")


@dataclass(frozen=True)
class Conjunct:
    """The second conjunct after "<Name> and ": a name (`name`, its start `start`) or a
    possessive kin / role phrase (`name` is None), ending at `end` where the predicate starts."""

    start: int
    end: int
    name: str | None
    possessive: str = ""  # "his" / "her" / "my" ... of a kin phrase, lower case
    middle: tuple[tuple[int, str], ...] = ()  # "Tyler, Rose and Sam": (start, name) of the names between


def possessive_agrees(possessive: str, gender: str | None) -> bool:
    """False when a "his" / "her" conjunct cannot be the first conjunct's ("Jake and her sister":
    her is someone named before, so the pair is not read and the pronoun resolves as before);
    True for "my" / "their" / "Ann's" and for a name of unknown gender ("m" / "f" / None)."""
    want = {"his": "m", "her": "f"}.get(possessive)
    return want is None or gender is None or gender == want


_AFTER_RE = re.compile(
    r"(?P<mid>(?:,\s*[A-Z][a-z'’]+)*),?\s+(?:and|&)\s+(?:(?P<pw>(?i:my|his|her|their|our)|[A-Z][a-z]+['’]s)\s+(?P<np>(?:[a-z][a-z-]*\s+){0,2}[a-z][a-z-]*)"
    r"|(?P<name>[A-Z][a-z'’]+(?:\s+[A-Z][a-z'’]+)?))(?=[\s,])")


def conjunct_after(body: str, end: int) -> Conjunct | None:
    """The second conjunct of "<Name> and <Name | possessive kin noun> <predicate>" right after
    the first name (ending at `end`), or None."""
    m = _AFTER_RE.match(body, end)
    if m is None:
        return None
    mid = tuple((m.start("mid") + w.start(), w.group(0)) for w in re.finditer(r"[A-Z][a-z'’]+", m.group("mid")))
    cj = _last_conjunct(body, m)
    return Conjunct(cj.start, cj.end, cj.name, cj.possessive, mid) if cj is not None and mid else cj


def _last_conjunct(body: str, m: re.Match[str]) -> Conjunct | None:
    """The conjunct after "and" of an `_AFTER_RE` match, with the predicate after it."""
    if m.group("name"):
        name = m.group("name")
        # "Tyler and Rose Got ..." never; "Tyler and Rose Miller got": a two-word name
        if not predicate_follows(body[m.end():]):
            first = name.split()[0]
            if " " in name and predicate_follows(body[m.start("name") + len(first):]):
                return Conjunct(m.start("name"), m.start("name") + len(first), first)
            return None
        return Conjunct(m.start("name"), m.end(), name)
    words = m.group("np").split()
    nouns = _nouns()
    # the kin / role noun may be followed by at most the predicate: "his wife bought", "my best friend moved"
    for k in range(len(words), 0, -1):
        noun = " ".join(words[k - 2:k]) if k >= 2 and " ".join(words[k - 2:k]) in nouns else words[k - 1]
        if noun in nouns:
            stop = m.start("np") + len(" ".join(words[:k]))
            if predicate_follows(body[stop:]):
                return Conjunct(m.start("pw"), stop, None, m.group("pw").lower())
            return None
    return None


_PROPER = r"[A-Z][a-z'’]+(?:\s+[A-Z][a-z'’]+)?"
_FIRST_RE = re.compile(
    rf"^\W*(?P<lead>.*?)(?:(?P<name>{_PROPER})(?:,\s*{_PROPER})*,?|(?P<pw>(?i:my|his|her|their|our))\s+"
    rf"(?P<np>(?:[a-z][a-z-]*\s+){{0,2}}[a-z][a-z-]*))\s+(?:and|&)\s+$")


def pair_subject(text: str, subject: str) -> str | None:
    """The whole conjoined subject a fact text opens with ("Tyler and Rose", "Jake and his wife",
    "Jake and Ann's sister") when `subject` is its first conjunct; else None. A clause split off
    such a fact repeats the pair, not the first person alone (write/fact_quality._split_actions)."""
    if not subject or not text.startswith(subject):
        return None
    cj = conjunct_after(text, len(subject))
    return text[:cj.end] if cj is not None else None


def first_conjunct(prefix: str) -> tuple[str | None, bool] | None:
    """When `prefix` (the sentence up to a verb rule's subject) is "<X> and " with X at the
    sentence start (a time word may lead): (X's name or None, True) for a name or a possessive
    kin / role phrase; else None. The caller checks that a name is a person it typed."""
    m = _FIRST_RE.match(prefix)
    if m is None:
        return None
    lead = m.group("lead")
    if lead.strip() and not name_subjects.TIME_LEAD_RE.match(lead):
        return None
    if m.group("name"):
        return m.group("name"), True
    np = m.group("np")
    last2 = " ".join(np.split()[-2:])
    return (None, True) if np.split()[-1] in _nouns() or last2 in _nouns() else None


__all__ = ["NONE", "PLACED", "STAGE", "STRONG", "WEAK", "Conjunct", "conjunct_after", "first_conjunct", "pair_is_people", "pair_subject",
           "possessive_agrees",
           "predicate_follows"]
