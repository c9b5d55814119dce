"""Moments: a turn's reactions and states of the moment beside its news.

A chat turn that brings news often goes on with how it felt at the time: "I proposed on the
cliff at sunset. I was so nervous I nearly dropped the ring!", "I climbed my first 6a route. I
actually screamed at the top.", "I ran my first half marathon. My legs were shaking the whole
time." The extractor keeps each sentence, so the turn gives the news and a second fact ("Sam was
so nervous Sam nearly dropped the ring") that a careful person would not write into long-term
memory: the news carries the turn. Alone in its turn such a fact stays (LoCoMo's annotators do
write "X felt Y" when that is all the turn says), so the check needs every fact of the message
and runs once per English message, after `kind_filters` (write/extract_rules.extract_offline).

A free-text fact (`generic.*` rule kinds: a restated sentence, not a rule's match) is a moment
when its predicate, read on the spaCy parse (write/parses.py), is one of `KINDS`:

| kind       | predicate (the fact's root), its subject someone (a personal pronoun, a name, a   |
|            | person or pet noun, a body part: "Caroline's relationships feel ..." is no moment) |
|------------|----------------------------------------------------------------------------------|
| reaction   | a reaction verb (`REACTION_LEMMAS`: cry, scream, laugh, shake, grin, ...) with no |
|            | object ("shook the mayor's hand" is none; "the whole time" is a duration), also  |
|            | after "start/stop/keep/burst" ("started crying", "burst into tears"), "teared    |
|            | up", "choked up"                                                                 |
| state      | look/feel/seem/appear/sound + an adjective ("looks wrecked but so happy");       |
|            | get/become + a state adjective (`STATE_ADJECTIVES`: "got so emotional that ...", |
|            | "got pregnant" is news and not in the table); be + a state adjective ("was so    |
|            | nervous (that) ..."); be + a state idiom (`STATE_PHRASE_RE`: "in tears", "over   |
|            | the moon"); a body part (`BODY_PARTS`) with any adjective or verb ("My arms are  |
|            | finally normal again", "my heart was pounding")                                  |
| progress   | be/get + a progress remark (`PROGRESS_RE`: "in the home stretch", "halfway       |
|            | there", "getting there")                                                         |
| same       | a comparison with nothing of its own ("My grandma was exactly the same", "Same   |
|            | with my uncle", "My uncle did the same"): dropped even ALONE in its turn         |

A moment is dropped only when it carries nothing the message's other facts do not already say
(`lasting`): no resolved date; outside its grammatical subject (the speaker, a body part, "my
dad" ...) no proper noun other than the subject's or speaker's name, no number, no person or
pet noun (`lexicon.REL_TERMS_EN`, pets, occupations), no entity of `mentions`, each NEW (not a
word of another fact of the message); and no new noun where a moment names what it is about
(`_objects`): the object of a feeling ("proud of the pottery project", "excited to meet people in
the community", "happy that dance means so much to us") or a cause or occasion clause ("scared
when the car broke down on the motorway"). A reaction verb's own prepositions ("screamed at the
top") place the moment, and a "so ADJ (that) ..." clause is the feeling's degree: neither counts.
"S cried at S's sister's wedding in June" (a person, a month) and "S felt proud when S's
daughter graduated" (a person) stay. A reaction, state or progress moment is dropped only when
ANOTHER fact of the same message about the same subject survives (a fact of any rule kind
except the listener-directed `speech_act.*` and the last-resort `held_back.*`, and not itself a
moment): the news carries the turn. Alone in its turn it stays.

A fact whose LAST coordinated clause is a reaction, state or progress moment with nothing new
("S had S's graduation ceremony on Friday and S's dad cried a little") loses that clause
(`trim_tail`) when its head clause is news about someone, not an evaluation or a moment itself.

Without a spaCy pipeline nothing is dropped or cut (the kinds read the parse). Only free-text
facts whose text passes a cheap word prefilter (`_PREFILTER_RE`, `PROGRESS_RE`,
`STATE_PHRASE_RE`) are parsed (122 short texts over the two dev conversations). Drops are
counted in the trace's `refine_dropped` under `moment_<kind>` and recorded in
`fact_quality.AUDIT` for bench/fact_drops.py; cuts are listed in the trace's `moment_trimmed`.
Measured on the dev pair in docs/facts.md ("Moments beside the news", session 14).
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

STAGE = "moments"

# Reaction verbs by lemma; the parse gives tags, not lemmas (the shared pipeline runs without its
# lemmatizer), so their inflected forms are written out by `_inflect`.
REACTION_LEMMAS: tuple[str, ...] = (
    "cry", "sob", "weep", "scream", "yell", "shout", "squeal", "shriek", "cheer", "laugh", "giggle",
    "shake", "tremble", "shiver", "grin", "smile", "beam", "gasp", "panic", "blush", "faint", "freak",
    "buzz",
)
_IRREGULAR: dict[str, tuple[str, ...]] = {"shake": ("shook", "shaken"), "weep": ("wept",), "feel": ("felt",)}
_DOUBLING = frozenset(["sob", "grin"])  # sobbed, grinning
_ASPECT_LEMMAS = ("start", "begin", "stop", "keep", "burst")  # "started crying", "couldn't stop laughing"
_ASPECT_IRREGULAR = {"begin": ("began", "begun"), "keep": ("kept",), "burst": ("burst",)}
# "teared up", "choked up": a verb that is a reaction only with its particle
_PARTICLE_REACTIONS = {"tear": "up", "choke": "up"}

# Adjectives of emotion or of the body's state at one moment, with be/get/become.
STATE_ADJECTIVES: frozenset[str] = L.MOOD_WORDS_EN | frozenset([
    "nervous", "scared", "terrified", "frightened", "ecstatic", "elated", "overjoyed", "giddy", "emotional",
    "speechless", "shocked", "stunned", "surprised", "embarrassed", "mortified", "relieved", "teary",
    "tearful", "shaky", "jittery", "sore", "stiff", "numb", "dizzy", "nauseous", "queasy", "sweaty",
    "breathless", "drained", "wiped", "wrecked", "beat", "starving", "freezing", "soaked", "hungover",
    "worried", "frustrated", "annoyed", "furious", "disappointed", "heartbroken", "devastated",
    "gutted", "crushed", "glad", "psyched", "delighted", "giddy", "buzzing", "hyper", "restless",
    "impatient", "sleepy", "knackered", "shattered", "pooped", "wired", "jumpy", "antsy", "jet-lagged", "jetlagged",
])
BODY_PARTS: frozenset[str] = frozenset([
    "arm", "arms", "leg", "legs", "hand", "hands", "foot", "feet", "knee", "knees", "back", "shoulder",
    "shoulders", "neck", "head", "face", "eyes", "voice", "heart", "stomach", "muscles", "body", "fingers",
    "toes", "calves", "thighs", "ankle", "ankles", "wrist", "wrists", "lungs", "throat", "cheeks", "jaw",
])
_SEEM_LEMMAS = ("look", "feel", "seem", "appear", "sound")  # + any adjective: a state of the moment
_BECOME_LEMMAS = ("get", "become", "grow")  # + a state adjective ("got pregnant" is news: not in the table)
PROGRESS_RE = re.compile(
    r"(?i)\b(?:in\s+the\s+(?:home|final|last)\s+stretch|on\s+the\s+home\s+straight|(?:halfway|almost|nearly|getting)"
    r"\s+there|over\s+the\s+hump|on\s+the\s+(?:last|final)\s+leg)\b")
# be + an idiom of a state of the moment ("in tears", "over the moon", "a nervous wreck")
STATE_PHRASE_RE = re.compile(
    r"(?i)\b(?:in\s+(?:tears|shock|awe|pieces|bits)|over\s+the\s+moon|on\s+cloud\s+nine|on\s+top\s+of\s+the\s+world"
    r"|(?:a|such\s+a)\s+(?:\w+\s+)?(?:mess|wreck))\b")
# "Same with my uncle", "Same here", "Same for my sister": a fact that opens with the comparison
_SAME_OPENING_RE = re.compile(r"(?i)^(?:same\b(?:\s+(?:with|for|here|goes\s+for|thing\s+with)\b|\W*$)"
                              r"|so\s+(?:did|does|do|was|is|were|has|had|have)\s+(?:\S+\s+){0,2}\S+\W*$)")
_SAME_TAIL = frozenset(["way", "thing"])  # "the same way", "the same thing"

_PERSON_NOUNS = (frozenset(w for w in L.REL_TERMS_EN if " " not in w) | frozenset(L.PET_TERMS_EN)
                 | frozenset(w for w in L.OCCUPATIONS_EN if " " not in w))
_SUBJECT_DEPS = frozenset(["nsubj", "nsubjpass", "csubj", "expl"])
_CONTENT_FREE_NUMBERS = frozenset(["one"])  # "at one point"
_WORD_RE = re.compile(r"[\w'’-]+")
_PERSONAL_PRONOUNS = frozenset(["i", "you", "he", "she", "we", "they"])
_LIGHT_VERBS = frozenset(["do", "does", "did", "doing", "done", "have", "has", "had", "having", "get", "gets", "got",
                          "getting", "gotten", "go", "goes", "went", "going", "gone", "make", "makes", "made",
                          "making", "let", "lets", "letting", "can", "could", "will", "would", "should", "might",
                          "must", "may", "'ll", "’ll", "'d", "’d", "ca", "wo", "sit", "stand", "say", "said"])
_DURATIONS = frozenset(["time", "night", "evening", "morning", "afternoon", "day", "week", "weekend", "way", "hour",
                        "hours", "minutes", "while", "ride", "trip", "drive", "flight"])


def _inflect(lemma: str) -> set[str]:
    """The verb's forms (base, -s, past, participles, -ing) by English spelling rules."""
    if lemma.endswith("y") and lemma[-2] not in "aeiou":
        forms = {lemma, lemma[:-1] + "ies", lemma[:-1] + "ied", lemma + "ing"}
    elif lemma.endswith("e"):
        forms = {lemma, lemma + "s", lemma + "d", lemma[:-1] + "ing"}
    elif lemma.endswith("ic"):
        forms = {lemma, lemma + "s", lemma + "ked", lemma + "king"}
    elif lemma in _DOUBLING:
        forms = {lemma, lemma + "s", lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"}
    elif lemma.endswith(("sh", "ch", "x", "s")):
        forms = {lemma, lemma + "es", lemma + "ed", lemma + "ing"}
    else:
        forms = {lemma, lemma + "s", lemma + "ed", lemma + "ing"}
    return forms | set(_IRREGULAR.get(lemma, ())) | set(_ASPECT_IRREGULAR.get(lemma, ()))


def _table(lemmas: tuple[str, ...]) -> dict[str, str]:
    return {form: lemma for lemma in lemmas for form in _inflect(lemma)}


_REACTIONS = _table(REACTION_LEMMAS)
_ASPECTS = _table(_ASPECT_LEMMAS)
_PARTICLE_FORMS = _table(tuple(_PARTICLE_REACTIONS))
_SEEMS = _table(_SEEM_LEMMAS)
_BECOMES = _table(_BECOME_LEMMAS) | {"got": "get", "gotten": "get", "became": "become", "grew": "grow",
                                     "grown": "grow"}
_BE = frozenset(["be", "is", "am", "are", "was", "were", "been", "being", "'s", "’s", "'m", "’m", "'re", "’re"])
_DO = frozenset(["do", "does", "did", "done", "doing"])

_WORDS = (set(_REACTIONS) | set(_SEEMS) | set(_BECOMES) | STATE_ADJECTIVES | BODY_PARTS | set(_PARTICLE_FORMS)
          | {"same"})
# a fact is parsed only when one of these words (or a progress remark) is in it
_PREFILTER_RE = re.compile(r"(?i)(?<![\w'’-])(?:" + "|".join(sorted((re.escape(w) for w in _WORDS), key=len,
                                                                      reverse=True)) + r")(?![\w'’-])")


def _lower(t: Any) -> str:
    return str(t.lower_)


def _lemma(t: Any, table: dict[str, str]) -> str | None:
    return table.get(_lower(t))


def _is_be(t: Any) -> bool:
    return _lower(t) in _BE or str(t.lemma_) == "be"


def _adjectives(root: Any) -> list[Any]:
    """The adjectival complements of a copula: "wrecked but so happy" -> [wrecked, happy]. The
    small parser sometimes hangs "so ADJ" of "was so nervous I nearly ..." on the next clause's
    subject; an adjective right after the copula and its degree adverbs counts as well."""
    out: list[Any] = []
    for c in root.children:
        if c.dep_ in ("acomp", "attr", "amod", "oprd") and c.tag_ in ("JJ", "JJR", "JJS", "VBN"):
            out.append(c)
            out += [x for x in c.children if x.dep_ == "conj" and x.tag_ in ("JJ", "JJR", "VBN")]
    if not out:
        doc, i = root.doc, root.i + 1
        while i < len(doc) and doc[i].tag_ == "RB":
            i += 1
        if i < len(doc) and i > root.i + 1 and doc[i].tag_ in ("JJ", "JJR", "VBN") and _lower(doc[i - 1]) in ("so", "such"):
            out.append(doc[i])
    return out


def _subject(root: Any) -> Any | None:
    return next((c for c in root.children if c.dep_ in _SUBJECT_DEPS), None)


def _is_same(root: Any) -> bool:
    """A comparison with nothing of its own: "X was exactly the same", "X did the same (thing)",
    "X felt the same way"; "the same as Y" or "the same car" name something and are not."""
    if not (_is_be(root) or _lower(root) in _DO or _lemma(root, _SEEMS)):
        return False
    same = [c for c in root.children if _lower(c) == "same" and c.dep_ in ("acomp", "attr", "dobj", "npadvmod",
                                                                           "advmod", "oprd")]
    if not same:
        same = [c for c in root.children if c.dep_ in ("dobj", "attr", "npadvmod")
                and _lower(c) in _SAME_TAIL and any(_lower(x) == "same" for x in c.children)]
    if len(same) != 1:
        return False
    allowed = {"det", "advmod", "amod"}
    if any(x.dep_ not in allowed or (x.dep_ == "amod" and _lower(x) != "same") for x in same[0].children):
        return False
    # nothing else on the root but its subject, auxiliaries, negation, adverbs and punctuation
    return all(c.i == same[0].i or c.dep_ in (*_SUBJECT_DEPS, "aux", "auxpass", "neg", "advmod", "punct", "cc")
               for c in root.children)


def _person_noun(low: str) -> bool:
    """A person or pet noun, singular or plural ("students", "nurses", "puppies")."""
    return low in _PERSON_NOUNS or low.removesuffix("s") in _PERSON_NOUNS or (
        low.endswith("ies") and low[:-3] + "y" in _PERSON_NOUNS)


def _own_body(t: Any) -> bool:
    """"my lungs", "their head": a body part of the subject's own, an idiom's object."""
    return _lower(t) in BODY_PARTS and any(c.dep_ == "poss" and c.tag_ == "PRP$" for c in t.children)


def _personal(subj: Any, names: set[str]) -> bool:
    """Whether a grammatical subject is someone, whose reaction or state it can be: a pronoun,
    the subject's or a proper name, a person or pet noun ("my dad"), a body part ("my legs").
    "Caroline's relationships feel more genuine" and "Seeing X was so awesome" are about things."""
    low = _lower(subj)
    return ((subj.tag_ == "PRP" and low in _PERSONAL_PRONOUNS) or subj.tag_ in ("NNP", "NNPS") or low in names
            or _person_noun(low) or low in BODY_PARTS)


def kind_of(doc: Any, text: str, names: frozenset[str] | set[str] = frozenset()) -> str | None:
    """The moment kind of a fact's parsed text (`KINDS` in the module docstring), or None.
    `names`: lower-cased words of the fact's subject and the speaker (they are people)."""
    if _SAME_OPENING_RE.match(text.strip()):
        return "same"
    sents = list(doc.sents)
    if len(sents) != 1:
        return None
    root = sents[0].root
    if _is_same(root):
        return "same"
    return _kind_at(root, text, names)


def _kind_at(root: Any, text: str, names: frozenset[str] | set[str]) -> str | None:
    """The reaction, state or progress kind of the clause headed by `root` (a sentence's root
    or a coordinated clause's verb), or None."""
    subj = _subject(root)
    if subj is None or not _personal(subj, set(names)):
        return None
    low = _lower(root)
    # "shook Kim's hand" is no reaction; "were shaking the whole time" (a duration parsed as object) and
    if low in _REACTIONS and not any(c.dep_ == "dobj" and _lower(c) not in _DURATIONS and not _own_body(c)
                                     for c in root.children):  # "screamed my lungs out" is one
        return "reaction"
    if low in _PARTICLE_FORMS and any(c.dep_ == "prt" and _lower(c) == _PARTICLE_REACTIONS[_PARTICLE_FORMS[low]]
                                      for c in root.children):
        return "reaction"
    if low in _ASPECTS:
        if any(c.dep_ in ("xcomp", "ccomp", "advcl") and _lower(c) in _REACTIONS for c in root.children):
            return "reaction"  # "started crying", "couldn't stop laughing"
        if _ASPECTS[low] == "burst" and re.search(r"(?i)\binto\s+tears\b|\bout\s+laughing\b", text):
            return "reaction"
    if (_is_be(root) or _BECOMES.get(low) == "get") and PROGRESS_RE.search(text[root.idx:]):
        return "progress"
    if _is_be(root) and STATE_PHRASE_RE.search(text[root.idx:]):
        return "state"
    if _lower(subj) in BODY_PARTS and root.tag_.startswith("VB") and not _is_be(root) and not any(
            c.dep_ == "dobj" and _lower(c) not in _DURATIONS for c in root.children):
        return "state"  # "my heart was pounding", "my legs were burning": the body at one moment
    adjectives = _adjectives(root)
    if not adjectives:
        return None
    if low in _SEEMS:
        return "state"
    words = {_lower(a) for a in adjectives}
    if low in _BECOMES and words & STATE_ADJECTIVES:
        return "state"
    if _is_be(root) and (words & STATE_ADJECTIVES or _lower(subj) in BODY_PARTS):
        return "state"
    return None


# a clause giving the cause or the occasion: "scared when my family got into the accident"
_CAUSE_MARKS = frozenset(["when", "whenever", "because", "cause", "'cause", "’cause", "after", "since", "as",
                          "while", "before", "once", "until"])


def _cause_clauses(head: Any) -> list[Any]:
    return [c for c in head.children if c.dep_ == "advcl"
            and any(x.dep_ in ("mark", "advmod") and _lower(x) in _CAUSE_MARKS for x in c.children)]


def _objects(root: Any, kind: str) -> list[Any]:
    """Where a moment can name what it is about: the object of a feeling ("proud of the pottery
    project", "excited to meet people in the community", its prepositions on the copula) and a
    cause or occasion clause, for every kind. A reaction verb's own prepositions ("screamed at
    the top") place the moment and are not its object; a "so ADJ (that) ..." result clause is
    the degree of the feeling (a ccomp, no cause mark) and is not one either."""
    heads = [root, *(c for c in root.children if c.dep_ == "xcomp")]
    # the cause or occasion, for every kind: it may be the news itself ("We were all freaked when
    # my son got into an accident"), so its new words count ("was shaking when I signed the
    # papers" stays too: the clause cannot tell the occasion of the news from news of its own)
    out: list[Any] = [t for h in heads for c in _cause_clauses(h) for t in c.subtree]
    # a second predicate of its own ("My son is ok and we took him home") says more than the moment
    # (its own subject or a noun object: "felt liberated and empowered doing it" is one state)
    out += [t for c in root.children if c.dep_ == "conj" and c.tag_.startswith("VB") and not _is_be(c)
            and any(x.dep_ in ("nsubj", "nsubjpass") or (x.dep_ == "dobj" and x.tag_.startswith("NN"))
                    for x in c.children)
            for t in c.subtree]
    if kind == "state":
        adjectives = _adjectives(root)
        # "happy that dance means so much to us": the clause is what the feeling is about; after
        # "so/such" ("so nervous (that) I nearly dropped the ring") it is the feeling's degree
        degree = any(x.dep_ == "advmod" and _lower(x) in ("so", "such") for a in adjectives for x in a.children)
        deps = ("prep", "xcomp") if degree else ("prep", "xcomp", "ccomp")
        for a in adjectives:
            out += [t for c in a.children if c.dep_ in deps for t in c.subtree]
            out += [t for c in _cause_clauses(a) for t in c.subtree]
        out += [t for c in root.children if c.dep_ in (("prep",) if degree else ("prep", "ccomp")) for t in c.subtree]
    # nouns, and the verbs of an activity ("felt fulfilled guiding and supporting them"); not a light
    # verb ("doing it"), not the moment's own words ("so happy I started crying")
    return [t for t in out if (t.tag_ in ("NN", "NNS") and _lower(t) not in L.VAGUE_OBJECT_WORDS_EN)
            or (t.tag_.startswith("VB") and _lower(t) not in _LIGHT_VERBS and not _is_be(t)
                and _lower(t) not in _REACTIONS and _lower(t) not in STATE_ADJECTIVES)]


def _new(t: Any, known: set[str]) -> bool:
    low = _lower(t).removesuffix("'s").removesuffix("’s")
    return low not in known and low.removesuffix("s") not in known


def lasting(f: ExtractedFact, doc: Any, kind: str, names: set[str], known: set[str]) -> bool:
    """Whether the fact carries content of its own that the message's other facts do not say
    (`known`: their lower-cased words): a resolved date; outside its grammatical subject, a
    proper noun (not a word of the subject's or speaker's name), a number, a person or a pet
    noun, an entity of its `mentions`; or a new noun where a moment names what it is about
    (`_objects`)."""
    if f.event_date is not None:
        return True
    return _lasting_at(f, next(iter(doc.sents)).root, list(doc), kind, names, known)


def _lasting_at(f: ExtractedFact, root: Any, tokens: list[Any], kind: str, names: set[str], known: set[str]) -> bool:
    """`lasting` over the clause of `root` (its `tokens`), without the fact's date."""
    subj = _subject(root)
    inside = {t.i for t in subj.subtree} if subj is not None else set()
    rest = [t for t in tokens if t.i not in inside]
    for t in rest:
        low = _lower(t)
        if low in names or low.removesuffix("'s") in names or not _new(t, known):
            continue
        if t.tag_ in ("NNP", "NNPS") or (t.tag_ == "CD" and low not in _CONTENT_FREE_NUMBERS):
            return True
        if t.tag_.startswith("NN") and _person_noun(low):
            return True
    if any(_new(t, known) for t in _objects(root, kind)):
        return True
    tail = " ".join(t.text for t in rest)
    return any(m and m.lower() not in names and m.lower() not in known
               and re.search(rf"(?i)\b{re.escape(m)}\b", tail) for m in f.mentions)


def trim_tail(f: ExtractedFact, doc: Any, names: set[str], known: set[str]) -> str | None:
    """The fact without a last coordinated clause that is a moment with nothing new ("S had
    S's graduation ceremony on Friday and S's dad cried a little" -> "S had S's graduation
    ceremony on Friday"), or None. The head clause, which carries the news, must not be a
    moment itself and keeps at least three words; the tail is judged by `_lasting_at` against
    the head's words and the message's other facts."""
    sents = list(doc.sents)
    if len(sents) != 1:
        return None
    root = sents[0].root
    subj = _subject(root)
    # the head must read as news about someone: "Seeing the kids' smiles was so awesome, and S is
    # so thankful for ..." keeps its tail (an evaluation is no news to keep instead)
    if (subj is None or not _personal(subj, names) or _kind_at(root, f.fact_text, names) is not None
            or (_is_be(root) and _adjectives(root))):
        return None
    words = [t for t in doc if not t.is_punct]
    if not words:
        return None
    for c in root.children:
        if not (c.dep_ == "conj" and c.i > root.i and c.tag_.startswith("VB") and _subject(c) is not None):
            continue
        clause = list(c.subtree)
        if clause[-1].i < words[-1].i:
            continue  # not the fact's last clause
        # the coordinator right before the clause (the parser may hang it on the word before)
        cc = doc[clause[0].i - 1] if clause[0].i > root.i + 1 else None
        kind = _kind_at(c, f.fact_text, names)
        if cc is None or _lower(cc) not in ("and", "but") or kind is None:
            continue
        head = f.fact_text[:cc.idx].rstrip(" ,;")
        if len(head.split()) < 3:
            return None
        if not _lasting_at(f, c, clause, kind, names, known | set(_WORD_RE.findall(head.lower()))):
            return head
    return None


def _free(f: ExtractedFact) -> bool:
    return (f.rule_kind or "").startswith("generic.")


def _carrier(f: ExtractedFact) -> bool:
    """A fact that can carry the turn's news: not a listener-directed act, not a last resort."""
    kind = f.rule_kind or ""
    return not kind.startswith(("speech_act.", "held_back."))


def apply(result: ExtractionResult, ctx: ExtractionContext) -> list[tuple[str, ExtractedFact]]:
    """Drop the message's moments (module docstring); returns (kind, fact) for each dropped."""
    facts = result.facts
    todo = [f for f in facts if _free(f) and (_PREFILTER_RE.search(f.fact_text) or PROGRESS_RE.search(f.fact_text)
                                                   or STATE_PHRASE_RE.search(f.fact_text))]
    if not todo:
        return []
    from arandu_pipelines.write.parses import PARSE, for_context

    parses = for_context(ctx, ctx.spacy_model)
    if parses.nlp() is None:
        return []
    docs = parses.docs([f.fact_text for f in todo], PARSE, STAGE)
    speaker = (ctx.speaker_name or "").strip()
    words = [set(_WORD_RE.findall(f.fact_text.lower())) for f in facts]
    kinds: dict[int, str] = {}
    for f, doc in zip(todo, docs, strict=True):
        if doc is None:
            continue
        names = {w.lower() for n in (f.subject, speaker) for w in _WORD_RE.findall(n or "")}
        kind = kind_of(doc, f.fact_text, names)
        known = set().union(*(w for g, w in zip(facts, words, strict=True) if g is not f))
        if kind is None:
            if (head := trim_tail(f, doc, names, known)) is not None:
                f.fact_text = head  # the news without its moment ("... and my dad cried a little")
                trimmed = result.trace.setdefault("moment_trimmed", [])
                trimmed.append(head)
            continue
        if kind == "same" or (len(facts) > 1 and not lasting(f, doc, kind, names, known)):
            kinds[id(f)] = kind  # alone in its turn only the comparison kind is dropped
    gone: list[tuple[str, ExtractedFact]] = []
    for f in facts:
        kind = kinds.get(id(f))
        if kind is None:
            continue
        if kind == "same" or any(g is not f and id(g) not in kinds and g.subject == f.subject and _carrier(g)
                                 for g in facts):
            gone.append((f"moment_{kind}", f))
    drop(result, gone)
    return gone


def drop(result: ExtractionResult, gone: list[tuple[str, ExtractedFact]]) -> None:
    """Take the `gone` facts out of `result`, each counted under its reason in the trace's
    "refine_dropped" and written to fact_quality's AUDIT (shared with write/passing_remarks.py)."""
    if not gone:
        return
    result.facts = [f for f in result.facts if all(f is not g for _, g in gone)]
    counts = result.trace.setdefault("refine_dropped", {})
    from arandu_pipelines.write.fact_quality import AUDIT

    audit = AUDIT.get()
    for name, f in gone:
        counts[name] = counts.get(name, 0) + 1
        if audit is not None:
            audit.append((name, f.fact_text))
