"""The partner as the other one of "we" for a couple matter (issue 19, session 18).

write/we_partner.py made the partner the last resort of "we" only where nothing else could be in
it: no kids, family or friends named nearby, no work or school setting, no children named by the
speaker ever. A reader of the conversation does better: when Marcus (engaged to Priya) says "We
settled on about ninety guests" or answers "How are the catering tastings going?" with "We did the
first two", the "we" is Marcus and Priya, even though his previous turn spoke of "my team" and
another one said "I'm taking that job very seriously". This module decides, per fact, that a
"we" is about a couple matter:

- the fact itself speaks of one (`COUPLE_MATTER_RE`: wedding, venue, guests, catering, tastings,
  engagement, honeymoon, anniversary, vows, first date, nursery, baby shower ...), or
- the listener's turn it answers does, or asks about "you two", or names the partner ("Ellen has
  her gelato mission" ... "We booked a pizza course").

Then the partner (`ExtractionContext.couple_partner`: known also when the speaker has named
children, which keeps the plain `partner` empty) names the "we" regardless of the crowd / setting
words that block the plain partner rule, unless the message names another companion of the "we"
("we went with a guide from the gym": `other_companion`) or a group of its own (write/we_group.py
decides that first). "our" + a couple matter ("Our 40th is in June", "our wedding") is the
couple's: "Howard and Judy's 40th is in June" (`couple_our`).

Regex only (no parse): the cost is a scan of the facts of messages that hold "S and others" or
"S's" + a couple noun.
"""

from __future__ import annotations

import re

from arandu_pipelines.write.we_partner import CROWD_RE, SETTING_RE

# What only a couple has: the other one of its "we" is the partner whoever else is around
COUPLE_MATTER_RE = re.compile(
    r"(?i)\b(?:weddings?|engage(?:d|ment)|honeymoon|anniversary|vows|first\s+date|date\s+night|newlyweds?"
    r"|bridal)\b")
# What a couple plans together, but a family or friends may too ("We booked the venue" after "My son
# ...", "Are your friends coming?"): the partner only when no such people are named nearby
PLANNING_RE = re.compile(
    r"(?i)\b(?:venues?|guest\s+list|guests|catering|caterers?|tastings?|save[- ]the[- ]dates?|nursery"
    r"|baby\s+shower|due\s+date|registry)\b")
# The speaker's family named in their own earlier turn: a "we" may be the family
_FAMILY_RE = re.compile(
    r"(?i)\b(?:kids?|children|child|family|fam|sons?|daughters?|baby|babies|toddlers?|grandkids|grandchildren"
    r"|grand(?:son|daughter)s?|parents)\b")
_YOU_TWO_RE = re.compile(r"(?i)\byou\s+two\b|\byou\s+both\b|\bboth\s+of\s+you\b|\bthe\s+two\s+of\s+you\b")
# "we went with a guide", "we were with Dev": someone else is in the "we"
_COMPANION_RE = re.compile(
    r"(?i)(?<![\w'’])we(?:['’](?:re|ve|d))?(?![\w'’])[^.!?]{0,40}?\bwith\s+"
    r"(?P<who>(?:a|an|the|my|some|two|three|four|a\s+few|\d+)\b|(?-i:[A-Z][a-zà-ÿ'’-]+))")
# "our" + what a couple has together: "our wedding", "our 40th", "our first date"
_OUR_COUPLE_RE = re.compile(
    r"(?i)\bour\s+(?P<p>(?:[\w-]+\s+){0,2}?(?:wedding|anniversary|honeymoon|engagement(?:\s+party)?|vows"
    r"|first\s+date)\b|\d+(?:st|nd|rd|th)\b|[a-z]+(?:tieth|eth)\b)")
_CAPTION_RE = re.compile(r"\[[^\]]*\]")


def listener_turn(speaker: str, previous_turns: list[tuple[str | None, str]]) -> str:
    """The turn the message answers: the last previous turn, when another speaker said it."""
    if not previous_turns:
        return ""
    who, text = previous_turns[-1]
    return "" if not who or who.casefold() == speaker.casefold() else _CAPTION_RE.sub(" ", text or "")


def is_couple_matter(fact: str, text: str, speaker: str, previous_turns: list[tuple[str | None, str]],
                     partner: str) -> bool:
    """The fact's "we" is about a couple matter: the fact or the listener's turn it answers names
    one (`COUPLE_MATTER_RE`), asks "you two", or names the partner; or either names a plan a
    couple makes (`PLANNING_RE`) and neither the message nor the listener's turn names other
    people who could be in the "we" (write/we_partner.CROWD_RE), nor the speaker's own earlier
    turn in the window their family."""
    listener = listener_turn(speaker, previous_turns)
    own = partner if "'" not in partner else ""
    if COUPLE_MATTER_RE.search(fact) or (listener and (
            COUPLE_MATTER_RE.search(listener) or _YOU_TWO_RE.search(listener)
            or (own and re.search(rf"\b{re.escape(own)}\b", listener)))):
        return True
    if not (PLANNING_RE.search(fact) or PLANNING_RE.search(listener)) or SETTING_RE.search(fact):
        return False  # "we booked our first catering job": a business's "we"
    earlier = [_CAPTION_RE.sub(" ", t or "") for s, t in previous_turns if s and s.casefold() == speaker.casefold()]
    return not (CROWD_RE.search(_CAPTION_RE.sub(" ", text)) or CROWD_RE.search(listener)
                or any(_FAMILY_RE.search(t) for t in earlier[-1:]))


def other_companion(text: str, partner: str) -> bool:
    """The message names someone else who is in its "we" ("we went with a guide"); the
    partner "with" the speaker is no other companion."""
    for m in _COMPANION_RE.finditer(_CAPTION_RE.sub(" ", text)):
        if m.group("who") != partner:
            return True
    return False


def couple_our(fact: str, source: str, speaker: str, partner: str) -> str:
    """"S's 40th is in June" (from "Our 40th is in June", with "anniversary" in the message),
    "S's wedding" (from "our wedding") -> "S and <partner>'s ...". A bare ordinal counts only when
    the message speaks of an anniversary. Only for a named partner."""
    if "'" in partner:
        return fact
    src = _CAPTION_RE.sub(" ", source)
    for m in _OUR_COUPLE_RE.finditer(src):
        phrase = m.group("p")
        if not re.search(r"(?i)wedding|anniversary|honeymoon|engagement|vows|date", phrase) and not re.search(
                r"(?i)\banniversary\b", src):
            continue
        fact = re.sub(rf"\b{re.escape(speaker)}['’]s\s+(?={re.escape(phrase)}\b)", f"{speaker} and {partner}'s ",
                      fact, flags=re.IGNORECASE)
    return fact


__all__ = ["COUPLE_MATTER_RE", "PLANNING_RE", "couple_our", "is_couple_matter", "listener_turn", "other_companion"]
