"""What the conversation itself says about a first name's gender; it beats the name table.

write/name_gender.py reads Faker's lists, which do not know every name ("Noor", "Ashley" are in
both or neither) and are wrong for some people ("my brother Nikita": the lists say female). A
careful reader takes the gender from the chat: "Noor showed me her bump" makes Noor "she", "my
brother Nikita" makes Nikita "he". This module collects such evidence from the message and the
earlier turns of either speaker (ExtractionContext.previous_turns), and `scope` lends it to
`name_gender.gender_of` while one message is extracted (a ContextVar, so nothing else changes
shape: every place that asks the table gets the evidence first).

Evidence, per sentence, by a closed grammar (regex; no parse):
- kin apposition: "my wife Kiri", "my little brother Arlo", "Kiri, my sister": the kin noun's
  gender (person_antecedents' MALE / FEMALE nouns; role nouns show none);
- a possessive or object pronoun that refers back to a name: the sentence names exactly one
  person-like word (capitalised, not first-person, not after a place preposition), and after it
  come only his / him / himself or only her / herself / hers, with no animate noun ("my sister",
  "the boy") and no other capitalised name between ("Kiri said her knee is fine", "Tomasz and his
  bike"). A subject "he"/"she" is not read ("Kiri said she ..." may report anyone).

Conflicting evidence ("Jordan ... his" and "Jordan ... her") makes the name unknown (None), which
also overrides the table. Only the first word of a name is keyed, as in name_gender.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from arandu_pipelines.write import name_gender
from arandu_pipelines.write.types import ExtractionContext

_NAME = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
_OWNER = r"(?:(?i:my|your|his|her|our|their)|[A-Z][a-z]+'s|[A-Z][a-z]+’s)"
_ADJ = r"(?:[a-z]+\s+){0,2}"
_SENT_RE = re.compile(r"[^.!?…]+[.!?…]*")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_MALE_BACK = frozenset({"his", "him", "himself"})
_FEMALE_BACK = frozenset({"her", "herself", "hers"})
_SUBJ = frozenset({"he", "she", "he's", "she's", "he'd", "she'd", "he'll", "she'll"})
# words that open a sentence capitalised without being a name
_NOT_NAMES = frozenset({
    "i", "i'm", "i've", "i'd", "i'll", "the", "a", "an", "my", "your", "our", "their", "his", "her", "he", "she",
    "it", "we", "they", "you", "this", "that", "these", "those", "there", "here", "what", "when", "where", "why",
    "how", "who", "which", "and", "but", "or", "so", "if", "then", "yes", "yeah", "no", "oh", "wow", "well", "ok",
    "okay", "hey", "hi", "hello", "thanks", "thank", "congrats", "sorry", "haha", "lol", "omg", "just", "also",
    "still", "today", "yesterday", "tomorrow", "last", "next", "after", "before", "since", "because", "once",
    "mom", "dad", "mum", "grandma", "grandpa", "god", "english", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "christmas", "easter", "mr", "mrs", "ms", "dr"})
_OPENING_RE = re.compile(
    rf"^\s*(?:(?i:so|and|but|well|oh|yeah|actually|anyway|also|today|yesterday|now|then)\b,?\s+)*"
    rf"(?:(?i:my|your|our)\s+(?:[a-z]+\s+){{0,2}})?(?P<name>{_NAME})\b")
_NEAR = 3  # words between the name and the pronoun at most ("Kiri finally hurt her knee")
# words after which the pronoun may belong to someone else: objects, a new clause, a preposition
_STOP = frozenset({
    "me", "us", "you", "them", "him", "it", "to", "that", "about", "for", "with", "if", "when", "because", "who",
    "whom", "told", "asked", "the", "a", "an", "my", "your", "our", "their"})


def _kin_nouns() -> tuple[frozenset[str], frozenset[str]]:
    from arandu_pipelines.write.person_antecedents import FEMALE, MALE

    return MALE, FEMALE


def _animate_nouns() -> frozenset[str]:
    from arandu_pipelines.write.person_antecedents import ANIMATE_NOUNS

    return ANIMATE_NOUNS


@lru_cache(maxsize=1)
def _apposition_res() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """("my wife Kiri", "Kiri, my sister"), compiled once."""
    male, female = _kin_nouns()
    kin = "|".join(sorted((re.escape(k) for k in male | female), key=len, reverse=True))
    return (re.compile(rf"\b{_OWNER}\s+{_ADJ}({kin}),?\s+({_NAME})\b"),
            re.compile(rf"\b({_NAME}),\s+{_OWNER}\s+{_ADJ}({kin})\b(?!['’])"))


def _apposition(sentence: str, votes: dict[str, set[str]], names: set[str]) -> None:
    """"my wife Kiri", "Kiri, my sister": the kin noun's gender for the name."""
    before, after = _apposition_res()
    for m in before.finditer(sentence):
        _vote(votes, m.group(2), m.group(1))
    for m in after.finditer(sentence):
        if m.start(1) > len(sentence) - len(sentence.lstrip()) or _known_name(_key(m.group(1)), names):
            _vote(votes, m.group(1), m.group(2))  # "Thankfully, my son ...": a first word is no name


