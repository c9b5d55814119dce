"""Speech acts addressed to the other speaker: what one person does toward the other.

In a chat between two friends many turns carry no fact about the world but an act toward the
listener: encouragement ("Keep going after your dreams!"), an offer of help ("I can help you
with the website"), thanks for something named ("Thanks for having my back"), belief in them
("I believe in you"), an appraisal ("You're definitely the perfect mentor & guide"). LoCoMo's
annotators write these down ("Gina encourages Jon to keep going after his dreams"), and a
careful reader would keep the ones with content. This module is a table of such act kinds,
recognised from the sentence's structure (spaCy tagger + dependency parse), that writes at most
ONE fact per turn: any kind for a turn that carries no other fact, only a `BESIDE` kind (help,
thanks, encouragement, support) beside the turn's other facts (session 11):

| kind          | sentence (after greetings / vocatives)                   | fact                              |
|---------------|----------------------------------------------------------|-----------------------------------|
| offer_help    | I can/could/'d love to help (you) with X; Let me know if | S offered to help A with X        |
|               |   you need (any) help with X; I'm happy to help (you) X  |                                   |
|               |   ("I'd", "I'm" with no space: session 12)               |                                   |
| grateful      | Thanks / Thank you for X (X names something: not "the    | S is grateful to A for X          |
|               |   chat", "asking", ...); (I) (really) appreciate your X; | S is grateful for A's X           |
|               |   I'd (really) appreciate your X;                        |                                   |
|               |   Your X means a lot / the world (to me)                 |                                   |
| believes_in   | I believe in you / I have faith in you                   | S believes in A                   |
| encourages    | an imperative addressed to A: root verb in base form,    | S encourages A to VP /            |
|               |   no subject, a verb of persisting or believing          |   S encourages A not to VP        |
|               |   (`_PERSIST`; negated: `_NEG_PERSIST`): "Keep going     |                                   |
|               |   after your dreams", "Don't let anything stop you"; the |                                   |
|               |   VP must name something beyond the formula ("Keep       |                                   |
|               |   going!", "Hang in there" give none); advice ("Do your  |                                   |
|               |   research", "Remember to X") and talk are left out      |                                   |
| admires       | Way to VP! (a compliment on something done)              | S admires A for VP-ing            |
| thinks_of     | You're (so/definitely) <adjective or noun phrase> with   | S thinks A is X                   |
|               |   content ("so talented and driven", "the perfect        |                                   |
|               |   mentor"; not "awesome", "the best")                    |                                   |
| proud_of      | (I'm) (so) proud of you! (bare; "proud of you for X" is  | S is proud of A                   |
|               |   write/stance.py's kind)                                |                                   |
| confident     | You're gonna / going to / You'll / You will VP, the VP   | S is confident A will VP          |
|               |   naming two things ("kill it in that competition"; not  |                                   |
|               |   "You're gonna kill it", "You'll be fine")              |                                   |
| supports      | I'm (always) here to support / back you (not "I'm here   | S supports A                      |
|               |   for you")                                              |                                   |
| encourages_   | a bare formula ("Keep it up", "Don't give up") with the  | S encourages A (not) to VP, as A  |
|   reason      |   turn's reason: "You('ve) got / earned X" (session 12)  |   has / earned X                  |
| values        | It means a lot (to me) to VP / VP-ing; VP-ing means a    | S values VP-ing                   |
|               |   lot / so much / the world (not "Your X means a lot":   |                                   |
|               |   thanks; not "... to me that you ...") (session 12)     |                                   |
| happy_for     | (I'm) (so) happy / glad for you + the next sentence with | S is happy for A that A VP        |
|               |   the listener as subject of a done deed (session 12)    |                                   |
| finds_        | Your X is/are (really) encouraging / inspiring /         | S finds A's X (really) ADJ        |
|   encouraging |   motivating / uplifting ... (session 12)                |                                   |

Bare formulas -- "You got this!", "Good luck!", "Thanks!", "Keep it up!", "You're awesome" --
give nothing: nothing in them is worth keeping, and the message text stays searchable anyway.
Kinds are tried in the order of the table over all sentences of the turn; the first hit is the
turn's one fact. Beside another fact only what the speaker does for the listener is added, and
not from a sentence another fact came from: a turn with a fact about the speaker's life is
annotated with that fact, and with the act beside it mostly when the act is help, thanks or
encouragement (measured: docs/facts.md "Coverage with the precision headroom (session 11)").

English only (a Portuguese turn is left alone: no Portuguese parser is installed, and the
restating rules already keep Portuguese turns' own facts); needs the addressee and a spaCy
pipeline with a tagger and a parser (`nlp.model_name`, the same configurable pipeline as NER:
one loaded copy, docs shared through write/parses.py). No pipeline: no speech-act facts.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.language import detect_language
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

log = logging.getLogger(__name__)

# (text, speaker, addressee) -> the text in the third person: extract_rules' rewriter, passed in
# by extract_rules (as for stance.py: the two modules do not import each other).
Rewriter = Callable[[str, str, str], str]

MAX_SENTENCE_CHARS = 300  # longer sentences are narration, not an act toward the listener

# ---- the parser ---------------------------------------------------------------------------------
# The docs come from the chunk's write/parses.ChunkParses (the one shared pipeline; a sentence
# another stage already parsed is not parsed again).
STAGE = "speech_acts"


# ---- words --------------------------------------------------------------------------------------
# lead words (lexicon.LEAD_WORDS) and the formulae of thanks and welcome before the act itself
_LEAD_CLASSES = ("interjection", "laughter", "vocative", "answer", "connective", "sequencer", "stance")
_LEAD_RE = re.compile(
    rf"(?i)^(?:(?:{L.lead_alternation(*_LEAD_CLASSES)}|no\s+prob(?:lem)?|no\s+worries|you['’]re\s+welcome|congrats"
    r"|(?>thanks(?:\s+(?:a\s+(?:lot|bunch|ton)|so\s+much))?|thank\s+you(?:\s+so\s+much)?)(?!\s+for\b))\b[\s,!.…:-]*)+")
# Words of the encouragement formula: a VP made only of these names nothing ("Keep it up",
# "Hang in there", "Never give up", "Keep on pushing", "Believe in yourself", "Rock on").
_FORMULA = frozenset(
    ["keep", "going", "go", "it", "up", "pushing", "push", "on", "give", "giving", "quit", "quitting", "hang", "in", "there", "shining", "shine", "rock", "at", "never", "do", "don't", "not", "n't", "doing", "great", "good", "work", "working", "hard", "trying", "try", "fighting", "strong", "positive", "believe", "yourself", "yourselves", "you", "your", "themselves", "this", "that", "the", "a", "an", "of", "to", "and", "or", "with", "for", "ever", "always", "just", "moving", "forward", "dreaming", "smiling", "chin", "head", "high", "get", "nothing", "down", "back", "beat", "miss", "way", "awesome", "amazing", "going", "best", "luck", "fun", "safe", "careful", "easy", "slow", "calm", "remember", "forget", "look", "care", "em", "'em", "them", "rocking", "take", "taking", "motivated", "focused", "determined", "hopeful", "optimistic", "strong", "buddy", "pal", "man", "dude", "girl", "bro", "mate", "friend", "dear", "hun", "stay", "staying"])
# Verbs of persisting and believing: their imperative is encouragement ("Keep going after your
# dreams"); any other verb's is advice or talk ("Do your research", "Try the pasta", "Tell me
# more", "(I) love the colors" -- a dropped subject parses as an imperative too), left out.
_PERSIST = frozenset(["keep", "stay", "believe", "go", "chase", "push", "hang", "follow", "remember", "trust", "tackle", "pursue", "fight", "dream", "reach", "aim", "embrace", "focus", "continue", "carry", "shine"])
# ... and of giving up, negated: "Don't give up / quit / let anything stop you"
_NEG_PERSIST = frozenset(["give", "quit", "let", "stop", "lose", "doubt", "underestimate", "settle"])
_OPENING_RE = re.compile(
    rf"(?i)^(?:(?:just|always|please|definitely|really|still|do\s+not|don['’]t|never)\s+)*(?:{'|'.join(sorted(_PERSIST))}"
    rf"|{'|'.join(sorted(_NEG_PERSIST))})\b")
# "Thanks for X" with an empty X: thanks for the talk, not for something done
_EMPTY_THANKS = frozenset(
    ["asking", "sharing", "the", "chat", "chatting", "talking", "listening", "kind", "words", "compliment", "compliments", "checking", "in", "understanding", "it", "that", "this", "all", "everything", "letting", "me", "know", "saying", "so", "much", "reaching", "out", "support", "backing", "encouragement", "help", "advice", "tips", "tip", "words", "friendship", "motivation", "time", "input", "feedback", "kindness", "suggestion", "suggestions", "offer", "concern", "being", "there", "for", "me"])
# "You're X" with X only these says nothing in particular ("You're awesome", "You're the best")
_GENERIC_PRAISE = frozenset(
    ["awesome", "amazing", "great", "best", "sweet", "kind", "nice", "cool", "right", "welcome", "lucky", "one", "star", "rock", "legend", "incredible", "wonderful", "fantastic", "super", "good", "lovely", "fine", "okay", "ok", "back", "here", "there", "rockstar", "gem", "champ", "hero", "inspiring", "inspiration", "thoughtful", "talented", "dedicated", "brave", "strong", "impressive"])
_INTENSIFIERS = frozenset(["so", "very", "really", "such", "a", "an", "the", "too", "totally", "definitely", "truly", "always", "just", "incredibly", "super", "absolutely", "clearly", "seriously"])
_STOP = frozenset(
    ["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are", "was", "were", "be", "been", "am", "it", "its", "this", "that", "these", "those", "so", "very", "really", "just", "also", "too", "all", "up", "out", "about", "how", "what", "his", "her", "their", "our", "my", "your", "me", "him", "she", "he", "we", "us", "i", "you", "they", "them", "there", "here", "not", "n't", "do", "don't", "through", "out", "off", "over", "around", "along", "ahead", "away"])
_WORD_RE = re.compile(r"[\w'’-]+")


def _content(text: str, skip: frozenset[str], names: tuple[str, ...]) -> int:
    low_names = {w.lower() for n in names for w in _WORD_RE.findall(n)}
    # chat's dropped g ("askin'", "checkin'") is the word itself: "Thanks for askin'" names nothing
    words = [re.sub(r"in['’]$", "ing", w) for w in _WORD_RE.findall(text.lower())]
    return sum(1 for w in words
               if len(w) > 1 and w not in skip and w not in _STOP
               and w.removesuffix("'s").removesuffix("’s") not in low_names)


_TERMS_OF_ADDRESS = "buddy|pal|man|dude|girl|bro|mate|my\\s+friend|friend|dear|hun|babe"


def _strip(sentence: str, addressee: str) -> str:
    """The sentence without greetings, interjections and the addressee as vocative."""
    s = _LEAD_RE.sub("", sentence.strip())
    first = re.escape(addressee.split()[0])
    voc = re.match(rf"^{first}[a-z]*\s*[,!.]+\s*", s)
    if voc:
        s = _LEAD_RE.sub("", s[voc.end():])
    s = re.sub(rf",\s*(?:{first}[a-z]*|{_TERMS_OF_ADDRESS})\s*(?=[!.…]*$)", "", s, flags=re.IGNORECASE)
    s = re.sub(r"(?i)^(?:remember|don['’]t\s+forget)\s*,\s*", "", s)  # "Remember, X": X is the act
    return s.strip().rstrip("!.…🌟🙌💪😊 ").strip()


@dataclass(frozen=True)
class Act:
    kind: str
    text: str  # the fact
    source: str  # the sentence


@dataclass(frozen=True)
class _Turn:
    speaker: str
    addressee: str
    rewrite: Rewriter
    sentences: tuple[str, ...] = ()  # the turn's stripped sentences (a reason may be in another one)

    def third(self, text: str) -> str:
        out = self.rewrite(text, self.speaker, self.addressee)
        for a, b in ((" are", " is"), (" were", " was"), (" have", " has"), ("'re", " is"), ("'ve", " has")):
            out = out.replace(f"{self.addressee}{a}", f"{self.addressee}{b}")
        return out.strip().rstrip(",;:-–— ").strip()


# ---- detectors: (turn, stripped sentence, parsed doc) -> fact text or None ----------------------
_HELP_RE = re.compile(
    r"(?i)^(?:i(?:\s+(?:can|could|would\s+(?:love|be\s+happy)\s+to|am\s+happy\s+to|will)"
    r"|\s*['’]d\s+(?:love|be\s+happy|be\s+glad)\s+to|\s*['’]m\s+(?:happy|glad|here)\s+to|\s*['’]ll)"
    r"\s+(?:totally\s+|definitely\s+|gladly\s+)?"
    r"help(?:\s+you)?|let\s+me\s+know\s+if\s+you\s+(?:need|want)\s+(?:any\s+|some\s+)?help)"
    r"\s+(?P<x>(?:with|out\s+with|on)\s+\w.+|(?!out\b)[a-z]+\s+\w.+)$")
_THANKS_RE = re.compile(r"(?i)^(?:thanks|thank\s+you|thx)(?:\s+(?:so|very)\s+much|\s+a\s+(?:lot|bunch|ton))?"
                        r"\s+for\s+(?P<x>\w.+)$")
_APPRECIATE_RE = re.compile(r"(?i)^(?:i\s+|i['’]d\s+|i\s+would\s+)?(?:really\s+|truly\s+|so\s+)?appreciate\s+(?P<x>your\s+\w.+)$"
                            r"|^(?P<y>your\s+[\w'’ -]{2,40}?)\s+(?:really\s+)?means\s+(?:a\s+lot|so\s+much|the\s+world)\b")
_BELIEVE_RE = re.compile(r"(?i)^i\s+(?:really\s+|totally\s+|truly\s+)?(?:believe\s+in|have\s+(?:(?:so\s+much|total"
                         r"|full|complete)\s+)?faith\s+in)\s+you$")
_WAY_TO_RE = re.compile(r"(?i)^way\s+to\s+(?P<x>[a-z]+\s+\w.+)$")
_YOURE_RE = re.compile(r"(?i)^you['’]re\s+(?P<x>\w.+)$|^you\s+are\s+(?P<y>\w.+)$")


# session 10 (cov30): acts of a fact-less turn that the kinds above left out
_FEEL_ = r"(?:i['’]m\s+|i\s+am\s+)?(?:(?:so|really|super|very|truly|incredibly|just)\s+)*"
_PROUD_RE = re.compile(rf"(?i)^{_FEEL_}proud\s+of\s+you(?:\s+for\s+(?P<x>\w.+))?$")
_CONFIDENT_RE = re.compile(r"(?i)^you(?:['’]re\s+(?:gonna|going\s+to)|['’]ll|\s+will)\s+(?:(?:totally|definitely|surely)\s+)?"
                           r"(?P<x>(?!be\s+(?:fine|ok|okay|great|alright)\b)[a-z]+\s+\w.+)$")


def _proud_of(t: _Turn, s: str, doc: Any) -> str | None:
    """"So proud of you!" -> "S is proud of A". With a reason ("proud of you for X") the sentence
    is write/stance.py's `proud_of` kind, which decides whether X says enough."""
    m = _PROUD_RE.match(s)
    if not m or m.group("x"):
        return None
    return f"{t.speaker} is proud of {t.addressee}"


