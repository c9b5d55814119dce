"""The speaker's partner as the other one of "we" (issue 19, session 14).

A held-out reader writes "Marco and Lucia booked the venue" where the rules wrote "Marco and
others booked the venue": a few turns earlier Marco had said "My fiancée Lucia wants a garden
wedding". write/we_group.py names a group the message or the speaker's previous turn names ("my
kids", "my husband and I"); this module adds, as a last resort, the one partner the speaker has
named in the conversation: "my wife Ellen", "Lucia, my fiancée", "my husband" (unnamed: "S's
husband").

Where the partner comes from:
- the message itself, then the speaker's own previous turns in the window (`previous_turns`);
- `PartnerTracker`: per (agent, speaker), the partner the speaker named in any earlier message
  the write pipeline saw (across sessions and chunks, bounded by `session_state.SessionLRU`),
  handed to extraction as `ExtractionContext.partner`.

The partner is used only when (`usable`):
- no group of write/we_group.py is named (its tiers win: "my kids", "our family", "me and my
  sister");
- neither the message nor the window's turns before it name other people who could be in the "we": kids,
  family, friends, a son or daughter, "all of us", "everyone" (`CROWD_RE`): a family "we" is not
  the couple;
- neither is set at work, school, a rehearsal or a match (`SETTING_RE`, session 14 we14b): that
  "we" is the people there, not the couple;
- the "we" is not a proposal to the listener ("we should ...", "we could ...", "let's"): that
  "we" is the two speakers.

A partner noun after "ex", "former", "late" or "future" is not taken ("my ex-wife Jane").
Two different partners named in the same source are ambiguous: nothing is taken from it.
English only, regex only (no parse): the cost is a scan of the speaker's own texts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from arandu_pipelines.write.session_state import SessionLRU

PARTNER_NOUNS = frozenset([
    "wife", "husband", "hubby", "partner", "spouse", "fiance", "fiancé", "fiancee", "fiancée",
    "girlfriend", "boyfriend", "gf", "bf",
])
_SPELLED = {"hubby": "husband", "gf": "girlfriend", "bf": "boyfriend"}
_NOUN = "|".join(re.escape(n) for n in sorted(PARTNER_NOUNS, key=len, reverse=True))
_NAME = r"[A-Z][a-zà-ÿ'’-]+(?:\s+[A-Z][a-zà-ÿ'’-]+)?"
# "my wife Ellen", "my wife, Ellen,", "my fiancée Lucia" / "Ellen, my wife" / "my husband"
_PARTNER_RE = re.compile(
    rf"\b[Mm]y\s+(?P<adj>(?:ex|former|late|future|old|new)[\s-]+)?(?P<noun>{_NOUN})\b(?!\s+in\s+crime)(?:,?\s+(?P<name>{_NAME}))?"
    rf"|\b(?P<name2>{_NAME}),\s+[Mm]y\s+(?P<adj2>(?:ex|former|late|future)[\s-]+)?(?P<noun2>{_NOUN})\b")
# Words a name group after a partner noun must not be: a capitalised sentence opener or pronoun
_NOT_NAMES = frozenset(["I", "I'm", "I’m", "We", "He", "She", "They", "It", "And", "But", "So", "The", "This", "That",
                        "Is", "Was", "Has", "Had", "Just", "Also", "Too", "Lol", "Haha",
                        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
                        "January", "February", "March", "April", "May", "June", "July", "August",
                        "September", "October", "November", "December"])
# ... nor, for a name said alone (`_one_named`), a capitalised opener of a sentence
_NOT_NAMES_MORE = frozenset(["Our", "My", "Your", "Their", "His", "Her", "Its", "What", "When", "Where", "Why", "How",
                             "Who", "Yes", "No", "Oh", "Ok", "Okay", "Well", "Thanks", "Thank", "Hi", "Hey", "Hello",
                             "Wow", "Yeah", "Yep", "Now", "Then", "Today", "Yesterday", "Tomorrow", "Last", "Next",
                             "Happy", "Christmas", "Easter", "Thanksgiving", "Halloween", "Not", "Only", "Still",
                             "Barely", "Maybe", "Pretty", "Honestly", "Anyway", "Sure", "Of", "For", "With", "On",
                             "In", "At", "After", "Before", "If", "Because", "Since", "Here", "There", "Some", "All"])
# Other people who could be in the "we": then it is not the couple
CROWD_RE = re.compile(
    r"(?i)\b(?:kids?|children|child|family|fam|friends?|son|sons|daughters?|baby|babies|toddler|parents|mom|dad"
    r"|mum|mother|father|brothers?|sisters?|siblings|cousins?|grandkids|grandchildren|team|class|band|choir|crew"
    r"|gang|group|club|guys|everyone|everybody|all\s+of\s+us|we\s+all|(?:three|four|five|six|few)\s+of\s+us"
    r"|coworkers|colleagues|neighbou?rs|roommates?|classmates|teammates)\b")
# A setting whose "we" is the people there, not the couple (session 14, we14b): work, school, a
# performance or a match. A partner named sessions ago is no companion of "we shipped the release".
SETTING_RE = re.compile(
    r"(?i)\b(?:(?:at|from|to|after|before|for)\s+work|work\s+(?:has|had|is|was|been|today|trip|party|event|meeting|stuff)|workplace|job"
    r"|office|boss|manager|coworkers?|co-workers?|colleagues?|clients?|customers?|company|startup|deadlines?"
    r"|meetings?|shift|conference|presentation|hackathon|quarterly|budget|sales"
    r"|school|lecture|professor|teachers?|students?|semester|exams?|homework"
    r"|rehearsals?|gigs?|match|tournament|league|competition|coach)\b")
# "we should ...", "we could ...", "let's": a proposal to the listener, the two speakers
_PROPOSAL_RE = re.compile(r"^\s*(?:should|could|can|must|might|gotta|need\s+to|have\s+to|ought)\b", re.IGNORECASE)
_CAPTION_RE = re.compile(r"\[[^\]]*\]")


def _spell(noun: str, name: str | None, speaker: str) -> str:
    if name:
        return name
    noun = noun.lower()
    return f"{speaker}'s {_SPELLED.get(noun, noun)}"


_WORD = r"[A-Z][a-zà-ÿ'’-]+"
_NOW = r"(?:(?:just|finally|officially|recently|now|happily)\s+)?"
# The couple said by what the two did (session 18): "Priya and I got engaged", "Ellen and I are
# going to Naples for our thirtieth anniversary", "I married Sam", "I'm engaged to Lucia"
_COUPLE_EVENT_RE = re.compile(
    rf"(?<![\w'’])(?P<a>{_WORD})\s+(?:and|&)\s+I\s+{_NOW}(?:got|get|are\s+getting|were|are|have\s+been|had\s+been)"
    rf"\s+{_NOW}(?:engaged|married|hitched)\b"
    rf"|\bI(?:['’]m|\s+am|\s+was|\s+got)?\s+{_NOW}(?:married|proposed\s+to|engaged\s+to|married\s+to)\s+(?P<b>{_WORD})\b"
    rf"|(?<![\w'’])(?P<c>{_WORD})\s+(?:and|&)\s+I\b[^.!?]*?\bour\s+(?:[\w-]+\s+){{0,2}}?(?:wedding|anniversary|honeymoon)\b")
# "... I owe her a nice anniversary trip. Our 40th is in June.": the speaker's own anniversary
# said about the one person the message names (and refers to as her/him)
_OUR_ANNIVERSARY_RE = re.compile(
    r"(?i)\bour\s+(?:[\w-]+\s+){0,2}?(?:wedding\s+)?anniversary\b"
    r"|\bour\s+(?:\d+(?:st|nd|rd|th)|[a-z]+(?:tieth|th|first|second|third))\b")
_PERSON_PRONOUN_RE = re.compile(r"(?i)\b(?:she|he|her|him)\b")
_PLACE_PREPS = frozenset(["in", "at", "to", "from", "near", "on", "the", "visit", "visiting", "of"])


def _name_ok(name: str | None, speaker: str) -> bool:
    return bool(name) and name not in _NOT_NAMES and name.casefold() != speaker.casefold()  # type: ignore[union-attr]


def _one_named(text: str, speaker: str) -> str | None:
    """The one person a message that says "our anniversary" / "our 40th" (with "anniversary")
    names and refers to as her/him: the partner. None when it names two or more, or none."""
    if not (_OUR_ANNIVERSARY_RE.search(text) and re.search(r"(?i)\banniversary\b", text)
            and _PERSON_PRONOUN_RE.search(text)):
        return None
    names = set()
    for m in re.finditer(r"(?<![\w'’])([A-Z][a-zà-ÿ-]+)\b(?!['’])", text):
        before = re.search(r"([A-Za-z]+)\W*$", text[:m.start()])
        if before and before.group(1).lower() in _PLACE_PREPS:
            continue
        if _name_ok(m.group(1), speaker) and m.group(1) not in _NOT_NAMES_MORE:
            names.add(m.group(1))
    return names.pop() if len(names) == 1 else None


def couple_in(text: str, speaker: str) -> str | None:
    """The partner `text` shows by what the speaker and one named person did as a couple (got
    engaged or married, "our anniversary"): "Priya and I got engaged" -> "Priya"; None when it
    names none or two different ones."""
    names = {n for m in _COUPLE_EVENT_RE.finditer(text)
             for n in (m.group("a"), m.group("b"), m.group("c")) if _name_ok(n, speaker)}
    if not names:
        one = _one_named(text, speaker)
        names = {one} if one else set()
    return names.pop() if len(names) == 1 else None


def partner_in(text: str, speaker: str) -> str | None:
    """The one partner `text` (the speaker's own words) names, spelled for a fact ("Ellen", or
    "Marco's wife" when unnamed); None when it names none or two different ones. A partner noun
    wins; without one, the couple's own news names the partner (`couple_in`, session 18)."""
    found: dict[str, str] = {}
    for m in _PARTNER_RE.finditer(_CAPTION_RE.sub(" ", text)):
        adj = m.group("adj") or m.group("adj2") or ""
        if adj and adj.strip(" -").lower() in ("ex", "former", "late", "future"):
            continue
        noun = m.group("noun") or m.group("noun2") or ""
        name = m.group("name") or m.group("name2")
        if name:  # the name's words up to a capitalised word that is no name ("my wife Ellen Saturday")
            words: list[str] = []
            for w in name.split():
                if w in _NOT_NAMES:
                    break
                words.append(w)
            name = " ".join(words) or None
        if name and name.casefold() == speaker.casefold():
            continue
        key = _SPELLED.get(noun.lower(), noun.lower())
        spelled = _spell(noun, name, speaker)
        # an unnamed "my wife" and a named "my wife Ellen" are the same person: the name wins
        if key in found and not found[key].startswith(f"{speaker}'s "):
            continue
        found[key] = spelled
    names = set(found.values())
    if not names:
        return couple_in(_CAPTION_RE.sub(" ", text), speaker)
    return names.pop() if len(names) == 1 else None


