"""What an object "it" / "him" / "her" is: the one thing or name the message said just before.

A fact whose object is a bare pronoun says nothing when read alone (get_all(), the "Known facts"
section): "I bought a 1967 Ford Mustang that had been sitting in a barn. It's a rusty mess, but
I'm restoring it myself" gives "Howard is restoring it themselves"; "He's a retired greyhound
named Bolt. I adopted him last Sunday" gives "Sofia adopted him". On unseen conversations 8 % of
facts held an object "it", and those matched an annotated observation far less often than the
rest. write/thing_antecedents.py and write/org_antecedents.py resolve a SUBJECT "It" before the
rules read the message; write/object_them.py an object "them" for people; write/person_antecedents.py
he/she across turns. This module names the OBJECT pronoun in the finished fact, after the rules
(a rewrite of the message before the rules would change what every rule reads):

- the pronoun is the direct (or indirect) object of a verb in the fact's source sentence, and the
  fact keeps it after the same verb ("restoring it" -> "is restoring it"); exactly one such
  pronoun in the fact;
- not an idiom or expletive "it" (`_IDIOM_VERBS`: "make it", "nailed it", "get it", "I can't
  believe it", "take it easy", "give it a try"; a particle after it: "ran it in", "pass it on"),
  not a judgement ("love it", "enjoyed it": `_JUDGE_VERBS`), not an "it" a complement follows
  ("I find it relaxing", "made it a habit"); some idiom verbs are literal with a recipient or a
  place: "gave it to Dad" (`_TO_OK`), "put it on the fridge", "keep it on his desk" (`_PLACE_OK`);
- its antecedent is the ONE candidate of the nearest earlier stretch that names any: the
  pronoun's own sentence up to it, else the sentence before, and so on (at most `BACK` sentences);
  when nothing before the pronoun in the message names a thing or says "it/this/that" (the
  message's first sentence, after at most a "Yes!"), the other speaker's question among their
  last two sentences ("Did you finish the walking stick?" -> "I gave it to Dad"; "The Mustang?!"),
  and there first the object of the verb the reply repeats ("Did you finish the eagle in time for
  the graduation?" -> "Finished it Thursday"). Two candidates in the stretch leave the fact as it
  is;
- for "it" a candidate is a singular thing: a noun phrase with a/an/the/my/your or a possessive
  name ("my car", "a 1967 Ford Mustang", "Tom's bike"), not a person, a time, a vague noun ("a
  lot", "the thing"), a plural; one inside a relative clause ("that had been sitting in a barn")
  or a noun's prepositional phrase ("a drawing of the dog with a cape") is part of another and no
  candidate; an indefinite attribute of a pronoun subject ("It's a rusty mess", "He's a
  greyhound") describes, a definite one names ("It's the original V8"). Competitors that are never
  named: a verb's prepositional object ("at the county archive": mostly where), "our/his" things, a
  verbless "A classic on X.", the judged subject of an earlier sentence ("The advance is small."),
  an object "it" before the thing in the same stretch ("wrapped it in my jacket and drove it");
- for "him"/"her" a candidate is a name: "named/called X", or a proper noun the NER types as a
  person, with its first name ("Edna Hollis"; the speaker and the listener are not candidates);
  its known gender must not conflict, and a fact that already names that person (its subject:
  "Maya gets flustered when someone is watching her") keeps its pronoun; a fact that already says
  the thing before the "it" keeps it too;
- the thing as the speaker says it: "a/an X" -> "the X", "my X" -> "<speaker>'s X", "your X" ->
  "<listener>'s X" (across the turn: the other speaker's "my" is theirs, their "your" is the
  speaker's); "our/his/her/their X" is left alone (who that is is another module's question).

English only; without a spaCy pipeline nothing changes. Cost: a regex prefilter on the facts
(an object it/him/her after a word that is no idiom verb, the same verb in the source sentence)
lets through few messages; for those the message up to the pronoun's sentence is parsed once
(and the other speaker's last sentence when needed).
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write import object_plural
from arandu_pipelines.write.antecedents import (
    _VAGUE,
    MAX_PARSE_CHARS,
    REACH,
    sentence_spans,
)
from arandu_pipelines.write.name_gender import conflicts
from arandu_pipelines.write.object_people import kin_or_pet, no_person_before
from arandu_pipelines.write.org_antecedents import _PERSON_NOUNS, _TIME_NOUNS
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext

STAGE = "object_it"
BACK = 3  # sentences before the pronoun's own one that are read
# verbs whose "it" is no thing: "make it", "nailed it", "got it", "can't believe it", "take it easy"
_IDIOM_VERBS = frozenset({
    "make", "made", "makes", "making", "nail", "nailed", "nails", "get", "got", "gets", "getting", "gotten",
    "believe", "believed", "take", "took", "takes", "taking", "taken", "mean", "meant", "means", "kill", "killed",
    "killing", "rock", "rocked", "rocking", "crush", "crushed", "crushing", "fake", "wing", "winged", "do", "did",
    "does", "done", "doing", "call", "called", "hit", "keep", "kept", "keeps", "keeping", "let", "lets", "say",
    "said", "put", "know", "knew", "known", "mention", "mentioned", "handle", "handled", "manage", "managed",
    "deserve", "deserved", "earn", "earned", "owe", "pull", "pulled", "hack", "blow", "blew", "lose", "lost",
    "feel", "felt", "see", "saw", "seen", "hear", "heard", "guess", "bet", "appreciate", "appreciated",
    "want", "wanted", "wants", "need", "needed", "needs", "miss", "missed", "imagine", "imagined", "figure",
    "figured", "dig", "mind", "hang", "chill", "stick", "rough", "play", "played", "own", "owned", "thank",
    "try", "tried", "trying", "tries", "give", "gave", "gives", "giving", "given", "sell", "sold", "check",
    "checked", "find", "found", "finding", "finds", "leave", "left", "pass", "passed", "passing"})
# "ran it in", "pulled it off", "pass it on": a particle after the "it" makes a phrasal idiom
_IDIOM_PARTICLES = frozenset({"in", "off", "on", "through", "over", "away", "around"})
# verbs whose own "it" is an idiom, but "to <someone>" names a real thing: "I gave it to Dad"
# verbs whose "it" is an idiom alone ("put it simply", "keep it up") but a thing when a place follows:
# "I put it on the fridge", "keep it on his desk"
_PLACE_OK = frozenset({"put", "keep", "kept", "keeps", "leave", "left", "hang", "hung", "stick", "stuck"})
_NO_PLACES = frozenset({"mind", "perspective", "words", "check", "stride", "order", "touch", "line", "place", "motion"})
_TO_OK = frozenset({"give", "gave", "gives", "giving", "given", "sell", "sold", "send", "sent", "lend", "lent",
                    "show", "showed", "shown", "take", "took", "taken", "bring", "brought", "leave", "left"})
# judgements of a thing: the fact is the speaker's verdict and stays as written ("Sam loves it")
_JUDGE_VERBS = frozenset({
    "love", "loved", "loves", "loving", "like", "liked", "likes", "hate", "hated", "hates", "enjoy", "enjoyed",
    "enjoys", "enjoying", "adore", "adored", "prefer", "preferred", "recommend", "recommended", "dislike",
    "disliked", "treasure", "treasured", "cherish", "cherished", "regret", "regretted", "worth", "dig"})
_OBJ_DEPS = frozenset({"dobj", "dative"})
_AFTER_DEPS = frozenset({"oprd", "xcomp", "ccomp", "acomp", "attr"})  # "find it relaxing", "made it a habit"
_CANDIDATE_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "dative", "attr", "pobj", "appos", "conj", "ROOT",
                             "oprd"})
_DETS = frozenset({"a", "an", "the", "my", "your", "this", "that"})
_SKIP_DETS = frozenset({"our", "his", "her", "their", "its", "some", "any", "no", "every", "each", "another",
                        "other", "these", "those", "which", "what", "whose"})
_PRON_RE = re.compile(r"(?<![\w'’-])(it|him|her|them)(?![\w'’-])")
_WORD_BEFORE_RE = re.compile(r"([A-Za-z]+)\s+$")
_NAMING = frozenset({"named", "called", "name", "call"})
# words before a pronoun that is no verb's object: "for her birthday", "with it", "and him"
_NOT_VERBS = frozenset({"for", "with", "to", "of", "in", "on", "at", "from", "by", "about", "into", "onto", "like",
                        "and", "or", "but", "than", "as", "without", "behind", "after", "before", "around", "over",
                        "under", "through", "near", "beside", "towards", "toward", "is", "was", "'s", "that", "if"})
_COPULAS = frozenset({"is", "'s", "’s", "was", "are", "were", "be", "been"})
# prepositions whose "it" can be a thing: "worked on it", "put a new engine in it", "walked with it"
# ("at it", "for it" = go for it, "into it" = keen, "about it", "of it": no thing, never read)
_THING_PREPS = frozenset({"on", "in", "with", "onto", "inside", "under"})
# verbs whose prepositional "it" is an idiom: "deal with it", "sleep on it", "count on it", "go with it"
_PREP_IDIOM_VERBS = frozenset({
    "deal", "dealt", "dealing", "go", "went", "going", "gone", "goes", "live", "lived", "living", "run", "ran",
    "running", "sleep", "slept", "count", "counted", "bet", "rely", "relied", "agree", "agreed", "mess", "messed",
    "roll", "rolled", "cope", "coped", "fall", "fell", "fallen", "stick", "stuck", "move", "moved", "carry",
    "carried", "come", "came", "end", "ended", "be", "is", "was", "are", "were", "been", "believe", "believed",
    "focus", "focused", "comment", "commented", "follow", "followed", "build", "built", "pass", "passed", "help",
    "helped", "helping", "hang", "hung", "keep", "kept", "get", "got", "have", "has", "had", "having"})
# a dobj that makes the prepositional "it" an idiom: "keep an eye on it", "have fun with it"
_IDIOM_OBJECTS = frozenset({"eye", "fun", "blast", "time", "peace", "luck", "way", "hand", "look", "break",
                            "shot", "chance", "crack", "part", "stand", "mind", "bet", "money"})
_POINTERS = frozenset({"it", "this", "that", "him", "her", "he", "she"})


# ---- prefilter (regex only) --------------------------------------------------------------------------
def _verb_before(text: str, at: int) -> str:
    m = _WORD_BEFORE_RE.search(text[max(0, at - 30): at])
    return m.group(1).lower() if m else ""


def _same_verb(a: str, b: str) -> bool:
    """The fact's verb is the source's, restated ("restoring" / "restoring", "gave" / "gave", "adopt" /
    "adopted"): the first four letters agree (three for short verbs)."""
    n = min(4, len(a), len(b))
    return n >= 2 and a[:n] == b[:n]


def _fact_pronoun(fact: str) -> re.Match[str] | None:
    """The first object pronoun of the fact after a content verb (or an "it" after a thing preposition:
    "worked on it"), or None. Several are one thing when they are the same word: "rebuild it rather
    than replace it" names the first and keeps the rest ("rebuild the V8 rather than replace it")."""
    found = [m for m in _PRON_RE.finditer(fact) if m.start() > 0 and (
        _verb_before(fact, m.start()) not in _NOT_VERBS
        or (m.group(1) == "it" and _verb_before(fact, m.start()) in _THING_PREPS))]
    if not found or len({m.group(1) for m in found}) != 1:
        return None
    m = found[0]
    verb = _verb_before(fact, m.start())
    if not verb or verb in _JUDGE_VERBS or (verb in _IDIOM_VERBS and verb not in _TO_OK | _PLACE_OK):
        return None
    return m