def _confident(t: _Turn, s: str, doc: Any) -> str | None:
    """"You're gonna kill it in that competition" -> "S is confident A will kill it in that
    competition": a prediction about the listener that names two things ("You're gonna kill it",
    "You'll be fine" give nothing)."""
    m = _CONFIDENT_RE.match(s)
    if not m:
        return None
    x = _cut(m.group("x"))
    if "?" in x or _content(x, _FORMULA, (t.speaker, t.addressee)) < 2:
        return None
    return f"{t.speaker} is confident {t.addressee} will {t.third(x)}"


def _offer_help(t: _Turn, s: str, doc: Any) -> str | None:
    m = _HELP_RE.match(s)
    if not m:
        return None
    x = t.third(_cut(m.group("x")))
    if _content(x, frozenset({"with", "out", "on"}), (t.speaker, t.addressee)) < 1:
        return None
    return f"{t.speaker} offered to help {t.addressee} {x}"


def _grateful(t: _Turn, s: str, doc: Any) -> str | None:
    m = _THANKS_RE.match(s)
    if m:
        x = re.split(r",\s+(?=(?:it|you|that|this|i|we|they|he|she)\b)", _cut(m.group("x")), maxsplit=1, flags=re.IGNORECASE)[0]
        if _content(x, _EMPTY_THANKS, (t.speaker, t.addressee)) < 1:
            return None
        x = t.third(x)
        if x.lower().startswith(f"{t.addressee.lower()}'s "):
            return f"{t.speaker} is grateful for {x}"
        return f"{t.speaker} is grateful to {t.addressee} for {x}"
    m = _APPRECIATE_RE.match(s)
    if m:
        x = _cut(m.group("x") or m.group("y"))
        if _content(x, _EMPTY_THANKS, (t.speaker, t.addressee)) < 1:
            return None
        return f"{t.speaker} is grateful for {t.third(x)}"
    return None


