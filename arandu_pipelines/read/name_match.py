"""Fuzzy and phonetic matching of a name written in a question against known person names.

People ask about "Muhammad" when the speaker label is "Muhhamed", about "Kate" when the entity is
"Katherine", about "Jon" for "John". Exact alias matching misses all three, and the question then
loses its strongest signal (whose messages to look at). This module decides, in pure Python and
without a database, whether a capitalised query word names one of a small pool of known people:

- nickname: a small table of common diminutives (both directions), plus the write side's rule
  that a 3+ letter prefix of a first name is a diminutive ("Kat" -> "Katherine");
- fuzzy: Damerau-Levenshtein distance <= 1 (words of 3-7 letters, same first letter) or <= 2
  (8+ letters);
- phonetic: an equal consonant skeleton (a small metaphone-like key, 3+ codes) with a length
  difference of at most 2 and a distance of at most half the word.

A match must be unambiguous: when the best score is shared by two different people, nothing is
resolved (a wrong speaker filter costs more than none). Pure Python keeps it portable (no
extension needed) and cheap: the pool is at most a few hundred short names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from arandu_pipelines.keys import fold

# Diminutive groups: every name in a group may stand for every other one. Kept small and common
# (English, Portuguese, Spanish, Arabic transliterations); it is a tie-breaker, not a dictionary.
_GROUPS = """
katherine catherine kathryn katharine kate kat katie kathy cathy
elizabeth liz lizzie beth betty eliza
william will bill billy liam
robert rob bob bobby robbie
richard rick ricky dick rich
michael mike mikey mick
christopher chris topher
christina christine chris tina
jennifer jen jenny
margaret maggie meg peggy
alexander alexandra alex sasha xander
benjamin ben benny
daniel dan danny
daniela dani
joseph joe joey
james jim jimmy jamie
thomas tom tommy
nicholas nick nicky
samuel samantha sam sammy
matthew matt
anthony tony
jonathan john jon johnny jack
edward ed eddie ted
rebecca becky becca
susan sue susie
patricia pat patty trish
victoria vicky tori
gabriel gabriela gabe gabi
francisco chico paco
jose ze
antonio toni tonho
eduardo edu dudu
fernando nando
roberto beto
alberto beto
luis luiz lu
mohammed muhammad mohamed mohammad muhammed mo
abdullah abdul
frederick fred freddie
gregory greg
jessica jess jessie
andrew andy drew
steven stephen steve
timothy tim timmy
zachary zach zack
deborah debbie deb
""".strip().splitlines()

NICKNAMES: dict[str, frozenset[str]] = {}
for _line in _GROUPS:
    _names = _line.split()
    for _n in _names:
        NICKNAMES[_n] = NICKNAMES.get(_n, frozenset()) | frozenset(x for x in _names if x != _n)

# Capitalised words that are never a person in a question, however close they are to a name.
NOT_NAMES = frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "tell", "give", "list", "name", "describe", "summarize", "summarise", "remind", "show", "please", "did", "does", "do", "was", "were", "has", "have", "had", "is", "are", "will", "would", "could", "should", "what", "when", "where", "who", "whom", "which", "why", "how"]
)

_LETTERS = re.compile(r"[^a-z]")


def damerau(a: str, b: str, cap: int = 3) -> int:
    """Optimal-string-alignment distance, capped: returns cap+1 as soon as it must exceed cap."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
        if min(cur) > cap:
            return cap + 1
        prev2, prev = prev, cur
    return min(prev[-1], cap + 1)


_DIGRAPHS = (("ph", "f"), ("ck", "k"), ("gh", ""), ("kn", "n"), ("wr", "r"), ("th", "0"),
             ("sh", "x"), ("ch", "x"), ("sch", "sk"), ("dg", "j"), ("q", "k"), ("x", "ks"),
             ("z", "s"), ("v", "f"), ("w", ""), ("y", ""))