def antecedent(text: str, speaker: str, previous_turns: list[tuple[str | None, str]],
               known: str | None = None) -> str | None:
    """The partner of the speaker's "we": from the message, the speaker's previous turns (newest
    first), else `known` (what `PartnerTracker` remembered)."""
    for src in [text] + [t for s, t in reversed(previous_turns) if s and s.casefold() == speaker.casefold()]:
        got = partner_in(src, speaker)
        if got:
            return got
    return known or None


def named(text: str, speaker: str, previous_turns: list[tuple[str | None, str]],
          known: str | None = None) -> str | None:
    """The partner's name, from the same sources as `antecedent` (an unnamed "my wife" skipped)."""
    own = [t for s, t in reversed(previous_turns) if s and s.casefold() == speaker.casefold()]
    for got in [*(partner_in(src, speaker) for src in [text, *own]), known]:
        if got and not got.startswith(f"{speaker}'s "):
            return got
    return None


def usable(text: str, previous_turns: list[tuple[str | None, str]]) -> bool:
    """No other people who could be in the "we" are named in the message or the turns of the window
    before it (the listener's turn and the speaker's own one before that), and none of them is set
    at work, school, a performance or a match (`SETTING_RE`: that "we" is the people there)."""
    near = [_CAPTION_RE.sub(" ", t or "") for t in [text] + [t for _, t in previous_turns]]
    return not any(CROWD_RE.search(t) or SETTING_RE.search(t) for t in near)


