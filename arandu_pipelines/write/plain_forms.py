"""Plain forms: what a careful reader of `get_all()` still rewrote in the kept facts (session 13).

Reading every active fact of the dev pair after sessions 10-12 left four classes, each general
English (no name, topic or phrase of the dev conversations):

| class | stored before | here |
|---|---|---|
| a noun's "'s" contraction copied from chat | "Blue's Caroline's favorite", "Melanie's son's ok", "Melanie's family's been awesome", "Art's allowed Caroline to ..." | "Blue is ...", "Melanie's son is ok", "... family has been ...", "Art has allowed ..." (`contractions`) |
| a chat demonstrative whose referent is not in the fact | "Caroline made this painting ...", "... helping these kids" | "Caroline made a painting ...", "... helping the kids" (`demonstratives`) |
| "us" rewritten as "<S> and others" after a preposition | "... that within Caroline and others all is the key", "... to both of Jon and others" | "... within everyone ...", "... to both Jon and Gina" (`group_objects`) |
| a fragment with no fact in it | "Almost as silly as when ...", "Time flies- feels like just yesterday ..." | dropped (`fragment`, a check) |

`contractions` decides "is" or "has" by the next word, and only where the "'s" word can be a
subject (the fact's start or a clause start, after at most one possessive: "Melanie's son's ok");
a possessive ("Caroline's painting", "Veggies are Oliver's favorite") is never touched: the next
word must be one a possessive cannot precede (an article, "been", an adverb, a participle with
an object, a predicate adjective that ends its clause, a progressive verb of `_PROGRESSIVE`, or
another name's possessive). Pronoun contractions ("it's", "that's", "there's") stay: they are
ordinary written English.

`demonstratives`: "this"/"these"/"those" before a noun phrase in a fact that stands alone:
"this" after a verb is the chat's indefinite "this" ("I came across this cool sidewalk") and
becomes "a"/"an"; elsewhere (after a preposition, in the subject) it is a definite "the"
("throughout this journey" -> "throughout the journey"); "these"/"those" become "the", or "some"
after a verb of finding or making ("found these lovely flowers" -> "found some lovely flowers"). Time
phrases ("this year", "these days") and "those who" keep theirs. A bare demonstrative with no
noun ("Melanie is obsessed with those") has no form to write; it is left (a bench marker counts
it). A spelling fix of fact texts was measured and is not done (docs/facts.md, session 13).
"""

from __future__ import annotations

import re

# ---- a noun's "'s" contraction -------------------------------------------------------------------
_PRONOUNS = frozenset(["it", "that", "there", "here", "what", "who", "he", "she", "let", "where", "how", "this",
                       "everyone", "everything", "nothing", "someone", "something", "one", "which", "why", "when"])
_ADVERBS = ("always|really|so|super|just|still|mostly|also|never|not|definitely|totally|pretty|very|too|"
            "finally|already|actually|truly|kind\\s+of|sort\\s+of|probably|all|even|now")
# after the "'s": "has" before these, and before a participle that takes an object
_HAS_NEXT = frozenset(["been", "got", "gotten", "had"])
_PARTICIPLES = frozenset(["made", "given", "taken", "done", "shown", "taught", "brought", "kept", "helped", "allowed",
                          "become", "grown", "changed", "inspired", "motivated", "pushed", "saved", "led", "won",
                          "started", "found", "seen", "meant", "let", "put", "turned", "left", "gone"])
# "is" before these: a progressive verb (never a noun after a possessive, unlike "painting")
_PROGRESSIVE = frozenset(["going", "doing", "getting", "coming", "trying", "taking", "having", "feeling", "growing",
                          "keeping", "looking", "becoming", "starting", "helping", "giving", "heading", "moving",
                          "working", "paying", "turning", "holding", "bringing", "making", "thriving", "coping"])
# a predicate adjective ends its clause ("Marley's perfect;", "son's ok and ..."): only these and
# "-ful/-ous/-ible/-able" words, since a noun can end a clause too ("Caroline's dog, Max, ...")
_ADJECTIVES = frozenset(["ok", "okay", "fine", "great", "good", "better", "awesome", "perfect", "amazing", "important",
                         "special", "right", "wrong", "happy", "huge", "incredible", "cool", "nice", "busy", "hard",
                         "tough", "easy", "crazy", "wild", "different", "essential", "rough", "quiet", "calm", "safe",
                         "healthy", "ready", "over", "back", "home", "open", "closed", "free", "full", "alive", "fun",
                         "amazing", "fantastic", "excellent", "sweet", "lovely", "cute", "bright", "strong", "proud",
                         "excited", "thrilled", "sick", "tired", "alright", "gone", "new", "big", "small", "real",
                         "key", "everything", "precious", "unique", "epic", "magical", "inspiring", "empowering"])
