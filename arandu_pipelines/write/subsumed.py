"""Facts of one message that another fact of the same message already states in full, dropped.

"My brother Dev gave me his old road bike" gave two facts: "Dev is Anita's brother" (the
relationship-term rule) and "Anita's brother Dev gave Anita his old road bike" (the restated
sentence). The first says nothing the second does not; a reader of `get_all()` deletes it, and on
the held-out probe such pairs were a large share of the facts beyond the gold (facts per gold
observation ~1.9 against the 1.5 target). The relationship itself is not a fact's job: the rule
also emits an `ExtractedRelation`, written to the entity graph whatever happens to the fact, and
the pipeline takes as the edge's evidence the fact that names both ends (`pipeline._evidence`),
which the containing fact does.

`apply` runs once per message on the offline extractor's final facts (the end of
`extract_rules.extract_offline`, after every rule, act and filter, so facts added after
`fact_quality.refine` and facts of different sentence windows are compared too). A fact A is
dropped when another kept fact B of the message contains it:

| A is                      | B contains A when                                                   |
|---------------------------|---------------------------------------------------------------------|
| a relationship-term fact  | B says the relation as an appositive of A's subject, with its owner |
| (`RELATION_KINDS`: "Dev is| ("Anita's brother Dev", "Dev, Anita's brother,", "o irmão de Anita, |
| Anita's brother")         | Dev", "Dev, irmão de Anita"): the relation of THAT person ("Anita's |
|                           | friend Dev met Anita's brother Sam" does not contain "Dev is        |
|                           | Anita's brother"); B's subject may be anyone                        |
| any other fact            | B has the same subject, and every content word of A (5-letter       |
|                           | stems as in write/fact_words.py; a possessive "Leah's" is its own   |
|                           | word, so "Leah is a nurse" is not inside "Leah's mom is a nurse")  |
|                           | is in B, with the same negation and modality ("will", "can",       |
|                           | "not" ...) and A's numbers; or B has another subject and names A's |
|                           | (A opens with it), and A's content words stand in B in A's order   |
|                           | ("Anita's coworker Dev started a band" / "Dev started a band"; not  |
|                           | "Anita loves Leah" / "Leah loves Anita")                            |

Guards for both: a fact with a structured slot (an attribute other than event / plan /
preference: "lives in" -> location, "my wife" -> partner, "my dog" -> pet) is dropped only for a
fact with the same slot and value, so supersession keeps its slot ("Marcos Tavares is married to
Carolina" stays: it is the message's only statement of the marriage, and its partner slot); a
retraction is never dropped; a dated fact only for one with the same date. Facts are visited
richest first (most content words), so the container is kept before what it contains; the kept
fact takes the higher importance category of the two ("relationship_change" from the relation).

Content words are compared as stems rather than spaCy lemmas: the fact texts are rewritten
sentences the extractor never parsed, and a parse per fact would cost a spaCy doc each (the
import budget counts docs); 5-letter stems are what text_collapse and restatements already use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from arandu_pipelines.keys import fold, normalize_attribute_key
from arandu_pipelines.write.fact_words import GENERIC_ATTRIBUTES, STEM
from arandu_pipelines.write.lexicon import STOPWORDS_EN, STOPWORDS_PT
from arandu_pipelines.write.types import ExtractedFact, ExtractionResult

# rule kinds whose fact states a relation between its subject and an owner ("Dev is Anita's
# brother", "Dev é irmão de Anita"): write/extract_rules.py `_relterms`
RELATION_KINDS = frozenset({"relterm"})
EXTRA = 1  # words allowed between the owner's name and the relation word ("Anita's little brother")
_OF = frozenset({"de", "do", "da", "of"})
_AND = frozenset({"and", "e"})
LISTED = 3  # words of the names listed before "and"

# negation and modality: two facts that differ in them say different things ("S can swim" /
# "S can't swim", "S will visit Paris" / "S visited Paris" share every content stem)
_NEGATION = frozenset({"not", "no", "never", "nothing", "nobody", "none", "nor", "nao", "nunca", "nem",
                       "ninguem", "nada"})
_MODAL = frozenset({"will", "would", "can", "could", "should", "might", "may", "must", "shall", "gonna",
                    "vai", "vou", "vamos", "pode", "podia", "poderia", "deve", "devia", "deveria"})
_CONTRACTED = {"won't": ("not", "will"), "can't": ("not", "can"), "cannot": ("not", "can"),
               "shan't": ("not", "shall")}
_STOP = (STOPWORDS_EN | STOPWORDS_PT | {"someone", "others", "one"}) - _NEGATION - _MODAL
_WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)?")
_RANK = ("conversational", "routine_activity", "specific_event", "stable_preference",
         "relationship_change", "biographical_milestone")


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    """Folded words, apostrophes normalised ("Anita’s" -> "anita's"); cached: a message's n facts
    are compared pairwise."""
    return tuple(w.replace("’", "'") for w in _WORD_RE.findall(fold(text)))


def _marks(words: Iterable[str]) -> frozenset[str]:
    out: set[str] = set()
    for w in words:
        if w in _CONTRACTED:
            out.update(_CONTRACTED[w])
        elif w.endswith("n't"):
            out.add("not")
            base = w[:-3]
            if base in _MODAL:
                out.add(base)
        elif w.endswith("'ll"):
            out.add("will")
        elif w in _NEGATION:
            out.add("not")
        elif w in _MODAL:
            out.add(w)
    return frozenset(out)


def _stem(word: str) -> str | None:
    """A content word's stem; a possessive keeps its mark ("anita's" is not "anita")."""
    base, _, tail = word.partition("'")
    if len(base) <= 2 or base in _STOP or word in _STOP:
        return None
    return base[:STEM] + ("'s" if tail == "s" else "")