def _believes_in(t: _Turn, s: str, doc: Any) -> str | None:
    return f"{t.speaker} believes in {t.addressee}" if _BELIEVE_RE.match(s) else None


# "Go team!", "Go Bulldogs!", "Go Mom go!": a cheer names who is cheered and nothing else
_CHEERED = frozenset(["team", "teams", "girl", "girls", "boys", "guys", "you", "mom", "dad", "go"])


def _cheer(after: list[Any]) -> bool:
    """Whether the words after an imperative "go" are only a cheer's object: capitalised names
    or "team" ("Go Bulldogs!", "Go team!", "Go Blue Devils go!"); "go ahead and apply", "go for
    it", "go to the gym" have a particle, preposition or verb and are not cheers."""
    words = [w for w in after if not w.is_punct and not w.is_space]
    return bool(words) and all(w.lower_ in _CHEERED or (w.text[:1].isupper() and w.pos_ in ("PROPN", "NOUN"))
                               for w in words)


def _encourages(t: _Turn, s: str, doc: Any) -> str | None:
    """An imperative addressed to the listener: the sentence's root is a verb in base form (VB)
    with no subject, first in the sentence (after "don't"/"never"/"just"/"always")."""
    if doc is None:
        return None
    toks = [w for w in doc if not w.is_space]
    if not toks:
        return None
    root = next((w for w in toks if w.dep_ == "ROOT"), None)
    if root is None or root.tag_ != "VB" or any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in root.children):
        return None
    before = [w for w in toks if w.i < root.i]
    neg = any(w.lower_ in ("n't", "not", "never") for w in before)
    if any(w.lower_ not in ("do", "n't", "not", "never", "just", "always", "please", "definitely", "really", "still")
           for w in before):
        return None  # something before the verb: not an imperative opening ("Love the colors" is VB too)
    verb = root.lower_
    if verb not in (_NEG_PERSIST if neg else _PERSIST):
        return None  # advice or talk: "Create those memories!", "Don't tell anyone"
    nxt = doc[root.i + 1].lower_ if root.i + 1 < len(doc) else ""
    if verb == "go" and _cheer(toks[toks.index(root) + 1:]):
        return None  # "Go Bulldogs!", "Go team!": a cheer, not advice to go somewhere
    if verb == "keep" and nxt in ("me", "us", "you", "ya"):
        return None  # "Keep me posted", "(I'll) keep you posted": talk
    if any(w.dep_ in ("nsubj", "nsubjpass") and w.lower_ in ("i", "we") for w in root.subtree):
        return None  # "Remember, I'm always here for you": about the speaker, not a thing to do
    # the VP: the root's subtree without a coordinated clause that has its own subject
    # ("Hang in there and you'll find it soon" -> "hang in there")
    drop: set[int] = set()
    promise = ""  # "... and you'll find it soon": what the speaker promises for doing it
    for c in root.children:
        if c.dep_ == "conj" and any(g.dep_ in ("nsubj", "nsubjpass", "expl") for g in c.children):
            if any(g.dep_ == "nsubj" and g.lower_ in ("you", "it") for g in c.children):
                promise = "".join(w.text_with_ws for w in c.subtree)
            drop |= {w.i for w in c.subtree}
            drop |= {w.i for w in root.children if w.dep_ == "cc" and w.i < c.i and w.i > root.i}
        if c.dep_ in ("npadvmod", "dobj", "appos") and c.text.lower() == t.addressee.split()[0].lower():
            drop.add(c.i)
        if c.dep_ == "intj":
            drop |= {w.i for w in c.subtree}
    words = [w for w in root.subtree if w.i >= root.i and w.i not in drop]
    vp = "".join(w.text_with_ws for w in words).strip()
    vp = re.split(r",\s+(?!and\b|or\b)", _cut(vp), maxsplit=1)[0].rstrip(" ,.!…")  # "Don't quit, remember, ..."
    if not vp or _content(vp, _FORMULA, (t.speaker, t.addressee)) < 1 and (
            neg or _content(promise, _FORMULA, (t.speaker, t.addressee)) < 1):
        return None  # a bare formula, unless a promise with content follows ("Hang in there and you'll find it")
    vp = t.third(vp[:1].lower() + vp[1:])
    vp = re.sub(r"\band\s+(?:don['’]t|do\s+not)\s+", "and not ", vp)
    if verb == "remember" and not vp.startswith("remember that "):
        return None  # "Remember to X" / "Don't forget to X" is advice to do X; "Remember that X" is encouragement
    return f"{t.speaker} encourages {t.addressee} {'not ' if neg else ''}to {_agree(vp, t.addressee)}"


