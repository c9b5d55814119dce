"""Repairs of restated sentences whose first clause is not about the speaker (issue 19, session 13).

`fact_quality._opener` cuts what stands before the subject at a clause boundary ("It was tough,
but Maria is ok" -> "Maria is ok"). An opener whose last clause dropped its "I've" carries the
fact itself, and the cut lost it:

| opener (before the subject's clause)                 | fact                                              |
|------------------------------------------------------|---------------------------------------------------|
| a clause with its "I've" dropped after a comma:      | S has (just) been keeping up with trends so S can |
|   "Shop's fine, just been keeping up with trends so  |   offer ... (the subject restored, the rest kept) |
|   I can offer ..."                                   |                                                   |

A reply's "They" about people the other speaker just asked about is dropped by `_subject_first`
(an unresolved pronoun). `they_asked` resolves it when the other speaker's last question names
exactly one group of people of the speaker ("How are your parents and siblings coping?" ->
"They've been great" -> "S's parents and siblings have been great"); write/antecedents.py
resolves pronouns for things only, so the two do not overlap.

Measured and not kept: a gerund subject judged by a copula before "but I'm determined ..."
("Looking for a venue and getting it ready has been a mix of fun and stress, but ...") as "S
finds looking for a venue ... a mix of fun and stress" matched no gold on the dev pair (1 turn).

English only; the subject is the fact's subject (the speaker, after first-person rewriting).
"""

from __future__ import annotations

import re

_ADV = r"(?:(?:just|also|really|still|recently|finally|mostly|basically)\s+)*"
# the last clause of the opener, after a comma or the start, up to the boundary before the subject
_LAST_CLAUSE_RE = re.compile(r"(?:^|,\s+)(?P<c>[^,;:]+?)\s*(?P<b>,\s*and|,\s*so|,|\bso|\band)\s*$", re.IGNORECASE)
# "(just) been keeping up with ...": a present perfect progressive with its subject dropped
_DROPPED_PERFECT_RE = re.compile(rf"(?i)^(?P<adv>{_ADV})been\s+(?P<v>[a-z]+ing)\b(?P<rest>.*)$")


def dropped_subject(opener: str, subject: str) -> str | None:
    """"Shop's fine, just been keeping up with trends so" before "S can offer ...": the clause
    with its "I've" dropped, the subject restored ("S has just been keeping up with trends so");
    None when the opener's last clause is not such a clause."""
    m = _LAST_CLAUSE_RE.search(opener)
    if not m:
        return None
    d = _DROPPED_PERFECT_RE.match(m.group("c").strip())
    if not d or len(d.group("rest").split()) < 2:
        return None
    boundary = m.group("b").strip().lstrip(",").strip() or ","
    clause = f"{subject} has {d.group('adv').lower()}been {d.group('v').lower()}{d.group('rest')}"
    return f"{clause}, " if boundary == "," else f"{clause} {boundary} "


# plural nouns for people a question may ask about ("your kids", "your friends and fam")
_PEOPLE_PL = (r"friends|family|fam|folks|parents|kids|children|siblings|brothers|sisters|cousins|grandparents"
              r"|colleagues|coworkers|co-workers|neighbors|neighbours|teammates|classmates|students|customers"
              r"|clients|fans|followers|relatives|roommates|bandmates|buddies|pals|mates|crew|team|loved\s+ones")
_YOUR_PEOPLE_RE = re.compile(
    rf"(?i)\byour\s+(?P<np>(?:(?:{_PEOPLE_PL})(?:\s*(?:,|and|&)\s*(?:your\s+)?(?:{_PEOPLE_PL}))*))\b")
_THEY_RE = re.compile(r"(?i)^they(?P<v>['’]ve|['’]re|\s+have|\s+are|\s+were|\s+had|\s+did|\s+[a-z]+ed)\b")
_AGREE = {"'ve": " have", "’ve": " have", "'re": " are", "’re": " are"}


def they_asked(text: str, subject: str, speaker: str | None,
               previous: list[tuple[str | None, str]]) -> str | None:
    """"They've been there for S ..." after the other speaker asked "How have your friends and
    fam been helping you?": "S's friends and family have been there for S ..."; None unless the
    previous turn is the other speaker's question naming exactly one "your <people>" group."""
    m = _THEY_RE.match(text)
    if not m or not previous or subject != speaker:
        return None
    who, turn = previous[-1]
    if who is None or who == speaker:
        return None
    questions = re.findall(r"[^.!?…]*\?", turn)
    if not questions:
        return None
    groups = _YOUR_PEOPLE_RE.findall(questions[-1])
    if len(groups) != 1:
        return None
    from arandu_pipelines.write.chat_forms import tidy

    np = re.sub(r"(?i)\s*(?:,|&)\s*", " and ", re.sub(r"(?i)\byour\s+", "", groups[0])).strip()
    np = tidy(np).lower().replace("  ", " ")
    possessive = f"{subject}'" if subject.endswith("s") else f"{subject}'s"
    verb = _AGREE.get(m.group("v"), m.group("v"))
    return f"{possessive} {np}{verb}{text[m.end():]}"


__all__ = ["dropped_subject", "they_asked"]
