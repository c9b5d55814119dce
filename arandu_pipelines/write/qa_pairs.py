"""Question + fragment answer: the fact is in the pair, not in the answer alone.

In a chat the other speaker asks "How long have you been married?" and the answer is "5 years
already! Time flies ...". The answer's first sentence names no subject and no verb, so a
single-message extractor keeps nothing of it (or a bare "Since S was 17 or so"). Here the
question's spaCy parse gives the predicate and the wh-slot, and the answer's opening fragment
fills the slot, with "you" turned into the answerer and "I"/"me" into the asker:

| question (other speaker, last one of their turn) | answer opens with | fact |
|---|---|---|
| "How long have you been married?" | "5 years already!" | "S has been married for 5 years already" |
| "How long have you been painting?" | "Since I was 17 or so." | "S has been painting since S was 17 or so" |
| "What did you name it?" (it = the answerer's "a puppy") | "Biscuit!" | "S's puppy is named Biscuit" |
| "What are their names?" (their = "a pup and a kitty") | "Luna and Oliver!" | "S's pup and kitty are named Luna and Oliver" |
| "What's your favorite book?" | "Dune, for sure." | "S's favorite book is Dune" |
| "Where did you go?" | "Lisbon!" | "S went to Lisbon" |
| "What kind of music do you play?" | "Mostly jazz." | "S plays mostly jazz" |
| "How many kids do you have?" | "Three!" | "S has three kids" |
| "Do you have any pets?" | "Yes, two!" / "Yep, a parrot." | "S has two pets" / "S has a parrot" |
| "How do you keep the varnish even?" | "A foam brush." | "S keeps the varnish even with a foam brush" |
| "When is the wedding?" (S's last turn named it) | "October 12th at the mill!" | "S's wedding is on 12 October 2024 at the mill" |
| "Which festival picked the film?" (S: "my film") | "Lakeside Shorts." | "Lakeside Shorts picked S's film" |
| "What do they play?" (S: "My brother and Sam ...") | "Board games, but Sam ..." | "S's brother and Sam play board games" |

(session 15) "how" is a means only after a verb of doing (not like / feel / find / think ...); a
question with no "you"/"they" counts only when one of its "the N" words is in the answerer's own
last turn; a fragment ends before ", and/but ... <clause>" and the clause keeps its own facts;
dates are resolved (`temporal.absolutize`) and set the fact's `event_date`.

(session 16, write/qa_results.py) "How did the race/it go?" + a time or a ranking place ("2 hours, 9
minutes", "Third place") -> "S finished the race in ..."; a comparison sentence after a time or a
place ("Under my goal!") is appended; a bare "Yes!"/"Of course!" to a yes/no question lets the next
sentence answer ("Do they have names?" + "Of course! Pepper and Sage." -> "S's kittens are named
Pepper and Sage"); "you two" is the one person paired with the answerer ("My dad and I ..." ->
"S's dad and S play chess"); a gerund or "going to <verb>" takes the place ("S ended up going to
Lisbon", "S is going to move to Porto").

Skipped when unsure: the answer opens with a full clause (the rules already read it), an
exclamation or a bare "Yes" ("So fun!", "Absolutely!", "Yes!"), a "how"/"why" question (its answers
are judgements and reasons), a question about a third person or "we", a pronoun in the question
that the answerer's own previous turn does not name with exactly one phrase of the right number,
or a question sentence with two wh-words. The answer's opening sentence is the fact's evidence
(`source_text`); a fact the rules already wrote from that same sentence (the bare "Since S was
17") is replaced by the composed one rather than kept beside it.

Cost: regex prefilters before anything is parsed (`candidate`: the other speaker's last question
has a fillable wh-slot or is a yes/no question to "you"; the opening is short, does not start like
a clause or a reaction, and says "yes" exactly when a yes/no question was asked: 11 turns of the
dev pair's 788); then the question, the opening and, for a pronoun, the answerer's
previous turn, through the chunk's shared parses (write/parses.py). English only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arandu_pipelines.write.language import conj_en
from arandu_pipelines.write.qa_results import (
    and_units,
    asks_how_it_went,
    comparison,
    is_result,
    result_fact,
    you_two,
)
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

STAGE = "qa_pairs"
MAX_FRAGMENT_WORDS = 8  # a longer opening is a sentence of its own, not a slot filler

_QUESTION_RE = re.compile(r"[^.!?…]*\?")
_SENT_RE = re.compile(r"[^.!?…]+(?:[.!?…]+|$)")
# a courtesy or reaction sentence before the answer: "Thanks, Mel!", "Hey Jon!", "Aw, wow!"
_COURTESY_RE = re.compile(
    r"(?i)^\s*(?:(?:hey|hi|hello|thanks|thank\s+you|thx|aw+|oh+|wow|haha|lol|ha|yay|congrats|cheers)"
    r"(?:\s+so\s+much|\s+a\s+lot)?\b[^.!?]{0,20})?[.!?…]+\s*$")
_YES_RE = re.compile(r"(?i)^\s*(?:yes|yeah|yep|yup|yea|sure|definitely|totally)\b(?:\s+(?:i\s+do|i\s+did))?[\s,!.—–-]+")
_NO_RE = re.compile(r"(?i)^\s*(?:no|nope|nah|not)\b")
_BARE_YES_RE = re.compile(r"(?i)^\s*(?:yes|yeah|yep|yup|of\s+course|sure\s+do|we\s+do|i\s+do)\s*[!.…]+\s*$")
# an apposition after the answer: "Pepper and Sage, my little spice rack" -> "Pepper and Sage"
_APPOS_TAIL_RE = re.compile(r"(?i),\s*(?:my|our)\s+[^,]*$")
# the question's form (after a leading reaction): a wh-question with a slot a fragment can fill,
# or a yes/no question to "you"; and it must be about the listener ("you") or name their things
_ASKS_RE = re.compile(r"(?i)^(?:[^,?]*,\s*)?(?:(?:what|which|who|whom|where|when)\b|how\s+(?:long|many|much)\b"
                      r"|how\s+(?:do|does|did|can|could|will|would|have|has)\s+you\b"
                      r"|(?:do|does|did|have|has|are|were|is|was)\s+you\b)")
_YES_NO_RE = re.compile(r"(?i)^(?:[^,?]*,\s*)?(?:(?:do|does|did|have|has|are|were|is|was)\s+you\b"
                        r"|(?:do|does)\s+(?:they|it|he|she)\s+have\s+(?:a\s+)?names?\b)")  # _have_names
_NAMES_Q_RE = re.compile(r"(?i)\b(?:do|does)\s+(?:they|it|he|she)\s+have\s+(?:a\s+)?names?\b")
_ABOUT_RE = re.compile(r"(?i)\b(?:you|your|their|its|they)\b")
# "the N" of a question with no "you": about the answerer's thing when their own turn named N
_THE_NOUNS_RE = re.compile(r"(?i)\bthe\s+((?:[a-z'’-]+\s+){0,2}[a-z'’-]+)")
# the fragment ends before a clause joined by a comma: "Gin rummy, and he cheats" -> "Gin rummy"
_CLAUSE_TAIL_RE = re.compile(r"(?i),\s*(?:and|but|so|though|although|which|according\s+to)\b.*$")
# an opening that is a clause or a reaction, never a slot filler: not worth a parse
_CLAUSE_START_RE = re.compile(
    r"(?i)^(?:i|i['’](?:m|ve|d|ll)|we|we['’](?:re|ve)|it|it['’]s|that|that['’]s|this|they|they['’]re|he|she|you|"
    r"there|here|sounds|looks|seems|feels|glad|so|sorry|wow|oh|aw|good|great|awesome|nice|cool|amazing|"
    r"what|how|why|can['’]t|don['’]t|just|really|totally|absolutely|definitely|love|loved)\b")
# words that keep a fragment an exclamation or a filler, not an answer
_TRAIL_RE = re.compile(r"(?i)[\s,]+(?:for\s+sure|of\s+course|haha|lol|probably|i\s+think|i\s+guess)\s*$")

_SECOND = {"you": "{S}", "your": "{S}'s", "yours": "{S}'s", "yourself": "{S}"}
_FIRST = {"i": "{A}", "me": "{A}", "my": "{A}'s", "mine": "{A}'s", "myself": "{A}"}
_WE = frozenset({"we", "us", "our", "ours", "ourselves", "y'all", "ya'll"})
_THIRD = frozenset({"it", "its", "they", "them", "their", "theirs", "this", "that", "these", "those", "there",
                    "he", "him", "his", "she", "her", "hers"})
_PLURAL_PRON = frozenset({"they", "them", "their", "theirs", "these", "those"})
_FINITE_TAGS = frozenset({"VBZ", "VBP", "VBD", "MD"})
_AUX_FINITE = {"have": "has", "'ve": "has", "has": "has", "are": "is", "'re": "is", "is": "is", "'s": "is",
               "were": "was", "was": "was", "am": "is"}
_MODALS = frozenset({"will", "would", "can", "could", "should", "might", "may", "must"})
# verbs whose place answers "where ... to": "Where did you go?" "Lisbon" -> "went to Lisbon"
_MOTION = frozenset({"go", "move", "travel", "head", "fly", "drive", "run", "walk", "come", "get", "relocate",
                     "hike", "sail", "ride", "return", "emigrate"})
_AT_PLACE = frozenset({"work", "study", "shop", "train", "volunteer", "teach", "intern"})
_IRREGULAR_PAST = {
    "go": "went", "get": "got", "have": "had", "make": "made", "buy": "bought", "take": "took", "see": "saw",
    "do": "did", "find": "found", "meet": "met", "come": "came", "leave": "left", "give": "gave", "read": "read",
    "write": "wrote", "eat": "ate", "drink": "drank", "sing": "sang", "win": "won", "begin": "began",
    "choose": "chose", "bring": "brought", "think": "thought", "teach": "taught", "feel": "felt", "keep": "kept",
    "spend": "spent", "send": "sent", "build": "built", "pay": "paid", "say": "said", "tell": "told",
    "sell": "sold", "sit": "sat", "run": "ran", "fly": "flew", "drive": "drove", "ride": "rode", "grow": "grew",
    "know": "knew", "draw": "drew", "hear": "heard", "lose": "lost", "put": "put", "cut": "cut", "set": "set",
    "let": "let", "become": "became", "break": "broke", "catch": "caught", "fall": "fell", "hold": "held",
    "lead": "led", "wear": "wore", "swim": "swam", "throw": "threw", "forget": "forgot", "sleep": "slept",
    "stand": "stood", "understand": "understood", "speak": "spoke", "steal": "stole", "bake": "baked",
}


@dataclass(frozen=True)
class Composed:
    """One composed fact: its text, the answer sentence it rests on, the question's wh-kind."""

    text: str
    source: str
    kind: str
    filler: str = ""
    tail: bool = False  # the opening goes on with a clause of its own ("Gin rummy, and he cheats")
    event_date: datetime | None = None  # a date of the filler, resolved ("on 26 August 2023")