def _admires(t: _Turn, s: str, doc: Any) -> str | None:
    m = _WAY_TO_RE.match(s)
    if not m:
        return None
    x = _cut(m.group("x"))
    if _content(x, _FORMULA, (t.speaker, t.addressee)) < 1:
        return None
    return f"{t.speaker} admires {t.addressee} for {_gerund(t.third(x))}"


def _thinks_of(t: _Turn, s: str, doc: Any) -> str | None:
    """"You're the perfect mentor & guide" -> "S thinks A is the perfect mentor & guide": a
    predicate that names something beyond praise ("awesome", "so inspiring", "the best" give
    none)."""
    m = _YOURE_RE.match(s)
    if not m:
        return None
    x = _cut(m.group("x") or m.group("y"))
    words = [w.lower().strip(",.!") for w in x.split()]
    head = next((w for w in words if w not in _INTENSIFIERS), "")
    if not head or head.endswith("ing") or head in _GENERIC_PRAISE or head in ("gonna", "not", "in", "on", "at", "from"):
        return None  # "You're doing great", "You're gonna kill it", "You're welcome", "You're awesome with X": talk
    if _content(x, _GENERIC_PRAISE | _INTENSIFIERS, (t.speaker, t.addressee)) < 1 or "?" in x:
        return None
    return f"{t.speaker} thinks {t.addressee} is {t.third(x)}"