def _source_pronoun(src: str, word: str, verb: str) -> int | None:
    """Where in `src` the fact's pronoun is: the one `word` after the same verb; None when not one."""
    hits = [m.start() for m in re.finditer(rf"(?i)(?<![\w'’-]){word}(?![\w'’-])", src)
            if _same_verb(_verb_before(src, m.start()), verb)]
    return hits[0] if len(hits) == 1 else None


def _targets(facts: list[ExtractedFact], text: str) -> list[tuple[ExtractedFact, re.Match[str], int]]:
    """(fact, its pronoun, the pronoun's offset in `text`) for every fact worth a parse."""
    out: list[tuple[ExtractedFact, re.Match[str], int]] = []
    for f in facts:
        m = _fact_pronoun(f.fact_text)
        src = (f.source_text or "").strip()
        if m is None or not src:
            continue
        at = text.find(src)
        if at < 0 or at + len(src) > MAX_PARSE_CHARS:
            continue
        k = _source_pronoun(src, m.group(1), _verb_before(f.fact_text, m.start()))
        if k is not None:
            out.append((f, m, at + k))
    return out


# ---- the pronoun in the parse -----------------------------------------------------------------------
def _prep_thing(tok: Any) -> bool:
    """An "it" after a preposition that is a thing: "worked on it", "spent $500 on it", "put a new
    engine in it" (a verb's prepositional object); not "deal with it", "sleep on it", "I'm on it",
    "keep an eye on it", "fine with it" (no verb)."""
    prep = tok.head
    verb = prep.head
    if tok.lower_ != "it" or prep.dep_ != "prep" or prep.lower_ not in _THING_PREPS or verb.pos_ != "VERB":
        return False
    if verb.lower_ in _JUDGE_VERBS or verb.lower_ in _PREP_IDIOM_VERBS:
        return False
    objs = [c for c in verb.children if c.dep_ == "dobj"]
    if any(o.lower_ in _IDIOM_OBJECTS for o in objs):
        return False
    return bool(objs) or verb.lower_ not in _IDIOM_VERBS  # "put a new engine in it", not "did it in"


