"""A result said as a fragment: "How did the race go?" + "4 hours, 12 minutes! Under my goal!".

`qa_pairs` fills a question's wh-slot with the answer's fragment, but "how" + "go" asks for a
judgement ("How did it go?" + "So fun!") and is skipped there. One kind of answer to it is no
judgement but a result a careful listener writes down: a time ("2 hours, 9 minutes") or a place
in a ranking ("Third place", "2nd"). Only these two shapes are taken, both told by their words
alone (a number + a unit of time, an ordinal + "place"), so "Great!", "Rough, honestly" and "Not
bad" give nothing. The fact says what the answerer did: "S finished <the thing> in <time>" /
"S finished <the thing> in third place"; the thing is the question's subject ("the race", "your
first triathlon" -> "the first triathlon"; "it" -> the one noun the answerer's previous turn
named), left out when unresolved ("S finished in 2 hours and 9 minutes").

A short prepositional fragment right after the result ("Under my goal!", "Out of forty.") says
how the result compares; it is appended to the fact (`comparison`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_NUM = (r"(?:\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
        r"thirteen|fourteen|fifteen|twenty|thirty|forty|fifty|sixty|(?:twenty|thirty|forty|fifty)-\w+)")
_UNIT = r"(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)"
# "4 hours, 12 minutes", "one hour and thirty-eight minutes", "just under 3 hours", "2:09:45"
DURATION_RE = re.compile(
    rf"(?i)^(?:(?:just|a\s+bit|a\s+little|about|around|roughly|almost|nearly)\s+)?(?:(?:under|over)\s+)?"
    rf"(?:{_NUM}\s+{_UNIT}(?:(?:\s*,\s*|\s+and\s+){_NUM}\s+{_UNIT}){{0,2}}|\d{{1,2}}:\d\d(?::\d\d)?)$")
_ORDINAL = (r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|last|"
            r"\d{1,3}(?:st|nd|rd|th))")
PLACE_RE = re.compile(rf"(?i)^(?:(?:tied\s+for|joint)\s+)?{_ORDINAL}(?:\s+place)?(?:\s+overall)?$")
# the question: "How did the race / it / your first triathlon go?"
QUESTION_RE = re.compile(r"(?i)^(?:[^,?]*,\s*)?how\s+did\s+(?:it|that|the\s+[\w\s'’-]+|your\s+[\w\s'’-]+)\s+go\b")
# a comparison said right after the result: "Under my goal!", "Out of forty.", "Ahead of my brother!"
COMPARISON_RE = re.compile(
    r"(?i)^(?:(?:just|well|way|still|even)\s+)?(?:under|over|below|above|ahead\s+of|out\s+of|behind|beating|"
    r"faster\s+than|slower\s+than|better\s+than)\s+[\w\s'’-]{1,40}$")
_COMPARISON_WORDS = 7


def is_result(filler: str) -> bool:
    """A time or a ranking place, by its words alone."""
    f = filler.strip(" .!?…")
    return bool(DURATION_RE.match(f) or PLACE_RE.match(f))


def asks_how_it_went(question: str) -> bool:
    return bool(QUESTION_RE.match(question.strip()))


def result_fact(root: Any, subj: Any, filler: str, speaker: str,
                resolve: Callable[[bool], str | None]) -> tuple[str, str] | None:
    """"How did the race go?" + "Third place" -> "S finished the race in third place"; None
    when the question is no "how did X go" or the filler no result."""
    if root.lower_ != "go" or subj is None or not any(c.dep_ == "aux" and c.lower_ == "did" for c in root.children):
        return None
    f = filler.strip(" .!?…")
    if DURATION_RE.match(f):
        value = and_units(f)
    elif PLACE_RE.match(f):
        overall = re.search(r"(?i)\s+overall$", f)
        f = f[:overall.start()] if overall else f
        value = (f if re.search(r"(?i)\bplace\b", f) else f"{f} place") + (" overall" if overall else "")
        value = value[:1].lower() + value[1:]
    else:
        return None
    thing = _thing(subj, speaker, resolve)
    if thing is None:
        return None
    done = f"{speaker} finished {thing} in {value}" if thing else f"{speaker} finished in {value}"
    return re.sub(r"\s+", " ", done), "how_result"


def _thing(subj: Any, speaker: str, resolve: Callable[[bool], str | None]) -> str | None:
    """The question's subject as the thing the answerer finished: "" when "it" is unresolved,
    None for someone else's thing ("How did Jon's race go?")."""
    if subj.lower_ in ("it", "that"):
        got = resolve(False)
        if not got:
            return ""
        return "the " + re.sub(rf"^{re.escape(speaker)}'s\s+", "", got)
    if subj.pos_ not in ("NOUN", "PROPN"):
        return None
    if any(c.dep_ == "poss" and c.lower_ != "your" for c in subj.children):
        return None
    words = "".join(t.text_with_ws for t in subj.subtree if not t.is_punct and t.dep_ not in ("det", "poss"))
    return "the " + words.strip()