def is_proposal(after: str) -> bool:
    """What follows "<S> and others" proposes something to the listener ("should", "could")."""
    return bool(_PROPOSAL_RE.match(after))


# The speaker's own children: once named, a later "we" may be the family as well as the couple
_KIDS_RE = re.compile(r"(?i)\b(?:my|our)\s+(?:\w+\s+)?(?:kids?|children|child|sons?|daughters?|baby|babies"
                      r"|toddlers?|little\s+ones|boys|girls|twins|grandkids|grandchildren)\b")


_COORD_RE = re.compile(rf"(?<![\w'’])({_WORD})\s+(?:and|&)\s+I\b")
_OUR_COUPLE_RE = re.compile(r"(?i)\bour\s+(?:[\w-]+\s+){0,2}?(?:wedding\s+)?anniversary\b|\bour\s+(?:wedding|honeymoon)\b")
PAIR_MIN = 2  # "Diane and I" said this many times, with "our anniversary" said: the partner


def _pair_partner(pairs: tuple[tuple[str, int], ...], couple: bool) -> str | None:
    """The speaker's usual "X and I" companion once the speaker has spoken of "our anniversary /
    wedding": one name said at least `PAIR_MIN` times, more often than any other (session 18)."""
    if not couple:
        return None
    top = sorted(pairs, key=lambda p: -p[1])
    if not top or top[0][1] < PAIR_MIN or (len(top) > 1 and top[1][1] == top[0][1]):
        return None
    return top[0][0]