def _governor(tok: Any) -> Any:
    """The verb the pronoun is an argument of: its head, or the head of its preposition."""
    return tok.head.head if tok.dep_ == "pobj" else tok.head


def _object_pronoun(tok: Any) -> bool:
    """`tok` is a real object pronoun: no idiom, no judgement, no complement after it."""
    if tok.dep_ == "pobj" and tok.tag_ == "PRP":
        return _prep_thing(tok)
    if tok.dep_ not in _OBJ_DEPS or tok.tag_ != "PRP":
        return False
    head = tok.head
    low = head.lower_
    kids = [c for c in head.children if c.i > tok.i]
    if tok.lower_ in ("it", "them"):
        if low in _JUDGE_VERBS or head.pos_ not in ("VERB", "AUX"):
            return False
        if low in _IDIOM_VERBS and not _literal(low, kids):
            return False
        if any(c.dep_ in _AFTER_DEPS or (c.dep_ == "dobj" and c.i != tok.i) for c in kids):
            return False  # "find it relaxing", "give it a try", "made it a habit"
        if any(c.dep_ == "prt" and (low in _IDIOM_VERBS or c.lower_ in _IDIOM_PARTICLES) for c in kids):
            return False
        after = tok.nbor(1) if tok.i + 1 < len(tok.doc) else None
        if after is not None and after.lower_ in _IDIOM_PARTICLES and not any(
                c.dep_ == "pobj" for c in after.children):
            return False  # "ran it in himself": a particle the parse took for something else
    return True