@lru_cache(maxsize=4096)
def content(text: str) -> frozenset[str]:
    """The content stems of a fact's text (stopwords, negation and modal words aside)."""
    return frozenset(s for s in (_stem(w) for w in _words(text)) if s is not None)


def _slot(f: ExtractedFact) -> str | None:
    key = normalize_attribute_key(f.attribute_key) if f.attribute_key else None
    return key if key and key not in GENERIC_ATTRIBUTES else None


def _guarded(small: ExtractedFact, big: ExtractedFact) -> bool:
    """What `small` carries besides its text: a slot, a retraction, a date."""
    if small.retracts or big.retracts:
        return True
    slot = _slot(small)
    if slot is not None and (slot != _slot(big) or fold(small.value or "") != fold(big.value or "")):
        return True
    return small.event_date is not None and small.event_date != big.event_date


_REL_EN_RE = re.compile(r"^(?P<name>.+?) is (?:one of )?(?P<owner>.+?)['’]s? (?P<term>[^'’]+)$")
_REL_PT_RE = re.compile(r"^(?P<name>.+?) é (?:um |uma )?(?P<term>.+?) (?:de|do|da) (?P<owner>.+)$")


def _relation(f: ExtractedFact) -> tuple[str, str, list[str]] | None:
    """(name, owner, relation-word stems) of a relationship-term fact, else None."""
    if f.rule_kind not in RELATION_KINDS:
        return None
    text = f.fact_text.strip()
    m = _REL_EN_RE.match(text) or _REL_PT_RE.match(text)
    if m is None or fold(m.group("name")) != fold(f.subject):
        return None
    term = [s for s in (_stem(w) for w in _words(m.group("term"))) if s is not None]
    return (m.group("name"), m.group("owner"), term) if term else None


def _find(seq: list[str], part: list[str]) -> list[int]:
    """Start positions of `part` in `seq`, a possessive "'s" ignored on the words of `seq`."""
    bare = [w.split("'", 1)[0] for w in seq]
    n = len(part)
    return [i for i in range(len(bare) - n + 1) if n and bare[i:i + n] == part]


def _states_relation(big: ExtractedFact, name: str, owner: str, term: list[str]) -> bool:
    """`big` says the relation as an appositive of `name`, with its owner: "Anita's (older)
    brother Dev", "Dev, Anita's brother", "o irmão de Anita, Dev", "Dev, irmão de Anita" (commas
    aside; at most `EXTRA` words between the owner and the relation word)."""
    raw = _words(big.fact_text)
    words = [w.split("'", 1)[0] for w in raw]
    poss = [w.endswith("'s") for w in raw]
    stems = [_stem(w) or "" for w in words]
    name_w, owner_w = ([w.split("'", 1)[0] for w in _words(x)] for x in (name, owner))
    n, o, t = len(name_w), len(owner_w), len(term)
    bare_term = [x.split("'", 1)[0] for x in term]

    def owner_at(i: int, possessive: bool) -> bool:
        return i >= 0 and words[i:i + o] == owner_w and (not possessive or poss[i + o - 1])

    def term_at(i: int) -> bool:
        return i >= 0 and stems[i:i + t] == bare_term

    def owner_then_term(i: int) -> bool:  # "Anita's (older) brother" ending right before index i
        return any(term_at(i - t) and owner_at(i - t - extra - o, True) for extra in range(EXTRA + 1))

    def term_of_owner(i: int) -> bool:  # "irmão de Anita" starting at index i
        return term_at(i) and i + t < len(words) and words[i + t] in _OF and owner_at(i + t + 1, False)

    def before(i: int) -> bool:  # "Anita's brother Dev", "o irmão de Anita, Dev"
        return owner_then_term(i) or (i - o - t - 1 >= 0 and term_of_owner(i - o - t - 1))

    for at in _find(words, name_w):
        if before(at):
            return True
        # the last of coordinated names: "Anita's kids Maya and Leo" (at most `LISTED` words before "and")
        if at > 0 and words[at - 1] in _AND and any(before(j) for j in range(max(0, at - 1 - LISTED), at - 1)):
            return True
        after = at + n
        if any(owner_at(after, True) and term_at(after + o + extra) for extra in range(EXTRA + 1)):
            return True
        if term_of_owner(after):
            return True
    return False