def _bare(s: str) -> str:
    return re.sub(r"[^\w']+", " ", s.casefold()).strip()


# ---- entry point --------------------------------------------------------------------------------
def apply(result: ExtractionResult, text: str, ctx: ExtractionContext) -> Composed | None:
    """Add (or put in place of a fact of the same sentence) the fact a question + fragment answer
    pair states; None when the turn is no such pair."""
    got = compose(text, ctx)
    if got is None:
        return None
    speaker = (ctx.speaker_name or "").strip()
    same = [f for f in result.facts if (f.source_text or "").strip() == got.source.strip()]
    if got.tail and same:  # the rules read the clause after the fragment: both facts stand
        if any(_bare(f.fact_text) == _bare(got.text) for f in result.facts):
            return None
        same = []
    if same:  # the rules read the sentence: only a bare restatement of the fragment gives way
        restated = {_bare(x) for said in (got.filler, got.source)
                    for x in (said, f"{speaker} is {said}", f"{speaker} {said}")}
        piece = _bare(re.sub(rf"^{re.escape(speaker)}'s\b", "my", same[0].fact_text))
        if piece and f" {piece} " in f" {_bare(got.source)} " and not got.tail:
            restated.add(_bare(same[0].fact_text))  # "S's little spice rack": a bare piece of the fragment
        if len(same) > 1 or _bare(same[0].fact_text) not in restated:  # "Rosa is watching anime ..."
            return None
        same[0].fact_text, same[0].rule_kind = got.text, f"qa_pair.{got.kind}"
        return got
    result.facts.append(ExtractedFact(speaker, got.text, None, None, "specific_event", 0.8,
                                      event_date=got.event_date, source_text=got.source,
                                      rule_kind=f"qa_pair.{got.kind}"))
    return got