# session 11 (cov2): "I'm here to support you" -> "S supports A". Only with the verb: "I'm here
# for you" (5 turns on the dev pair, none annotated) gives nothing.
_SUPPORT_RE = re.compile(r"(?i)^(?:i['’]m|i\s+am|i['’]ll\s+(?:always\s+)?be|i\s+will\s+(?:always\s+)?be)\s+"
                         r"(?:(?:always|totally|definitely|still|just)\s+)*(?:here|there)\s+to\s+(?:support|back)\s+you\b")


def _supports(t: _Turn, s: str, doc: Any) -> str | None:
    """"I'm here to support you" -> "S supports A" (a stated stance toward the listener, what the
    annotators write as "Gina is supportive of Jon's dream")."""
    return f"{t.speaker} supports {t.addressee}" if _SUPPORT_RE.match(s) else None


# ---- session 12 (listen12b): acts that carry their object or reason ----------------------------
# What the annotators write for these turns names the act AND what it is about ("Melanie expresses
# happiness for Caroline finding her true self", "Gina encourages Jon not to give up" beside
# what Jon has): a bare "S is happy for A" matches none of it, the reason clause does.
_MEANS_ = r"(?:really\s+|truly\s+)?means\s+(?:so\s+much|a\s+lot|a\s+ton|the\s+world)(?:\s+to\s+me)?"
_VALUES_RE = re.compile(
    rf"(?i)^it\s+{_MEANS_}\s+(?:to\s+(?!me\b|us\b)(?P<inf>[a-z]+\b.*)|(?P<ger>[a-z]{{2,}}ing\b.*))$"
    rf"|^(?P<subj>[a-z]{{2,}}ing\b.+?)\s+{_MEANS_}$")
