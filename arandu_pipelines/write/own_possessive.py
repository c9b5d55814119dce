"""A possessive that belongs to its own clause's subject is written as a pronoun (issue 19,
session 14).

Pronoun resolution puts a name where the message had "he"/"his": "He passed his exam" after "How
is your nephew?" became "Lena's nephew passed Lena's nephew's exam", "My dad ... He still insists
on shoveling his own driveway" became "... shoveling Lena's dad's own driveway". No careful person
writes that. Three places, one rule: a possessive that refers to the subject of its own clause
stays (or becomes) a pronoun when the gender is KNOWN, and nothing changes when it is not.

- at the source, where the writer's own "his"/"her" is known:
  `person_antecedents.own_subject_pronoun` (spaCy parse: the possessive's clause subject is a
  "he"/"she" of the same gender, so the possessive is not replaced) and `ClauseSubject` here, the
  token-level tracker the first-person rewrite (`extract_rules._EnRewrite`) uses when it replaces
  a resolved "he"/"she" by a name ("My nephew Tom ... He passed his exam" -> "Tom passed his
  exam", was "Tom passed their exam");
- on the fact text (`apply`, the last English step of `extract_offline`), whatever made it: within
  a clause (write/readability.py's boundaries) whose subject is "<Name>'s [adj] <kin noun>", a
  later repeat "<Name>'s [adj] <kin noun>'s" becomes "his"/"her" when the kin noun shows the gender
  (dad, mom, nephew, sister ...: person_antecedents.MALE / FEMALE), "their" when it is plural
  (kids, parents ...); a person word, a capitalised word or a third-person pronoun between the
  subject and the repeat keeps the repeat (it may be someone else's); a kin noun of unknown
  gender ("cousin", "friend") keeps the repeat, as do the speaker's own repeats with no gender
  known (write/readability.py writes "their" there);
- "Melanie and Melanie's family" (write/we_group.py spells the speaker's "we" that way, and "Me
  and my family" said to a question gives it too): "Melanie and her family" when the name's
  gender is known (write/name_gender.py `pronoun_for`, the choice write/readability.py and
  agreement.reflexive make too; session 17, gender17), else "Melanie and their family": inside
  the coordination the only person before the pronoun is the speaker. "Melanie and family" (the idiom) was tried first: on the dev pair it moved two facts
  below the matcher's cosine (0.677 -> 0.595, 0.688 -> 0.633; "their": 0.658, 0.672). Only a
  person or group noun follows ("Melanie and Melanie's kids", "... 's husband"); "Ana and Ana's
  house" stays. In "Melanie went camping with Melanie and her family" (the answer "Me and my
  family" to "Who did you go with?") the subject's second mention goes: "... with her family".

A possessive that refers to someone else never changes: "Lena's dad fixed Lena's sink" keeps
both (the repeat must be the whole subject phrase).
"""

from __future__ import annotations

import re

from arandu_pipelines.write.name_gender import pronoun_for
from arandu_pipelines.write.person_antecedents import FEMALE, MALE, PERSON_NOUNS
from arandu_pipelines.write.readability import _BOUNDARY_RE, _OPENERS
from arandu_pipelines.write.we_group import GROUP_NOUNS

# plural (or collective) person nouns: their possessive is "their"
PLURAL = frozenset({
    "parents", "kids", "children", "sons", "daughters", "brothers", "sisters", "grandparents", "grandkids",
    "grandchildren", "cousins", "siblings", "folks", "friends", "family", "in-laws", "nephews", "nieces",
    "aunts", "uncles", "twins", "boys", "girls"})
_PRONOUN = {"m": "his", "f": "her", "p": "their"}
_THIRD = frozenset({"he", "she", "him", "her", "his", "they", "them", "their", "himself", "herself"})
_NAME = r"[A-Z][\w-]*(?: [A-Z][\w-]*)?"
_HEAD_RE = re.compile(rf"\s*(?:(?:{_OPENERS})\s+)?(?P<owner>{_NAME}['’]s)(?P<words>(?: [a-z-]+){{1,3}})")
_WITH_SELF_RE = re.compile(rf"^(?P<head>(?P<name>{_NAME}) [^,;:]*?\bwith) (?P=name) and (?P<own>their|his|her)\b")
_AND_OWN_RE = re.compile(rf"\b(?P<name>{_NAME}) and (?P=name)['’]s (?P<group>[a-z-]+)\b")


