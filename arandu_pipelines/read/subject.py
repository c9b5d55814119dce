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
their name (case-folded, on word boundaries); a speaker not found literally (a nickname or a
misspelling resolved elsewhere) keeps the full boost, as does everyone when fewer than two named
speakers are found. Pure Python over the query: no statement.
"""

from __future__ import annotations

import re

from arandu_pipelines.keys import fold

OBJECT = 0.0  # share of the speaker boost a later-named (object) speaker keeps
_COORD = re.compile(r"^[\s,]*(?:(?:and|or|&|,)\s*)*(?:both\s+)?$")


def _position(folded_query: str, speaker: str) -> int | None:
    words = fold(speaker).split()
    if not words:
        return None
    m = re.search(rf"\b{re.escape(words[0])}\b", folded_query)
    return m.start() if m else None


def speaker_weights(query: str, speakers: list[str]) -> dict[str, float]:
    """Per named speaker, the share of events.SPEAKER_BOOST their turns get: 1.0 for the subject
    (the first named) and the speakers coordinated with it, OBJECT for speakers named later.
    Speakers not located in the query get 1.0."""
    out = {s: 1.0 for s in speakers}
    if len(speakers) < 2 or OBJECT >= 1.0:
        return out
    q = fold(query)
    found = sorted((p, s) for s in speakers if (p := _position(q, s)) is not None)
    if len(found) < 2:
        return out
    subject_end = found[0][0] + len(fold(found[0][1]).split()[0])
    for p, s in found[1:]:
        between = q[subject_end:p]
        if _COORD.match(between):  # "Jon and Gina": one more subject
            subject_end = p + len(fold(s).split()[0])
            continue
        out[s] = OBJECT
    return out