def candidate(text: str, previous_turns: list[tuple[str | None, str]], speaker: str) -> tuple[str, str, str] | None:
    """Regex prefilter: (question, opening sentence, fragment) when the other speaker's last turn
    asks something and this turn opens with a short sentence; None otherwise (nothing parsed)."""
    if not previous_turns or not speaker:
        return None
    asker, prev = previous_turns[-1]
    if not asker or asker.strip().casefold() == speaker.casefold():
        return None
    asks = [q.group(0).strip() for q in _QUESTION_RE.finditer(prev or "")]
    went = bool(asks) and asks_how_it_went(asks[-1])  # "How did the race go?": a result only (qa_results)
    if not asks or not (went or _ASKS_RE.match(asks[-1]) or _YES_NO_RE.match(asks[-1])):
        return None
    if not went and not _NAMES_Q_RE.search(asks[-1]) and not _ABOUT_RE.search(asks[-1]) and not _anchored(asks[-1], previous_turns[:-1], speaker):
        return None
    yes_no = bool(_YES_NO_RE.match(asks[-1]))
    opening = None
    for m in _SENT_RE.finditer(text):
        s = m.group(0).strip()
        if s and not _COURTESY_RE.match(s):
            opening = s
            break
    if opening is None:
        return None
    bare = yes_no and bool(_BARE_YES_RE.match(opening))
    if bare:  # "Of course! Pepper and Sage.": the next sentence answers
        rest = text[text.find(opening) + len(opening):]
        opening = next((m.group(0).strip() for m in _SENT_RE.finditer(rest) if m.group(0).strip()), "")
        if not opening or _YES_RE.match(opening) or _NO_RE.match(opening):
            return None
    yes = bare or bool(_YES_RE.match(opening))
    if yes != yes_no:
        return None  # a yes/no question needs "yes" and a filler; a wh-question no "yes"
    frag = _YES_RE.sub("", opening, count=1) if yes and not bare else opening
    frag = _CLAUSE_TAIL_RE.sub("", frag.rstrip(" .!?…"))
    frag = _TRAIL_RE.sub("", frag).strip(" ,-—–")
    frag = _APPOS_TAIL_RE.sub("", frag).strip(" ,")
    if (not frag or _NO_RE.match(frag) or _CLAUSE_START_RE.match(frag)
            and not is_result(frag) or len(frag.split()) > MAX_FRAGMENT_WORDS):
        return None
    if opening.rstrip().endswith("?") or frag.casefold() in (asker.strip().casefold(), speaker.casefold()):
        return None  # a question back ("October?") or a vocative ("Tomas!"), not an answer
    if went and not is_result(frag):
        return None  # "How did it go?" + "So fun!": a judgement, not parsed
    return asks[-1], opening, frag


def _anchored(question: str, earlier: list[tuple[str | None, str]], speaker: str) -> bool:
    """A question with no "you" ("Which publisher took the book?") is about the answerer when
    one of its "the N" nouns is a word of the answerer's own last turn ("My picture book got
    accepted!"; their last two turns): the definite phrase points back at the thing they told."""
    own = [t for w, t in earlier if (w or "").strip().casefold() == speaker.casefold()][-2:]
    if not own:
        return False
    said = {_stem(w) for w in re.findall(r"[a-z'’-]+", " ".join(own).casefold()) if len(w) > 3}
    return any(_stem(w) in said for m in _THE_NOUNS_RE.finditer(question)
               for w in m.group(1).split() if len(w) > 3 and w.islower() and _stem(w) not in _VAGUE_NOUNS)


# nouns too vague to point back at one thing ("the funniest thing", "the best part")
_VAGUE_NOUNS = frozenset({"thing", "stuff", "time", "part", "kind", "sort", "best", "worst", "most", "first",
                          "last", "whole", "other", "same", "rest", "idea", "place", "moment", "news", "story"})


def _stem(word: str) -> str:
    return re.sub(r"(?:ies|es|s|['’]s)$", "", word.casefold())


def parse_texts(items: list[tuple[str, str, list[tuple[str | None, str]]]]) -> list[str]:
    """What `compose` will parse for these (text, speaker, previous turns), regex only: the write
    pipeline batches them with the other stages' texts (write/parses.py)."""
    out: list[str] = []
    for text, speaker, turns in items:
        c = candidate(text, turns, speaker)
        if c is not None:
            out += [c[0], c[2]]
    return list(dict.fromkeys(out))


def compose(text: str, ctx: ExtractionContext) -> Composed | None:
    """The composed fact of this turn with the previous one, or None (see module docstring)."""
    speaker = (ctx.speaker_name or "").strip()
    c = candidate(text, ctx.previous_turns, speaker)
    if c is None:
        return None
    question, opening, frag = c
    from arandu_pipelines.write.parses import PARSE, for_context

    parses = for_context(ctx, ctx.spacy_model)
    qdoc, fdoc = parses.docs([question, frag], PARSE, STAGE)  # the question: the antecedents' doc too
    if qdoc is None or fdoc is None:
        return None
    yes = bool(_YES_NO_RE.match(question))  # `candidate` let through only a "yes" to a yes/no question
    # a result is told by its words ("5th overall"), never a name: its capital is the sentence's
    filler = frag[:1].lower() + frag[1:] if is_result(frag) else _fragment(fdoc)
    if filler is None:
        return None
    if _NAMES_Q_RE.search(question):
        filler = frag  # names as written ("Waffles", not the plural noun's "waffles")
    filler = filler.replace("{S}", speaker)
    asker = (ctx.previous_turns[-1][0] or "").strip()
    own = [t for w, t in ctx.previous_turns[:-1] if (w or "").strip().casefold() == speaker.casefold()]
    first = next((t for t in fdoc if not t.is_punct), None)
    asked = ctx.previous_turns[-1][1] or ""
    before = asked[:asked.rfind(question)] if question in asked else ""
    resolve = _Resolver(parses, own[-1] if own else None, speaker, first.tag_ if first is not None else "",
                        before)
    out = _compose(qdoc, filler, yes, speaker, asker, resolve)
    if out is None:
        return None
    fact, kind = out
    fact = re.sub(r"\s+", " ", fact).strip()
    fact = re.sub(r"\s+([,;:])", r"\1", fact)
    from arandu_pipelines.write.temporal import absolutize

    # "on August 26th" -> "on 26 August 2023", "last spring" -> its year, as every rule fact's dates
    fact, when = absolutize(fact, ctx.occurred_at, ctx.timezone, calendar=True)
    if is_result(filler):  # "4 hours, 12 minutes! Under my goal!": the comparison goes with the result
        fact, than = and_units(fact), comparison(text, opening, speaker)
        fact = f"{fact}, {than}" if than else fact
    tail = bool(_CLAUSE_TAIL_RE.search(opening.rstrip(" .!?…")))
    return Composed(fact[:1].upper() + fact[1:], opening, kind, filler, tail, when)