_NOT_GERUNDS = frozenset(["nothing", "something", "anything", "everything", "thing", "morning", "evening",
                          "king", "ring", "spring", "string", "wedding", "building", "meeting", "painting"])
# "It means a lot to hear that": talk, nothing valued
_TALK_GERUNDS = frozenset(["hearing", "knowing", "saying", "reading", "seeing", "getting", "talking", "chatting"])
_HAPPY_FOR_RE = re.compile(rf"(?i)^{_FEEL_}(?:happy|glad|thrilled|stoked|excited)\s+for\s+you$")
# the reason beside a bare formula: what the listener has or earned ("You got the skills,
# passion, and drive", "knowing you've got a solid community cheering you on")
_REASON_RE = re.compile(r"(?i)(?:^|\b(?:knowing|remember)\s+(?:that\s+)?)you(?:['’]ve|\s+have)?\s+(?:(?:already|really|definitely)\s+)?"
                        r"(?P<v>got|gotten|have|earned)\s+(?P<x>(?!(?:this|it|that)\W*$)\w.+)$")


def _values(t: _Turn, s: str, doc: Any) -> str | None:
    """"It means a lot to share this with you" / "Feeling supported by all of you means so
    much" -> "S values sharing this with A" / "S values feeling supported by A and others": what
    the speaker holds dear, said to the listener. Only a clause ("to VP", "VP-ing") is valued:
    "Your support means a lot" is thanks (`grateful`), "It means a lot to me that you ..." is
    about the listener, bare "It means a lot" names nothing."""
    m = _VALUES_RE.match(s)
    if not m:
        return None
    if m.group("inf"):
        x = _gerund(_cut(m.group("inf")))
    else:
        x = _cut(m.group("ger") or m.group("subj"))
    if x.split()[0].lower() in _NOT_GERUNDS or "?" in x:
        return None
    x = re.sub(r"(?i)\ball\s+of\s+you\b", "you and others", x)
    if _content(x, _TALK_GERUNDS, (t.speaker, t.addressee)) < 1:
        return None
    x = t.third(x[:1].lower() + x[1:])
    return f"{t.speaker} values {x}"


def _happy_for(t: _Turn, s: str, doc: Any) -> str | None:
    """"I'm so happy for you. You found your true self ..." -> "S is happy for A that A found A's
    true self ...": the reason is the turn's next sentence with the listener as subject of a
    verb that is not a prediction or praise ("You're so inspiring", "You'll do great": no)."""
    if not _HAPPY_FOR_RE.match(s):
        return None
    after = t.sentences[t.sentences.index(s) + 1:] if s in t.sentences else ()
    nxt = next(iter(after), "")
    if not re.match(r"(?i)^you(?:['’]ve|\s+have)?\s+(?!(?:are|were|will|would|can|could|should|might|must|re"
                    r"|gonna|got\s+this|rock|rule)\b)[a-z]+(?:ed|ound|ent|ot|ade|ame|ook|an|ew|ught|ove|ote|on)\b", nxt):
        return None
    x = _cut(nxt)
    if _content(x, _FORMULA, (t.speaker, t.addressee)) < 2:
        return None
    return f"{t.speaker} is happy for {t.addressee} that {_agree(t.third(x), t.addressee)}"