_CLAUSE_END = r"(?=\s*(?:$|[,;:.!]|\s(?:and|but|so|because|for|to|with|about|at|in|on|of|that|as|now)\b))"
_OBJECT_START = r"(?=\s+(?:[A-Z]\w*|a|an|the|their|his|her|my|our|them|him|me|us|it|so|some|lots?)\b)"
_SUBJECT_AT = r"(?:^|(?<=[;:,])\s+|(?<=\s)(?:and|but|so|because|since|when|that|as|while|now)\s+)"
_CONTRACTION_RE = re.compile(
    rf"{_SUBJECT_AT}(?:(?i:the|their|his|her|our|my)\s+)?(?:(?P<owner>[A-Z][\w-]*['’]s)\s+)?(?P<noun>[A-Za-z][\w-]*)['’]s"
    rf"(?P<adv>(?:\s+(?:{_ADVERBS}))*)\s+(?P<next>[A-Za-z][\w-]*(?:['’]s)?)")


def _contraction_verb(next_word: str, after: str) -> str | None:
    """"is", "has" or None (a possessive, or not sure) for the word after a noun's "'s"."""
    low = next_word.lower()
    if low in _HAS_NEXT:
        return "has"
    if low in _PARTICIPLES and re.match(_OBJECT_START, after):
        return "has"  # "Art's allowed Caroline to ...": a participle with its object
    if low in ("a", "an", "the") or low in _PROGRESSIVE:
        return "is"
    if re.match(r"[A-Z]\w*['’]s$", next_word):
        return "is"  # "Blue's Caroline's favorite": a possessive never precedes another name's
    adjective = low in _ADJECTIVES or re.search(r".{3}(?:ful|ous|ible|able)$", low) is not None
    if next_word.islower() and adjective and re.match(_CLAUSE_END, after):
        return "is"  # "Marley's perfect;", "son's ok and": a predicate adjective closing its clause
    return None


def _progressive_end(next_word: str, after: str) -> bool:
    """An "-ing" word closing the fact after an owner's noun's "'s" ("Nora's mom's babysitting"):
    a progressive; a noun there ("Ana's painting") has no second "'s" before it."""
    return next_word.islower() and next_word.endswith("ing") and len(next_word) > 5 \
        and re.fullmatch(r"\s*[.!]*", after) is not None


def contractions(text: str) -> str:
    """`text` with a noun's chat contraction "'s" written out as "is" or "has" (module doc)."""
    def repl(m: re.Match[str]) -> str:
        noun = m.group("noun")
        if noun.lower() in _PRONOUNS:
            return m.group(0)
        verb = _contraction_verb(m.group("next"), text[m.end():])
        adv = m.group("adv")
        owner = m.group("owner")
        if verb is None and owner and _progressive_end(m.group("next"), text[m.end():]):
            verb = "is"  # "Nora's mom's babysitting" closing the fact (session 17, wellformed17b)
        if verb is None and owner and not adv and owner[:-2].lower() not in _PRONOUNS and _contraction_verb(noun + "'s", "") == "is":
            lead = m.group(0)[: m.start("owner") - m.start()]
            return f"{lead}{owner[:-2]} is {m.group(0)[m.start('noun') - m.start():]}"  # "Blue's Caroline's favorite"
        if verb is None and adv.strip() and adv.split()[-1].lower() not in ("so", "not", "all", "even", "now"):
            verb = "is"  # "Guitar's mostly Caroline's thing", "Family's super important": an adverb
            if m.group("next").lower() in _HAS_NEXT or m.group("next").lower() in _PARTICIPLES:
                verb = "has"
        if verb is None:
            return m.group(0)
        head = m.group(0)[: m.start("noun") - m.start()]
        return f"{head}{noun} {verb}{adv} {m.group('next')}"

    return _CONTRACTION_RE.sub(repl, text)


# ---- demonstratives ------------------------------------------------------------------------------
_TIME_NOUNS = frozenset(["year", "week", "weekend", "month", "summer", "winter", "spring", "fall", "autumn", "morning",
                         "afternoon", "evening", "night", "time", "days", "times", "past", "coming", "one", "ones",
                         "semester", "season", "moment", "point", "way", "kind", "sort", "much", "many", "last", "next",
                         "upcoming", "very", "same", "particular", "exact", "is", "was",
                         "are", "were", "who", "that", "which", "will", "has", "have", "had", "can", "could",
                         "would", "should", "might", "must", "may", "in", "on", "at", "for", "with", "and", "or",
                         "but", "so", "to", "of", "from", "about", "after", "before", "when", "as", "because", "by",
                         "into", "together", "all", "too", "again", "here", "there", "now", "still", "really"])
# "this really ...", "this only ...": an adverb after a bare demonstrative ("lovely" is an adjective)
_ADVERBS_AFTER = frozenset(["only", "truly", "actually", "exactly", "clearly", "probably", "basically", "literally",
                            "honestly", "definitely", "totally", "finally", "especially", "simply", "certainly",
                            "usually", "definitely", "seriously", "absolutely", "completely", "mostly", "also"])
