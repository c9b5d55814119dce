"""Multi-evidence coverage of the message ranking's top ranks (issue 18, session 11).

Some questions are answered by several turns that do not look alike: "What has Melanie painted?"
(one painting per session), "What do Jon and Gina both have in common?" (one turn of each). The
message ranking scores turns one by one, so the turns of one strong exchange, near-copies of each
other, fill the top ranks and the second piece of evidence falls to ranks 11-20. After the
ranking (and the bridge, read/multihop.py), this re-ranks the returned turns, without any
statement, for a question shape that list questions (read/listq.py, spread already by
read/events.py) do not cover, `aggregate`: the question asks what someone has done over time ("What has Melanie painted?",
  "What did Melanie paint recently?"), what a group likes ("What do Melanie's kids like?"), or
  what kind of thing someone makes ("What kind of art does Caroline make?"): the top ranks are
  spread over sessions, a session's SESSION_FREE-th and later turn counts x SESSION_DECAY per turn
  of it already ranked. A per-speaker quota for questions naming two people ("both", "in
  common") and a second spread of list questions after the bridge were measured and not kept
  (docs/retrieval.md).

Greedy, like `events.spread_sessions`: each pick is the turn with the best discounted score, and
that discounted score becomes its score, so the returned order is the order of the scores; ties
keep the ranking's order (deterministic). Measured in docs/retrieval.md ("Multi-evidence coverage
(session 11)"); the MMR-style spread within one stretch of turns lost there and is not done here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arandu_pipelines.read.spread import greedy_spread
from arandu_pipelines.read.types import ScoredEvent

ENABLED = True
SESSION_FREE = 2  # aggregate: turns of one session ranked before SESSION_DECAY applies
SESSION_DECAY = 0.85
TOP = 10  # only the first TOP places are re-ranked; the rest keep their order, capped below them

# "What has Melanie painted?", "What have they made?": a perfect-tense question without an object
# asks for everything done so far.
_PERFECT = re.compile(r"^\s*[Ww]hat\s+(?:has|have)\s+(?:[A-Z][\w'-]*\s+){1,3}(?:\w+\s+)?\w+ed\s*\??\s*$")
# "What did Melanie paint recently?", "What kind(s) of art does X make?", "What do X's kids like?"
_OVER_TIME = re.compile(r"\b(?:recently|lately|so far|over the years|these days)\b", re.IGNORECASE)
_KIND = re.compile(r"^\s*what\s+(?:kind|type|sort)\s+of\b", re.IGNORECASE)
_GROUP = re.compile(r"^\s*what\s+(?:do|did)\s+\w+(?:'s)?\s+(?:[a-z]+\s+)?(?:kids|children|friends|parents|family)"
                    r"\s+(?:like|love|enjoy|do)\b", re.IGNORECASE)


def shape(query: str) -> str:
    """'aggregate' when the question asks for what someone did over time or likes in general, ''
    otherwise. Surface-level, English only, ~10 microseconds; list questions (read/listq.py) are
    told apart before."""
    if _PERFECT.search(query) or _OVER_TIME.search(query) or _KIND.search(query) or _GROUP.search(query):
        return "aggregate"
    return ""


def rerank(events: list[ScoredEvent], query: str, listq: bool = False) -> list[ScoredEvent]:
    """`events` (best first) re-ranked for the question's shape; unchanged for other questions
    and for list questions (read/listq.py), whose ranking read/events.py spread already."""
    if not ENABLED or len(events) < 2 or listq or shape(query) != "aggregate":
        return events
    return spread(events, lambda e: e.session_id, SESSION_FREE, SESSION_DECAY, "session_repeat")


def spread(events: list[ScoredEvent], key: Callable[[ScoredEvent], str | None], free: int, decay: float,
           label: str) -> list[ScoredEvent]:
    """Greedy re-rank of the first TOP places: each pick is the event with the best score x
    decay ** (events of its key already picked beyond `free`); that discounted score becomes its
    score, never below the lowest score of `events`. The others follow in the ranking's order,
    their scores capped at the last pick's: the order stays the order of the scores, and the
    lowest returned score, which bounds the fact-only citations in pipeline._sources, does not
    move (without the cap and floor the chat lost a citation at rank 17 -> 23). Key '' / None is
    never discounted (turns of people the question does not name)."""
    if decay >= 1.0:
        return events
    floor = min(e.score for e in events)  # the lowest returned score stays where it is
    out: list[ScoredEvent] = []
    for e, score, before in greedy_spread(events, lambda e: key(e) or "", lambda e: e.score,
                                          min(TOP, len(events)), free, decay, floor, exempt=""):
        if key(e) and before >= free:
            e.scores[label] = float(before)
        e.score = round(score, 6)
        out.append(e)
    chosen = {e.event_id for e in out}
    for e in events:  # the rest in the ranking's order, never above the last pick: scores stay ordered
        if e.event_id not in chosen:
            e.score = min(e.score, out[-1].score)
            out.append(e)
    return out