def contains(big: ExtractedFact, small: ExtractedFact) -> bool:
    """`big` states everything `small` states (see the module docstring)."""
    if big is small or _guarded(small, big):
        return False
    rel = _relation(small)
    if small.rule_kind in RELATION_KINDS:
        return rel is not None and _states_relation(big, *rel)
    sw, bw = _words(small.fact_text), _words(big.fact_text)
    if _marks(sw) != _marks(bw):
        return False
    if not set(_NUMBER_RE.findall(small.fact_text)) <= set(_NUMBER_RE.findall(big.fact_text)):
        return False
    if fold(small.subject) == fold(big.subject):
        sc = content(small.fact_text)
        return bool(sc) and sc <= content(big.fact_text) and _light(sw) <= _light(bw)
    # another subject that names this one ("Anita's coworker Dev started a band" / "Dev started a
    # band"): the words in the same order, so "Anita loves Leah" never contains "Leah loves Anita"
    seq = [s for s in (_stem(w) for w in sw) if s is not None]
    name = [s for s in (_stem(w) for w in _words(small.subject)) if s is not None]
    return bool(name) and seq[:len(name)] == name and len(seq) > len(name) and _in_order(
        seq, [s for s in (_stem(w) for w in bw) if s is not None])


# getting and having are stopwords, but as a fact's main verb they are its news: "Nadia got new
# running shoes" is not inside "Nadia wore the new running shoes for the marathon" (the object
# pronoun of the second sentence, now named by write/object_it.py, shares every other word)
_GET = frozenset({"get", "gets", "got", "gotten", "getting"})
_HAVE = frozenset({"have", "has", "had", "having"})
_HAD_OBJECT = frozenset({"a", "an", "the", "my", "his", "her", "their", "our", "your", "some", "two", "three",
                         "new", "no", "um", "uma", "one"})


def _light(words: tuple[str, ...]) -> frozenset[str]:
    """The light main verbs of a fact: any form of "get", and "have" before its object."""
    out: set[str] = set()
    for i, w in enumerate(words):
        if w in _GET:
            out.add("get")
        elif w in _HAVE and i + 1 < len(words) and words[i + 1] in _HAD_OBJECT:
            out.add("have")
    return frozenset(out)


def _in_order(part: list[str], seq: list[str]) -> bool:
    """`part` is a subsequence of `seq` ("leah" is not "leah's": "Anita met Leah's mom, a nurse"
    does not contain "Leah is a nurse")."""
    it = iter(seq)
    return all(any(x == y for y in it) for x in part)


def _lift(keep: ExtractedFact, drop: ExtractedFact) -> None:
    rank = {c: i for i, c in enumerate(_RANK)}
    if rank.get(drop.importance_category, -1) > rank.get(keep.importance_category, -1):
        keep.importance_category = drop.importance_category


def collapse(facts: list[ExtractedFact]) -> tuple[list[ExtractedFact], list[ExtractedFact]]:
    """(kept, dropped): richest facts first, each dropped when a kept one contains it."""
    order = sorted(range(len(facts)), key=lambda i: (-len(content(facts[i].fact_text)),
                                                     _slot(facts[i]) is None, -len(facts[i].fact_text), i))
    kept: list[int] = []
    dropped: list[int] = []
    for i in order:
        by = next((k for k in kept if contains(facts[k], facts[i])), None)
        if by is None:
            kept.append(i)
        else:
            _lift(facts[by], facts[i])
            dropped.append(i)
    return [facts[i] for i in sorted(kept)], [facts[i] for i in sorted(dropped)]


def apply(result: ExtractionResult) -> list[ExtractedFact]:
    """Drop `result`'s facts that another of its facts contains; counts them in the trace
    (`refine_dropped["subsumed"]`) and in fact_quality.AUDIT when bench/fact_drops.py records."""
    if len(result.facts) < 2:
        return []
    from arandu_pipelines.write.fact_quality import AUDIT

    result.facts, gone = collapse(result.facts)
    if gone:
        counts = result.trace.setdefault("refine_dropped", {})
        counts["subsumed"] = counts.get("subsumed", 0) + len(gone)
        audit = AUDIT.get()
        if audit is not None:
            audit += [("subsumed", f.fact_text) for f in gone]
    return gone
