"""An object "us" that is an event of the speaker's group, not people in general (issue 19, session 14).

`fact_quality._generic_we` drops a free-text fact whose "<S> and others" is not its subject:
"Music brings S and others together", "Art showed S and others who they are" are about people in
general. But "The community center asked S and others to do a summer concert" and "S's guide
drove S and others to the village" are events that happened to the speaker's group, and a
held-out reader keeps them. What separates them is grammar, not topic:

- the clause opens with a definite, specific agent: "The X", "S's X" (the rewrite of "our/my X")
  or a capitalised name, at most four words long;
- its verb is a past action from `EVENT_VERBS` (asking, inviting, hiring, driving, taking,
  hosting, visiting, calling, sending, paying, offering ...) and "<S> and others" is its object.

Lessons and effects ("taught", "showed", "reminded", "made", "helped", "gave ... strength",
"brought ... together") are not in the table: a definite agent that "taught us" something is
still a judgement about people. A present tense is not an event ("The school asks us ...").

A fronted time or place phrase before the group as subject ("On S's anniversary, S and others
danced ...") is the group's event too (`fronted_subject`, session 16).

`keeps` tells `_generic_we` not to drop such a fact; `object_at` lets write/we_group.py name the
object "us" too when it knows the group ("The school asked Ana and Ana's choir to sing").
English only; regex only.
"""

from __future__ import annotations

import re

EVENT_VERBS = frozenset([
    "asked", "invited", "hired", "booked", "drove", "took", "picked", "dropped", "hosted", "welcomed",
    "visited", "called", "contacted", "emailed", "texted", "sent", "paid", "offered", "chose", "selected",
    "approached", "told", "guided", "led", "met", "joined", "recruited", "upgraded", "charged", "served",
    "fed", "accepted", "rejected", "featured", "interviewed", "awarded", "flew", "walked", "toured",
    "greeted", "treated", "gave", "sponsored", "signed", "paired", "seated", "evacuated", "rescued",
    "stopped", "fined", "warned", "kicked", "matched", "scheduled", "assigned", "nominated", "housed",
])
# After "gave" only a concrete object is an event ("gave us a tour", "gave us the keys"); "gave us
# strength/hope/perspective" is an effect
_GAVE_ABSTRACT_RE = re.compile(
    r"(?i)^\s+(?:so\s+much\s+|a\s+lot\s+of\s+|some\s+|the\s+|a\s+|new\s+)?(?:strength|hope|courage|joy|peace|comfort"
    r"|perspective|confidence|purpose|meaning|motivation|inspiration|love|support|happiness|energy|faith|sense)\b")
_ADVERBS = r"(?:(?:already|just|also|even|finally|recently|then|kindly|personally|actually)\s+)?"
_AGENT = r"(?:The|[A-Z][\w'’-]*['’]s|[A-Z][a-zà-ÿ'’-]+)(?:\s+[\w'’-]+){0,3}?"


# First words of an agent that is no definite, specific one
_NOT_AGENTS = frozenset(["it", "this", "that", "these", "those", "they", "he", "she", "life", "music", "art", "nature",
                         "god", "people", "everyone", "everybody", "someone", "somebody", "nobody", "anyone",
                         "folks", "society", "time", "experience", "experiences"])


def _clause_re(speaker: str) -> re.Pattern[str]:
    marker = re.escape(f"{speaker} and others")
    verbs = "|".join(sorted(EVENT_VERBS, key=len, reverse=True))
    return re.compile(rf"(?:^|[.;:!]\s+|,\s+(?:and|but|so|then)\s+)(?P<agent>{_AGENT})\s+{_ADVERBS}(?P<verb>{verbs})"
                      rf"(?:\s+(?:up|over|out|in|along|around|back))?\s+(?P<m>{marker})\b")


_STAY_VERBS = (r"(?:staying|stayed|stays|stay|living|lived|lives|moving\s+in|moved\s+in|visiting|visited|spending"
               r"|spent|having\s+dinner|had\s+dinner|came\s+over|coming\s+over)")


def _stay_re(speaker: str) -> re.Pattern[str]:
    marker = re.escape(f"{speaker} and others")
    return re.compile(rf"(?:^|[.;:!]\s+)(?P<agent>[A-Z][\w'’-]*['’]s\s+[a-z][\w-]*|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s"
                      rf"[^.;:!?]{{0,80}}?\b{_STAY_VERBS}\b(?:\s+[\w'’-]+){{0,3}}?\s+(?:with|for|at)\s+(?P<m>{marker})\b")


def object_at(text: str, speaker: str) -> list[tuple[int, int]]:
    """Spans of each "<speaker> and others" of `text` that is the object of an event clause;
    also (session 14, subjects14) the object of "with/for/at" after a stay or visit verb whose
    subject is specific: "Priya's mom ... is staying with S and others until Christmas"."""
    out: list[tuple[int, int]] = []
    for m in _stay_re(speaker).finditer(text):
        agent = m.group("agent")
        if agent.split()[0].casefold() in _NOT_AGENTS or agent == speaker or agent.startswith(speaker):
            continue
        out.append(m.span("m"))
    for m in _clause_re(speaker).finditer(text):
        agent = m.group("agent")
        if agent.split()[0].casefold() in _NOT_AGENTS:
            continue  # a pronoun, an indefinite or a generic mass noun as the agent: not one event
        if agent == speaker or agent.startswith(f"{speaker} and"):
            continue
        if m.group("verb") == "gave" and _GAVE_ABSTRACT_RE.match(text[m.end("m"):]):
            continue
        out.append(m.span("m"))
    return out


def keeps(text: str, speaker: str) -> bool:
    """Whether a fact holding "<speaker> and others" as an object is an event of the speaker's
    group (kept by `fact_quality._generic_we`)."""
    return bool(object_at(text, speaker))


# "On S's anniversary, S and others danced ...": a fronted time or place phrase (a preposition or
# a time word, up to seven words, no clause mark), then the group as the subject of a past verb
_FRONTED_RE = re.compile(
    r"(?i:on|in|at|during|after|before|last|this|that|next|every|over|for)\b(?:\s+[\w'’-]+){0,6}?,\s+")


def fronted_subject(text: str, speaker: str) -> bool:
    """Whether "<speaker> and others" is the subject of a past verb after a fronted time or place
    phrase ("On S's anniversary, S and others danced on the porch"; session 16, clause16): the
    group's event, as "S and others danced ..." is when it opens the fact. "In life, S and others
    all need ..." (no past verb) stays people in general."""
    from arandu_pipelines.write import lexicon as L

    m = _FRONTED_RE.match(text)
    if m is None or not text.startswith(f"{speaker} and others ", m.end()):
        return False
    verb = text[m.end() + len(speaker) + len(" and others "):].split(" ", 1)[0]
    return verb.endswith("ed") or verb in L.IRREGULAR_PAST_EN


__all__ = ["EVENT_VERBS", "fronted_subject", "keeps", "object_at"]