_DEMONSTRATIVE_RE = re.compile(r"(?<![\w'’-])(?P<d>[Tt]his|[Tt]hese|[Tt]hose)\s+(?P<next>[a-z][\w'’-]*)")
# a verb right before "this" makes it the chat's indefinite "this" ("came across this", "made this")
_BEFORE_VERB_RE = re.compile(r"(?:\b[a-z]+ed|\b(?:made|found|got|bought|saw|met|took|drew|wrote|built|did|had|has"
                             r"|have|across|was|is|were|are|became|gave|brought|sent|won|held|threw|lost|chose"
                             r"|kept|tried|started|begun|began|finished|painted|create[sd]?|make|makes|find"
                             r"|get|gets|see|sees|take|takes|do|does|by|into|upon))\s+$")


# "these/those" after a verb of finding or making is the chat's indefinite plural ("some")
_FOUND_RE = re.compile(r"\b(?:found|bought|made|saw|met|got|picked|painted|drew|built|wrote|created|baked"
                       r"|planted|came\s+across|ran\s+into)\s+$")


def _article(word: str) -> str:
    return "an" if re.match(r"(?i)(?:[aeio]|u(?!ni|se|su|sa|ro|ti)|hour|honest)", word) else "a"


def demonstratives(text: str) -> str:
    """`text` with a chat demonstrative before a noun phrase written as an article (module doc)."""
    def repl(m: re.Match[str]) -> str:
        nxt = m.group("next")
        d = m.group("d")
        if nxt.lower() in _TIME_NOUNS or nxt.lower() in _ADVERBS_AFTER or (d.lower() == "those" and nxt.endswith(("ed", "ing"))):
            return m.group(0)
        if d.lower() == "this" and _BEFORE_VERB_RE.search(text[: m.start()]):
            art = _article(nxt)
        elif _FOUND_RE.search(text[: m.start()]):
            art = "some"  # "found these lovely flowers": things met for the first time
        else:
            art = "the"
        if d[0].isupper():
            art = art.capitalize()
        return f"{art} {nxt}"

    return _DEMONSTRATIVE_RE.sub(repl, text)


# ---- "us" after a preposition ------------------------------------------------------------------
_PREPOSITIONS = "within|in|inside|for|to|of|among|amongst|with|from|between|about|like|around|behind|before"


def group_objects(text: str, speaker: str, addressee: str | None) -> str:
    """"within S and others all" -> "within everyone" (the chat's generic "within us all"),
    "both of S and others" -> "both S and <addressee>" (the two speakers) when the addressee is
    known; `text` unchanged otherwise."""
    if not speaker or f"{speaker} and others" not in text:
        return text
    s = re.escape(speaker)
    out = re.sub(rf"\b(?P<p>{_PREPOSITIONS})\s+(?:all\s+of\s+{s}\s+and\s+others|{s}\s+and\s+others\s+all)\b",
                 lambda m: f"{m.group('p')} everyone", text)
    if addressee:
        out = re.sub(rf"\bboth\s+of\s+{s}\s+and\s+others\b", f"both {speaker} and {addressee}", out)
    return out


# ---- fragments -----------------------------------------------------------------------------------
# a comparison with nothing compared ("Almost as silly as when S got to feed a horse"), a
# remark on time passing ("Time flies- feels like just yesterday S put this dress on"), or a hedged
# comparison with no subject ("Kind of like S's defense", session 18: "like" after the hedge is the
# preposition, never the verb, and the fact names nobody it says something about)
_FRAGMENT_RE = re.compile(r"(?i)^(?:(?:almost|nearly|just|not|about)\s+)?as\s+(?!(?:soon|long|well|far|much|many|often)\b)"
                          r"[a-z]+\s+as\b|^time\s+(?:flies|flew)\b|^(?:kind|sort)\s+of\s+like\b|^(?:kinda|sorta)\s+like\b")


def fragment(text: str) -> bool:
    """True when the fact is a fragment that states nothing about anyone (module doc)."""
    return bool(_FRAGMENT_RE.match(text))


# "He's always been the one ..." read with "is": "is" + adverbs + "been"/"had" is never English
_IS_BEEN_RE = re.compile(r"\bis((?:\s+(?:always|never|just|already|really|ever|also|still|finally|only|recently"
                         r"|mostly|even|basically|honestly|literally))+)\s+(been|had)\b")


def polish(text: str, speaker: str, addressee: str | None = None) -> str:
    """The rewrites above, for a kept fact (end of `fact_quality.refine`). `speaker`: the
    message's speaker, whose "us" the rules wrote "<speaker> and others" (any fact subject)."""
    out = group_objects(contractions(demonstratives(text)), speaker, addressee)
    out = _IS_BEEN_RE.sub(r"has\1 \2", out)
    return out[:1].upper() + out[1:] if out else out
