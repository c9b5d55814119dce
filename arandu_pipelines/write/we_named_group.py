"""The name the speaker gave their own group: whose "our" is it after that name (issue 19, session 18).

Lena runs a choir: "I called the choir Harbor Voices" (one session) ... "Harbor Voices gave our
first concert last Sunday" (a later one). The person rewrite writes every "our" as the speaker's
("Harbor Voices gave Lena's first concert"); a reader writes "Harbor Voices gave its first
concert". And "We raised nine hundred dollars" right after is the choir's news too ("Lena and
Harbor Voices raised ...").

`names_in` finds, by a closed grammar (regex, no parse), the names a speaker gives a collective of
theirs (`GROUP_NOUNS`: choir, band, team, club ...):

- "I called / named the choir Harbor Voices";
- "my band, the Null Pointers", "our team is called the Null Pointers";
- "Harbor Voices, my choir";
- "we're called the Null Pointers".

`GroupNameTracker` keeps them per (agent, speaker) across sessions (bounded like the other
trackers); they reach extraction as `ExtractionContext.group_names`. `its_our` rewrites "<Name> ...
S's W" back to "<Name> ... its W" where the message said "<Name> ... our W" in one clause;
write/we_group.py treats a group name said in the message or the speaker's previous turn as the
group of "we".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from arandu_pipelines.write.session_state import SessionLRU

GROUP_NOUNS = ("choir", "chorus", "orchestra", "band", "team", "club", "troupe", "squad", "ensemble", "crew",
               "quartet", "trio", "league", "group")
MAX_NAMES = 20  # per speaker
_N = "|".join(GROUP_NOUNS)
_NAME = r"(?P<name>(?:[Tt]he\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})"
_FORMS = (
    re.compile(rf"(?i:\b(?:called|named|call|name)\s+(?:the|my|our|it)\s+(?:[a-z-]+\s+)?(?:{_N})\s+){_NAME}"),
    re.compile(rf"(?i:\b(?:my|our)\s+(?:[a-z-]+\s+)?(?:{_N})(?:,\s+|\s+(?:is|was)\s+(?:called|named)\s+)){_NAME}"),
    re.compile(rf"{_NAME},\s+(?i:(?:my|our)\s+(?:[a-z-]+\s+)?(?:{_N}))\b"),
    re.compile(rf"(?i:\bwe(?:['’]re|\s+are)\s+(?:now\s+)?(?:called|named)\s+){_NAME}"),
)
_NOT_NAMES = frozenset(["I", "We", "It", "This", "That", "And", "But", "So", "The", "My", "Our"])
_CAPTION_RE = re.compile(r"\[[^\]]*\]")


def names_in(text: str) -> list[str]:
    """The names `text` gives the speaker's own group, in order."""
    out: list[str] = []
    text = _CAPTION_RE.sub(" ", text)
    for rx in _FORMS:
        for m in rx.finditer(text):
            name = re.sub(r"^The\s+", "the ", m.group("name").strip())
            if name.split()[0] in _NOT_NAMES and len(name.split()) == 1:
                continue
            if name not in out:
                out.append(name)
    return out


def _pattern(name: str) -> str:
    """A stored name as said in a text: "the Null Pointers" also as "The Null Pointers"."""
    bare = name.removeprefix("the ")
    art = r"(?:[Tt]he\s+)" + ("" if bare != name else "?")
    return rf"(?<![\w'’]){art}{re.escape(bare)}(?![\w'’])"


def named_in(text: str, names: Iterable[str]) -> str | None:
    """The one known group name `text` says (None: none, or two)."""
    found = {n for n in names if re.search(_pattern(n), _CAPTION_RE.sub(" ", text))}
    return found.pop() if len(found) == 1 else None


def its_our(fact: str, source: str, speaker: str, names: Iterable[str]) -> str:
    """"Harbor Voices gave Lena's first concert" -> "... its first concert" where the message
    said "Harbor Voices gave our first concert" (the name and "our" in one clause)."""
    for name in names:
        for m in re.finditer(rf"{_pattern(name)}[^.!?,;:]*?\bour\s+(?P<w>[\w-]+)", source):
            w = re.escape(m.group("w"))
            fact = re.sub(rf"({_pattern(name)}[^.!?,;:]*?)\b{re.escape(speaker)}['’]s\s+(?={w}\b)",
                          r"\1its ", fact)
    return fact


class GroupNameTracker:
    """Per (agent, speaker): the names the speaker gave their own groups, most recent last;
    `assign` gives each event the names known before it and after it (its own message counts)."""

    def __init__(self) -> None:
        self._state: SessionLRU[tuple[str, ...]] = SessionLRU(tuple)

    def assign(self, events: Iterable[Any]) -> list[tuple[str, ...]]:
        out: list[tuple[str, ...]] = []
        for e in events:
            key = (e.agent_id, (e.speaker or "").strip().casefold())
            known = self._state.get(key)
            new = [n for n in names_in(e.text or "") if n not in known]
            if new:
                known = (*known, *new)[-MAX_NAMES:]
                self._state.set(key, known)
            out.append(known)
        self._state.trim()
        return out


__all__ = ["GROUP_NOUNS", "GroupNameTracker", "its_our", "named_in", "names_in"]