@lru_cache(maxsize=4096)
def phonetic_key(word: str) -> str:
    """A metaphone-like consonant skeleton: spelling variants of a name share it
    (Muhammad/Muhhamed -> MMT, Katherine/Catherine/Kathryn -> K0RN, John/Jon -> JN)."""
    w = _LETTERS.sub("", fold(word))
    if not w:
        return ""
    w = re.sub(r"c(?=[eiy])", "s", w).replace("c", "k")
    w = re.sub(r"g(?=[eiy])", "j", w)
    for src, dst in _DIGRAPHS:
        w = w.replace(src, dst)
    first = "A" if w[:1] in "aeiou" else ""
    w = re.sub(r"(.)\1+", r"\1", w)  # doubled letters first, so "mm" in Muhammad stays one M
    w = re.sub(r"[aeiouh]", "", w).replace("d", "t").replace("b", "p")
    return (first + w).upper()


def _first_class(ch: str) -> str:
    return {"c": "k", "k": "k", "q": "k"}.get(ch, ch)


def score(word: str, token: str, first: bool, via_group: bool = False) -> tuple[float, str] | None:
    """How well the folded query word `word` stands for the folded name token `token` (None: not
    at all). `first`: the token is the first word of the name (diminutives apply only there).
    `via_group`: also try the word's nickname group spelt differently ("Mo" -> Muhammad, which
    the speaker label spells "Muhhamed"); a second pass, run only when the first found no one."""
    if word == token or len(token) < 3:
        return None
    group = NICKNAMES.get(word, frozenset())
    if via_group:
        if first and any(len(n) >= 5 and _spelling(n, token) is not None for n in group):
            return 1.5, "nickname"
        return None
    if first and token in group:
        return 3.0, "nickname"
    if len(word) < 3:
        return None
    # The write side's diminutive rule ("Carol" -> "Caroline"), with 2+ letters left over so a
    # place is not a prefix of a near-identical name ("Paris" is not "Parisa").
    if first and token.startswith(word) and len(token) - len(word) >= 2:
        return 3.0, "nickname"
    return _spelling(word, token)


@lru_cache(maxsize=8192)
def _spelling(word: str, token: str) -> tuple[float, str] | None:
    """The same name spelt differently: a small edit, or the same sound (same first letter)."""
    if _first_class(word[0]) != _first_class(token[0]):
        return None
    longest, shortest = max(len(word), len(token)), min(len(word), len(token))
    d = damerau(word, token, cap=3)
    # One edit: for short names only a letter added or dropped (Jon/John; Joan is not John).
    swapped = d == 1 and sorted(word) == sorted(token)  # Jhon/John
    if ((d == 1 and (shortest >= 5 or len(word) != len(token) or swapped))
                       or (d == 2 and shortest >= 8)):
        return (2.0 if d == 1 else 1.0), "fuzzy"
    key_w, key_t = phonetic_key(word), phonetic_key(token)
    if (len(key_w) >= 3 and key_w == key_t and abs(len(word) - len(token)) <= 2
            and d <= max(2, longest // 2)):
        return 1.5, "phonetic"
    return None


@dataclass(frozen=True)
class Candidate:
    name: str  # display name or speaker label as stored
    key: str | None  # canonical entity key, None for a speaker label
    speaker: bool  # the name is a speaker label


def best_match(word: str, pool: list[Candidate]) -> tuple[list[Candidate], str] | None:
    """The candidates (one person, possibly as both speaker and entity) `word` names, and the
    method; None when nothing matches or two different people match equally well."""
    w = fold(word)
    if w in NOT_NAMES or (len(w) < 3 and w not in NICKNAMES) or not w.isalpha():
        return None
    for via_group in (False, True):
        best: tuple[float, str] | None = None
        hits: list[Candidate] = []
        for c in pool:
            tokens = [t for t in fold(c.name).split() if t]
            got = [s for i, t in enumerate(tokens) if (s := score(w, t, i == 0, via_group)) is not None]
            if not got:
                continue
            s = max(got)
            if best is None or s[0] > best[0]:
                best, hits = s, [c]
            elif s[0] == best[0]:
                hits.append(c)
        if best is not None:
            break
    if best is None:
        return None
    # One person may be both a speaker label and a fuller entity name ("Katherine" and
    # "Katherine Lee"): a name that extends another one by whole words is the same person.
    names = sorted({fold(c.name) for c in hits}, key=len)
    people = [n for n in names if not any(n.startswith(m + " ") for m in names if m != n)]
    if len(people) != 1:
        return None
    return hits, best[1]
