"""The things a speaker called their own earlier in the conversation: "The store's doing great".

Chat news about one's own thing often names it with a bare "the", because both speakers know
whose it is: "I'm organising a pancake breakfast at the fire station" (one session) ... "The
pancake breakfast last Saturday raised $4,200 for the boxing club!" (the next). The rules cannot
keep "The pancake breakfast raised ..." (a fact about no one is dropped, or never written), and
write/demonstrative_subjects.py only looks for the thing in the same message and the previous
turn. This module keeps, per (agent, speaker) and for the whole conversation (bounded like the
other trackers, `session_state.SessionLRU`), the phrases the speaker said as theirs, by a closed
grammar (regex, no parse):

- "my/our" + up to three words ("my clothing store", "our first game");
- "I/we" + a verb of making or running something + "a/an/my/our" + up to three words ("I'm
  organising a pancake breakfast", "we opened a bakery", "I started a podcast").

`owner` answers for a "The <modifiers> <noun>" subject of a later message of the SAME speaker:
"my"/"our" when one remembered phrase holds the noun with its modifiers right before it (no
possessive word such as "dad's" before the noun in that phrase), else None.
write/demonstrative_subjects.py asks only when neither the message nor the previous turn names a
compatible thing, so what was just said still wins. The record reaches extraction as
`ExtractionContext.own_things` (the write pipeline's `OwnThingsTracker`; bench/facts.py's
extract-only path uses the same tracker). A new pipeline (each write(), each import chunk) has
tracked nothing yet: `fill_from_history` reads the speaker's latest earlier stored messages for the
events that may ask (a sentence opening with "The <word>"). A caller that gives no record gets one
derived from the speaker's turns among `previous_turns` (`for_context`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from arandu_pipelines.write.session_state import SessionLRU
from arandu_pipelines.write.types import ExtractionContext

MAX_PHRASES = 200  # per speaker: the most recent phrases said as the speaker's own
HISTORY = 300  # a new pipeline reads at most this many earlier messages per speaker (fill_from_history)

_WORDS = r"(?P<w>[a-z][a-z'’-]*(?:\s+[a-z][a-z'’-]*){0,2})"
_MY_RE = re.compile(r"(?i:\b(?P<p>my|our)\s+)" + _WORDS)
# a verb of making, running or getting something of one's own, after I/we (any tense, contracted)
_MAKE_VERBS = (r"organi[sz](?:e|es|ed|ing)|host(?:s|ed|ing)?|open(?:s|ed|ing)?|start(?:s|ed|ing)?|"
               r"launch(?:es|ed|ing)?|run(?:s|ning)?|ran|throw(?:s|ing)?|threw|plann?(?:ed|ing)?|"
               r"found(?:ed|ing)?|buil[dt](?:s|ing)?|set\s+up|setting\s+up|bought|buy(?:ing)?|"
               r"adopt(?:s|ed|ing)?|foster(?:s|ed|ing)?|got|get(?:ting)?|wr(?:ite|ote|iting)|writ(?:ten)|"
               r"join(?:s|ed|ing)?|form(?:s|ed|ing)?|creat(?:e|es|ed|ing)")
_MADE_RE = re.compile(
    r"(?i:\b(?P<p>I|we)(?:['’](?:m|ve|re|d|ll)|\s+(?:am|are|was|were|have|has|had|will|just|finally|also))*"
    r"(?:\s+(?:just|finally|also|been|now|recently|officially|actually))*\s+"
    r"(?:" + _MAKE_VERBS + r")\s+(?:a|an|my|our)\s+)" + _WORDS)
_STOP = frozenset({"and", "or", "but", "so", "at", "in", "on", "for", "with", "to", "from", "of", "by", "about",
                   "is", "was", "are", "were", "has", "had", "have", "will", "that", "which", "who", "the",
                   "a", "an", "it", "this", "last", "next", "since", "when", "while", "if", "as", "than",
                   "very", "really", "just", "too", "now"})
_CAPTION_RE = re.compile(r"\[(?:shared a photo|image)[^\]]*\]", re.IGNORECASE)

Phrase = tuple[str, tuple[str, ...]]  # ("my"/"our", the words said after it, lower case)


def phrases(text: str) -> list[Phrase]:
    """The phrases `text` says as its speaker's own, in order (the module docstring's grammar)."""
    text = _CAPTION_RE.sub(" ", text)
    out: list[tuple[int, Phrase]] = []
    for rx in (_MY_RE, _MADE_RE):
        for m in rx.finditer(text):
            words: list[str] = []
            for w in m.group("w").lower().split():
                if w == "own" and not words:
                    continue  # "my own bakery"
                if w in _STOP:
                    break
                words.append(w)
            if words:
                p = m.group("p").lower()
                out.append((m.start(), ("our" if p in ("our", "we") else "my", tuple(words))))
    return list(dict.fromkeys(p for _, p in sorted(out)))  # "I opened my bakery": said once


def _singular(word: str) -> str:
    w = word.lower().rstrip("'’")
    if w.endswith(("'s", "’s")):
        return w[:-2]
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    return w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w


def heads(record: Iterable[Phrase]) -> frozenset[str]:
    """Every word of the record (singular): what the regex prefilter of a "The <noun>" asks."""
    return frozenset(_singular(w) for _, words in record for w in words)


def owner(noun: str, modifiers: list[str], record: Iterable[Phrase]) -> str | None:
    """"my"/"our" when a phrase of `record` holds `modifiers` + `noun` as consecutive words (the
    noun singular or plural as said), with no possessive word ("dad's") before the noun; the most
    recent such phrase decides; None when no phrase does."""
    want = [m.lower() for m in modifiers] + [_singular(noun)]
    found: str | None = None
    for p, words in record:
        for i in range(len(words)):
            if _singular(words[i]) != want[-1] or i + 1 < len(want):
                continue
            said = list(words[i + 1 - len(want): i]) + [want[-1]]
            if said == want and not any(w.endswith(("'s", "’s", "s'")) for w in words[:i]):
                found = p
    return found


class OwnThingsTracker:
    """Per (agent, speaker): the last MAX_PHRASES phrases the speaker said as their own. `assign`
    gives each event what its speaker had said before it (an empty list: nothing yet)."""

    def __init__(self) -> None:
        self._state: SessionLRU[tuple[Phrase, ...]] = SessionLRU(tuple)

    def assign(self, events: Iterable[Any]) -> list[list[Phrase]]:
        out: list[list[Phrase]] = []
        for e in events:
            key = (e.agent_id, (e.speaker or "").strip().casefold())
            known = self._state.get(key)
            out.append(list(known))
            got = phrases(e.text or "")
            if got:
                self._state.set(key, (*known, *got)[-MAX_PHRASES:])
        self._state.trim()
        return out


# a sentence opening with "The <word>" (after at most one lead word): what may ask the record
_THE_OPEN_RE = re.compile(r"(?:^|[.!?…]\s+)(?:[A-Z][a-z]+,?\s+)?The\s+[a-z]")
_HISTORY = (
    "SELECT m.speaker, right(m.text, 2000) FROM memory_events m WHERE m.agent_id = :a "
    "AND m.speaker = ANY(CAST(:s AS text[])) AND m.occurred_at <= :t AND m.id::text <> ALL(CAST(:e AS text[])) "
    "ORDER BY m.occurred_at DESC, m.id DESC LIMIT :n")


async def fill_from_history(conn: Any, agent_id: str, events: list[Any], found: list[list[Phrase]]) -> None:
    """A new pipeline (each write(), each import chunk) has tracked nothing yet: for the events
    that open a sentence with "The <word>" (regex), their speakers' latest HISTORY earlier stored
    messages are read (one query for the chunk, on the (agent_id, speaker) index) and the phrases
    they said as their own go before what the chunk itself showed."""
    idx = [i for i, e in enumerate(events) if e.speaker and _THE_OPEN_RE.search(e.text or "")]
    if not idx:
        return
    from sqlalchemy import text

    speakers = sorted({events[i].speaker for i in idx})
    res = await conn.execute(text(_HISTORY), {
        "a": agent_id, "s": speakers, "t": min(e.occurred_at for e in events),
        "e": [str(e.event_id) for e in events if e.event_id] or [""], "n": HISTORY * len(speakers)})
    older: dict[str, list[Phrase]] = {}
    for speaker, body in reversed(res.all()):  # oldest first
        older.setdefault((speaker or "").strip().casefold(), []).extend(phrases(body or ""))
    for i in idx:
        before = older.get(events[i].speaker.strip().casefold(), [])
        if before:
            found[i] = [*before, *found[i]][-MAX_PHRASES:]


def for_context(ctx: ExtractionContext) -> list[Phrase]:
    """The record the caller gave, else the one the speaker's own turns among `previous_turns` show."""
    if ctx.own_things is not None:
        return list(ctx.own_things)
    speaker = (ctx.speaker_name or "").strip().casefold()
    out: list[Phrase] = []
    for who, text in ctx.previous_turns or []:
        if speaker and (who or "").strip().casefold() == speaker:
            out += phrases(text)
    return out[-MAX_PHRASES:]


__all__ = ["HISTORY", "MAX_PHRASES", "OwnThingsTracker", "Phrase", "fill_from_history", "for_context", "heads", "owner",
           "phrases"]
