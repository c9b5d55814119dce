"""Language detection and English verb agreement, shared by the rule tables and the NER step.

Below `extract_rules`, `rules_extra` and `nlp`, which all use it: extract_rules calls the other
two, and they need only these helpers from it, so nothing imports its caller back.
"""

from __future__ import annotations

import re

from arandu_pipelines.write import lexicon as L

WORD_RE = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
PT_CHARS_RE = re.compile(r"[ãõçâêôáéíóúà]", re.IGNORECASE)

EN_NOT_VERB = frozenset(
    ["both", "all", "guys", "two", "three", "everyone", "each", "alone", "together", "myself", "yourself", "ourselves", "only", "even", "like", "as", "too", "first", "last", "once", "again", "still"]
)

PT_VERB_WORDS = (
    frozenset(L.PT_1SG_TO_3SG) | frozenset(L.PT_1SG_TO_3SG.values()) | L.PERSON_VERBS_PT
    | frozenset(["sou", "somos", "são", "estão", "fomos", "temos", "vamos", "moram", "trabalham"])
) - L.STOPWORDS_EN - frozenset({"como", "a"})


def detect_language(text: str) -> str:
    """"pt" or "en" by stopword counts (ties with Portuguese diacritics go to pt)."""
    en = pt = 0
    for w in WORD_RE.findall(text.lower()):
        w = w.replace("’", "'")
        if w in L.STOPWORDS_EN or w in L.PERSON_VERBS_EN:
            en += 1
        if w in L.STOPWORDS_PT or w in PT_VERB_WORDS:
            pt += 1
    if pt > en:
        return "pt"
    if pt == en and pt > 0 and PT_CHARS_RE.search(text):
        return "pt"
    return "en"


def cap_like(src: str, out: str) -> str:
    """`out` capitalised like `src` (a replaced word keeps its sentence-initial capital)."""
    if src[:1].isupper() and out[:1].islower():
        return out[:1].upper() + out[1:]
    return out


# Base forms that end in "ed" like a past tense ("I need" -> "needs", not "need")
_BASE_ENDING_ED = frozenset(["need", "feed", "bleed", "breed", "speed", "succeed", "proceed", "exceed",
                             "heed", "weed", "seed", "shred", "embed", "wed"])


# Base forms that end in "ing" like a gerund ("I bring" -> "brings", not "bring")
_BASE_ENDING_ING = frozenset(["bring", "sing", "ring", "swing", "cling", "fling", "sting", "spring", "string",
                              "wring", "sling", "wing", "ping", "ding", "zing"])


def conj_en(word: str) -> str:
    """An English verb in the third person singular ("live" -> "lives"); non-verbs unchanged."""
    low = word.lower().replace("’", "'")
    if low in L.THIRD_PERSON_EN_VERBS:
        return cap_like(word, L.THIRD_PERSON_EN_VERBS[low])
    extra = {"are": "is", "were": "was", "aren't": "isn't", "weren't": "wasn't", "have": "has", "am": "is"}
    if low in extra:
        return cap_like(word, extra[low])
    if (
        low in L.MODALS_EN or low in L.IRREGULAR_PAST_EN
        or (low.endswith(("ed", "n't", "ing", "'d", "'ll")) and low not in _BASE_ENDING_ED and low not in _BASE_ENDING_ING)
        or not low.isalpha() or (low in L.STOPWORDS_EN and low not in ("get", "do", "have", "go"))
        or low in EN_NOT_VERB or len(low) < 2
    ):
        return word
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return word + "es"
    if low.endswith("y") and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def third_singular(verb: str) -> str:
    """A present plural verb in the third person singular, with no lexicon check ("want" -> "wants",
    "are" -> "is", "'re" -> "is"): for a verb the caller already knows is one (a parse's VBP after
    "they" or an advice imperative), where `conj_en`'s guards against non-verbs would get in the way."""
    low = verb.lower()
    irregular = {"are": "is", "have": "has", "do": "does", "go": "goes", "were": "was", "'re": "is", "’re": "is",
                 "'ve": "has", "’ve": "has"}
    if low in irregular:
        return irregular[low]
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


__all__ = ["WORD_RE", "cap_like", "conj_en", "detect_language", "third_singular"]