def and_units(duration: str) -> str:
    """"4 hours, 12 minutes" -> "4 hours and 12 minutes"."""
    return re.sub(rf"(?i)({_UNIT})\s*,\s*(?={_NUM}\s+{_UNIT})", r"\1 and ", duration)


def comparison(text: str, opening: str, speaker: str) -> str:
    """The short comparison sentence right after the opening ("Under my goal!"), in the
    answerer's words ("under S's goal"); "" when the next sentence is no such fragment."""
    at = text.find(opening)
    if at < 0:
        return ""
    m = re.match(r"\s*([^.!?…]+)[.!?…]*", text[at + len(opening):])
    if m is None:
        return ""
    said = m.group(1).strip()
    if not COMPARISON_RE.match(said) or len(said.split()) > _COMPARISON_WORDS:
        return ""
    if re.search(r"(?i)\b(?:you|your|he|she|they|we|it|i)\b", said):
        return ""  # a pronoun that would need its own reading
    said = re.sub(r"(?i)\b(?:my|mine)\b", f"{speaker}'s", said)
    return said[:1].lower() + said[1:]


# "you two" / "you both" as a subject: the answerer and the one person they paired themselves with
_ME_PAIR_RES = (re.compile(r"\b((?:[Mm]y\s+)?[A-Za-z][\w'’-]*)\s+and\s+(?:I|me)\b"),
                re.compile(r"\b(?:I|[Mm]e)\s+and\s+((?:my\s+)?[A-Za-z][\w'’-]*)"))
_YOU_PAIR_RES = (re.compile(r"(?i)\b((?:your\s+)?[a-z][\w'’-]*)\s+and\s+you\b"),
                 re.compile(r"(?i)\byou\s+and\s+((?:your\s+)?[a-z][\w'’-]*)"))


def you_two(own_turn: str | None, asked_before: str, speaker: str) -> str | None:
    """Who "you two" is: "S's brother and S" when the asker's words before the question ("You and
    your brother play every week?") or else the answerer's previous turn ("My brother and I have a
    game night") pair the answerer with exactly one person -- a relation or pet noun after
    "my"/"your", or a capitalised name; None otherwise."""
    from arandu_pipelines.write.lexicon import PET_TERMS_EN, REL_TERMS_EN

    for text, pats, owner in ((asked_before, _YOU_PAIR_RES, "your"), (own_turn or "", _ME_PAIR_RES, "my")):
        found: list[str] = []
        for pat in pats:
            for m in pat.finditer(text):
                if re.search(r"(?i)(?:,|\band)\s*$", text[:m.start()]) or re.match(r"(?i)\s*(?:,|and\b)", text[m.end():]):
                    return None  # three or more people: "my dad, my uncle and I"
                said = m.group(1)
                words = said.split()
                if len(words) == 2:
                    if words[0].lower() != owner or words[1].lower() not in REL_TERMS_EN \
                            and words[1].lower() not in PET_TERMS_EN:
                        continue
                    found.append(f"{speaker}'s {words[1]}")
                elif said[:1].isupper() and said.lower() not in _NOT_NAMES and said.casefold() != speaker.casefold():
                    found.append(said)
        found = list(dict.fromkeys(found))
        if len(found) == 1:
            return f"{found[0]} and {speaker}"
        if found:
            return None
    return None


# capitalised words before "and I" that are no person ("Then", "Yesterday and I ...")
_NOT_NAMES = frozenset({"then", "so", "and", "but", "yesterday", "today", "tonight", "now", "yes", "yeah", "oh",
                        "well", "also", "you", "we", "they", "he", "she", "it", "my", "your", "i", "me"})
