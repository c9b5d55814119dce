"""Precision filters over the final text of free-text facts, each a named row of `FILTERS`.

`fact_quality.refine` runs its own checks first (captions, talk, reactions, moods ...) and then
these, on the extractor's free-text facts only (restated sentences, not a rule's match such as
"lives in" or "my sister X"). They look at the fact's text as it will be stored, i.e. after the
rules ran and after any antecedent resolution: a pronoun a rule resolved ("Melanie made a bowl")
is no longer a pronoun here, and only what stays unresolved is judged.

Each filter was kept only if, on the dev conversations (bench/facts.py, database mode), it raised
"supported" and lowered coverage by at most a point (figures in docs/architecture.md, "Precision
filters"). Its name is the drop reason counted in `ExtractionResult.trace["refine_dropped"]`.

| name             | drops a free-text fact that ...                                              |
|------------------|------------------------------------------------------------------------------|
| content_free     | has an informativeness of 0: nothing but the subject, light verbs,           |
|                  | evaluations and vague words ("Caroline saw some pretty cool stuff",          |
|                  | "Those moments really make Caroline thankful", "Jon is not giving up")       |
| vague_pronoun    | leaves a pronoun object unresolved ("it", "them", "those" with nothing they  |
|                  | point to) and has an informativeness <= 1 ("Melanie painted it because it   |
|                  | was calming", "Jon needed to do it for Jon's biz")                           |
| generic_opinion  | is a maxim the rules turned into a belief with a topic of at most two        |
|                  | content words and no name in it ("Gina believes marketing is key",           |
|                  | "Caroline believes family is everything")                                    |

Informativeness (`informativeness`) is the number of content words left once the fact's
subject, stop words, pronouns, `LIGHT_VERBS` and `VAGUE_WORDS` are taken away: "Melanie did a
painting" has 1 (painting), "Caroline wants to help make a difference" 0. The word lists are data,
general English, not keyed to any conversation. Portuguese: the lists are English, so a
Portuguese fact's words all count as content and no filter drops it (the rule tables and
`fact_quality`'s checks still apply); a Portuguese list can be added as rows of the same data.

Exclamation tails ("- let's make it happen", "- love it") are cut by `cut_exclamation`, a repair
run before the filters, so the fact before the dash is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_WORD_RE = re.compile(r"[\w'’-]+")

STOP_WORDS: frozenset[str] = frozenset(
    ["a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are", "was", "were", "be", "been", "am", "it", "its", "this", "that", "has", "have", "had", "do", "does", "did", "so", "very", "really", "just", "also", "too", "not", "no", "her", "his", "their", "them", "they", "he", "she", "we", "our", "i", "me", "my", "you", "your", "s", "'s", "if", "than", "then", "because", "'cause", "cause", "when", "while", "since", "about", "into", "over", "after", "before", "how", "what", "who", "why", "where", "which", "whose", "until", "though", "although", "once", "each", "every", "any", "both", "either", "only"])
PRONOUNS: frozenset[str] = frozenset(["it", "this", "that", "these", "those", "them", "they", "'em", "one", "ones", "he", "she", "him"])
# verbs that carry no topic of their own ("make it happen", "give back", "get to do it")
LIGHT_VERBS: frozenset[str] = frozenset(
    ["make", "makes", "made", "making", "do", "does", "did", "doing", "done", "get", "gets", "got", "getting", "go", "goes", "went", "going", "gone", "take", "takes", "took", "taking", "give", "gives", "gave", "giving", "see", "saw", "seen", "seeing", "show", "showed", "shows", "showing", "feel", "feels", "felt", "feeling", "find", "finds", "found", "finding", "keep", "keeps", "kept", "keeping", "put", "puts", "try", "tries", "tried", "trying", "let", "lets", "want", "wants", "wanted", "need", "needs", "needed", "help", "helps", "helped", "bring", "brings", "brought", "come", "came", "comes", "coming", "think", "thinks", "thought", "know", "knows", "knew", "mean", "means", "meant", "say", "said", "says", "tell", "told", "happen", "happens", "happened", "start", "started", "starts", "remind", "reminds", "reminded", "been", "being", "having", "seems", "seem", "seemed", "looks", "look", "looked", "sounds", "sound", "can", "could", "will", "would", "should", "might", "must", "gonna", "wanna", "gotta"])
# evaluations, intensifiers, vague nouns and idiom words: what a chat says about anything
VAGUE_WORDS: frozenset[str] = frozenset(
    ["great", "awesome", "amazing", "cool", "nice", "lovely", "wonderful", "fantastic", "incredible", "beautiful", "gorgeous", "good", "bad", "sweet", "cute", "fun", "funny", "crazy", "wild", "perfect", "impressive", "inspiring", "inspired", "powerful", "special", "important", "vital", "crucial", "key", "necessary", "interesting", "exciting", "excited", "happy", "glad", "proud", "sad", "sorry", "tough", "hard", "easy", "true", "right", "wrong", "best", "better", "worse", "worst", "super", "pretty", "quite", "kinda", "such", "much", "lot", "lots", "thing", "things", "stuff", "way", "ways", "rad", "epic", "brilliant", "terrific", "stunning", "thankful", "grateful", "blessed", "lucky", "stoked", "thrilled", "pumped", "worth", "everything", "something", "anything", "all", "some", "many", "more", "most", "other", "others", "own", "moment", "moments", "time", "times", "totally", "definitely", "absolutely", "always", "never", "ever", "even", "still", "sometimes", "lately", "recently", "now", "here", "there", "love", "loved", "loves", "loving", "support", "supported", "supporting", "meaningful", "fulfilling", "rewarding", "enlightening", "empowering", "cathartic", "calming", "relaxed", "difference", "back", "along", "sometime", "dream", "dreams", "ready", "okay", "ok", "up", "hectic", "working", "advice", "whole", "bit", "little", "big", "new"])

# a pronoun object with nothing after it but the end, punctuation, a preposition or an adverb:
# "try it sometime", "supported them along the way", "make it all worth it"
_PRONOUN_OBJECT_RE = re.compile(
    r"(?i)(?<=[a-z]\s)(?:it|them|'em|those|these|this|that)(?=\s*(?:$|[,.;:!?–—-]|\s(?:to|for|in|at|on|with|after"
    r"|because|'cause|cause|so|when|sometime|along|up|out|back|and|but|too|all|again|now|once|really|though|yet"
    r"|anymore|either)\b))")
_SUBORDINATE_RE = re.compile(r"(?i)\s(?:because|'cause|cause|why|how|what|when|where|which|who|if|since|while|until"
                             r"|although|though|whether)\s")
_BELIEF_RE = re.compile(
    r"^(?P<s>.+?) believes (?P<x>.+?) (?:is|are) (?:(?:so|really|very|super|truly|always|sure)\s+)*"
    r"(?:crucial|important|essential|key|vital|necessary|everything|powerful|worth)\b(?P<rest>.*)$")
_EXCLAMATION_TAIL_RE = re.compile(
    r"(?i)\s*(?:[-–—]+|,)\s*(?:let['’]s\s+(?:make\s+it\s+happen|do\s+(?:it|this))|love\s+it|it['’]s\s+amazing"
    r"|that['’]s\s+for\s+sure|so\s+cool|how\s+cool\s+is\s+that)\W*$")


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD_RE.findall(text)]


def informativeness(text: str, subject: str) -> int:
    """Content words of `text` that are neither the subject's name nor stop/light/vague words."""
    names = set(_words(subject)) | {"others"}
    n = 0
    for w in _words(text):
        base = w.removesuffix("'s")
        if len(w) < 2 or base in names or w in STOP_WORDS or base in STOP_WORDS or w in PRONOUNS \
                or w in LIGHT_VERBS or w in VAGUE_WORDS or base in VAGUE_WORDS:
            continue
        n += 1
    return n


