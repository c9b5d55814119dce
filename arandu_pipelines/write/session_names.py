"""The people and pets a session has NAMED in its last few turns: he/she beyond the 2-turn window.

person_antecedents reads the message and the session's previous two turns (`PreviousTurnTracker`
keeps 2: the window where "he" is nearly always someone just mentioned). A chat often names
someone once and talks about them for several turns: "My son Tyler enlisted in the Navy." ->
"How are you and Patty taking it?" -> "Patty cried for a day ..." -> "Did he say what he wants to
do?" -> "He wants to be a hospital corpsman." The last "He" is Tyler, four turns back; the window
only holds Patty, who is female, so nothing was resolved.

This module keeps, per (agent_id, session_id) and bounded like the other trackers
(`session_state.SessionLRU`), the names the last `TURNS` turns showed, each with its type and
known gender, by a closed grammar (regex, no parse):
- a name apposed to a kin, role or pet noun ("my son Tyler", "a puppy named Rufus", "Rufus, my
  dog"): person or pet, gender from the noun (the strong evidence; "my brother Nikita" is "he");
- a capitalised word inside a sentence that name_gender's first-name lists know, not after a place
  preposition ("I met Tom at the gym"; "Taylor Swift" with the capitalised word after it): a
  person; gender from the chat's evidence of that turn (write/gender_evidence.py), else the lists,
  else unknown (takes either pronoun). After a place preposition ("we flew to Florence") such a
  name only makes a pronoun ambiguous: it is never taken.

person_antecedents asks it (`pick_named`) ONLY when the 2-turn window holds no compatible candidate;
exactly one compatible entry (gender agrees or is unknown; never a speaker) is taken, two or more
leave the pronoun unresolved, as before. The record reaches extraction as
`ExtractionContext.named_before` (the write pipeline's `NamedTracker`; bench/facts.py's
extract-only path uses the same tracker); a caller that gives no record but longer
`previous_turns` (the turns of a conversation, oldest first) gets one derived from their last
`TURNS` turns (`for_context`, asked by extract_rules.extract_offline: person_antecedents only reads
the record, so this module may read person_antecedents' noun tables without an import cycle).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from arandu_pipelines.write import name_gender
from arandu_pipelines.write.session_state import SessionLRU
from arandu_pipelines.write.types import ExtractionContext

TURNS = 6  # turns of the session whose names are remembered (the 2-turn window and four more)

_NAME = r"(?P<n>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)"
_APPOSED_RE = re.compile(
    r"\b(?i:my|your|our|his|her|their|a|an|the)\s+(?:[a-z]+\s+){0,2}?(?P<noun>[a-z]+),?\s+(?:(?:named|called)\s+)?"
    + _NAME + r"\b")
_APPOSED_AFTER_RE = re.compile(_NAME + r",\s+(?i:my|our|your|his|her|their)\s+(?:[a-z]+\s+){0,2}?(?P<noun>[a-z]+)\b")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_SENT_RE = re.compile(r"[^.!?…]+[.!?…]*")
# a capitalised word after these may be a place or an organisation as well as a person: such a
# name counts (it makes a pronoun ambiguous) but is never taken
_PLACE_PREP = frozenset({"in", "at", "from", "to", "near", "into", "on", "across", "around", "through", "visit",
                         "visited", "visiting"})
_COVERED = frozenset({"the", "a", "an"})  # "the Grace Hotel": no person


@dataclass(frozen=True)
class Named:
    """One person or pet the session named: its name as written, "person" / "pet", and its gender
    ("m" / "f" / None: unknown, takes either pronoun); `strong`: the gender comes from an apposed
    noun ("my son Tyler"), not from a list."""

    name: str
    kind: str
    gender: str | None
    strong: bool = False
    taken: bool = True  # False: only makes a pronoun ambiguous ("We flew to Florence": maybe a place)

    @property
    def key(self) -> str:
        return self.name.split()[0].casefold()


def _nouns() -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """(animate nouns, pet nouns, male nouns, female nouns) of person_antecedents (lazy: it imports us)."""
    from arandu_pipelines.write import kin_antecedents as K
    from arandu_pipelines.write import person_antecedents as P

    return P.PERSON_NOUNS | P.PET_NOUNS | K.ROLE_NOUNS, P.PET_NOUNS, P.MALE, P.FEMALE


def _not_name(word: str) -> bool:
    from arandu_pipelines.write import lexicon as L
    from arandu_pipelines.write.gender_evidence import _NOT_NAMES
    from arandu_pipelines.write.name_subjects import COMMON

    low = word.casefold()
    return low in _NOT_NAMES or low in L.STOPWORDS_EN or low in COMMON


_GREETINGS = frozenset({"thanks", "thank", "hi", "hey", "hello", "bye", "congrats", "congratulations", "dear",
                        "sorry", "cheers", "yo", "morning", "night", "evening", "welcome", "aw", "aww", "wow", "oh"})


def _vocative(sentence: str, prev: re.Match[str], w: re.Match[str]) -> bool:
    """"Thanks, Mel!", "Hey Jo, ...", "You rock, Sam.": the name addresses a speaker (often by a
    short form the speaker list does not hold), so it is no one to talk about."""
    if prev.group(0).lower() in _GREETINGS or prev.group(0).lower() == "you" and sentence[w.end():].lstrip()[:1] in "!.?":
        return True
    return sentence[prev.end(): w.start()].strip() == "," and sentence[w.end():].lstrip()[:1] in ("!", "?", ".", "")


def _sentence_start(text: str, i: int) -> bool:
    before = text[:i].rstrip(" \t\"'“‘(")
    return not before or before[-1] in ".!?…\n"


def named_in(text: str) -> list[Named]:
    """The people and pets one turn names (see the module docstring), in text order."""
    if not text or not re.search(r"[A-Z][a-z]", text):
        return []
    animate, pets, male, female = _nouns()
    out: dict[str, Named] = {}
    for rx in (_APPOSED_RE, _APPOSED_AFTER_RE):
        for m in rx.finditer(text):
            noun = m.group("noun").lower()
            if noun not in animate and noun.rstrip("s") not in animate:
                continue
            name = m.group("n")
            if _not_name(name) or rx is _APPOSED_AFTER_RE and _sentence_start(text, m.start("n")) \
                    and not name_gender.listed(name.casefold()) and not text[m.end():].lstrip().startswith(","):
                # "Thankfully, my son is fine": a capitalised first word is a name only if listed or
                # if the apposition is closed ("Rufus, my dog, is a beagle")
                continue
            g = "m" if noun in male else "f" if noun in female else None
            out[name.casefold()] = Named(name, "pet" if noun in pets else "person", g, g is not None)
    evidence: dict[str, str | None] | None = None
    for s in _SENT_RE.finditer(text):
        words = list(_WORD_RE.finditer(s.group(0)))
        for k, (prev, w) in enumerate(pairwise(words)):
            name = w.group(0)
            low = name.casefold()
            if not re.fullmatch(r"[A-Z][a-z]+", name) or low in out or _not_name(name) \
                    or prev.group(0).lower() in _COVERED or not name_gender.listed(low) \
                    or _vocative(s.group(0), prev, w):
                continue
            if evidence is None:
                from arandu_pipelines.write.gender_evidence import collect

                evidence = collect([text])
            g = evidence[low] if low in evidence else name_gender.table_gender(low)
            nxt = words[k + 2].group(0) if k + 2 < len(words) else ""
            if re.fullmatch(r"[A-Z][a-z]+", nxt) and not _not_name(nxt) \
                    and s.group(0)[w.end(): words[k + 2].start()] == " ":
                name = f"{name} {nxt}"  # "Taylor Swift": the whole name is what is put in
            # after a place preposition ("went to Florence") a name only makes a pronoun ambiguous
            out[low] = Named(name, "person", g, taken=prev.group(0).lower() not in _PLACE_PREP)
    return list(out.values())


def merge(entries: Iterable[Named]) -> list[Named]:
    """One entry per first name: a noun's gender beats a list's; two known genders that disagree
    make it unknown."""
    out: dict[str, Named] = {}
    for e in entries:
        old = out.get(e.key)
        if old is None or e.strong and not old.strong:
            out[e.key] = e
        elif old.strong == e.strong and (old.gender != e.gender or old.taken != e.taken):
            out[e.key] = Named(old.name, old.kind, old.gender if old.gender == e.gender else None, old.strong,
                               old.taken or e.taken)
    return list(out.values())


class NamedTracker:
    """Per (agent, session): the names of the last `TURNS` turns, across a pipeline's chunks."""

    def __init__(self) -> None:
        # per session: the names of its last turns, and its speakers (never an entry: they are I / you)
        self._state: SessionLRU[tuple[list[list[Named]], frozenset[str]]] = SessionLRU(lambda: ([], frozenset()))
        self.seen: list[bool] = []  # per event of the last `assign`: its session had been tracked before it

    def assign(self, events: list[Any]) -> list[list[Named]]:
        """What each event's session named in its last `TURNS` turns before it, `events` in time order."""
        out: list[list[Named]] = []
        self.seen = []
        for e in events:
            key = (e.agent_id, e.session_id)
            turns, speakers = self._state.get(key)
            self.seen.append(bool(turns))
            if e.speaker:
                speakers = speakers | {e.speaker.split()[0].casefold()}
            out.append(merge(n for t in turns for n in t if n.key not in speakers))
            self._state.set(key, ((turns + [named_in(e.text or "")])[-TURNS:], speakers))
        self._state.trim()
        return out


