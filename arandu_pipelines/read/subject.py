"""Which of the speakers a question names is its subject: whose turns hold the answer.

"What did Jon say about Gina's progress with her store?" names both speakers of the chat, and
read/events.py boosts the turns of every named speaker alike, so Gina's own turns about her store
(the words and the topic of the question) outrank Jon's "Wow, Gina! You found the perfect spot for
your store. Way to go, hard work's paying off!", the answer. An English question names its
subject first ("What does Melanie think about Caroline's decision to adopt?", "What advice does
Gina give to Jon?"); a speaker named later, after words other than a coordination, is the object
of what the subject said or did, so that speaker's turns keep OBJECT of the speaker boost.
Coordinated names ("How do Jon and Gina both like to destress?", "Jon, Gina or both") stay equal.

On the dev questions naming two speakers without a coordination, 13 of 16 evidence turns are the
first-named speaker's (docs/retrieval.md, "The question's subject speaker (session 11)").

Surface-level and English-only, like read/listq.py: a speaker is located by the first word of
their name (case-folded, on word boundaries) or by a query word read/name_match.py resolves to
them alone ("Is Kate likely to join Priya?" for the speaker "Katherine"); a speaker not located
keeps the full boost, as does everyone when fewer than two named speakers are located. Pure
Python over the query: no statement.
"""

from __future__ import annotations

import re

from arandu_pipelines.keys import fold
from arandu_pipelines.read.name_match import Candidate, best_match

OBJECT = 0.0  # share of the speaker boost a later-named (object) speaker keeps
_WORD = re.compile(r"[^\W\d_]{2,}")
_COORD = re.compile(r"^[\s,]*(?:(?:and|or|&|,)\s*)*(?:both\s+)?$")


def _positions(folded_query: str, speakers: list[str]) -> dict[str, tuple[int, int]]:
    """Per speaker, the (start, end) of the first query word naming them: the first word of the
    name itself, else a word read/name_match.py resolves to that speaker alone among `speakers`
    ("Kate" -> Katherine, "Muhammad" -> Muhhamed)."""
    out: dict[str, tuple[int, int]] = {}
    for sp in speakers:
        words = fold(sp).split()
        m = re.search(rf"\b{re.escape(words[0])}\b", folded_query) if words else None
        if m:
            out[sp] = (m.start(), m.end())
    missing = [sp for sp in speakers if sp not in out]
    if missing:
        pool = [Candidate(sp, None, True) for sp in speakers]
        for m in _WORD.finditer(folded_query):
            found = best_match(m.group(0), pool)
            if found is not None and len(hits := {c.name for c in found[0]}) == 1:
                sp = hits.pop()
                if sp in missing and sp not in out:
                    out[sp] = (m.start(), m.end())
    return out


def speaker_weights(query: str, speakers: list[str]) -> dict[str, float]:
    """Per named speaker, the share of events.SPEAKER_BOOST their turns get: 1.0 for the subject
    (the first named) and the speakers coordinated with it, OBJECT for speakers named later.
    Speakers not located in the query get 1.0."""
    out = {s: 1.0 for s in speakers}
    if len(speakers) < 2 or OBJECT >= 1.0:
        return out
    q = fold(query)
    found = sorted((span, sp) for sp, span in _positions(q, speakers).items())
    if len(found) < 2:
        return out
    subject_end = found[0][0][1]
    for (start, end), sp in found[1:]:
        if _COORD.match(q[subject_end:start]):  # "Jon and Gina": one more subject
            subject_end = end
            continue
        out[sp] = OBJECT
    return out