# "Your words are really encouraging": the listener's words or deeds as the speaker finds them
_FINDS_RE = re.compile(r"(?i)^(?P<x>your\s+[\w'’ -]{2,40}?)\s+(?:is|are|['’]s|has\s+been|have\s+been)\s+"
                       r"(?P<adv>(?:(?:so|really|truly|just|super|very|incredibly)\s+)*)"
                       r"(?P<adj>encouraging|motivating|inspiring|uplifting|reassuring|heartwarming)$")


def _finds(t: _Turn, s: str, doc: Any) -> str | None:
    """"Your words are really encouraging" -> "S finds A's words really encouraging" (what the
    annotators write as "his words of encouragement mean a lot to her"); fact-less turns only,
    like the other appraisals."""
    m = _FINDS_RE.match(s)
    if not m:
        return None
    x = t.third(m.group("x")[:1].lower() + m.group("x")[1:])
    return f"{t.speaker} finds {x} {m.group('adv')}{m.group('adj').lower()}"


def _reason(t: _Turn, s: str) -> tuple[str, str, str] | None:
    """The turn's first other sentence saying what the listener has or earned: (that sentence,
    "has" / "earned", what)."""
    for other in t.sentences:
        if other == s:
            continue
        m = _REASON_RE.search(other)
        if not m:
            continue
        x = _cut(re.split(r",\s+(?:me|and\s+i|i)\b", m.group("x"), maxsplit=1)[0])
        if _content(x, frozenset(), (t.speaker, t.addressee)) >= 2:
            return other, "earned" if m.group("v").lower() == "earned" else "has", x
    return None


def _encourages_reason(t: _Turn, s: str, doc: Any) -> str | None:
    """A bare formula ("Don't give up!", "Keep it up!", "Keep on pushing!") with the reason the
    turn gives for it: what the listener has or earned ("You got the skills, passion, and
    drive") -> "S encourages A not to give up, as A has the skills, passion, and drive". The
    formula alone still gives nothing (`_encourages`)."""
    if doc is None or _encourages(t, s, doc):
        return None
    toks = [w for w in doc if not w.is_space and not w.is_punct]
    root = next((w for w in toks if w.dep_ == "ROOT"), None)
    if root is None or root.tag_ != "VB" or root.i != next(
            (w.i for w in toks if w.lower_ not in ("do", "n't", "not", "never", "just", "always")), -1):
        return None
    neg = any(w.lower_ in ("n't", "not", "never") for w in toks if w.i < root.i)
    if root.lower_ not in (_NEG_PERSIST if neg else _PERSIST):
        return None
    # tokens by their own index (w.i), not slices: right for a Span of a longer parse too
    vp = re.split(r"[,!.]", "".join(w.text_with_ws for w in doc if w.i >= root.i), maxsplit=1)[0].strip()
    if not vp or _content(vp, _FORMULA, (t.speaker, t.addressee)) > 0:
        return None
    found = _reason(t, s)
    if found is None:
        return None
    verb, x = found[1], found[2]
    return (f"{t.speaker} encourages {t.addressee} {'not ' if neg else ''}to {vp[:1].lower() + vp[1:]}, "
            f"as {t.addressee} {verb} {t.third(x)}")


ACTS: tuple[tuple[str, Callable[[_Turn, str, Any], str | None]], ...] = (
    ("offer_help", _offer_help),
    ("grateful", _grateful),
    ("believes_in", _believes_in),
    ("encourages", _encourages),
    ("encourages_reason", _encourages_reason),
    ("admires", _admires),
    ("thinks_of", _thinks_of),
    ("proud_of", _proud_of),
    ("confident", _confident),
    ("supports", _supports),
    ("values", _values),
    ("happy_for", _happy_for),
    ("finds_encouraging", _finds),
)

# Kinds that may add the turn's act beside its other facts (session 11, cov2): what the speaker
# does for the listener -- offers help, thanks for something named, encourages, supports. The
# appraisals and predictions (`thinks_of`, `admires`, `confident`, ...) stay on fact-less turns
# only: beside a fact they were "S thinks A is part of that" (measured in docs/facts.md,
# "Coverage with the precision headroom").
BESIDE = frozenset(["offer_help", "grateful", "encourages", "encourages_reason", "supports"])

_CUT_RE = re.compile(r"\s+[-–—]+\s+|[;:]\s|\s*\[shared a photo.*$|,\s+(?:but|and\s+it|which|so\s+that|'cause|because)\s+")