def for_context(ctx: ExtractionContext) -> list[Named]:
    """The record extraction reads: the pipeline's (`named_before`), else the one the caller's
    previous turns show (their last `TURNS`)."""
    given = getattr(ctx, "named_before", None)
    if given is not None:
        return list(given)
    return merge(n for _, t in (ctx.previous_turns or [])[-TURNS:] for n in named_in(t))


_LOOKUP = (
    "SELECT q.i, h.text FROM unnest(CAST(:i AS int[]), CAST(:s AS text[]), CAST(:t AS timestamptz[]), "
    "CAST(:e AS text[])) AS q(i, s, t, e) CROSS JOIN LATERAL (SELECT right(m.text, 2000) AS text, m.occurred_at "
    "FROM memory_events m WHERE m.agent_id = :a AND m.session_id = q.s AND m.occurred_at <= q.t "
    f"AND m.id::text IS DISTINCT FROM q.e ORDER BY m.occurred_at DESC LIMIT {TURNS}) h ORDER BY q.i, h.occurred_at"
)


async def fill_from_history(conn: Any, agent_id: str, events: list[Any], found: list[list[Named]],
                            seen: list[bool]) -> None:
    """As antecedents.fill_from_history does for the 2-turn window: a new pipeline (each write(),
    each import chunk) has tracked nothing for a session yet, so for a chunk's first event of such
    a session (`seen[i]` False), when it or one of the session's next `TURNS - 1` events of the
    chunk has a he/she/his/her/him, the session's latest `TURNS` earlier messages are read (one
    query for the chunk, on the (agent_id, session_id, occurred_at) index) and their names are
    added to the record of those events."""
    from arandu_pipelines.write.antecedents import PERSON_PRONOUN_RE

    followers: dict[int, list[int]] = {}
    for i, e in enumerate(events):
        if seen[i] or not e.session_id:
            continue
        nxt = [j for j in range(i + 1, len(events)) if events[j].session_id == e.session_id]
        followers[i] = nxt[:TURNS - 1]
    idx = [i for i, after in followers.items()
           if any(PERSON_PRONOUN_RE.search(events[j].text or "") for j in [i, *after])]
    if not idx:
        return
    from sqlalchemy import text

    res = await conn.execute(text(_LOOKUP), {
        "a": agent_id, "i": idx, "s": [events[i].session_id for i in idx],
        "t": [events[i].occurred_at for i in idx], "e": [str(events[i].event_id or "") for i in idx]})
    older: dict[int, list[list[Named]]] = {}
    for i, body in res.all():  # oldest first
        older.setdefault(i, []).append(named_in(body or ""))
    for i, turns in older.items():
        for p, j in enumerate([i, *followers[i]]):  # the p-th event of the chunk sees TURNS - p older turns
            keep = turns[-(TURNS - p):] if TURNS - p > 0 else []
            found[j] = merge([*(n for t in keep for n in t), *found[j]])