class PartnerTracker:
    """Per (agent, speaker): the partner the speaker last named (a name replaces an unnamed "my
    wife"; a new name replaces an old one). `assign` gives each event what was known before it
    (None: nothing yet): "" once the speaker has also named children of their own ("my kids", "our son"), because
    then a "we" with nobody named nearby may as well be the family as the couple. Without a named
    partner, the speaker's usual "X and I" companion counts once "our anniversary" was said
    (`_pair_partner`, session 18: "Diane and I canned salsa" twice, "Our fortieth anniversary")."""

    def __init__(self) -> None:
        self._state: SessionLRU[tuple[str | None, bool]] = SessionLRU(lambda: (None, False))
        # per (agent, speaker): the "X and I" names with their counts, and whether "our anniversary" was said
        self._pairs: SessionLRU[tuple[tuple[tuple[str, int], ...], bool]] = SessionLRU(lambda: ((), False))
        # per event of the last `assign`: the partner known before it even when the speaker has named
        # children (session 18): the other one of a "we" about a couple matter (write/we_couple.py)
        self.couples: list[str | None] = []

    def assign(self, events: Iterable[Any]) -> list[str | None]:
        out: list[str | None] = []
        self.couples = []
        for e in events:
            speaker = (e.speaker or "").strip()
            key = (e.agent_id, speaker.casefold())
            known, kids = self._state.get(key)
            out.append("" if kids else known)  # "": not to be looked up in the store either
            self.couples.append(known)
            text = e.text or ""
            got = partner_in(text, speaker) if speaker else None
            if speaker and not got and not known:
                got = self._paired(key, _CAPTION_RE.sub(" ", text), speaker)
            if got and not (known and got.startswith(f"{speaker}'s ") and not known.startswith(f"{speaker}'s ")):
                known = got
            kids = kids or bool(_KIDS_RE.search(_CAPTION_RE.sub(" ", text)))
            if (known, kids) != self._state.get(key):
                self._state.set(key, (known, kids))
        self._state.trim()
        self._pairs.trim()
        return out

    def _paired(self, key: tuple[str, str], text: str, speaker: str) -> str | None:
        """Count the message's "X and I" names and its "our anniversary"; the usual companion
        when both are known (`_pair_partner`)."""
        pairs, couple = self._pairs.get(key)
        counts = dict(pairs)
        for m in _COORD_RE.finditer(text):
            if _name_ok(m.group(1), speaker) and m.group(1) not in _NOT_NAMES_MORE:
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        state = (tuple(counts.items()), couple or bool(_OUR_COUPLE_RE.search(text)))
        if state != (pairs, couple):
            self._pairs.set(key, state)
        return _pair_partner(*state)


