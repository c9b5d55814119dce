"""Repairs of restated sentences whose first clause is not about the speaker (issue 19, session 13).

`fact_quality._opener` cuts what stands before the subject at a clause boundary ("It was tough,
but Maria is ok" -> "Maria is ok"). An opener whose last clause dropped its "I've" carries the
fact itself, and the cut lost it:

| opener (before the subject's clause)                 | fact                                              |
|------------------------------------------------------|---------------------------------------------------|
| a clause with its "I've" dropped after a comma:      | S has (just) been keeping up with trends so S can |
|   "Shop's fine, just been keeping up with trends so  |   offer ... (the subject restored, the rest kept) |
|   I can offer ..."                                   |                                                   |

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


__all__ = ["dropped_subject"]