def _gender(noun: str) -> str | None:
    return "m" if noun in MALE else "f" if noun in FEMALE else "p" if noun in PLURAL else None


def apply(text: str) -> str:
    """`text` with its subjects' own repeated possessives as pronouns (see the module doc)."""
    text = _AND_OWN_RE.sub(_and_own, text)
    # "Melanie went camping with Melanie and their family" (an answer "Me and my family" to "Who
    # did you go with?"): the subject does not go with themselves
    text = _WITH_SELF_RE.sub(lambda m: f"{m.group('head')} {m.group('own')}", text)
    if text.count("'s") + text.count("’s") < 2:
        return text
    out: list[str] = []
    pos = 0
    for m in _BOUNDARY_RE.finditer(text):
        out.append(_clause(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_clause(text[pos:]))
    return "".join(out)


def _and_own(m: re.Match[str]) -> str:
    """"Melanie and Melanie's family" -> "Melanie and her family" (a person or group noun only;
    "their" when the name's gender is unknown, write/name_gender.py `pronoun_for`)."""
    group = m.group("group")
    if group not in PERSON_NOUNS and group not in PLURAL and group not in GROUP_NOUNS:
        return m.group(0)
    return f"{m.group('name')} and {pronoun_for(m.group('name'), 'possessive')} {group}"


def _clause(clause: str) -> str:
    head = _HEAD_RE.match(clause)
    if not head:
        return clause
    words = head.group("words").split()
    # the subject's noun: its first person word ("Lena's older sister"); none, or one of unknown
    # gender ("Lena's cousin"): nothing changes
    at = next((i for i, w in enumerate(words) if w in PERSON_NOUNS or w in PLURAL), None)
    kind = _gender(words[at]) if at is not None else None
    if kind is None or at is None:
        return clause
    np = f"{head.group('owner')} {' '.join(words[:at + 1])}"
    end = head.start("words") + len(" " + " ".join(words[:at + 1]))
    if clause[end:end + 1] in ("'", "’"):
        return clause  # "Lena's dad's wife ...": the subject is someone else
    rest = clause[end:]
    # "Lena's dad's hip"; a plural's "Lena's kids' toys"
    rep = re.compile(rf"\b{re.escape(np)}(?:['’]s\b|['’](?=\s))" if np.endswith("s") else rf"\b{re.escape(np)}['’]s\b")

    def repl(m: re.Match[str]) -> str:
        between = [w.strip(",.;:!?\"“”()") for w in rest[:m.start()].split()]
        for w in between:
            low = w.lower().removesuffix("'s").removesuffix("’s")
            if w[:1].isupper() or low in _THIRD or low in PERSON_NOUNS or low in PLURAL:
                return m.group(0)  # someone else may stand between: the name stays
        return _PRONOUN[kind]

    return clause[:end] + rep.sub(repl, rest)


class ClauseSubject:
    """For a token-by-token rewrite that replaces "he"/"she" by a name: remembers the gender of the
    current clause's replaced subject pronoun, so that the clause's "his"/"her" is kept as written
    ("He passed his exam" -> "Tom passed his exam"). A punctuation mark ends the clause."""

    def __init__(self) -> None:
        self.gender: str | None = None

    def subject(self, word: str) -> None:
        """A third-person pronoun ("he", "she's", "him" ...) was replaced by a name."""
        w = word.lower()
        if w.startswith(("he", "she")) and not w.startswith(("her", "his")):
            self.gender = "f" if w.startswith("she") else "m"

    def punct(self, tok: str) -> None:
        if any(c in tok for c in ",.;:!?()–—"):
            self.gender = None

    def keeps(self, word: str) -> bool:
        """Whether the possessive `word` ("his"/"her") is the clause subject's own."""
        return (word == "his" and self.gender == "m") or (word == "her" and self.gender == "f")