_STORED = (
    "SELECT r.source_entity_key, r.rel_type, e.display_name, f.fact_text FROM memory_entity_relationships r "
    "JOIN memory_entities e ON e.agent_id = r.agent_id AND e.canonical_key = r.target_entity_key "
    "LEFT JOIN memory_facts f ON f.id = r.evidence_fact_id "
    "WHERE r.agent_id = :a AND r.source_entity_key = ANY(CAST(:k AS text[])) AND r.valid_to IS NULL "
    "AND r.invalidated_at IS NULL AND r.rel_type IN ('partner_of', 'family_of')"
)
_NOT_NOW_RE = re.compile(r"(?i)\b(?:ex|former|late)[\s-]")


def _we(text: str) -> bool:
    return bool(re.search(r"(?i)(?<![\w'’])(?:we|us|our)(?![\w'’])", text))


async def fill_from_store(conn: Any, agent_id: str, events: list[Any], found: list[str | None]) -> None:
    """A new pipeline (each write(), each import chunk) has tracked nothing yet: for events with a
    "we" and no partner in sight, the speaker's stored partner (a `partner_of` relationship from
    the speaker's entity, e.g. "Lucia is Marco's fiancée" of an earlier message), one query for
    the chunk on the (agent_id, source_entity_key) index. Nothing when the speaker has two
    current partners, an "ex"/"late" one only, or children on record (a `family_of` edge whose
    evidence says "S's son/daughter/kids": a "we" may then be the family)."""
    from arandu_pipelines.keys import entity_key

    idx = [i for i, p in enumerate(found) if p is None and events[i].speaker and _we(events[i].text or "")]
    if not idx:
        return
    keys = {entity_key("person", events[i].speaker): events[i].speaker for i in idx}
    from sqlalchemy import text

    res = await conn.execute(text(_STORED), {"a": agent_id, "k": sorted(keys)})
    partners: dict[str, set[str]] = {}
    kids: set[str] = set()
    for key, rel, name, evidence in res.all():
        speaker = keys.get(key, "")
        if rel == "family_of":
            if evidence and re.search(rf"(?i){re.escape(speaker)}['’]s\s+(?:\w+\s+)?(?:kids?|children|child|sons?"
                                      r"|daughters?|baby|twins)\b", evidence):
                kids.add(key)
        elif name and not (evidence and _NOT_NOW_RE.search(evidence)):
            partners.setdefault(key, set()).add(name)
    for i in idx:
        key = entity_key("person", events[i].speaker)
        if key not in kids and len(partners.get(key, ())) == 1:
            found[i] = next(iter(partners[key]))


__all__ = ["CROWD_RE", "PARTNER_NOUNS", "SETTING_RE", "PartnerTracker", "antecedent", "fill_from_store", "is_proposal", "named", "partner_in", "usable"]
