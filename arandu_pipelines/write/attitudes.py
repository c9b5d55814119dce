"""Attitude facts worth keeping: a person's resolve and outlook stated with something to hold on to.

`fact_quality`'s `unanchored` check drops free-text facts of attitude ("Jon won't quit", "it
wasn't easy") and of what could or will be ("Jon will keep going") unless a date or another named
entity anchors them: on the dev conversations such facts matched an annotator's observation about
a quarter of the time. Reading the annotators' observations that were missed because of it
(bench/facts.py), three kinds are facts about the speaker that annotators do write down, and are
kept here (a table: kind, pattern over the fact, rewrite):

| kind               | fact (as restated)                                | kept as                                  |
|--------------------|---------------------------------------------------|------------------------------------------|
| determined_not_stop| "Jon is not gonna let anything or anyone stop Jon"| "Jon is determined not to let anything or anyone stop Jon" |
|                    | "Jon won't let anything hold Jon back"            | "Jon is determined not to let anything hold Jon back" |
| staying_positive   | "Jon is staying positive and looking ahead"       | unchanged (how someone copes: an outlook) |
| looking_forward    | "Jon can't wait 'til Jon's studio starts welcoming dancers of all ages" | "Jon is looking forward to when Jon's studio starts ..." (a concrete coming event: >= 3 content words) |

What stays dropped: bare resolve with nothing named ("Jon won't give up", "Jon is gonna keep
going", "Jon will keep pushing"), promises about the chat ("Caroline will keep ya posted"),
"can't wait for the trip" (nothing to know later). Kinds are matched on the fact as the rules
restated it (speaker named, English); Portuguese facts are not affected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from arandu_pipelines.write.types import ExtractedFact

_CONTENT_STOP = frozenset(
    ["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are",
     "was", "be", "been", "it", "this", "that", "so", "really", "just", "all", "up", "til", "till", "until",
     "when", "gets", "get", "starts", "start"])


@dataclass(frozen=True)
class AttitudeKind:
    kind: str
    pattern: re.Pattern[str]  # over the fact text after the subject ("s" = what precedes it)
    rewrite: Callable[[re.Match[str], str], str | None]  # (match, subject) -> fact text, None: not kept


def _determined(m: re.Match[str], subject: str) -> str | None:
    return f"{subject} is determined not to let {m.group('who')} {m.group('v')}{m.group('rest')}"


def _as_is(m: re.Match[str], subject: str) -> str | None:
    return m.string


def _looking_forward(m: re.Match[str], subject: str) -> str | None:
    x = m.group("x").strip()
    words = [w for w in re.findall(r"[\w'’-]+", x.lower()) if w not in _CONTENT_STOP
             and w.removesuffix("'s") not in subject.lower().split()]
    if len(words) < 3:
        return None  # "can't wait for the trip": nothing named to know later
    lead = {"to": "", "for": ""}.get(m.group("p").lower(), "when ")
    return f"{subject} is looking forward to {lead}{x}"


KINDS: tuple[AttitudeKind, ...] = (
    AttitudeKind("determined_not_stop", re.compile(
        r"(?i)^\s+(?:is\s+not|isn['’]t|won['’]t|will\s+not|will\s+never|is\s+never|is\s+not\s+going\s+to)\s+"
        r"(?:gonna\s+)?let\s+(?P<who>(?:anything|anyone|anybody|nothing|no\s+one)"
        r"(?:\s+or\s+(?:anything|anyone|anybody))?)\s+(?P<v>(?:stop|hold)\b)(?P<rest>[^.!?]*)$"), _determined),
    AttitudeKind("staying_positive", re.compile(
        r"(?i)^\s+(?:is|are)\s+(?:(?:still|really|just|always)\s+)*staying\s+(?:positive|optimistic)\b"), _as_is),
    AttitudeKind("looking_forward", re.compile(
        r"(?i)^\s+(?:can['’]t|cannot)\s+wait\s+(?P<p>to|for|until|till|['’]til)\s+(?P<x>[^.!?]+)$"),
        _looking_forward),
)


def keep(f: ExtractedFact) -> ExtractedFact | None:
    """`f` rewritten as an attitude fact worth keeping (see `KINDS`), else None. Only facts that
    open with their subject are considered."""
    if not f.subject or not f.fact_text.startswith(f.subject):
        return None
    rest = f.fact_text[len(f.subject):]
    for k in KINDS:
        m = k.pattern.match(rest)
        if m is None:
            continue
        text = k.rewrite(m, f.subject)
        if k.rewrite is _as_is:
            text = f.fact_text
        if text:
            f.fact_text = text.strip()
            return f
    return None