# ---- the answer ---------------------------------------------------------------------------------
def _fragment(doc: Any) -> str | None:
    """The slot filler: a noun phrase, number, duration or prepositional phrase with no finite
    verb of its own ("Since I was 17" is the one clause allowed: a duration); None otherwise.
    A one-word fragment is often mis-tagged ("Lisbon" as a verb): a capitalised word that is not
    an adjective, adverb or interjection counts as a name."""
    toks = [t for t in doc if not t.is_punct]
    if not toks:
        return None
    first = toks[0].lower_
    if first in ("since", "for", "until", "till") or first == "ever" and len(toks) > 1 and toks[1].lower_ == "since":
        return _filler(toks)
    if any(t.tag_ in _FINITE_TAGS and not _plural_noun(t, toks) for t in toks) \
            or any(t.lower_ in _SECOND or t.lower_ in _WE for t in toks):
        return None
    if any(t.lower_ in ("'s", "’s") and t.i + 1 < len(doc) and (
            doc[t.i + 1].pos_ not in ("NOUN", "PROPN", "ADJ", "NUM")
            or doc[t.i + 1].pos_ == "ADJ" and (t.i + 2 >= len(doc) or doc[t.i + 2].is_punct))
           for t in toks):
        return None  # "Guitar's mostly my thing": the "'s" is "is", a clause of its own
    if any(t.lower_ in _THIRD for t in toks):
        return None  # "That one!" points at something unnamed
    # a base-form "verb" after a determiner, adjective or adverb is a mis-tagged noun ("Mostly sourdough")
    named = any(t.pos_ in ("NOUN", "PROPN", "NUM") or t.tag_ == "VB" and t.i > 0 and doc[t.i - 1].pos_ in ("DET", "ADJ", "ADV")
                or _plural_noun(t, toks) for t in toks)
    if not named and not (len(toks) == 1 and toks[0].text[:1].isupper() and toks[0].pos_ not in ("ADJ", "ADV", "INTJ")):
        return None  # "So fun!", "Absolutely!", "Awesome!"
    if toks[0].tag_ == "VB" and len(toks) > 1:
        return None  # "Go for it!": an imperative
    return _filler(toks)


def _plural_noun(t: Any, toks: list[Any]) -> bool:
    """A plural noun the parser took for a verb: "Mostly curries" ("curries" as VBZ) - the last
    word, after only adverbs, determiners or adjectives, with no subject or object of its own."""
    return (t.tag_ in ("VBZ", "VBP") and t == toks[-1] and t.i > 0
            and all(x.pos_ in ("ADV", "DET", "ADJ", "NUM") for x in toks if x.i < t.i)
            and not any(c.dep_ in ("nsubj", "dobj", "ccomp", "xcomp", "attr", "acomp") for c in t.children))


_LOWER_OPENERS = frozenset({"DET", "ADV", "ADJ", "ADP", "NUM", "PRON", "SCONJ", "CCONJ", "PART"})


def _filler(toks: list[Any]) -> str:
    """The fragment's words in the answerer's mouth: "my" -> "S's" (filled in by `_compose`),
    a sentence-initial capital lowered unless the word is a name."""
    comma = next((i for i, t in enumerate(toks) if i and t.doc[t.i - 1].text == ","
                  and all(x.pos_ in ("ADV", "INTJ") for x in toks[i:])), None)
    toks = toks[:comma] if comma else toks  # "Frida Kahlo, obviously" -> "Frida Kahlo"
    doc = toks[0].doc  # a comma the fragment keeps ("In a clay pot, like ...") stays between its words
    words = [_FIRST_IN_ANSWER.get(t.lower_, t.text)
             + (t.whitespace_ or (doc[t.i + 1].text + " " if t.i + 1 < len(doc) and doc[t.i + 1].text in (",", ";")
                                  and t != toks[-1] else ""))
             for t in toks]
    first = toks[0]
    name_part = len(toks) > 1 and toks[1].pos_ == "PROPN" and first.text[:1].isupper() and first.pos_ == "ADJ"
    if (first.pos_ in _LOWER_OPENERS or first.pos_ == "NOUN" and first.lower_.endswith("ing")
            or first.pos_ == "VERB" and (first.dep_ == "amod" or first.tag_ == "VBG")
            or first.tag_ in ("NN", "NNS") and len(toks) > 1 and toks[1].text.islower()
            or first.tag_ == "NNS" and len(toks) == 1) \
            and first.text != "I" and first.lower_ not in _FIRST_IN_ANSWER and not name_part:
        words[0] = words[0][:1].lower() + words[0][1:]
    return re.sub(r"\s+", " ", "".join(words)).strip(" ,")


_FIRST_IN_ANSWER = {"i": "{S}", "me": "{S}", "my": "{S}'s", "mine": "{S}'s", "myself": "{S}"}