def _literal(verb: str, kids: list[Any]) -> bool:
    """An idiom verb used of a thing: "gave it to Dad", "put it on the fridge" (not "put it in words")."""
    if verb in _TO_OK and any(c.dep_ in ("prep", "dative") and c.lower_ == "to" for c in kids):
        return True
    return verb in _PLACE_OK and any(c.dep_ == "prep" and any(
        g.dep_ == "pobj" and g.lower_ not in _NO_PLACES for g in c.children) for c in kids)


def _in_relative(tok: Any) -> bool:
    """Inside a relative or reduced relative clause ("a car that sat in a barn", "a dog named X")."""
    t = tok
    while t.head.i != t.i:
        if t.dep_ in ("relcl", "acl"):
            return True
        t = t.head
    return False


def _judged(root: Any) -> bool:
    """The subject of a copula with an adjective: "The advance is small", "This trip was amazing"."""
    head = root.head
    return root.dep_ in ("nsubj", "nsubjpass") and head.lower_ in _COPULAS and any(
        c.dep_ == "acomp" for c in head.children)


def _thing(chunk: Any, own: bool) -> tuple[list[Any], bool] | None:
    """(words, usable) of a noun phrase that may be what "it" stands for; None: no thing at all
    (a person, a time, a vague word, a plural, a pronoun). `usable`: it can be named; a thing that
    is not usable still competes: "our van", "some paint", a prepositional object ("at the county
    archive": mostly where, not what), a verbless "A classic on X." (describes what came before),
    the subject of a judgement in an earlier sentence ("The advance is small." then "read it": the
    remark is beside the point). `own`: the phrase is in the pronoun's own sentence."""
    root = chunk.root
    words = [t for t in chunk if not t.is_punct and not t.is_space]
    while words and words[0].dep_ not in ("det", "poss") and words[0].pos_ in ("ADV", "CCONJ", "INTJ"):
        words = words[1:]
    if not words or root.pos_ == "PRON" or root.tag_ in ("CD", "NNS", "NNPS", "WP", "WDT"):
        return None
    low = root.lower_
    single = low[:-3] + "y" if low.endswith("ies") else low.removesuffix("s")
    if low in _TIME_NOUNS or low in _VAGUE or low in _PERSON_NOUNS or single in _PERSON_NOUNS or root.ent_type_ in (
            "DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "QUANTITY", "PERCENT"):
        return None
    if root.dep_ not in _CANDIDATE_DEPS or _in_relative(root) or (
            root.dep_ == "pobj" and root.head.head.pos_ in ("NOUN", "PROPN")):
        return None  # "a drawing of him with a cape": the cape is part of the drawing's phrase
    det = words[0].lower_ if words[0].dep_ in ("det", "poss") else ""
    possessed = any(t.dep_ == "case" for t in words[:-1]) and words[0].pos_ == "PROPN"
    if root.pos_ == "PROPN" and not det:
        return None  # a bare proper noun: a person, place or brand, no "it" we can tell
    if root.pos_ not in ("NOUN", "PROPN"):
        return None
    if root.dep_ == "attr":
        subj = next((c for c in root.head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is not None and (subj.pos_ != "PRON" or subj.lower_ not in ("it", "this", "that")):
            return None  # "He's a greyhound", "The best part is the engine": the subject is the thing
        if det in ("a", "an", ""):
            return None  # "It's a rusty mess": a description
    usable = (det in _DETS or possessed) and det not in _SKIP_DETS and root.dep_ != "pobj" \
        and not (root.dep_ == "ROOT" and det in ("a", "an")) and (own or not _judged(root))
    return words, usable


def _name(tok: Any, skip: set[str]) -> str | None:
    """A person's or pet's name: "named Bolt", or a proper noun typed PERSON (not speaker/listener),
    with its first names ("Edna Hollis")."""
    if tok.tag_ != "NNP" or tok.lower_ in skip or tok.dep_ == "compound":
        return None
    named = tok.head.lower_ in _NAMING and tok.dep_ in ("oprd", "dobj", "attr", "appos", "npadvmod")
    if not named and (tok.ent_type_ != "PERSON" or _in_relative(tok)):
        return None
    first = [c for c in tok.lefts if c.dep_ == "compound" and c.tag_ == "NNP" and c.i == tok.i - 1]
    return f"{first[0].text} {tok.text}" if first else tok.text


_AMBIGUOUS: tuple[list[Any], bool] = ([], False)  # a competitor that is never named: an "it" before the thing ("wrapped it in my jacket")


def _clause_mate(root: Any, gov: Any | None) -> bool:
    """An argument of the pronoun's own verb, which a plain pronoun never stands for: "put a new
    engine in it" (the engine is not "it"), "spent the morning on it"."""
    if gov is None:
        return False
    return root.head.i == gov.i or (root.dep_ == "pobj" and root.head.head.i == gov.i)


def _stretch_candidates(tokens: list[Any], pron: str, skip: set[str], own: bool = False,
                        gov: Any | None = None) -> list[Any]:
    """The candidates of a stretch of tokens: noun phrases for "it", names (or "my dog", "my
    brother") for "him/her". An "it" before the first thing of the stretch stands for something
    else: the stretch is ambiguous. `gov`: the pronoun's own verb (its arguments are no candidates)."""
    if pron == "them":
        return object_plural.stretch(tokens, lambda t: _clause_mate(t, gov) or _in_relative(t))
    chunks = {c.root.i: c for c in tokens[0].doc.noun_chunks} if tokens else {}
    if pron == "it":
        if not own and _verbless_description(tokens):
            return []  # "A classic on World War One.": describes the thing before, names nothing
        titles = _titles(tokens)
        in_title = {t.i for words, _ in titles for t in words}
        seen: list[Any] = list(titles)
        early_it = False
        for t in tokens:
            if t.i in in_title:
                continue
            if t.lower_ == "it" and t.pos_ == "PRON" and not seen:
                # "It's my grandfather's telescope": the "it" a copula identifies is that thing
                early_it = early_it or not (t.dep_ == "nsubj" and t.head.lower_ in _COPULAS)
            elif t.i in chunks and not _clause_mate(t, gov) and (found := _thing(chunks[t.i], own)) is not None:
                seen.append(found)
        return seen + [_AMBIGUOUS] if seen and early_it else seen
    named = [t for t in tokens if _name(t, skip) is not None]
    names: list[Any] = list(dict.fromkeys(n for t in named if (n := _name(t, skip)) is not None))
    kin = {t.lower_: words for t in tokens if t.i in chunks and not _clause_mate(t, gov)
           and not _names_it(t, named) and (words := kin_or_pet(chunks[t.i], pron)) is not None}
    return names + [(words, True) for words in kin.values()]


_QUOTES = frozenset({'"', "“", "”"})


def _titles(tokens: list[Any]) -> list[tuple[list[Any], bool]]:
    """Quoted titles of the stretch ("I picked "The Guns of August" by ..."): a book, a song, a film
    is a thing "it" can be, though its words are proper nouns no other candidate rule takes. At most
    eight words, the first capitalised."""
    marks = [t for t in tokens if t.text in _QUOTES]
    out: list[tuple[list[Any], bool]] = []
    for a, b in zip(marks[::2], marks[1::2], strict=False):
        words = [t for t in tokens if a.i < t.i < b.i]
        if 0 < len(words) <= 8 and words[0].text[:1].isupper() and len(words) == b.i - a.i - 1:
            out.append((words, True))
    return out


def _verbless_description(tokens: list[Any]) -> bool:
    """A whole sentence that is an indefinite noun phrase with no verb: "A classic on World War One."
    says what the thing before is."""
    words = [t for t in tokens if not t.is_punct and not t.is_space]
    return bool(words) and words[0].lower_ in ("a", "an") and not any(t.pos_ in ("VERB", "AUX") for t in words) \
        and any(t.dep_ == "ROOT" and t.pos_ in ("NOUN", "PROPN") for t in words)


def _names_it(root: Any, named: list[Any]) -> bool:
    """The noun's own name is in the stretch: "my old cat Mochi", "My dog is a greyhound named Bolt"
    (one candidate, the name, not two)."""
    tree = root.head.subtree if root.dep_ == "nsubj" and root.head.lower_ in _COPULAS else root.subtree
    ids = {t.i for t in tree} | {root.i + 1}  # "My old cat Mochi": a parse may leave the name beside it
    if root.dep_ == "appos":
        ids.add(root.head.i)  # "Mochi, my old cat"
    return any(n.i in ids for n in named)


def _pick(cands: list[Any], pron: str) -> Any | None:
    """The one candidate, None when ambiguous; for "it" only a usable one."""
    if len(cands) != 1:
        return None
    if pron in ("it", "them"):
        return cands[0] if cands[0][1] else None
    return cands[0]


# ---- rendering --------------------------------------------------------------------------------------
def _render(words: list[Any], owner: str, listener: str) -> str | None:
    """The phrase as the current fact says it; `owner`: whose "my" it was, `listener`: whose "your"."""
    if words[0].i > 0 and words[0].doc[words[0].i - 1].text in _QUOTES:
        return f'"{words[0].doc[words[0].i:words[-1].i + 1].text}"'  # a quoted title stays as written
    first = words[0].lower_
    rest = " ".join(_joined(words[1:]))
    if first in ("a", "an", "the", "this", "that"):
        return f"the {rest}" if rest else None
    if first in ("my", "your"):
        who = owner if first == "my" else listener
        return f"{who}'s {rest}" if who and rest else None
    return " ".join(_joined(words))


def _joined(words: list[Any]) -> list[str]:
    """The words' texts, a possessive "'s" kept on its noun ("Tom 's bike" -> "Tom's bike")."""
    out: list[str] = []
    for t in words:
        if out and (t.dep_ == "case" or t.text.startswith(("'", "’", "-")) or out[-1].endswith("-")):
            out[-1] += t.text
        else:
            out.append(t.text)
    return out


# ---- entry point ------------------------------------------------------------------------------------
def _resolve(doc: Any, tok: Any, skip: set[str]) -> tuple[Any, bool] | None:
    """(the candidate, True) from the message; (None, True) when the message names nothing before the
    pronoun (no thing, no other "it"/"this"/"that") and the other speaker's question may be asked;
    None when nothing is clear."""
    pron = tok.lower_
    sents = list(doc.sents)
    k = next(i for i, s in enumerate(sents) if s.start <= tok.i < s.end)
    stretches = [[t for t in sents[k] if t.i < tok.i]] + [list(sents[j]) for j in range(k - 1, max(-1, k - 1 - BACK), -1)]
    for n, tokens in enumerate(stretches):
        if not tokens:
            continue
        cands = _stretch_candidates(tokens, pron, skip, own=n == 0, gov=_governor(tok) if n == 0 else None)
        if cands:
            found = _pick(cands, pron)
            return (found, True) if found is not None else None
    before = [t for t in doc if t.i < tok.i]
    if pron == "them":
        return None  # things only from the message
    if pron != "it":
        # "Did Tyler get off okay?" -> "He shipped out. We drove him to the office": the other turn's name
        return (None, True) if k <= BACK and tok.idx < REACH and no_person_before(before, pron) else None
    if k > BACK or tok.idx >= REACH or any(t.pos_ == "PRON" and t.tag_ != "PRP$" and t.lower_ in _POINTERS for t in before):
        return None
    return None, True


def _other_turn(ctx: ExtractionContext, speaker: str, whole: bool = False) -> tuple[str, str] | None:
    """(the other speaker, their last question) of the previous turn, when it is one of the turn's
    last two sentences; None otherwise. `whole`: the turn's text (up to the parse limit), for the
    name a "him/her" answer is about ("Did Tyler get off okay? How are you holding up?")."""
    turns = list(ctx.previous_turns or [])
    if not turns:
        return None
    who, text = turns[-1]
    if not who or who.strip() == speaker or not text:
        return None
    tail = text[-MAX_PARSE_CHARS:]
    if whole:
        return who.strip(), tail
    sents = [s for s in (tail[a:b].strip() for a, b in sentence_spans(tail)) if s]
    asked = [s for s in sents[-2:] if s.rstrip("!").endswith("?")]
    return (who.strip(), asked[-1]) if asked else None


def apply(facts: list[ExtractedFact], text: str, ctx: ExtractionContext) -> int:
    """Name each fact's object it/him/her where the message says what it is; returns how many changed."""
    targets = _targets(facts, text)
    if not targets:
        return 0
    from arandu_pipelines.write.parses import NER, PARSE, for_context

    parses = for_context(ctx, ctx.spacy_model)
    end = max(at for _, _, at in targets)
    end = next((b for a, b in sentence_spans(text) if b > end), len(text))
    doc = parses.doc(text[:end], PARSE, STAGE)
    if doc is None:
        return 0
    speaker = (ctx.speaker_name or "").strip()
    listener = (ctx.addressee or "").strip()
    skip = {n.casefold() for n in (speaker, listener, *speaker.split()[:1], *listener.split()[:1]) if n}
    if any(t.tag_ == "NNP" and t.lower_ not in skip for t in doc):
        parses.doc(doc.text, NER, STAGE)  # names for "him"/"her"; dates are no things
    changed = 0
    for f, m, at in targets:
        tok = next((t for t in doc if t.idx == at), None)
        if tok is None or not _object_pronoun(tok) or (_pron_count(f.fact_text, m.group(1)) > 1 and not _all_objects(tok)):
            continue
        found = _resolve(doc, tok, skip)
        if found is None:
            continue
        cand, _ = found
        owner, mine = speaker, listener
        if cand is None:
            cand, owner, mine = _from_other(parses, ctx, speaker, tok.lower_, skip, tok.head.lower_)
        if cand is None:
            continue
        said = cand if isinstance(cand, str) else (
            object_plural.render(cand[0], owner, mine, _joined) if tok.lower_ == "them" else _render(cand[0], owner, mine))
        if not said or _reads_alone(f, m, said, cand, tok.lower_):
            continue
        from arandu_pipelines.write.readability import pronouns

        # "Howard fixed Howard's car" -> "Howard fixed their car" (write/readability.py)
        f.fact_text = pronouns(f.fact_text[: m.start()] + said + f.fact_text[m.end():], f.subject,
                               source=f.source_text)
        changed += 1
    return changed


def _pron_count(text: str, word: str) -> int:
    """How often the pronoun `word` stands in `text` as a word."""
    return len(re.findall(rf"(?<![\w'’-]){word}(?![\w'’-])", text))


def _all_objects(tok: Any) -> bool:
    """Every same pronoun after this one in its sentence is an object too: "rebuild it rather than
    replace it" is one thing; "I finished it yesterday, it took me all week" has a subject "it"
    the fact ran on ("finished it it took"), which is no second object of the same thing."""
    sent = tok.sent
    return all(t.dep_ in ("dobj", "dative", "pobj") for t in sent if t.i > tok.i and t.lower_ == tok.lower_)


def _reads_alone(f: ExtractedFact, m: re.Match[str], said: str, cand: Any, pron: str) -> bool:
    """The fact needs no name, or must not get this one: "Maya gets flustered when someone is watching
    her" (the subject itself), "Priya is meeting Walt to show him ..." (the name is in the fact),
    "Sam bought a car and fixed it" (the thing is in the fact), a name whose known gender is not
    the pronoun's."""
    if pron in ("him", "her") and not isinstance(cand, str):
        return re.search(rf"(?<![\w'’]){re.escape(cand[0][-1].text)}(?![\w'’])", f.fact_text) is not None
    if pron in ("him", "her"):
        first = said.split()[0]
        return conflicts(said, "m" if pron == "him" else "f") or said == f.subject or first in f.subject.split() \
            or re.search(rf"(?<![\w'’]){re.escape(first)}(?![\w])", f.fact_text) is not None
    noun = cand[0][-1].text
    return re.search(rf"(?<![\w'’]){re.escape(noun)}(?![\w'’])", f.fact_text[: m.start()]) is not None


def _from_other(parses: Any, ctx: ExtractionContext, speaker: str, pron: str,
                skip: set[str], verb: str) -> tuple[Any, str, str]:
    """The one candidate of the other speaker's last sentence, with whose "my" and "your" it was."""
    from arandu_pipelines.write.parses import NER, PARSE

    other = _other_turn(ctx, speaker, whole=pron != "it")
    if other is None:
        return None, "", ""
    who, sent = other
    doc = parses.doc(sent, PARSE, STAGE)
    if doc is None:
        return None, "", ""
    if any(t.tag_ == "NNP" and t.lower_ not in skip for t in doc):
        parses.doc(sent, NER, STAGE)
    asked = _asked_object(doc, verb) if pron == "it" else None
    if asked is not None:
        return asked, who, speaker
    cands = _stretch_candidates(list(doc), pron, skip | {who.casefold()})
    if pron != "it":  # "Did Tyler get off okay? How are you and Patty?": Patty is no "him"
        cands = [c for c in cands if not (isinstance(c, str) and conflicts(c, "m" if pron == "him" else "f"))]
    return _pick(cands, pron), who, speaker


def _asked_object(doc: Any, verb: str) -> Any | None:
    """The object of the question's verb the reply repeats: "Did you finish the eagle in time for the
    graduation?" -> "Finished it Thursday" is the eagle (the graduation is only when)."""
    for t in doc:
        if t.pos_ == "VERB" and _same_verb(t.lower_, verb):
            objs = [c for c in t.children if c.dep_ == "dobj"]
            if objs and any(c.dep_ == "conj" for c in objs[0].children):
                return None  # "Did you finish the painting or the vase?": which one is for the stretch to say
            chunk = next((c for c in doc.noun_chunks if len(objs) == 1 and c.root.i == objs[0].i), None)
            found = _thing(chunk, True) if chunk is not None else None
            return found if found is not None and found[1] else None
    return None
