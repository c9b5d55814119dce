"""Third-party news subjects the rules did not read as anyone's (session 14, branch subjects14).

Held-out chat lost whole news sentences about third parties: no fact, no drop. Three forms:

- **The speaker's own "the X"** (`own_the`): "The baby is due September 20th", "The kids loved the
  beach". A sentence-initial "The <noun>" in a statement, where the noun is one a speaker owns
  (`OWNED`: kin such as baby / kids / twins, pets, house, garden, car) and the next word is no
  preposition or relative that says which one ("the dog at the park", "the kids next door", "the
  baby who cried"), is read as "My <noun>" (the rules then write "S's baby ..."). Not when the
  message introduced that noun with another determiner ("a dog", "your kids", "their house"):
  then "the X" is that one. Questions are left alone (kin_antecedents reads the other speaker's
  question). "The doctor", "the team" never: they are not owned nouns.
- **Expletive first time** (`first_time`): "This was the first time Brookfield made the
  semifinals since 1998", "It was the first time my son rode a bike" -> "Brookfield made the
  semifinals for the first time since 1998", "My son rode a bike for the first time". The
  ordinal is kept (first / second / third / last); a trailing "since ..." stays after the
  phrase. Only when what follows "time" starts with a subject (a pronoun, "my/our X", a
  capitalised name), not "in years" / "ever".
- **A name never seen before as the subject** (`person_subject`): "Nora arrived on the 9th" --
  a sentence-initial proper name followed by a lower-case word was skipped by
  `extract_rules._scan_entities` (a capitalised first word is usually no name). When spaCy NER
  (the chunk's parses, `ner` only) types it PERSON, it is typed a person, so the generic rule
  writes a name fact as it does for "Priya's mom ...". Gated: English, the next word is a
  lower-case word, the name is not a month/weekday or discourse word (`_is_name` in the rules).

The two rewrites run inside `people_forms.rewrite` (same restore of the original sentences).
"""

from __future__ import annotations

import re
from typing import Any

STAGE = "subject_forms"

OWNED = frozenset({
    "baby", "babies", "kids", "kid", "twins", "children", "toddler", "newborn", "little one", "little ones",
    "dog", "dogs", "cat", "cats", "puppy", "puppies", "kitten", "kittens", "pup",
    "house", "garden", "car", "yard", "apartment", "flat",
})
_NOUN_ALT = "|".join(sorted((re.escape(n) for n in OWNED), key=len, reverse=True))
_THE_RE = re.compile(r"^(?P<lead>\s*)The\s+(?P<noun>" + _NOUN_ALT + r")(?P<rest>\s+(?P<next>[a-z’']+))")
# words after the noun that say which one it is, or make it no subject
_WHICH = frozenset({
    "at", "in", "on", "from", "of", "next", "who", "that", "which", "across", "down", "up", "over", "with",
    "near", "by", "behind", "outside", "inside", "around", "upstairs", "downstairs", "whose", "i", "we", "you",
    "he", "she", "they", "and", "or", "for", "to",
})
_OTHER_DET = r"(?:a|an|your|his|her|their|this|that|some|one|another|the\s+other|[A-Z][a-z]+['’]s)"


# a reaction to what the listener showed or said: "The kids look so cute, Mel!" (the listener's kids)
_REACTION = frozenset({"look", "looks", "looked", "seem", "seems", "seemed", "sound", "sounds", "sounded", "must"})
_VOCATIVE_END_RE = re.compile(r",\s*[A-Z][a-z]+\s*[!.?…]*\s*$")


def own_the(s: str) -> str:
    """ "The baby is due ..." -> "My baby is due ..." (module docstring); else `s` unchanged."""
    m = _THE_RE.match(s)
    if m is None or s.rstrip().endswith("?") or _VOCATIVE_END_RE.search(s):
        return s
    if m.group("next").lower() in _WHICH or m.group("next").lower() in _REACTION:
        return s
    return f"{m.group('lead')}My {m.group('noun')}{s[m.end('noun'):]}"


def own_the_ok(text: str, a: int, s: str) -> bool:
    """False when the message before sentence `s` (at `a`) introduced its noun with another
    determiner ("We saw a dog. The dog was huge")."""
    m = _THE_RE.match(s)
    if m is None:
        return False
    before = text[:a]
    rx = re.compile(r"(?i)(?<![\w'’])" + _OTHER_DET + r"\s+(?:\w+\s+){0,2}" + re.escape(m.group("noun")) + r"(?![\w'’])")
    return rx.search(before) is None


_FIRST_RE = re.compile(
    r"^(?P<lead>\s*)(?:This|That|It|Today|Yesterday|Tonight)\s*(?:was|is|['’]s)\s+(?:the|my|our)\s+"
    r"(?P<ord>first|second|third|last|1st|2nd|3rd)\s+time\s+(?:that\s+)?"
    r"(?P<rest>(?:I|we|he|she|they|[Mm]y\s+\w+|[Oo]ur\s+\w+|[A-Z][a-z]+)\b.*?)(?P<end>[.!…]*\s*)$")
_SINCE_RE = re.compile(r"\s+(?=(?:since|in\s+(?:years|ages|\d+\s+years|a\s+long\s+time|forever))\b)")


def first_time(s: str) -> str:
    """ "It was the first time my son rode a bike." -> "My son rode a bike for the first time." """
    m = _FIRST_RE.match(s)
    if m is None:
        return s
    rest = m.group("rest")
    if not re.search(r"[a-z]", rest) or len(rest.split()) < 2:
        return s
    phrase = f"for the {m.group('ord')} time"
    sm = _SINCE_RE.search(rest)
    body = f"{rest[:sm.start()]} {phrase}{rest[sm.start():]}" if sm else f"{rest} {phrase}"
    return m.group("lead") + body[:1].upper() + body[1:] + (m.group("end") or ".")


def gate(text: str) -> bool:
    """Cheap test whether `rewrite_sentence` may change something in `text`."""
    return bool(re.search(r"(?:^|[.!?…]\s+)(?:The\s|This\s|That\s|It\s|It['’]s|Today\s|Yesterday\s|Tonight\s)", text))


def _listeners_noun(s: str, ctx: Any) -> bool:
    """The noun of "The X ..." was in the other speaker's last turn: it is theirs, or shared."""
    m = _THE_RE.match(s)
    turns = getattr(ctx, "previous_turns", None) or []
    me = (getattr(ctx, "speaker_name", None) or "").strip()
    last = next((t for who, t in reversed(turns) if (who or "").strip() != me), None)
    if m is None or not last:
        return False
    return re.search(r"(?i)(?<![\w'’])" + re.escape(m.group("noun")) + r"(?![\w'’])", last) is not None


def rewrite_sentence(text: str, a: int, s: str, ctx: Any = None) -> str:
    """Sentence `s` (at offset `a` of the message `text`) in the rules' form."""
    out = first_time(s)
    if out is s and own_the_ok(text, a, s) and not _listeners_noun(s, ctx):
        out = own_the(s)
    return out


_NER_LABELS = frozenset({"PERSON"})


def person_subject(parses: Any, sentence: str, start: int, name: str) -> bool:
    """True when spaCy NER (the chunk's parses) types the name at `start` of `sentence` a PERSON."""
    if parses is None:
        return False
    ents = parses.entities(sentence, STAGE)  # spans only: the process-wide cache (write/parses.py)
    if ents is None:
        return False
    end = start + len(name)
    return any(label in _NER_LABELS and a <= start and end <= b for a, b, label in ents)


__all__ = ["OWNED", "STAGE", "first_time", "gate", "own_the", "person_subject", "rewrite_sentence"]
