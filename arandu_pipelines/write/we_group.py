"""Who the speaker's "we" is, when the conversation says it (issue 19, session 12).

The person rewrite (`extract_rules.rewrite_en`) turns the speaker's "we/us" into "<S> and
others": true, but a careful note-taker writes who "we" is when the conversation names it. "My
kids are so excited about summer break! We're thinking about going camping" is about Melanie
and her kids, so the fact becomes "Melanie and Melanie's kids are thinking about going camping"
(which write/own_possessive.py, last, writes "Melanie and their kids ...").

The group comes from, in this order (the first source that names one wins):

1. the message itself, then
2. the speaker's own previous turn(s) in the session window (`ExtractionContext.previous_turns`,
   newest first): what "we" referred to a moment ago.

Within a source, three tiers, strongest first: a coordination with the speaker ("my husband and
I", "me and my kids", "the kids and I"; any group or single relative noun), a collective owned by
"our" ("our family", "our team"), and a plural group noun with "my"/"the" ("my kids", "the
gang", "my friends and family"). Two different groups in the deciding tier are ambiguous: the
fact keeps "and others". Image captions ("[shared a photo: ... two children ...]") are not the
speaker's words and are ignored.

"<S> and others" stays when:
- nothing names the group (a generic "we": "Art's awesome for showing us who we really are");
- it is not a clause subject: an object "us" ("reminding us", "give us strength", "root for us")
  is nearly always people in general, the spec's "we ... only where it is a fact about them";
- the fact already names the group ("we went camping with the kids": "Melanie and Melanie's
  kids went camping with the kids" would say it twice; "a day out with the gang - Caroline and
  the gang went biking" too: there "others" already reads as the gang);
- it is followed by a generic apposition ("us trans people", "we humans");
- it is the speaker and the listener: "since we last talked", "we met", "we both ..." (a
  group of two, which a named plural group is not).

"We both" / "since we last talked" in a message that names no group, right after the listener's
own "we/us", is the two of them: "Gina and Jon are both on different paths" (`_pair`). Once a
group is named, a "their" that write/readability.py wrote for the speaker's "my" (the subject was
plural) goes back to the speaker: "... celebrated Melanie's daughter's birthday" (`_own_their`).

No gendered pronoun is written: the group is spelled with the speaker's name ("Melanie's
kids") or as the conversation said it ("the kids"). English only: Portuguese "nós" keeps
"<S> e outros".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from arandu_pipelines.write.chat_forms import SPELLINGS
from arandu_pipelines.write.types import ExtractedFact

# Plural or collective nouns that name a group the speaker belongs to (a chat form such as "fam" is
# spelled for the fact by `chat_forms.SPELLINGS`, as every other fact word is).
GROUP_NOUNS = frozenset([
    "kids", "children", "family", "fam", "friends", "team", "class", "parents", "folks", "siblings",
    "brothers", "sisters", "band", "crew", "gang", "teammates", "classmates", "roommates", "cousins",
    "grandkids", "grandchildren", "family members",
])
# Collectives that "our" names as the group itself ("our family" is we; "our kids" is not).
COLLECTIVES = frozenset(["family", "fam", "team", "class", "band", "crew", "gang"])
# One person: a group with the speaker only when coordinated with I/me ("my husband and I").
SINGLE_NOUNS = frozenset([
    "husband", "hubby", "wife", "partner", "boyfriend", "girlfriend", "fiance", "fiancé", "fiancee", "fiancée",
    "spouse", "mom", "dad", "mother", "father", "brother", "sister", "son", "daughter", "roommate",
    "best friend", "bestie",
])
_PET_NAMES = {"hubby": "husband"}  # a pet name of a single noun, spelled out in the fact


def _spelled(noun: str) -> str:
    """How the fact writes a group or single noun of the message."""
    return _PET_NAMES.get(noun) or SPELLINGS.get(noun) or noun


def _alt(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_G = _alt(GROUP_NOUNS)
_ANY = _alt([*GROUP_NOUNS, *SINGLE_NOUNS])
_NP = rf"(?P<n>(?:{_ANY})(?:\s+and\s+(?:my\s+)?(?:{_ANY}))?)"
_TIERS: tuple[re.Pattern[str], ...] = (
    # "my husband and I", "the kids and me", "me and my family", "I and my friends"
    re.compile(rf"(?i)\b(?P<d>my|the)\s+{_NP}\s+(?:and|&)\s+(?:I|me)\b"
               rf"|\b(?:I|me)\s+(?:and|&)\s+(?P<d2>my|the)\s+(?P<n2>(?:{_ANY})(?:\s+and\s+(?:my\s+)?(?:{_ANY}))?)\b"),
    # "our family camping trip", "our team"
    re.compile(rf"(?i)\bour\s+(?P<n>{_alt(COLLECTIVES)})\b"),
    # "my kids", "the gang", "my friends and family"
    re.compile(rf"(?i)\b(?P<d>my|the)\s+(?P<n>(?:{_G})(?:\s+and\s+(?:my\s+)?(?:{_G}))?)\b"),
)
_CAPTION_RE = re.compile(r"\[[^\]]*\]")
# Words after which "<S> and others" opens a clause (so it stands for a subject "we").
_CLAUSE_OPENERS = frozenset([
    "", "and", "but", "so", "when", "after", "before", "while", "because", "since", "until", "that",
    "if", "as", "then", "where", "once", "though", "although", "-", ",", ";", ":", "–", "—",
])
_GENERIC_AFTER_RE = re.compile(
    r"^\s*(?:\w+\s+){0,2}(?:people|folks|humans|women|men|guys|adults|individuals)\b", re.IGNORECASE)
# "we" that is the speaker and the listener, not the group: "since we last talked", "we both ..."
_TWO_OF_US_RE = re.compile(
    r"^\s*(?:(?:are|were|have|had)\s+)?(?:(?:last|first|just|both)\s+)?(?:talked|spoke|chatted|met|caught up|texted|both)\b", re.IGNORECASE)


_WE_RE = re.compile(r"(?i)(?<![\w'’])we(?:['’](?:re|ve|ll|d))?(?![\w'’])")


def has_we(text: str) -> bool:
    """Whether `text` has a subject "we" this module could name (cheap: regex only), so that
    the pipeline looks up the speaker's previous turn for a chunk's first message."""
    return bool(_WE_RE.search(text))


def _spell(noun: str, owned: bool, speaker: str) -> str:
    words = [w for w in re.split(r"\s+and\s+", noun.strip(), flags=re.IGNORECASE)]
    names = []
    for w in words:
        w = re.sub(r"(?i)^my\s+", "", w).lower()
        names.append(_spelled(w))
    phrase = " and ".join(names)
    return f"{speaker}'s {phrase}" if owned else f"the {phrase}"


def group_in(text: str, speaker: str) -> str | None | Literal[False]:
    """The group `text` names for its speaker's "we" (spelled for a fact), None when it names
    none, False when its deciding tier names two different groups (ambiguous)."""
    text = _CAPTION_RE.sub(" ", text)
    for tier, rx in enumerate(_TIERS):
        found: dict[str, str] = {}
        for m in rx.finditer(text):
            d = m.groupdict()
            noun = d.get("n") or d.get("n2") or ""
            det = (d.get("d") or d.get("d2") or ("our" if tier == 1 else "")).lower()
            spelled = _spell(noun, det in ("my", "our"), speaker)
            found.setdefault(spelled.lower().replace("the ", f"{speaker.lower()}'s ", 1), spelled)
        if len(found) == 1:
            return next(iter(found.values()))
        if len(found) > 1:
            return False
    return None


def antecedent(text: str, speaker: str, previous_turns: list[tuple[str | None, str]]) -> str | None:
    """Who the speaker's "we" is besides the speaker: from the message, else from the speaker's
    previous turns in the window (newest first); None when nothing (unambiguous) says it."""
    sources = [text] + [t for s, t in reversed(previous_turns) if s and s.casefold() == speaker.casefold()]
    for src in sources:
        got = group_in(src, speaker)
        if got is False:
            return None
        if got:
            return got
    return None


def _nouns_of(group: str) -> list[str]:
    out = []
    for k in (*GROUP_NOUNS, *SINGLE_NOUNS):
        if re.search(rf"(?i)\b{re.escape(_spelled(k))}\b", group):
            out.append(k)
    return out


def name_group(text: str, speaker: str, group: str) -> str:
    """`text` with each subject "<speaker> and others" spelled "<speaker> and <group>" where the
    rules above allow it (see the module docstring): nothing changes when `text` names the group."""
    marker = f"{speaker} and others"
    nouns = _alt(_nouns_of(group))
    out, pos = [], 0
    for m in re.finditer(re.escape(marker) + r"\b", text):
        before = text[:m.start()].rstrip()
        prev = re.search(r"([\w'’]+|[^\w\s])$", before)
        prev_word = prev.group(1).lower() if prev else ""
        after = text[m.end():]
        if (prev_word not in _CLAUSE_OPENERS or _GENERIC_AFTER_RE.match(after) or _TWO_OF_US_RE.match(after)
                or (nouns and re.search(rf"(?i)\b(?:{nouns})\b", text))):
            continue
        out.append(text[pos:m.start()])
        out.append(f"{speaker} and {group}")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


# "we" that is the speaker and the listener and says so: "we're both ...", "since we last talked"
# ("we met ..." is left: "we met the neighbours" is a group)
_PAIR_RE = re.compile(r"^\s*(?:(?:are|were|have|had)\s+)?(?:both\b|(?:(?:last|first|just)\s+)?"
                      r"(?:talked|spoke|chatted|caught\s+up)\b)", re.IGNORECASE)


def _pair(facts: list[ExtractedFact], marker: str, pair: str) -> int:
    """A fact whose "<S> and others" opens a clause with "both"/"talked" is about the two
    speakers ("We're both on different paths, but it's nice to have someone to root for us"):
    every "<S> and others" of it becomes "<S> and <addressee>" (session 12, defect12b)."""
    changed = 0
    for f in facts:
        if any(_PAIR_RE.match(f.fact_text[m.end():]) for m in re.finditer(re.escape(marker) + r"\b", f.fact_text)):
            f.fact_text = re.sub(re.escape(marker) + r"\b", pair, f.fact_text)
            changed += 1
    return changed


_SHARED_RE = re.compile(r"(?i)(?<![\w'’])(?:we|we['’](?:re|ve|ll|d)|us)(?![\w'’])")


def _shared(previous_turns: list[tuple[str | None, str]], addressee: str) -> bool:
    """The listener's turn just before spoke of the two of them ("It's great we both face the
    same challenges"): then the speaker's "we both" is the pair. Without it "we both" is
    often the speaker's own group ("Y'all work on it together?" - "We both helped", the
    speaker and a child)."""
    if not previous_turns:
        return False
    who, prev = previous_turns[-1]
    return (who or "").strip() == addressee and bool(_SHARED_RE.search(_CAPTION_RE.sub(" ", prev or "")))


def apply(facts: list[ExtractedFact], text: str, speaker: str,
          previous_turns: list[tuple[str | None, str]], addressee: str = "") -> int:
    """Name the group of the speaker's "we" in `facts` (in place); how many facts changed.
    `addressee`: the listener, for a "we both" of a message that names no group of its own."""
    marker = f"{speaker} and others"
    if not any(marker in f.fact_text for f in facts):
        return 0
    changed = 0
    if addressee and addressee != speaker and group_in(text, speaker) is None and _shared(previous_turns, addressee):
        changed += _pair(facts, marker, f"{speaker} and {addressee}")
    group = antecedent(text, speaker, previous_turns)
    if not group:
        return changed
    for f in facts:
        if marker in f.fact_text:
            new = name_group(f.fact_text, speaker, group)
            if new != f.fact_text:
                f.fact_text = _own_their(new, speaker, f.source_text or "")
                changed += 1
    return changed


def _own_their(text: str, speaker: str, source: str) -> str:
    """A "their" written for the speaker's "my" while the subject was "<S> and others"
    (write/readability.py gives a plural subject "their") reads as the named group's once the
    group is named: "Melanie and Melanie's kids celebrated their daughter's birthday" (the
    speaker's daughter: "my daughter's birthday") -> "... celebrated Melanie's daughter's
    birthday". Only a "their W" whose source says "my W" and never "our W" or "their W"."""
    def fix(m: re.Match[str]) -> str:
        w = m.group(1)
        mine = re.search(rf"(?i)\bmy\s+{re.escape(w)}\b", source)
        other = re.search(rf"(?i)\b(?:our|their)\s+{re.escape(w)}\b", source)
        return f"{speaker}'s {w}" if mine and not other else m.group(0)

    return re.sub(r"\btheir\s+([\w'’-]+)", fix, text)


__all__ = ["COLLECTIVES", "GROUP_NOUNS", "SINGLE_NOUNS", "antecedent", "apply", "group_in", "has_we", "name_group"]