def content_free(text: str, subject: str) -> bool:
    return informativeness(text, subject) == 0


def vague_pronoun(text: str, subject: str) -> bool:
    """Only a pronoun of the main clause counts: in "Gina thinks of the big goal and why Gina is
    doing it" the embedded clause's "it" points back into the same fact."""
    main = _SUBORDINATE_RE.split(text, 1)[0]
    return bool(_PRONOUN_OBJECT_RE.search(main)) and informativeness(text, subject) <= 1


def generic_opinion(text: str, subject: str) -> bool:
    m = _BELIEF_RE.match(text)
    if not m or m.group("s") != subject or subject in m.group("x") or subject in m.group("rest"):
        return False
    topic = m.group("x")
    if any(w[:1].isupper() for w in _WORD_RE.findall(topic)):
        return False  # names something ("Caroline believes Pride is important"): a fact about it
    return informativeness(topic, subject) <= 2


def cut_exclamation(text: str) -> str:
    """"Caroline and others want it to spread acceptance - let's make it happen" -> the part
    before the exclamation; unchanged if that would leave fewer than three words."""
    cut = _EXCLAMATION_TAIL_RE.sub("", text)
    return cut if cut != text and len(cut.split()) >= 3 else text


@dataclass(frozen=True)
class Filter:
    """A named precision filter: `drops(text, subject)` is True for a fact to drop."""

    name: str
    drops: Callable[[str, str], bool]


FILTERS: tuple[Filter, ...] = (
    Filter("content_free", content_free),
    Filter("vague_pronoun", vague_pronoun),
    Filter("generic_opinion", generic_opinion),
)
#: names of the filters that run; a benchmark may narrow it to measure one filter's effect
ENABLED: set[str] = {f.name for f in FILTERS}


def drop_reason(text: str, subject: str) -> str | None:
    """The name of the first enabled filter that drops this fact, or None to keep it."""
    for f in FILTERS:
        if f.name in ENABLED and f.drops(text, subject):
            return f.name
    return None