def _agree(text: str, name: str) -> str:
    """"when Jon need to" -> "when Jon needs to": the rewriter leaves some verbs after the name bare."""
    return re.sub(rf"\b({re.escape(name)}) (need|want|feel|get|go|make|love|like|do)\b",
                  lambda m: f"{m.group(1)} {m.group(2)}{'es' if m.group(2) in ('go', 'do') else 's'}", text)


def _cut(x: str) -> str:
    return _CUT_RE.split(x.strip(), maxsplit=1)[0].strip().rstrip("!.…,; ")


def _gerund(vp: str) -> str:
    """"take X and make Y" -> "taking X and making Y" (regular English spelling)."""
    def ing(v: str) -> str:
        if v.endswith("ie"):
            return v[:-2] + "ying"
        if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
            return v[:-1] + "ing"
        if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", v) and len(v) <= 4:
            return v + v[-1] + "ing"
        return v + "ing"
    words = vp.split()
    if not words:
        return vp
    words[0] = ing(words[0])
    for i in range(1, len(words) - 1):
        if words[i] == "and" and re.fullmatch(r"[a-z]+", words[i + 1]) and words[i + 1] not in _STOP:
            words[i + 1] = ing(words[i + 1])
            break
    return " ".join(words)


def acts(text: str, ctx: ExtractionContext, sentences: list[str], rewrite: Rewriter,
         model: str | None = None, limit: int | None = None) -> list[Act]:
    """The acts found in the turn (at most `limit`), in the order of `ACTS`, then of sentences."""
    addressee = (ctx.addressee or "").strip()
    speaker = (ctx.speaker_name or "").strip()
    if not addressee or not speaker or addressee == speaker or detect_language(text) != "en":
        return []
    cands = [(src, _strip(src, addressee)) for src in sentences
             if "?" not in src and not src.lstrip().startswith("[") and len(src) <= MAX_SENTENCE_CHARS]
    cands = [(src, s) for src, s in cands if s]
    if not cands:
        return []
    turn = _Turn(speaker, addressee, rewrite, tuple(s for _, s in cands))
    # only a sentence that opens like an imperative of the table is parsed (~1 turn in 8)
    want = [i for i, (_, s) in enumerate(cands) if _OPENING_RE.match(s)]
    docs: list[Any] = [None] * len(cands)
    if want:
        from arandu_pipelines.write.parses import PARSE, for_context

        for i, doc in zip(want, for_context(ctx, model).docs([cands[i][1] for i in want], PARSE, STAGE),
                          strict=True):
            docs[i] = doc
    found: list[Act] = []
    for kind, detect in ACTS:
        for (src, s), doc in zip(cands, docs, strict=True):
            if kind in ("encourages", "encourages_reason") and doc is None:
                continue
            out = detect(turn, s, doc)
            if out:
                out = _shaped(re.sub(r"\s{2,}", " ", out).strip(), speaker)
            if out:  # None: a cut-off end ("... to focus on why Jon started this") that no cut repairs
                if kind == "encourages_reason":
                    # the fact's words are the reason's: its sentence is the evidence (the
                    # pipeline compares facts of one message by their source sentences, and a
                    # bare formula reads like any other short line of the message)
                    why = _reason(turn, s)
                    src = next((c for c, st in cands if why and st == why[0]), src)
                found.append(Act(kind, out[:1].upper() + out[1:], src))
                if limit is not None and len(found) >= limit:
                    return found
    return found


def _shaped(text: str, speaker: str) -> str | None:
    """The fact-shape checks `fact_quality.refine` runs on every other fact (write/fact_shape.py):
    the acts are added after `refine`, so without this an act kept a truncated end or an
    unresolved subject that the same text from a restating rule would have lost (session 12,
    branch defect12b)."""
    from arandu_pipelines.write import fact_shape

    out = fact_shape.shape(text, speaker)
    return fact_shape.name_subject(out, speaker) if out else None


def apply(result: ExtractionResult, text: str, ctx: ExtractionContext, *, sentences: list[str],
          rewrite: Rewriter, model: str | None = None) -> ExtractedFact | None:
    """Add the turn's first act as its one fact. Beside the turn's other facts only an act of a
    `BESIDE` kind from a sentence no other fact came from (at most one act either way)."""
    if result.facts:
        said = {(f.source_text or "").strip() for f in result.facts}
        found = [a for a in acts(text, ctx, sentences, rewrite, model)
                 if a.kind in BESIDE and a.source.strip() not in said][:1]
    else:
        found = acts(text, ctx, sentences, rewrite, model, limit=1)
    if not found:
        return None
    act = found[0]
    f = ExtractedFact(ctx.speaker_name, act.text, None, None, "conversational", 0.7,
                      mentions=[(ctx.addressee or "").strip()], source_text=act.source,
                      rule_kind=f"speech_act.{act.kind}")
    result.facts.append(f)
    result.trace.setdefault("speech_act", act.kind)
    return f