# ---- the question -------------------------------------------------------------------------------
class _Resolver:
    """What "it"/"they"/"their" of a question stands for: the one noun phrase of the right number
    in the answerer's own previous turn (a subject, object or attribute), written as theirs."""

    def __init__(self, parses: Any, turn: str | None, speaker: str, answer_tag: str = "",
                 asked_before: str = "") -> None:
        self.parses, self.turn, self.speaker = parses, turn, speaker
        self.answer_tag = answer_tag  # the answer's first tag: a gerund means "by ..." (_means)
        self.asked_before = asked_before  # the asker's turn before the question ("Your dad and Rosa ...")

    def __call__(self, plural: bool, people: bool = False) -> str | None:
        """`people`: "they" as the subject of a doing ("What do they play?") is the one pair of
        people the asker's words before the question ("Your dad and Rosa are cute.") or else the
        answerer's own previous turn ("My grandpa and Rosa ...") coordinates."""
        if people and self.asked_before.strip():
            found = self._found(self.asked_before, plural, people, "your")
            if len(found) == 1:
                return found[0]
            if found:
                return None
        if not self.turn:
            return None
        found = self._found(self.turn, plural, people, "my")
        if len(found) != 1:
            return None
        return found[0] if people else f"{self.speaker}'s {found[0]}"

    def _found(self, text: str, plural: bool, people: bool, owner: str) -> list[str]:
        from arandu_pipelines.write.parses import PARSE

        doc = self.parses.doc(text[:1000], PARSE, STAGE)
        if doc is None:
            return []
        found: list[str] = []
        for chunk in doc.noun_chunks:
            head = chunk.root
            if head.pos_ not in ("NOUN", "PROPN" if people else "NOUN") \
                    or head.dep_ not in ("dobj", "nsubj", "attr", "conj", "pobj"):
                continue
            if head.dep_ == "conj":
                continue  # read with its first conjunct
            conj = [c for c in head.conjuncts if c.pos_ == "NOUN" or people and c.pos_ == "PROPN"]
            if not conj and head.dep_ == "dobj":  # "got a parrot and a tortoise": the parser hangs the
                conj = [c for c in head.head.children  # second noun on the verb
                        if c.dep_ == "conj" and c.pos_ == "NOUN" and c.i > head.i
                        and any(x.dep_ == "cc" and head.i < x.i < c.i for x in head.head.children)]
            is_plural = bool(conj) or head.tag_ == "NNS"
            if is_plural != plural:
                continue
            nouns = [head, *conj] if conj else [head]
            if people:  # "my grandpa and Rosa", "Rosa and my dad": the answerer's person and another
                if not conj or not any(n.pos_ == "NOUN" and any(t.dep_ == "poss" and t.lower_ == owner
                                                                for t in n.children) for n in nouns):
                    continue
                found.append(" and ".join(_person_phrase(n, owner, self.speaker) for n in nouns))
                continue
            found.append(" and ".join(_own(n) for n in nouns))
        return list(dict.fromkeys(found))


def _person_phrase(noun: Any, owner: str, speaker: str) -> str:
    """A conjunct person as said, the answerer's "my"/"your" as theirs: "his girlfriend Rosa",
    "Ana's dad" (its own conjuncts, "and" and a determiner left out)."""
    skip = {t.i for c in noun.children if c.dep_ in ("conj", "cc", "punct") for t in c.subtree}
    words = [f"{speaker}'s" if t.lower_ == owner and t.dep_ == "poss" else t.text
             for t in noun.subtree if t.i not in skip and t.dep_ != "det" and not t.is_punct]
    return " ".join(words)


def _own(noun: Any) -> str:
    """The noun with its adjectives, without its determiner ("a fluffy kitty" -> "fluffy kitty")."""
    mods = [t.text for t in noun.lefts if t.dep_ in ("amod", "compound")]
    return " ".join([*mods, noun.text])


