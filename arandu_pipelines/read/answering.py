"""Answer-bearing turns: a turn that only asks yields to the turns that answer.

The neighbour-turn terms of read/events.py lift both sides of a strong turn. The other speaker's
question right after it ("That bowl is awesome! What gave you the idea for all the colors and
patterns?") repeats the query's words, inherits the strong turn's context, and outranks the reply
that holds the answer ("I made something to catch the eye and make people smile"). So a turn
that only asks (`asks`) keeps ASK of its score. The factor is applied to the turn's final score,
not to its base: the question still lends its full base to the reply after it (events.QUESTION).

The same exchanges show the other half: the named speaker's turns carry the speaker boost in
their base, and the neighbour terms hand that base on to the other speaker's turns around them
("Sounds great, Caroline! Let's plan something special!" inherits Caroline's boosted plan and
ranks second for "What are Caroline's plans for the summer?"). So when the query names speakers,
what the neighbour turns lend a turn of someone else counts OTHER; the turn's own match is
untouched, so another speaker's turn that answers by its own words still ranks.

Measured on the dev conversations and the realistic chat (docs/retrieval.md, "Answer-bearing
turns (session 10)"); a stretch-diversity re-rank (turns next to a better-ranked turn of the same
session yield) was measured with it and lost clearly, so it is not here.

Pure Python over the text already in memory: no statement, no clock.
"""

from __future__ import annotations

import re
from functools import lru_cache

ASK = 0.85  # an asking turn keeps this share of its score
OTHER = 0.7  # neighbour terms lent to a turn of a speaker the query does not name keep this share
ASK_WORDS = 6  # a turn stating this many words (3+ letters) besides its questions is not "only asking"
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_WORD = re.compile(r"[^\W\d_]{3,}")


@lru_cache(maxsize=8192)  # both passes of events._score and repeated questions meet the same turns
def asks(text: str) -> bool:
    """Whether the turn only asks: its last sentence (trailing emoji and spaces aside) is a
    question, and what it states outside its questions has fewer than ASK_WORDS words ("Love
    that purple color! For walking or running?" asks; "We explored nature and roasted
    marshmallows around the fire. Have you been camping?" states, and keeps its score)."""
    if "?" not in text:
        return False
    t = text.rstrip()
    i = len(t)
    while i > 0 and not (t[i - 1].isalnum() or t[i - 1] in ".!?"):
        i -= 1
    if i == 0 or t[i - 1] != "?":
        return False
    stated = 0
    for m in _SENTENCE.finditer(t[:i]):
        if not m.group(0).rstrip().endswith("?"):
            stated += len(_WORD.findall(m.group(0)))
    return stated < ASK_WORDS


def ask_factor(text: str) -> float:
    """The share of its score a turn keeps: ASK for a turn that only asks, else 1."""
    return ASK if asks(text) else 1.0
