"""Passing remarks about a third party: verdicts, moments, pending states, predicted reactions.

Since session 15 a sentence whose subject is someone else (a plain first name, a resolved
he/she, "The editor") gives a fact. Some of those sentences are remarks of the moment that no
careful person would store: "Rose is a beautiful name" (a verdict on the name the listener just
told), "Olive is screaming again, that's my cue" (what someone does right now, while leaving),
"Priya doesn't know yet", "Tyler is going to be blown away by it" (a pending state, a predicted
reaction), "Owen too, if Owen is honest" (an echo with no verb of its own), "The editor says April
in time for spring" (a report with no clause: its content is in the question it answers).

Each form is a row of `ROWS`, read on the spaCy parse of the fact's text (write/parses.py, the
shared pipeline; no lemmatizer, so verb forms are spelled out). A row applies to a free-text fact
(`generic.*` rule kinds) whose grammatical subject is a THIRD party: not the speaker, "I", "we"
or "you" (a proper name, he/she/they, a person, kin, pet or role noun: "The editor", "S's
daughter"; not a thing: "The market is dropping again" is left alone). The echo row takes any
subject ("S too, if S is honest" is a fragment whoever says it).

| row         | the fact's main clause                                           | dropped when           |
|-------------|------------------------------------------------------------------|------------------------|
| verdict     | be + an evaluation adjective + a verdict noun ("is a beautiful   | "name": always; other  |
|             | name", "is a great choice", `VERDICT_NOUNS`, `VERDICTS`)         | nouns: the subject is  |
|             |                                                                  | in the listener's last |
|             |                                                                  | turn (what they told)  |
| progressive | be + VBG with an adverb of the moment ("again", "right now",     | nothing lasting, and   |
|             | "at the moment", "now", "as we speak": `MOMENT_RE`)              | another fact of the    |
|             |                                                                  | turn, or the turn says |
|             |                                                                  | goodbye / a cue tail   |
| not_yet     | a negated know/realize/hear/notice, or "has no idea/clue", +     | nothing lasting, no    |
|             | "yet" ("doesn't know yet", "hasn't heard yet")                   | clause or conjunct     |
| predicted   | will / be going to / 'll / gonna + be + a reaction adjective or  | nothing lasting        |
|             | participle ("blown away", "thrilled", "so happy"; moments'       |                        |
|             | `STATE_ADJECTIVES` + `PREDICTED`), or + love it/this/that, or +  |                        |
|             | a reaction verb ("will cry", "is gonna freak out")               |                        |
| echo        | no verb outside an "if"/"to be honest" aside, and "too", "as     | always                 |
|             | well", "also" or "either" ("Owen too, if Owen is honest")        |                        |
| report      | say/says/said + a complement that is no clause ("says April in   | it answers the         |
|             | time for spring", "said yes"); not with "to/about X" ("said no   | listener's question,   |
|             | to the raise")                                                   | or is yes/no/hi        |
| photo       | look/seem/appear + an adjective, or be + an evaluation or body   | the listener's last    |
|             | adjective ("is so cute", "looks so happy with that fish")        | turn or the message    |
|             |                                                                  | shows a photo; undated |

"Nothing lasting" (`_lasting`): no resolved date; outside the subject no proper noun (other than
the speaker's or subject's name), no number, no person or pet noun, and no noun that the
message's other facts do not already say. So "Tyler is moving to Denver again" (a place),
"Priya doesn't know the results yet but ..." (what is pending, a second clause), "Priya doesn't
know yet that we booked a trip" (the news is in the clause) and "Tyler will be thrilled with the
new bike" (unless another fact names the bike) stay. A trailing leave-taking tail (", that's my
cue, talk later") is cut before the parse and counts as the turn's goodbye.

Drops are `remark_<row>` in the trace's `refine_dropped` and in `fact_quality.AUDIT`
(bench/fact_drops.py). English only (the parse and the tables are English); without a spaCy
pipeline nothing is dropped. Run once per English message after `moments.apply`
(write/extract_rules.extract_offline), so the whole turn's facts are known. Measured in
docs/facts.md ("Passing remarks about a third party", session 15).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.moments import (
    REACTION_LEMMAS,
    STATE_ADJECTIVES,
    _inflect,
    drop,
)
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

STAGE = "passing_remarks"

# nouns a verdict is passed on: "X is a beautiful name / a great choice / such a good pick"
VERDICT_NOUNS: frozenset[str] = frozenset(["name", "choice", "pick", "idea", "decision", "call", "fit", "match",
                                           "option", "move", "touch", "combo", "combination"])
# evaluation adjectives of a verdict ("a family name", "a middle name" are no verdicts)
VERDICTS: frozenset[str] = frozenset([
    "beautiful", "lovely", "great", "perfect", "good", "cute", "pretty", "gorgeous", "nice", "wonderful",
    "fantastic", "amazing", "awesome", "classic", "strong", "sweet", "solid", "smart", "wise", "excellent",
    "brilliant", "unique", "adorable", "elegant", "fitting", "cool", "fun", "terrific", "timeless", "bold",
    "interesting", "fab", "fabulous", "stunning", "charming", "darling", "precious", "bad", "terrible", "weird",
    "unusual", "best", "better", "sensible", "excellent", "lovely", "gorgeous", "delightful", "inspired",
])
# reactions predicted for someone: "will be blown away / thrilled / over the moon"
PREDICTED: frozenset[str] = STATE_ADJECTIVES | frozenset([
    "blown", "thrilled", "amazed", "floored", "stoked", "excited", "pumped", "touched", "moved", "impressed",
    "jealous", "proud", "happy", "sad", "mad", "upset", "bummed", "pleased", "grateful", "surprised", "shocked",
    "speechless", "ecstatic", "delighted", "overjoyed", "psyched", "hooked", "obsessed", "smitten",
])
_REACTIONS = frozenset(f for lemma in (*REACTION_LEMMAS, "freak", "flip", "lose") for f in _inflect(lemma))
# adverbs of the moment with a present progressive
_MOMENT = r"\b(?:again|right\s+now|at\s+the\s+moment|as\s+we\s+speak|as\s+i\s+(?:type|write)|now)\b"
MOMENT_RE = re.compile("(?i)" + _MOMENT)
# a leave-taking tail of the fact: ", that's my cue, talk later", ", duty calls", ", gotta run"
_CUE_TAIL_RE = re.compile(
    r"(?i)\s*[,;:–—-]+\s*(?:(?:that|this)(?:['’]s|\s+is|\s+was)\s+(?:[\w'’]+\s+){0,2}cue\b|duty\s+calls\b|gotta\s+(?:run|go)\b"
    r"|(?:have|got|need)\s+to\s+(?:run|go)\b|talk\s+(?:soon|later)\b|bye\b|ttyl\b).*$")
_BE = frozenset(["is", "are", "am", "was", "were", "be", "'s", "’s", "'re", "’re", "'m", "’m"])
_FUTURE = frozenset(["will", "'ll", "’ll", "wo", "gonna", "shall"])
_KNOW = frozenset(["know", "knows", "knew", "known", "realize", "realise", "realizes", "realises", "realized",
                   "realised", "suspect", "suspects", "suspected", "notice", "notices", "noticed", "hear", "heard",
                   "have", "has", "had"])
_SAY = frozenset(["say", "says", "said", "reckon", "reckons", "reckoned"])
_ECHO = frozenset(["too", "also", "either"])
_SUBJECT_DEPS = frozenset(["nsubj", "nsubjpass", "csubj", "expl"])
_FIRST_SECOND = frozenset(["i", "we", "you", "me", "us", "others"])
_WORD_RE = re.compile(r"[\w'’-]+")
# people nouns outside the kin / pet / occupation tables
_PEOPLE = frozenset(["baby", "babies", "twins", "toddler", "toddlers", "everyone", "everybody", "folks", "people",
                     "guys", "girls", "boys", "agent", "agents", "family"])
_IDIOM_WORDS = frozenset(["moon", "cloud", "nine", "tears", "world", "top", "clue"])  # "over the moon", "no clue"
def _alt(words: frozenset[str] | set[str]) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


# a fact is parsed only when one row's words are in it (no parse for most facts)
_PREFILTER_RE = re.compile(
    r"(?i)\b(?:" + _alt(VERDICTS) + r")\s+(?:\w+\s+)?(?:" + _alt(VERDICT_NOUNS) + r")\b"  # verdict
    + r"|\w+ing\b.*" + _MOMENT  # progressive
    + r"|\byet\b"  # not_yet
    + r"|\b(?:will|'ll|’ll|gonna|going\s+to)\b.*\b(?:" + _alt(PREDICTED | _REACTIONS | {"love", "adore", "blown"})
    + r"|over\s+the\s+moon|on\s+cloud\s+nine|in\s+tears)\b"  # predicted
    + r"|^[^,;:]{1,60}\b(?:too|also|either|as\s+well)\s*(?:[,;:.!]|$)"  # echo
    + r"|\b(?:says?|said|reckons?)\b")  # report


def _lower(t: Any) -> str:
    return str(t.lower_)


def _subject(root: Any) -> Any | None:
    return next((c for c in root.children if c.dep_ in _SUBJECT_DEPS), None)


def _third_party(subj: Any | None, speaker: set[str]) -> bool:
    """A subject that is someone other than the speaker and the listener ("Rose", "she", "The
    editor", "S's daughter"); "S", "S and others", "I", "we", "you" are not."""
    if subj is None:
        return False
    low = _lower(subj)
    if low in _FIRST_SECOND or low in speaker or low.removesuffix("'s") in speaker:
        return False
    if any(c.dep_ == "conj" and (_lower(c) in _FIRST_SECOND or _lower(c) in speaker) for c in subj.children):
        return False
    if subj.tag_ in ("NN", "NNS"):  # someone, not something: "The kids", "S's editor", not "The market"
        from arandu_pipelines.write.moments import _person_noun
        from arandu_pipelines.write.role_subjects import OCCUPATIONS

        return _person_noun(low) or low in OCCUPATIONS or low.removesuffix("s") in OCCUPATIONS or low in _PEOPLE
    return subj.tag_ in ("NNP", "NNPS") or low in ("he", "she", "they")


@dataclass(frozen=True)
class Turn:
    """What a row sees besides the parse: the fact, the names of its subject and the speaker,
    the words of the message's other facts, whether another carrier fact exists, whether the
    turn says goodbye (or the fact had a cue tail), and the listener's last turn."""

    fact: ExtractedFact
    names: set[str]
    known: set[str]
    others: bool
    leaving: bool
    listener: str
    photo: bool = False


def _lasting(root: Any, turn: Turn) -> bool:
    """A date, or outside the subject a proper noun, number, person/pet noun or a noun the
    message's other facts do not say (module docstring)."""
    if turn.fact.event_date is not None:
        return True
    from arandu_pipelines.write.moments import _person_noun

    subj = _subject(root)
    inside = {t.i for t in subj.subtree} if subj is not None else set()
    for t in root.doc:
        low = _lower(t).removesuffix("'s").removesuffix("’s")
        if t.i in inside or low in turn.names or not low or low in _IDIOM_WORDS:
            continue
        if t.tag_ in ("NNP", "NNPS") or t.tag_ == "CD":
            return True
        if t.tag_ in ("NN", "NNS") and (_person_noun(low) or (
                low not in turn.known and low.removesuffix("s") not in turn.known
                and low not in L.VAGUE_OBJECT_WORDS_EN and low not in VERDICT_NOUNS)):
            return True
    return False


def verdict(root: Any, turn: Turn) -> bool:
    """"Rose is a beautiful name", "Mochi is such a cute choice": a verdict on what the listener told."""
    if _lower(root) not in _BE:
        return False
    nouns = [c for c in root.children if c.dep_ == "attr" and _lower(c) in VERDICT_NOUNS]
    if len(nouns) != 1 or any(c.dep_ in ("prep", "relcl", "acl") for c in nouns[0].children):
        return False
    if not any(c.dep_ == "amod" and _lower(c) in VERDICTS for c in nouns[0].children):
        return False
    if _lower(nouns[0]) == "name":
        return True
    subj = _subject(root)
    said = {w.lower() for w in _WORD_RE.findall(turn.listener)}
    return subj is not None and _lower(subj) in said


def progressive(root: Any, turn: Turn) -> bool:
    """"Olive is screaming again" beside the turn's news or as it leaves the chat."""
    if root.tag_ != "VBG" or not any(c.dep_ == "aux" and _lower(c) in _BE for c in root.children):
        return False
    if not MOMENT_RE.search(" ".join(t.text for t in root.subtree)):
        return False
    return (turn.others or turn.leaving) and not _lasting(root, turn)


def not_yet(root: Any, turn: Turn) -> bool:
    """"Priya doesn't know yet": a state still pending, nothing of its own."""
    if _lower(root) not in _KNOW:
        return False
    no_clue = any(c.dep_ == "dobj" and _lower(c) in ("clue", "idea") and any(_lower(x) == "no" for x in c.children)
                  for c in root.children)  # "has no idea yet"
    if not no_clue and not any(c.dep_ == "neg" for c in root.children):
        return False
    if not any(_lower(t) == "yet" for t in root.subtree):
        return False
    if _lower(root) in ("have", "has") and not any(_lower(t) in ("clue", "idea") for t in root.subtree):
        return False
    if any(c.dep_ in ("ccomp", "conj", "advcl") for c in root.children):
        return False  # "doesn't know yet that we booked ...", "... yet but she is hopeful": more is said
    return not _lasting(root, turn)


def predicted(root: Any, turn: Turn) -> bool:
    """"Tyler is going to be completely blown away by it", "Mom will be thrilled"."""
    main = root  # its subject is the one whose reaction is predicted
    low = _lower(root)
    aux = {_lower(c) for c in root.children if c.dep_ in ("aux", "auxpass")}
    going = low in ("going", "gon") and any(c.dep_ == "xcomp" for c in root.children)
    if going:
        root = next(c for c in root.children if c.dep_ == "xcomp")
        low, aux = _lower(root), aux | {"will"} | {_lower(c) for c in root.children if c.dep_ in ("aux", "auxpass")}
    if not aux & (_FUTURE | {"will"}):
        return False
    if any(c.dep_ == "neg" for c in root.children):
        return False
    reaction = False
    if low == "be":
        words = {_lower(c) for c in root.children if c.dep_ in ("acomp", "attr", "oprd")}
        reaction = bool(words & PREDICTED) or bool(STATE_PHRASE_MATCH.search(" ".join(t.text for t in root.subtree)))
    elif low in ("blown", "thrilled", "amazed", "floored", "moved", "touched", "shocked", "surprised", "impressed",
                 "stunned", "excited", "stoked", "pleased", "delighted") and "be" in aux or low in ("love", "adore") and any(c.dep_ == "dobj" and _lower(c) in ("it", "this", "that", "them")
                                          for c in root.children) or low in _REACTIONS:
        reaction = True
    if not reaction or any(c.dep_ in ("ccomp", "conj") for c in (*root.children, *main.children)):
        return False
    return not _lasting(main, turn)


STATE_PHRASE_MATCH = re.compile(r"(?i)\b(?:over\s+the\s+moon|on\s+cloud\s+nine|in\s+tears|blown\s+away)\b")
# what may follow an echo after its comma: an aside about the speaker's certainty or honesty
ASIDE_RE = re.compile(
    r"(?i)^(?:if\s+(?:[\w'’]+\s+){1,3}(?:is|am|are|was|were|['’]m|['’]s|['’]re)\s+(?:being\s+)?(?:honest|truthful|fair|frank)"
    r"|to\s+be\s+(?:honest|fair|frank)|(?:[\w'’]+\s+)(?:think|thinks|guess|guesses|bet|bets|hope|hopes|suppose|supposes|reckon|reckons)"
    r"|honestly|probably|maybe|perhaps|for\s+sure|i\s+think|hopefully|no\s+doubt)\W*$")


def echo(root: Any, turn: Turn) -> bool:
    """"Owen too, if Owen is honest": a clause that only echoes with "too" (no verb of its own),
    alone or before an aside on certainty or honesty after a comma."""
    doc = root.doc
    comma = next((t.i for t in doc if t.text in (",", ";", "–", "—")), len(doc))
    head = [t for t in doc[:comma] if not t.is_punct]
    if not head or len(head) > 5 or any(t.tag_.startswith("VB") or t.tag_ == "MD" for t in head):
        return False
    words = " ".join(_lower(t) for t in head)
    if not re.search(r"\b(?:too|also|either|as well)$", words):
        return False
    rest = doc[comma + 1:].text.strip() if comma < len(doc) else ""
    return not rest or bool(ASIDE_RE.match(rest))


def report(root: Any, turn: Turn) -> bool:
    """"The editor says April in time for spring": a report whose complement is no clause."""
    if _lower(root) not in _SAY:
        return False
    if any(c.dep_ in ("ccomp", "xcomp", "advcl", "conj", "parataxis") for c in root.children):
        return False
    if any(t.tag_.startswith("VB") and t.i != root.i for t in root.subtree):
        return False
    comps = [c for c in root.children if c.dep_ in ("dobj", "npadvmod", "attr", "intj", "oprd")]
    if not comps:
        return False
    # "said no to the raise", "said nothing about the move": the object of the report is named
    if any(p.dep_ == "prep" and _lower(p) in ("to", "about", "on", "of", "regarding")
           and any(x.dep_ == "pobj" and x.tag_.startswith("NN") for x in p.children)
           for h in (root, *comps) for p in h.children):
        return False
    return turn.listener.rstrip().endswith("?") or all(_lower(c) in _GREETING_ANSWERS for c in comps)


_GREETING_ANSWERS = frozenset(["yes", "no", "hi", "hello", "hey", "thanks", "so", "yeah", "yep", "nope", "sure"])


# a shown photo in the listener's last turn or the message itself: a caption or a photo noun
PHOTO_RE = re.compile(r"(?i)\[image\b|\b(?:photos?|pictures?|pics?|selfies?|snapshots?|snaps?)\b")
_LOOKS = frozenset(["look", "looks", "looked", "looking", "seem", "seems", "seemed", "appear", "appears", "appeared"])
# how someone on a photo looks with be: an evaluation or the body ("so cute", "so big", "so grown");
# "is so happy at his new school" is news of a state, not a look
LOOKS_ADJECTIVES: frozenset[str] = VERDICTS | frozenset([
    "big", "tall", "grown", "small", "tiny", "little", "handsome", "beautiful", "chubby", "fluffy", "photogenic",
])

_PHOTO_PREFILTER_RE = re.compile(
    r"(?i)\b(?:looks?|looked|seems?|seemed|appears?|appeared)\b|\b(?:is|are|was|['’]s)\s+(?:so\s+|such\s+|really\s+|very\s+)?"
    r"(?:" + _alt(LOOKS_ADJECTIVES) + r")\b")


def photo(root: Any, turn: Turn) -> bool:
    """"He looks so happy", "Kiri is so cute": how someone on a shown photo looks, a reaction to
    the picture (the listener's turn, or this message, shows one). Anything but a date is
    dropped with it: what the picture shows is the sharer's news, told in their own turn."""
    if not turn.photo or turn.fact.event_date is not None:
        return False
    adjectives = [c for c in root.children if c.dep_ in ("acomp", "oprd") and c.tag_ in ("JJ", "JJR", "VBN")]
    if not adjectives or any(c.dep_ in ("ccomp", "conj", "advcl", "dobj") for c in root.children):
        return False
    if _lower(root) in _LOOKS:
        return True
    return _lower(root) in _BE and any(_lower(a) in LOOKS_ADJECTIVES for a in adjectives)


@dataclass(frozen=True)
class Row:
    """A named remark form: `drops(root, turn)` is True for a fact to drop."""

    name: str
    drops: Callable[[Any, Turn], bool]


ROWS: tuple[Row, ...] = (
    Row("verdict", verdict),
    Row("progressive", progressive),
    Row("not_yet", not_yet),
    Row("predicted", predicted),
    Row("echo", echo),
    Row("report", report),
    Row("photo", photo),
)
#: names of the rows that run; a benchmark may narrow it to measure one row's effect
ENABLED: set[str] = {r.name for r in ROWS}


def _carrier(f: ExtractedFact) -> bool:
    return not (f.rule_kind or "").startswith(("speech_act.", "held_back."))


def _listener_turn(ctx: ExtractionContext) -> str:
    speaker = (ctx.speaker_name or "").strip()
    for who, text in reversed(ctx.previous_turns or []):
        if who != speaker:
            return text or ""
    return ""


def kind_of(doc: Any, turn: Turn, speaker: set[str]) -> str | None:
    """The first enabled row that drops the fact parsed as `doc`, or None."""
    sents = list(doc.sents)
    if len(sents) != 1:
        return None
    root = sents[0].root
    if "echo" in ENABLED and echo(root, turn):
        return "echo"  # a fragment of anyone ("S too, if S is honest"): nothing of its own to keep
    subj = _subject(root)
    if not _third_party(subj, speaker):
        return None
    for row in ROWS:
        if row.name in ENABLED and row.name != "echo" and row.drops(root, turn):
            return row.name
    return None


def apply(result: ExtractionResult, ctx: ExtractionContext, text: str = "") -> list[tuple[str, ExtractedFact]]:
    """Drop the message's passing remarks about a third party (module docstring)."""
    facts = result.facts
    listener = _listener_turn(ctx)
    shown = bool(PHOTO_RE.search(listener) or PHOTO_RE.search(text))
    todo = [f for f in facts if (f.rule_kind or "").startswith("generic.") and (
        _PREFILTER_RE.search(f.fact_text) or (shown and _PHOTO_PREFILTER_RE.search(f.fact_text)))]
    if not todo:
        return []
    from arandu_pipelines.write.parses import PARSE, for_context
    from arandu_pipelines.write.small_talk import closing_turn

    parses = for_context(ctx, ctx.spacy_model)
    if parses.nlp() is None:
        return []
    heads = [_CUE_TAIL_RE.sub("", f.fact_text) for f in todo]
    docs = parses.docs(heads, PARSE, STAGE)
    speaker = {w.lower() for w in _WORD_RE.findall((ctx.speaker_name or "").strip())}
    leaving_turn = closing_turn(text) if text else False
    words = [set(_WORD_RE.findall(f.fact_text.lower())) for f in facts]
    gone: list[tuple[str, ExtractedFact]] = []
    for f, head, doc in zip(todo, heads, docs, strict=True):
        if doc is None:
            continue
        names = speaker | {w.lower() for w in _WORD_RE.findall(f.subject or "")}
        known = set().union(*(w for g, w in zip(facts, words, strict=True) if g is not f))
        others = any(g is not f and _carrier(g) for g in facts)
        turn = Turn(f, names, known, others, leaving_turn or head != f.fact_text, listener, shown)
        kind = kind_of(doc, turn, speaker)
        if kind is not None:
            gone.append((f"remark_{kind}", f))
    drop(result, gone)
    return gone