def _vote(votes: dict[str, set[str]], name: str, noun: str) -> None:
    male, female = _kin_nouns()
    low = noun.lower()
    if name.casefold() in _NOT_NAMES:
        return
    g = "m" if low in male else "f" if low in female else None
    if g:
        votes.setdefault(_key(name), set()).add(g)


def _key(name: str) -> str:
    return name.split("-")[0].casefold()


def _back_reference(sentence: str, votes: dict[str, set[str]], names: set[str]) -> None:
    """"Kiri said her knee is fine", "Tomasz and his bike", "Noor hurt herself": a sentence that
    opens with one name (after discourse words, or as "my friend Noor"), names no one else, and
    has a possessive his / her + noun or a reflexive within `_NEAR` words of it, with no object
    ("me", "you"), "to", "that" or animate noun between ("Meera asked me to be his godmother":
    not Meera's)."""
    m = _OPENING_RE.match(sentence)
    if m is None or m.group("name").casefold() in _NOT_NAMES:
        return
    if m.start("name") == len(sentence) - len(sentence.lstrip()) and not _known_name(_key(m.group("name")), names):
        return  # a capitalised first word ("Thankfully", "Veggies") is a name only if known as one
    rest = sentence[m.end():]
    if rest[:2] in ("'s", "’s") or rest[:1] == "-":
        return  # "Kiri's brother ... his": the brother's
    words = [w.group(0).lower().replace("’", "'") for w in _WORD_RE.finditer(rest)]
    if any(re.fullmatch(_NAME, w.group(0)) and w.group(0).casefold() not in _NOT_NAMES
           for w in _WORD_RE.finditer(rest)):
        return  # another capitalised name: whose is unclear
    if words and words[0][:1].isupper():
        return
    animate = _animate_nouns()
    for i, low in enumerate(words[:_NEAR + 1]):
        if low in _SUBJ or low in _STOP or low in animate or low.rstrip("s") in animate:
            return
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if low in ("his", "himself") or low == "her" and nxt and nxt not in _STOP:
            g = "m" if low.startswith("hi") else "f"
        elif low == "herself":
            g = "f"
        else:
            continue
        votes.setdefault(_key(m.group("name")), set()).add(g)
        return


def _proper_names(sentences: list[str]) -> set[str]:
    """Words known to be names: capitalised inside a sentence somewhere in the texts ("met Noor at
    the gallery"), or in the name table (either gender). A sentence's first word is only
    capitalised by position."""
    out: set[str] = set()
    for sentence in sentences:
        for w in list(_WORD_RE.finditer(sentence))[1:]:
            if re.fullmatch(_NAME, w.group(0)):
                out.add(_key(w.group(0)))
    return out


def _known_name(key: str, names: set[str]) -> bool:
    return key in names or name_gender.listed(key)


def collect(texts: list[str]) -> dict[str, str | None]:
    """First name (casefolded) -> "m" / "f", or None where the evidence conflicts.

    Kin apposition is strong: it beats the table ("my brother Nikita" is "he" though the lists say
    female). A back-reference is weaker (the possessive may still be someone else's: "Tom held her
    hand"): it decides a name the table does not know, agrees with the table, or, against it,
    makes the name unknown. Two evidences of one strength that disagree make it unknown."""
    strong: dict[str, set[str]] = {}
    weak: dict[str, set[str]] = {}
    sentences = [s.group(0) for text in texts if text for s in _SENT_RE.finditer(text)]
    names = _proper_names(sentences)
    for sentence in sentences:
        _apposition(sentence, strong, names)
        _back_reference(sentence, weak, names)
    out: dict[str, str | None] = {k: (next(iter(v)) if len(v) == 1 else None) for k, v in strong.items()}
    for k, v in weak.items():
        if k in out:
            continue
        table = name_gender.table_gender(k)
        g = next(iter(v)) if len(v) == 1 else None
        out[k] = g if table in (None, g) else None
    return out


@contextmanager
def scope(text: str, ctx: ExtractionContext) -> Iterator[dict[str, str | None]]:
    """Lend the evidence of `text` and its previous turns to name_gender.gender_of for the block."""
    turns = [t for _, t in (ctx.previous_turns or []) if isinstance(t, str)]
    found = collect([*turns, text])
    token = name_gender.EVIDENCE.set(found)
    try:
        yield found
    finally:
        name_gender.EVIDENCE.reset(token)