def _compose(q: Any, filler: str, yes: bool, speaker: str, asker: str, resolve: _Resolver) -> tuple[str, str] | None:
    toks = [t for t in q if not t.is_punct]
    whs = [t for t in toks if t.tag_ in ("WDT", "WP", "WP$", "WRB")]
    if len(whs) > 1 or any(t.lower_ in _WE for t in toks):
        return None
    root = next((t for t in toks if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX"):
        return None
    if not whs:
        if not yes:
            return None
        return _have_names(root, filler, resolve) or _yes_no(q, toks, root, filler, yes, speaker, asker)
    if yes:
        return None  # "Yes" to a wh-question: not an answer to it
    wh = whs[0]
    subj = next((t for t in root.children if t.dep_ in ("nsubj", "nsubjpass")), None)
    if wh.lower_ == "how" and root.lower_ == "go" and not _how_slot(wh):
        return result_fact(root, subj, filler, speaker, resolve)  # "How did the race go?" + "Third place!"
    if wh.lower_ in ("why",) or wh.lower_ == "how" and not _how_slot(wh) and not _manner(wh, root, subj):
        return None
    if subj is not None and subj.lower_ == "you" and subj.i + 1 < len(q) \
            and q[subj.i + 1].lower_ in ("two", "three", "both", "all", "guys", "folks"):
        # "What do you two play?": the answerer and the one person named with them (qa_results)
        who = you_two(resolve.turn, resolve.asked_before, speaker) if q[subj.i + 1].lower_ in ("two", "both") \
            and wh.lower_ != "how" and root.pos_ == "VERB" else None
        if who is None:
            return None  # "How did you two meet?", "What are you guys up to?"
        rest = [t for t in toks if t.i != subj.i + 1]
        return _you_clause(rest, root, subj, wh, filler, who, asker, resolve, plural=True)
    if subj is not None and subj.lower_ == "you":
        return _you_clause(toks, root, subj, wh, filler, speaker, asker, resolve)
    if subj is not None and subj.lower_ == "they" and root.pos_ == "VERB":  # "What do they play together?"
        who = resolve(True, people=True)
        if who is None:
            return None
        return _you_clause(toks, root, subj, wh, filler, who, asker, resolve, plural=True)
    if root.lower_ in _AUX_FINITE:
        return _copular(root, subj, wh, filler, speaker, asker, resolve)
    if subj is not None and (subj == wh or wh.dep_ == "det" and wh.head == subj):
        return _wh_subject(toks, root, subj, filler, speaker, asker, resolve)
    return None


# "how" + a verb of doing: its answer is a means ("How do you keep track?" "Labeled bags"); a
# verb of judging or feeling asks for an opinion ("How do you like it?", "How did you find it?")
_JUDGING = frozenset({"feel", "like", "find", "think", "know", "say", "mean", "love", "enjoy", "be", "do", "go",
                      "look", "seem", "sound",
                      # a wording or a description, not a means ("How would you describe it?" "Cozy chaos")
                      "describe", "pronounce", "spell", "call", "name", "write", "put", "explain", "rate",
                      "define", "sum", "summarize", "handle", "cope", "take", "react", "respond"})
# "how" verbs whose bare noun-phrase answer is an occasion ("How did you meet?" "A friend's barbecue")
# or whose gerund answer goes bare ("How do you spend your weekends?" "Hiking")
_HOW_AT = frozenset({"meet"})
_HOW_BARE_GERUND = frozenset({"spend", "pass"})


def _manner(wh: Any, root: Any, subj: Any) -> bool:
    return (wh.head == root and wh.dep_ == "advmod" and root.pos_ == "VERB" and subj is not None
            and subj.lower_ == "you" and not list(subj.children) and (root.lemma_ or root.lower_) not in _JUDGING
            and root.lower_ not in _JUDGING)


def _means(filler: str, first_tag: str, verb: str = "") -> str:
    """The means a "how" answer names, as an adverbial: "labeled bags" -> "with labeled bags",
    "practicing daily" -> "by practicing daily", "by train" stays."""
    if re.match(r"(?i)(?:by|with|through|via|using|in|on|at|from)\b", filler):
        return filler
    gerund = _GERUND_RE.match(filler)
    if gerund and not _ING_NOUN_RE.match(filler):  # the parser tags "Hiking, mostly" a noun
        first_tag, filler = "VBG", filler[:1].lower() + filler[1:]
    if first_tag == "VBG" and verb in _HOW_BARE_GERUND:
        return filler  # "spends Rosa's weekends hiking"
    if first_tag == "VBG" or _VEHICLE_RE.match(filler):  # "by watching ...", "by overnight train"
        return f"by {filler}"
    if verb in _HOW_AT:
        return f"at {filler}"
    return f"with {filler}"


_GERUND_RE = re.compile(r"(?i)^[a-z]{2,}ing\b")
_ING_NOUN_RE = re.compile(r"(?i)^(?:\w*thing|morning|evening|spring|string|ring|king|wing|ceiling|sibling|"
                          r"pudding|dumpling|wedding|duckling|earring|clothing|lightning|ceiling|viking)s?\b")
# a means of travel said without a determiner takes "by" ("Overnight train from Madrid")
_VEHICLE_RE = re.compile(r"(?i)^(?:\w+\s+)?(?:train|bus|car|plane|bike|bicycle|boat|ferry|foot|taxi|cab|subway|"
                         r"metro|tram|coach|ship|air|rail|road|sea|motorbike|motorcycle)\b")


_MONTH_OR_DAY_RE = re.compile(
    r"(?i)^(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d|\d{1,2}(?:st|nd|rd|th)?\b"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|the\s+\d{1,2}(?:st|nd|rd|th)\b)")
_MONTH_OR_YEAR_RE = re.compile(r"(?i)^(?:(?:january|february|march|april|june|july|august|september|october|"
                               r"november|december)\b(?!\s+\d)|(?:19|20)\d\d\b)")


def _when(filler: str) -> str:
    """A time answer as an adverbial: "August 26th ..." -> "on August 26th ...", "June" / "2019"
    -> "in June"; "last spring", "next week", "in May" stay as said."""
    if _MONTH_OR_DAY_RE.match(filler):
        return f"on {filler}"
    if _MONTH_OR_YEAR_RE.match(filler):
        return f"in {filler}"
    return filler


def _wh_subject(toks: list[Any], root: Any, subj: Any, filler: str, speaker: str, asker: str,
                resolve: _Resolver) -> tuple[str, str] | None:
    """"Which publisher took the book?" + "Bramble Press" -> "Bramble Press took S's book": the
    filler takes the wh-phrase's place as the subject, the rest of the clause is kept ("the" and
    "your" of the answerer's thing become theirs, "I" the asker)."""
    if root.pos_ != "VERB" or root.tag_ not in ("VBD", "VBZ", "VBP", "VBG", "VBN"):
        return None
    phrase = {t.i for t in subj.subtree}
    if any(t.dep_ not in ("aux", "auxpass", "neg") for t in toks if max(phrase) < t.i < root.i):
        return None  # "What's the funniest thing Oliver's done?": no subject question
    words: list[str] = [filler]
    for t in toks:
        if t.i in phrase or t.dep_ in ("intj", "discourse"):
            continue
        if t.i < min(phrase):
            return None  # something before the wh-phrase ("So, which ...") other than punctuation
        said = _said(t, speaker, asker, resolve)
        if said is None:
            return None
        words.append(said)
    if speaker not in " ".join(words[1:]):
        return None  # the clause names nothing of the answerer's
    if " and " in filler and words[1:2] in (["is"], ["has"], ["was"]):
        words[1] = {"is": "are", "has": "have", "was": "were"}[words[1]]
    return re.sub(r"'s's\b", "'s", " ".join(words)), "who" if subj.lower_ == "who" else "what"


def _how_slot(wh: Any) -> str | None:
    """"how long" / "how many N" / "how much": the slots "how" opens that a fragment fills."""
    head = wh.head
    if head.lower_ in ("long", "many", "much") and wh.dep_ == "advmod":
        return head.lower_
    return None


def _person(word: str, speaker: str, asker: str) -> str | None:
    low = word.lower()
    for table in (_SECOND, _FIRST):
        if low in table:
            return table[low].format(S=speaker, A=asker)
    return word


def _wh_phrase(wh: Any, root: Any, slot: str | None, filler: str) -> tuple[set[int], Any, str] | None:
    """The wh-phrase's tokens ("what kind of music", "how many kids", "which book"), the token
    whose role it takes, and the filler ("three" -> "three kids"); None: no slot to fill."""
    if wh.dep_ in ("det", "attr") and wh.head.pos_ == "NOUN" and wh.head != root:
        return {t.i for t in wh.head.subtree}, wh.head, filler
    if slot == "long":
        return {wh.i, wh.head.i}, wh, filler
    if slot in ("many", "much"):
        noun = wh.head.head
        if noun.pos_ != "NOUN" or not _is_number(filler):
            return None
        return {t.i for t in noun.subtree}, noun, f"{filler} {noun.text}"
    return {wh.i}, wh, filler


def _verb_form(t: Any, aux: list[Any], subj: Any, plural: bool = False) -> str:
    """The clause's verb in the answerer's statement: "did you go" -> "went", "do you play" ->
    "plays", "are you thinking" -> "thinking" (its "are" is an aux, written as "is")."""
    if any(a.lower_ == "did" for a in aux):
        return _past(t.lower_)
    if any(a.lower_ in ("do", "does") for a in aux):
        return t.lower_ if plural else conj_en(t.lower_)
    if plural:
        return t.lower_
    return t.lower_ if t.i > subj.i else _AUX_FINITE.get(t.lower_, t.lower_)


def _aux_word(t: Any, plural: bool = False) -> str | None:
    """An inverted auxiliary in the statement: "" (do/does/did: the verb carries it), "has",
    "is", a modal; None: an auxiliary this does not write."""
    low = t.lower_
    if low in ("do", "does", "did"):
        return ""
    if low in _MODALS:
        return low
    if plural and low in ("have", "'ve", "are", "'re", "were"):
        return {"'ve": "have", "'re": "are"}.get(low, low)
    return _AUX_FINITE.get(low)


def _you_clause(toks: list[Any], root: Any, subj: Any, wh: Any, filler: str, speaker: str, asker: str,
                resolve: _Resolver, plural: bool = False) -> tuple[str, str] | None:
    """"How long have you been married?" -> "S has been married for F"; "What did you name it?"
    -> "S's puppy is named F"; "Where did you go?" -> "S went to F"."""
    clause = [t for t in toks if t.i >= min(wh.i, subj.i) and (t.head == root or t == root or _under(t, root))]
    slot = _how_slot(wh) if wh.lower_ == "how" else None
    got = _wh_phrase(wh, root, slot, filler)
    if got is None:
        return None
    phrase, head, filler = got
    # the name question: "What did you name it/the puppy?"
    if root.lower_ == "name" and wh.dep_ in ("oprd", "dobj", "attr", "xcomp", "ccomp"):
        obj = next((t for t in root.children if t.dep_ == "dobj" and t != wh), None)
        if obj is None:
            return None
        named = _phrase(obj, speaker, asker, resolve)
        if named is None:
            return None
        return f"{named} {'are' if _plural(obj) else 'is'} named {filler}", "name"
    aux = [t for t in clause if t.i < subj.i and t.dep_ in ("aux", "auxpass", "ROOT") and t.pos_ in ("AUX", "VERB")]
    words: list[str] = [speaker]
    origin: list[int] = [-1]  # the question token each word came from
    last = -1
    placed = False
    verb_done = False
    for t in clause:
        origin += [last] * (len(words) - len(origin))
        last = t.i
        if t.i in phrase or t == subj or t.is_punct or t.dep_ in ("intj", "discourse"):
            continue  # the wh-phrase's filler is placed at its role's position
        if t in aux:
            word = _aux_word(t, plural)
            if word is None:
                return None
            words += [word] if word else []
            continue
        if t == root and not verb_done:
            verb_done = True
            words.append(_verb_form(t, aux, subj, plural))
            if head.dep_ == "dobj" and head.head == root:
                words.append(filler)
                placed = True
            continue
        low = t.lower_
        if low in _THIRD or low in ("one",):
            rep = _pronoun(t, resolve)
            if rep is None:
                return None
            words.append(rep)
            continue
        mapped = _person(t.text, speaker, asker)
        words.append(mapped or t.text)
    if not verb_done:
        return None
    origin += [last] * (len(words) - len(origin))
    # a place goes after the verb and its object ("S traveled to F last summer"); a time or a
    # duration at the end ("S has lived in Porto for F")
    # "Where did you end up going?": the place goes after the gerund, whose verb takes it ("to")
    gerund = next((c for c in root.children if c.dep_ == "xcomp" and (
        c.tag_ == "VBG" and not list(c.children)  # "going to move": the place is the move's
        or c.tag_ == "VB" and root.lower_ == "going" and all(x.dep_ == "aux" or x == wh for x in c.children))), None)
    anchor = max([t.i for c in root.children if c.dep_ in ("dobj", "prt", "dative", "acomp", "oprd")
                  and c.i not in phrase for t in c.subtree] + [root.i] + ([gerund.i] if gerund is not None else []))
    at = sum(1 for o in origin if o <= anchor)
    if not placed:
        if slot == "long":
            words.append(filler if re.match(r"(?i)(?:since|for|ever)\b", filler) else f"for {filler}")
        elif wh.lower_ == "where":
            words.insert(at, _where(gerund if gerund is not None else root, filler))
        elif wh.lower_ == "when":
            words.append(_when(filler))
        elif wh.lower_ == "how" and slot is None:
            words.append(_means(filler, resolve.answer_tag, root.lower_))
        elif head.dep_ in ("pobj", "oprd", "dobj", "attr"):
            words.append(filler)
        else:
            return None
    kind = {"how": f"how_{slot or 'manner'}", "where": "where", "when": "when", "who": "who"}.get(wh.lower_, "what")
    return " ".join(words), kind


def _copular(root: Any, subj: Any, wh: Any, filler: str, speaker: str, asker: str,
             resolve: _Resolver) -> tuple[str, str] | None:
    """"What's your favorite book?" -> "S's favorite book is F"; "What are their names?" ->
    "S's pup and kitty are named F"."""
    if subj is None:  # "Who's your favorite artist?": the parser calls both sides attr
        subj = next((t for t in root.children if t.dep_ == "attr" and t != wh and t.pos_ == "NOUN"), None)
    if subj is not None and wh.lower_ in ("when", "where") and wh.dep_ == "advmod" and subj.pos_ == "NOUN":
        thing = _phrase(subj, speaker, asker, resolve)  # "When is the grand opening?" / "your birthday"
        if thing is None or speaker not in thing:
            return None
        be = "are" if root.lower_ in ("are", "'re", "were") or subj.tag_ == "NNS" else "is"
        be = {"is": "was", "are": "were"}[be] if root.lower_ in ("was", "were") else be
        place = _when(filler) if wh.lower_ == "when" else _where_is(filler)
        return f"{thing} {be} {place}", wh.lower_
    if subj is None or wh.dep_ not in ("attr", "nsubj") or subj.pos_ not in ("NOUN", "PROPN"):
        return None
    poss = next((t for t in subj.children if t.dep_ == "poss"), None)
    if poss is None:
        return None
    be = "are" if root.lower_ in ("are", "'re", "were") or subj.tag_ == "NNS" else "is"
    if poss.lower_ in ("its", "their"):  # "What are their names?": whose, from the answerer's last turn
        owner = resolve(poss.lower_ == "their")
    else:
        owner = _phrase(poss, speaker, asker, resolve)
    if owner is None or speaker not in owner:
        return None  # "What's Jon's favorite?" is about a third person
    owner = re.sub(r"\s*['’]s$", "", owner) if owner != f"{speaker}'s" else speaker
    if subj.lower_ in ("name", "names"):
        if owner == speaker:  # "What's your name?"
            return f"{speaker}'s name is {filler}", "name"
        return f"{owner} {be} named {filler}", "name"
    rest = " ".join(t.text for t in subj.subtree
                    if t != poss and t not in poss.subtree and not t.is_punct and t.tag_ != "POS")
    return f"{owner}'s {rest} {be} {filler}", "what"


def _have_names(root: Any, filler: str, resolve: _Resolver) -> tuple[str, str] | None:
    """"Do they have names yet?" + "Yes! Pepper and Sage." -> "S's kittens are named Pepper and
    Sage": they/it/he/she is the one noun phrase of the answerer's previous turn (`_Resolver`)."""
    subj = next((t for t in root.children if t.dep_ == "nsubj"), None)
    obj = next((t for t in root.children if t.dep_ == "dobj"), None)
    if root.lower_ not in ("have", "has") or subj is None or obj is None or obj.lower_ not in ("name", "names") \
            or subj.lower_ not in ("they", "it", "he", "she") or any(c.dep_ == "prep" for c in root.children):
        return None
    owner = resolve(subj.lower_ == "they")
    if owner is None or not all(w[:1].isupper() or w in ("and", "&") for w in re.findall(r"[\w'’&-]+", filler)):
        return None  # names are capitalised words ("Pepper, Olive and Sage"), not "Two silly ones"
    return f"{owner} {'are' if subj.lower_ == 'they' else 'is'} named {filler}", "name"


def _yes_no(q: Any, toks: list[Any], root: Any, filler: str, yes: bool, speaker: str,
            asker: str) -> tuple[str, str] | None:
    """"Do you have any pets?" + "Yes, two!" -> "S has two pets"; + "Yep, a parrot" -> "S has a parrot"."""
    subj = next((t for t in root.children if t.dep_ in ("nsubj", "nsubjpass")), None)
    lead = next((t for t in toks if t.pos_ in ("AUX", "VERB")), None)  # after a leading "Oh," or "So,"
    if subj is None or subj.lower_ != "you" or lead is None or lead.pos_ != "AUX" or lead.i > subj.i:
        return None
    obj = next((t for t in root.children if t.dep_ in ("dobj", "attr") and t.pos_ == "NOUN"), None)
    if obj is None:
        return None
    det = next((t for t in obj.children if t.dep_ == "det" and t.lower_ in ("any", "a", "an", "some")), None)
    if det is None or any(t.lower_ in _THIRD for t in toks):
        return None
    first = lead.lower_
    if first in ("do", "does"):
        verb = conj_en(root.lower_)
    elif first == "did":
        verb = _past(root.lower_)
    elif first in _AUX_FINITE and root.i == lead.i:
        verb = _AUX_FINITE[first]
    else:
        return None
    if _is_number(filler):
        value = f"{filler} {obj.text}"
    else:
        value = filler
    tail = [t.text for t in toks if t.i > max(x.i for x in obj.subtree) and not t.is_punct]
    tail = [_person(w, speaker, asker) or w for w in tail]
    return " ".join([speaker, verb, value, *tail]), "yes_no"


def _under(t: Any, root: Any) -> bool:
    return any(a == root for a in t.ancestors)


def _plural(t: Any) -> bool:
    return t.tag_ in ("NNS", "NNPS") or t.lower_ in _PLURAL_PRON


def _pronoun(t: Any, resolve: _Resolver) -> str | None:
    if t.lower_ in ("it", "they", "them", "their", "its"):
        got = resolve(_plural(t))
        if got is None:
            return None
        return f"{got}'s" if t.lower_ in ("its", "their") and not got.endswith("'s") else got
    return None


def _said(t: Any, speaker: str, asker: str, resolve: _Resolver) -> str | None:
    """A question's word as the answerer's fact says it: he/she/they by its antecedent (None when
    unresolved), a determiner "the" as the answerer's, I/you/my/your as the asker/answerer."""
    if t.lower_ in _THIRD:
        return _pronoun(t, resolve)
    if t.lower_ == "the" and t.dep_ == "det":
        return f"{speaker}'s"
    return _person(t.text, speaker, asker) or t.text


def _phrase(t: Any, speaker: str, asker: str, resolve: _Resolver) -> str | None:
    """A noun phrase of the question in the answerer's words ("your puppy" -> "S's puppy", "it"
    -> its antecedent); None when a pronoun in it is not resolved."""
    words: list[str] = []
    for w in t.subtree:
        if w.is_punct:
            continue
        said = _said(w, speaker, asker, resolve)
        if said is None:
            return None
        words.append(said)
    out = " ".join(words).replace(" 's", "'s")
    return re.sub(r"'s's\b", "'s", out)


def _where_is(filler: str) -> str:
    if _PLACE_PREP_RE.match(filler):
        return filler
    return f"in {filler}"


# a place said with its own preposition, maybe after "right"/"just" ("Right by the lake")
_PLACE_PREP_RE = re.compile(
    r"(?i)(?:(?:right|just|way|somewhere|also)\s+)?(?:to|in|at|on|from|near|by|around|into|across|over|up|down|"
    r"outside|inside|above|below|behind|beside|next\s+to|off|downtown|upstairs|downstairs|out|back|home)\b")


def _where(root: Any, filler: str) -> str:
    if _PLACE_PREP_RE.match(filler):
        return filler
    lemma = root.lemma_ or root.lower_  # the shared pipeline has no lemmatizer: the base form
    if lemma.endswith("ing") and (lemma[:-3] in _MOTION or lemma[:-3] + "e" in _MOTION or lemma[:-4] in _MOTION):
        lemma = next(b for b in (lemma[:-3], lemma[:-3] + "e", lemma[:-4]) if b in _MOTION)  # going, moving, running
    if lemma in _MOTION:
        return f"to {filler}"
    return f"at {filler}" if lemma in _AT_PLACE else f"in {filler}"


_NUMBER_RE = re.compile(r"(?i)^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+couple|"
                        r"a\s+few|several|many|lots)$")


def _is_number(s: str) -> bool:
    return bool(_NUMBER_RE.match(s.strip()))


def _past(verb: str) -> str:
    """The past tense of a base verb ("go" -> "went", "plan" -> "planned", "try" -> "tried")."""
    if verb in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if (len(verb) <= 4 and len(verb) >= 3 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou"
            and verb[-3] not in "aeiou"):
        return verb + verb[-1] + "ed"
    return verb + "ed"
