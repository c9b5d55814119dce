"""A plain first name as a sentence's subject is a person (session 15, branch names15).

Chat news about third parties is written with the bare first name: "Marco is a firefighter",
"Tyler scored a goal", "Rose weighed seven pounds". `extract_rules._scan_entities` skips a
sentence-initial capitalised word (most are no name: "Running keeps me sane") unless a person
verb follows or spaCy NER types it PERSON; the small model tags many first names ORG ("Tyler")
or nothing ("Rose"), and the whole turn then gave no fact and no drop. The same happened after
`person_antecedents` had rewritten "He scored second ..." to "Tyler scored second ...".

`subject_type` says "person" / "pet" / None for such a name, from any of:

- **the pronoun resolution** put it there: the antecedent modules know what "he"/"she"/"his"/"her"
  stood for (`resolved`, filled by `person_antecedents.replacements`): a pet's name is a pet;
- **the conversation already knows it**: a speaker's name, or an earlier turn that apposed it to a
  kin / role / pet noun ("my son Tyler", "a puppy named Rufus", "Rufus, my dog") (`from_turns`,
  one regex over the previous turns; the context's known aliases are typed before this runs);
- **a known first name**: write/name_gender.py's Faker lists (either gender), when the next word
  looks like a verb ("is", "runs", "scored", an optional adverb first), the word is no English
  month / weekday / stop or discourse word and no common noun that is also a name (`COMMON`:
  Hope, Grace, Summer ...), and spaCy NER (the chunk's parses, `ner` only: the doc subjects14
  already asked for) does not type it a place or nationality (GPE / LOC / FAC / NORP) at that
  position. ORG is not trusted against a known first name: the small model types "Tyler scored a
  goal" ORG.

The converse (`weak_person`): a single-word name that the first-name table does not know, that
the text around it also uses as a place ("coach at Brookfield", "in Brookfield") or that ends
like an English place name ("-field", "-ville", "-borough" ...), and that only
NER typed a person ("Brookfield made the semifinals": towns, teams and schools are often PERSON
to the small model) or that NER types ORG / GPE / FAC, is no antecedent for he/she ("... He's a
junior" must not become "Brookfield is a junior"). Without the place use the name stays a person:
most names of people are missing from the lists ("Is Jaylen still training? ... He qualified"
must give "Jaylen qualified", lead's merge fix, session 15).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from typing import Any

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write import name_gender

STAGE = "name_subjects"

# common English nouns / verbs that the name lists also hold: never a person on the table alone
COMMON = frozenset({
    "hope", "faith", "joy", "grace", "summer", "autumn", "dawn", "mark", "bill", "chase", "hunter", "will",
    "art", "honey", "patience", "charity", "harmony", "melody", "destiny", "trinity", "serenity", "heaven",
    "justice", "miles", "page", "sunny", "rusty", "sandy", "penny", "pearl", "crystal", "amber", "storm",
    "river", "sky", "star", "bishop", "king", "major", "rich", "cash", "guy", "buddy", "precious", "angel",
    "baby", "sugar", "lucky", "ginger", "pepper", "cookie", "june", "may", "april", "august",
})
# English calendar words (a Portuguese month folded to ASCII, "marco", is a name in English)
_CALENDAR = frozenset(
    w.casefold() for w in [*calendar.month_name[1:], *calendar.month_abbr[1:], *calendar.day_name, *calendar.day_abbr,
                           "sept", "tues", "thur", "thurs"])
# a time adverbial before the subject: "Yesterday Tyler scored a goal", "This morning, Rose ..."
TIME_LEAD_RE = re.compile(
    r"(?i)^\s*(?:yesterday|today|tonight|tomorrow|(?:this|last|yesterday)\s+(?:morning|afternoon|evening|night|week"
    r"|weekend|month|year)|on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s*,?\s*$")
PLACE_LABELS = frozenset({"GPE", "LOC", "FAC", "NORP"})
NOT_PERSON_LABELS = frozenset({"GPE", "LOC", "FAC", "ORG", "NORP"})
_ADVERBS = frozenset({"just", "also", "finally", "really", "always", "never", "still", "recently", "actually",
                      "already", "officially", "totally", "even", "usually", "often"})
_VERB_WORDS = frozenset({
    "is", "was", "has", "had", "does", "did", "will", "would", "can", "could", "should", "might", "must", "isn't",
    "wasn't", "hasn't", "hadn't", "doesn't", "didn't", "won't", "can't", "couldn't", "got", "gets", "made", "went",
})


def is_first_name(word: str) -> bool:
    """A first name of the lists (either gender), not an English calendar word."""
    w = word.strip(".,'’").casefold()
    if not w or w in _CALENDAR:
        return False
    female, male = name_gender._tables()
    return w in female or w in male


def _verb_next(rest: str) -> bool:
    """The words after the name start with something that looks like a finite verb: "is",
    "runs", "scored", "also runs"; not "you" ("Hope you're well"), not a noun."""
    words = re.findall(r"[A-Za-z][a-z'’]*", rest)[:3]
    if words and words[0].lower() in _ADVERBS:
        words = words[1:]
    if not words or not words[0].islower():
        return False
    w = words[0].replace("’", "'")
    if w in _VERB_WORDS or w in L.PERSON_VERBS_EN or w in L.IRREGULAR_PAST_EN:
        return True
    if len(w) > 3 and w.endswith("ed"):
        return True
    return len(w) > 2 and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous"))


def listed_name(name: str) -> bool:
    """One word of the first-name lists, not a common noun or an English stop / calendar word."""
    words = name.split()
    if len(words) != 1:
        return False
    w = words[0].casefold()
    return w not in COMMON and w not in L.STOPWORDS_EN and is_first_name(w)


def table_candidate(name: str, rest: str) -> bool:
    """The cheap part of the first-name test (no parse): a `listed_name` that a verb-like word
    follows."""
    return listed_name(name) and _verb_next(rest)


def label_at(parses: Any, sentence: str, start: int, name: str) -> str | None:
    """spaCy NER's label of the entity covering `name` at `start` of `sentence` (the chunk's
    parses, `ner` only), "" when none covers it, None with no pipeline."""
    if parses is None:
        return None
    from arandu_pipelines.write import parses as _parses

    doc = parses.docs([sentence], _parses.NER, STAGE)[0]
    if doc is None:
        return None
    end = start + len(name)
    for e in doc.ents:
        if e.start_char <= start and end <= e.end_char:
            return str(e.label_)
    return ""


_NAME = r"(?P<n>[A-Z][a-z'’]+(?:\s+[A-Z][a-z'’]+)?)"
_APPOSED_RE = re.compile(
    r"\b(?i:my|your|our|his|her|their|a|an|the)\s+(?:[a-z]+\s+){0,2}?(?P<noun>[a-z]+),?\s+(?:(?:named|called)\s+)?"
    + _NAME)
_APPOSED_AFTER_RE = re.compile(_NAME + r",\s+(?i:my|our|your|his|her|their)\s+(?:[a-z]+\s+){0,2}?(?P<noun>[a-z]+)\b")


def from_turns(turns: Iterable[tuple[str | None, str]], speakers: Iterable[str | None], nouns: frozenset[str],
               pets: frozenset[str]) -> dict[str, str]:
    """Folded first name -> "person" / "pet" for names the conversation has shown: the speakers,
    and a name apposed to a kin / role / pet noun (`nouns`; `pets` make a pet) in a previous turn
    ("my son Tyler", "a puppy named Rufus", "Rufus, my dog")."""
    out: dict[str, str] = {}
    for n in speakers:
        if n and n.strip():
            out.setdefault(n.split()[0].casefold(), "person")
    for _, text in turns:
        for rx in (_APPOSED_RE, _APPOSED_AFTER_RE):
            for m in rx.finditer(text or ""):
                noun = m.group("noun").lower()
                if noun not in nouns and noun.rstrip("s") not in nouns:
                    continue
                first = m.group("n").split()[0].casefold()
                if first in L.STOPWORDS_EN or first in _CALENDAR:
                    continue
                out.setdefault(first, "pet" if noun in pets else "person")
    return out


# English place-name endings ("Brookfield", "Westville", "Ashborough"): a word of 7+ letters
# ending so, and unknown to the first-name lists, reads as a town, school or team
_PLACE_SUFFIX_RE = re.compile(r"(?i)^[a-z]{3,}(?:field|ville|ton|burg|burgh|borough|bury|wood|ford|port|shire|mouth|"
                              r"ridge|view|crest|haven|brook|creek|land|dale)$")


def _common_noun(word: str) -> bool:
    """A kin, person or pet noun of the lexicon, singular or plural ("Grandmas", "Nephews")."""
    low = word.casefold()
    nouns = L.REL_TERMS_EN.keys() | {t.split()[-1] for t in L.PET_TERMS_EN}
    return low in nouns or low.endswith("s") and low[:-1] in nouns


def unlisted(name: str) -> bool:
    """A one-word name that no first-name list knows ("Westfield", "Jaylen")."""
    words = name.split()
    return len(words) == 1 and not is_first_name(words[0])


def weak_person(name: str, text: str) -> bool:
    """A one-word name the first-name table does not know that `text` (the message or sentence
    it is read in, with the turns before it) also uses as a place: "head coach at Brookfield"
    (NER alone, which types towns, teams and schools PERSON, is then not evidence enough to
    take it for "he" / "she"), or that ends like an English place name ("Brookfield",
    `_PLACE_SUFFIX_RE`), or that is a kin, person or pet noun a sentence start capitalised
    ("Grandmas always show up ..."). Any other unlisted name is a person's ("Jaylen won his
    first bout", "Is Jaylen still training?")."""
    if not unlisted(name):
        return False
    if _PLACE_SUFFIX_RE.search(name.strip()):
        return True
    if _common_noun(name.strip()):
        return True  # "Grandmas always show up ...": a kin, person or pet noun capitalised by the sentence
    return re.search(r"(?<![\w'’])(?:at|in)\s+" + re.escape(name.strip()) + r"(?![\w'’])", text) is not None


__all__ = ["COMMON", "NOT_PERSON_LABELS", "PLACE_LABELS", "STAGE", "TIME_LEAD_RE", "from_turns", "is_first_name", "label_at",
           "listed_name", "table_candidate", "unlisted", "weak_person"]
