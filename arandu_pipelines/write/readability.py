"""Readable facts: a name repeated by first-person resolution becomes the pronoun a person writes.

The rules rewrite "I took my kids to a park" as "Melanie took Melanie's kids to a park" and "we
all made our own pots" as "Melanie and others all made Melanie's own pots": correct, but nobody
writes that. The rule (`pronouns`), applied to every kept fact at the end of `fact_quality.refine`:

- a clause is the text between punctuation (`, ; : - –`) or a subordinator ("because", "since",
  "when", "who", ...), or "and/but/so" followed by a pronoun (a new subject; not before a name:
  "Ana and Maria visited Maria's aunt" is one clause with a compound subject);
  a clause's subject is the name it opens with ("Melanie took ...", "Melanie and others made ...");
- within a clause whose subject is the fact's subject S, a later possessive "S's" becomes the
  subject's possessive pronoun ("Caroline moved from Caroline's home country" -> "... from
  their home country");
- the pronoun is the subject's own when the caller knows it (`pronoun="she"` / "he"), else the
  one choice every rule uses for a named person (write/name_gender.py `pronoun_for`: the chat's
  evidence, then the name lists; session 17, gender17): "Walter took his first Italian test",
  "Anita signed up for her first sprint triathlon"; unknown gender: singular "they", "their"; a
  plural subject ("S and others") always takes "their"; in a compound subject "S and S's choir"
  the member is the person's ("her choir") and a later repeat the pair's ("had their first
  rehearsal"); a repeat the speaker said as "our" (`source`: "our <word>" and no "my <word>")
  stays "their" ("Howard helps out with their literacy program": the library's, not his);
- another name between the clause's subject and the repeat keeps the repeat ("Caroline met Ana
  at Caroline's house" is not "their house"); an initialism of three or more capitals ("LGBTQ",
  "NYC") is no name (session 16);
- nothing else changes here: a possessive in a clause with another subject ("Caroline's friends are
  Caroline's rocks"), and a name in subject position ("since Caroline moved"), keep the name, so
  no pronoun can point to the wrong person and no verb needs a new agreement (for one person of
  known gender, write/repeated_names.py writes "since she moved" from the fact's parse, session 18);
- a repeated object ("Books guide Caroline, motivate Caroline ...") keeps the name: choosing
  between "her" and "herself" needs the clause structure ("have people back Caroline up" is not
  "back themselves up", "important to Caroline" is not "to themselves"); a reflexive rewrite was
  tried on the dev conversations and gave such errors, so it is not done.

Before session 17 no caller passed a pronoun, so the form was always "their", which read
inconsistently beside agreement.reflexive's "herself" ("Caroline saw how counseling improved their
life, so Caroline started ... understanding herself"). The matcher of bench/facts.py treats the
forms alike (pronouns are stop words); the figures are in docs/facts.md (gender17).
"""

from __future__ import annotations

import re

from arandu_pipelines.write.lexicon import MONTHS_EN
from arandu_pipelines.write.name_gender import pronoun_for

_POSSESSIVE = {"she": "her", "he": "his", "they": "their"}
# a clause boundary: punctuation, a subordinator, or a coordinator before a pronoun subject
_BOUNDARY_RE = re.compile(
    r"[,;:–—]\s*|\s-+\s*|-\s+|\s(?:because|'cause|cause|since|when|while|if|though|although|who|which|that|as|until"
    r"|after|before|where|whenever)\s"
    r"|\s(?:and|but|so)\s(?=(?:it|they|he|she|we|this|that|there)\b)")
# a clause may open with one of these before its subject ("..., since Caroline moved ...")
_OPENERS = "and|but|so|because|'cause|since|when|while|if|though|although|as|until|after|before|now|then"
# a date rendered before the subject ("In August 2023 Caroline is having ...": write/coarse_dates.py
# keeps a month or a year in the text, session 18) opens the clause like an opener
_DATE_OPENER = r"(?:(?:In|On|in|on)\s+(?:[A-Z][a-z]+\s+)?\d{4},?\s+)?"
# a month's name is no person standing between the subject and its repeat ("... in May 2023 to
# bring attention to Jon's studio" -> "his studio")
_MONTHS = frozenset(MONTHS_EN)


def pronouns(text: str, subject: str, pronoun: str | None = None, source: str | None = None) -> str:
    """`text` with the subject's repeats inside its own clauses as pronouns (see the module doc).
    `pronoun` ("she" / "he") defaults to the subject's known gender (write/name_gender.py
    `pronoun_for`); `source`, the message, keeps "their" for a repeat the speaker said as "our"."""
    if not subject or text.count(subject) < 2:
        return text
    if pronoun is None:
        pronoun = pronoun_for(subject, "subject")
    out: list[str] = []
    pos = 0
    for m in _BOUNDARY_RE.finditer(text):
        out.append(_clause(text[pos:m.start()], subject, pronoun, source))
        out.append(m.group(0))
        pos = m.end()
    out.append(_clause(text[pos:], subject, pronoun, source))
    return "".join(out)


def _ours(source: str | None, after: str) -> bool:
    """Whether the message says "our <word>" (the word after the repeat, `after` being the text
    that follows it) and not "my <word>": the repeat was the speaker's group's ("Howard helps out
    with our literacy program"), so "their", never "his"/"her"."""
    if not source:
        return False
    words = after.split(maxsplit=1)
    word = words[0].strip(",.;:!?\"“”()") if words else ""
    if not word:
        return re.search(r"(?i)\bours\b", source) is not None
    w = re.escape(word)
    return (re.search(rf"(?i)\bour\s+{w}\b", source) is not None
            and re.search(rf"(?i)\bmy\s+{w}\b", source) is None)


def _acronym(word: str) -> bool:
    """An initialism of three or more capitals ("LGBTQ", "NYC") names no person who could own the
    repeat: "Caroline is having an LGBTQ art show with Caroline's paintings" -> "... their
    paintings" (session 16, defects16); a two-letter one ("JJ") may be a nickname and still stops."""
    return len(word) >= 3 and word.isalpha() and word.isupper()


def _clause(clause: str, subject: str, pronoun: str | None, source: str | None = None) -> str:
    s = re.escape(subject)
    head = re.match(rf"\s*{_DATE_OPENER}(?:(?:{_OPENERS})\s+)?{s}(?P<others> and others)?\b(?!['’]s)", clause)
    if not head:
        return clause
    kind = "they" if head.group("others") or pronoun not in _POSSESSIVE else pronoun
    rest = clause[head.end():]
    # "Lena and Lena's choir had Lena's first rehearsal": the compound subject's own member is the
    # person's ("her choir"), a later repeat the pair's ("their first rehearsal")
    compound = re.match(rf"\s+and\s+(?={s}['’]s\s)", rest)

    def repl(m: re.Match[str]) -> str:
        words = (w.strip(",.;:!?\"“”()").removesuffix("'s").removesuffix("’s") for w in rest[:m.start()].split())
        if any(w[:1].isupper() and w != subject and not _acronym(w) and w not in _MONTHS for w in words):
            return m.group(0)  # another name stands between: "met Ana at Caroline's house" stays
        if kind != "they" and (compound is not None and m.start() != compound.end()
                               or f"{subject} and others" in rest[:m.start()]):
            return "their"  # the pair's, or the nearer plural's ("lets Melanie and others get their ...")
        if kind != "they" and _ours(source, rest[m.end():]):
            return "their"
        return _POSSESSIVE[kind]

    rest = re.sub(rf"\b{s}['’]s\b", repl, rest)
    return clause[:head.end()] + rest
