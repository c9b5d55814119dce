"""Advice and suggestions to the listener: a speech act the annotators write down.

When one friend asks the other "Got any tips for getting started?" and the other answers "Do your
research and find an agency. Gather documents ... Don't forget to prepare emotionally", the
answer carries no fact about the world, but LoCoMo's annotators keep it ("Caroline recommends
doing research, preparing emotionally, and gathering necessary documents ..."). The same for a
proposal of something to do together ("Wanna do a family outing this summer?" -> "Melanie
suggests doing a family outing ... with Caroline"). Today's extractor loses both: imperatives
other than encouragement are left out by write/speech_acts.py (advice given unasked is mostly
talk: "Take care!", "Have fun!", "Check this out!") and questions are not facts.

What separates advice worth keeping from talk is the discourse, not the phrase: the advice was
ASKED FOR (the listener's previous turn asks for advice / tips / suggestions / recommendations),
or the speaker MARKS it as advice ("My advice? ...", "My tip: ..."). Only then are the turn's
imperatives read as advice. A proposal is kept when it is the first of its exchange: a turn
answering the listener's own proposal ("We could do that, or wanna ...?") is the answer, not the
suggestion.

| kind        | when                                                      | fact                                  |
|-------------|-----------------------------------------------------------|---------------------------------------|
| requested   | the listener's previous turn asks for advice / tips /      | S recommends VP-ing(, VP-ing) and     |
|             |   suggestions / recommendations; the turn's imperatives    |   VP-ing (to VP / for X: the request's |
|             |   (spaCy: root verb in base form, no subject, first) and   |   topic, when it names no pronoun)    |
|             |   "you should / could / might want to VP" sentences        |                                       |
| marked      | "My advice / tip / suggestion(:|?|is) <imperative>"        | the same                              |
| joint       | "Wanna / Want to / Do you want to / How about we / Why     | S suggests VP-ing with L              |
|             |   don't we / Shall we VP?" where VP is an activity (not    |                                       |
|             |   see / hear / show / check ...; not "my X", "me"), and    |                                       |
|             |   the listener's previous turn proposed nothing itself     |                                       |

The advice is written generically ("doing one's research", "having faith in oneself"): it is
what the speaker recommends, and the annotators write it so. At most one fact per turn, beside
the turn's other facts (it is the act the turn is about). Imperatives that only repeat the
encouragement formula ("Keep going!", "Believe in yourself!") give nothing here; the sentences
this module used are not offered to write/speech_acts.py, so an advice sentence is never also
"S encourages L to ...". English only; no spaCy pipeline: no requested / marked advice (the
proposal kind is a pattern).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arandu_pipelines.write import lexicon as L
from arandu_pipelines.write.language import detect_language, third_singular
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

STAGE = "advice"
MAX_SENTENCE_CHARS = 300
MAX_ADVICE = 3  # at most this many pieces of advice in one fact

# the listener asks for advice: a question naming advice, tips, suggestions or recommendations
_ASK_RE = re.compile(r"(?i)\b(?:advice|tips?|suggestions?|recommendations?|pointers)\b")
# "My advice? X", "My tip: X", "My advice is to X", "One tip: X"
_MARK_RE = re.compile(r"(?i)^(?:my|one|a|the|best)\s+(?:best\s+|biggest\s+|top\s+)?(?:advice|tip|suggestion)s?"
                      r"(?:\s*[:?!\-–—]+\s*(?P<x>\w.*)?|\s+(?:is|would\s+be)\s+(?:to\s+)?(?P<y>\w.*)|\s*)$")
# lead words before the advice (lexicon.LEAD_WORDS): answers, connectives, steps, stance, cries
_LEAD_CLASSES = ("answer", "connective", "sequencer", "stance", "interjection", "laughter", "filler")
_LEAD_RE = re.compile(rf"(?i)^(?:(?:{L.lead_alternation(*_LEAD_CLASSES)})\b[\s,!.…:-]*)+")
# what a listener is told to do before the advice itself: "Don't forget to X", "Make sure to X"
_WRAP_RE = re.compile(r"(?i)^(?:(?:do\s+not|don['’]t)\s+forget\s+to|remember\s+to|make\s+sure\s+to|be\s+sure\s+to"
                      r"|try\s+to|always)\s+")
# imperatives that are talk, not advice: showing, looking, telling, wishing
_TALK_VERBS = frozenset(["see", "look", "check", "watch", "tell", "talk", "enjoy", "text", "call", "say",
                         "thank", "excuse", "imagine", "guess", "bet", "love", "wish", "hope", "hear", "meet"])
# words of a formula: a VP of only these names no advice ("Keep going!", "Believe in yourself")
_FORMULA = frozenset(["keep", "going", "go", "it", "up", "pushing", "push", "on", "give", "quit", "hang", "in",
                      "there", "believe", "yourself", "you", "your", "never", "don't", "not", "n't", "do",
                      "just", "always", "and", "to", "the", "a", "at", "stay", "positive", "strong", "be",
                      "have", "fun", "take", "care", "good", "great", "luck", "time", "safe", "let", "me", "us",
                      "know", "rock", "on", "shining", "shine", "doing", "get", "this", "that", "em", "'em",
                      "trying", "try", "forget", "remember", "best", "of", "with", "for"])
_YOU_RE = re.compile(r"(?i)^you\s+(?:(?:really|definitely|totally|also|just)\s+)*(?:should|could|might\s+want\s+to"
                     r"|may\s+want\s+to|ought\s+to|need\s+to)\s+(?:(?:really|definitely|also|just|totally)\s+)*"
                     r"(?P<x>[a-z]+\b.*)$")
# a proposal of something to do together
_JOINT_RE = re.compile(
    r"(?i)^(?:(?:so|hey|and|also|oh)[\s,]+)*(?:wanna|want\s+to|do\s+you\s+(?:wanna|want\s+to)|how\s+about\s+we"
    r"|what\s+about\s+we|why\s+don['’]t\s+we|shall\s+we|should\s+we|maybe\s+we\s+(?:could|should))\s+"
    r"(?P<x>[a-z]+\b[^?]*)\?*$")
# a cue or proposal word anywhere in the turn: the cheap test before any sentence is read
_ANY_RE = re.compile(r"(?i)\b(?:advice|tips?|suggestions?|wanna|want\s+to|how\s+about|what\s+about|why\s+don['’]t"
                     r"|shall\s+we|should\s+we|maybe\s+we)\b")
_PROPOSED_RE = re.compile(r"(?i)\b(?:wanna|want\s+to|how\s+about|what\s+about|why\s+don['’]t\s+we|shall\s+we"
                          r"|let['’]?s|we\s+(?:could|should))\b")
# a proposal whose verb shows or tells something is an offer or a request, not a joint activity
_NOT_JOINT = _TALK_VERBS | frozenset(["know", "hear", "show", "share", "chat", "send", "come", "join", "be", "have",
                                      "get", "give"])
_PRONOUN_RE = re.compile(r"(?i)\b(?:it|this|that|these|those|them|they|he|she|him|her)\b")
_CUT_RE = re.compile(r"\s+[-–—]+\s+|[;:]\s|,\s+(?:since|because|'cause|as|so|but|which|and\s+(?:it|they|you)\b)"
                     r"|\s+(?:since|because)\s+")
_STOP_WORDS_RE = re.compile(r"[\w'’-]+")


# words an imperative does not open with: pronouns, determiners, question words, "it's" ... (only
# a sentence that may open with a verb in base form is parsed)
_NOT_OPENING = frozenset(
    ["i", "we", "you", "he", "she", "it", "they", "this", "that", "these", "those", "the", "a", "an", "my", "your",
     "our", "his", "her", "their", "its", "there", "here", "what", "who", "how", "why", "when", "where", "which",
     "if", "because", "since", "as", "but", "or", "so", "thanks", "thank", "yes", "no", "wow", "oh", "sounds",
     "to", "in", "on", "at", "for", "with", "by", "from", "of", "after", "before", "while", "some", "any",
     "all", "every", "each", "one", "most", "many", "lots", "nothing", "something", "everything", "anything"])


def _may_be_imperative(s: str) -> bool:
    first = (re.match(r"[\w'’]+", s) or [""])[0].lower()
    if not first or first in _NOT_OPENING or re.search(r"['’](?:s|m|re|ve|ll|d)$", first):
        return False
    return not re.search(r"(?:ing|ly)$|(?<![su])s$|(?<!e)ed$", first) or first in ("bring", "sing", "apply", "rely")


@dataclass(frozen=True)
class Advice:
    kind: str  # requested / marked / joint
    text: str  # the fact
    sources: tuple[str, ...]  # the sentences it came from (as given)


# ---- words --------------------------------------------------------------------------------------
def _ing(v: str) -> str:
    """A verb's -ing form by regular English spelling ("prepare" -> "preparing", "get" ->
    "getting", "be" -> "being")."""
    low = v.lower()
    if low in ("be", "see", "flee", "agree"):
        return v + "ing"
    if low.endswith("ie"):
        return v[:-2] + "ying"
    if low.endswith("e") and not low.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", low) and len(low) <= 4:
        return v + v[-1] + "ing"
    return v + "ing"


def _gerund(vp: str) -> str:
    """"do X and find Y" -> "doing X and finding Y"; "not be scared" -> "not being scared"."""
    words = vp.split()
    if not words:
        return vp
    first = 1 if words[0].lower() == "not" and len(words) > 1 else 0
    words[first] = _ing(words[first])
    for i in range(first + 1, len(words) - 1):
        if words[i] == "and" and re.fullmatch(r"[a-z]+", words[i + 1]) and words[i + 1] not in (
                "the", "a", "an", "your", "my", "our", "their", "his", "her", "its", "not", "then", "also", "you"):
            words[i + 1] = _ing(words[i + 1])
            break
    return " ".join(words)


def _generic(x: str) -> str:
    """Second person made generic: advice is what one should do ("do your research" -> "do
    one's research", "have faith in yourself" -> "have faith in oneself")."""
    x = re.sub(r"(?i)\byourself\b|\byourselves\b", "oneself", x)
    x = re.sub(r"(?i)\byours\b", "one's own", x)
    x = re.sub(r"(?i)\byour\b", "one's", x)
    x = re.sub(r"(?i)\byou(?:['’]re)\b", "one is", x)
    x = re.sub(r"(?i)\byou(?:['’]ve)\b", "one has", x)
    x = re.sub(r"(?i)\byou\b", "one", x)
    x = re.sub(r"(?i)\bmy\b", "one's", x)  # in the listener's request: "tips on reaching my audience"
    return x


def _content(x: str, skip: frozenset[str], names: tuple[str, ...]) -> int:
    low_names = {w.lower() for n in names for w in _STOP_WORDS_RE.findall(n)}
    return sum(1 for w in _STOP_WORDS_RE.findall(x.lower())
               if len(w) > 2 and w not in skip and w not in low_names)


def _strip(sentence: str, addressee: str) -> str:
    """The sentence without interjections, a leading vocative and a trailing term of address."""
    s = _LEAD_RE.sub("", sentence.strip())
    first = re.escape(addressee.split()[0]) if addressee else ""
    if first:
        s = re.sub(rf"^{first}[a-z]*\s*[,!.]+\s*", "", s)
        s = re.sub(rf"(?i),\s*{first}[a-z]*\s*(?=[!.…]*$)", "", s)
    s = re.sub(r"(?i),\s*(?:buddy|pal|man|dude|girl|bro|mate|my\s+friend|friend|dear|hun)\s*(?=[!.…]*$)", "", s)
    return _LEAD_RE.sub("", s).strip().rstrip("!.…🌟🙌💪😊 ").strip()


def _cut(x: str) -> str:
    return _CUT_RE.split(x.strip(), maxsplit=1)[0].strip().rstrip("!.…,; ")


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}" if " and " not in items[0] else f"{items[0]}, and {items[1]}"
    return ", ".join(items[:-1]) + ", and " + items[-1]


# ---- the parse ----------------------------------------------------------------------------------
def _imperative(doc: Any, names: tuple[str, ...]) -> str | None:
    """The advice of an imperative addressed to the listener (root verb in base form, no subject,
    nothing but "do"/"don't"/"just"/... before it) as a gerund phrase ("do your research and find
    an agency" -> "doing your research and finding an agency"; "Don't be scared to X" -> "not
    being scared to X"; "Don't forget to / Be sure to X" -> X); None for talk ("Check this
    out", "Let me know"), a formula ("Keep going") or anything else. The doc is of the sentence
    with its first letter in lower case (a capital first verb is often tagged a proper noun)."""
    toks = [w for w in doc if not w.is_space]
    root = next((w for w in toks if w.dep_ == "ROOT"), None)
    if root is None or root.tag_ not in ("VB", "VBP") or any(
            c.dep_ in ("nsubj", "nsubjpass", "expl") for c in root.children):
        return None
    before = [w for w in toks if w.i < root.i and not w.is_punct]
    if any(w.lower_ not in ("do", "n't", "not", "never", "just", "always", "please", "definitely", "really",
                            "also", "and", "then", "first") for w in before):
        return None
    neg = any(w.lower_ in ("n't", "not", "never") for w in before)
    verb = root.lower_
    nxt = doc[root.i + 1].lower_ if root.i + 1 < len(doc) else ""
    if verb in _TALK_VERBS or verb == "let" and nxt in ("me", "us", "'s", "’s"):
        return None
    head = root  # "Don't forget to X", "Be sure to X", "Remember to X", "Try to X": the advice is X
    if verb in ("forget", "remember", "be", "make", "try") and _WRAP_RE.match(
            ("don't " if neg and verb == "forget" else "") + "".join(w.text_with_ws for w in doc[root.i:])):
        head = next((w for w in root.subtree if w.dep_ == "xcomp" and w.tag_ in ("VB", "VBP")), root)
        if head.i != root.i:
            neg = False
    if verb == "forget" and head.i == root.i:
        return None  # "Don't forget!"
    drop: set[int] = set()
    for c in head.children:  # "..., and you'll see": a coordinated clause with its own subject
        if c.dep_ == "conj" and any(g.dep_ in ("nsubj", "nsubjpass", "expl") for g in c.children):
            drop |= {w.i for w in c.subtree}
        if c.dep_ in ("intj", "npadvmod") and c.text.lower() in {n.split()[0].lower() for n in names}:
            drop |= {w.i for w in c.subtree}
    # the head and the verbs coordinated with it ("stay positive and motivate others": the parser
    # hangs "motivate" on "positive")
    verbs = {head.i} | {w.i for w in head.subtree if w.dep_ == "conj" and w.pos_ == "VERB"
                        and not any(g.dep_ in ("nsubj", "nsubjpass") for g in w.children)
                        and (w.head.i == head.i or w.head.head.i == head.i and w.head.dep_ in ("acomp", "dobj", "conj"))}
    inside = {w.i for w in head.subtree}
    # "before you throw it" -> (generic) "before one throws it": a present verb of "you" agrees
    agree = {w.head.i for w in doc if w.lower_ == "you" and w.dep_ == "nsubj" and w.head.tag_ == "VBP"}
    vp = "".join((_ing(w.text) + w.whitespace_) if w.i in verbs
                 else (third_singular(w.text) + w.whitespace_) if w.i in agree else w.text_with_ws
                 for w in doc if w.i >= head.i and w.i in inside and w.i not in drop)
    vp = vp.strip().rstrip("!.…,; ")
    plain = "".join(w.text_with_ws for w in doc if w.i >= head.i and w.i in inside and w.i not in drop)
    if not vp or _content(plain, _FORMULA, names) < 1:
        return None
    return ("not " if neg else "") + vp


def _topic(request: str) -> str:
    """What the listener asked advice for, as a purpose: "Any tips on how you stay confident in
    your business?" -> "to stay confident in one's business"; "advice on running a successful
    biz" -> "for running a successful biz"; nothing when it names a pronoun ("tips for getting
    started on it": what "it" is lies further back)."""
    for q in re.split(r"(?<=[?.!])\s+", request):
        m = re.search(r"(?i)\b(?:advice|tips?|suggestions?|recommendations?|pointers)\s+(?:on|for|about)\s+"
                      r"(?P<x>[^?.!,]+)", q)
        if not m:
            continue
        x = m.group("x").strip()
        if _PRONOUN_RE.search(x) or len(x.split()) > 12:
            return ""
        how = re.match(r"(?i)^how\s+(?:to|you|i|we|one)\s+(?:can\s+|could\s+|should\s+|do\s+)?(?P<v>[a-z].*)$", x)
        if how:
            return "to " + _generic(how.group("v"))
        return "for " + _generic(x)
    return ""


# ---- the kinds ----------------------------------------------------------------------------------
def _asked(previous: list[tuple[str | None, str]], addressee: str) -> str | None:
    """The listener's previous turn when it asks for advice (a question naming advice / tips)."""
    if not previous:
        return None
    who, text = previous[-1]
    if who is not None and addressee and who.strip() != addressee:
        return None
    questions = [q for q in re.split(r"(?<=[?.!])\s+", text) if q.rstrip().endswith("?")]
    return text if any(_ASK_RE.search(q) for q in questions) else None


def _proposed(previous: list[tuple[str | None, str]], addressee: str) -> bool:
    """The listener's previous turn proposed something itself (this turn answers it)."""
    if not previous:
        return False
    who, text = previous[-1]
    return (who is None or who.strip() == addressee) and bool(_PROPOSED_RE.search(text))


def _joint(speaker: str, addressee: str, s: str) -> str | None:
    m = _JOINT_RE.match(s.strip())
    if not m:
        return None
    x = _cut(m.group("x"))
    words = x.split()
    if not words or words[0].lower() in _NOT_JOINT or re.search(r"(?i)\b(?:me|my|mine|you|your)\b", x):
        return None  # "Wanna see my moves?", "Wanna show me a routine?", "Want to know more?": offers, requests
    if _content(x, frozenset(["something", "anything", "sometime", "soon", "together", "later", "maybe"]),
                (speaker, addressee)) < 2:
        return None  # "Wanna hang out?", "How about we do something?": nothing named
    return f"{speaker} suggests {_gerund(x)} with {addressee}"


def find(text: str, ctx: ExtractionContext, sentences: list[str], model: str | None = None) -> Advice | None:
    """The turn's advice or proposal to the listener, if any (see the module's table)."""
    speaker = (ctx.speaker_name or "").strip()
    addressee = (ctx.addressee or "").strip()
    if not speaker or not addressee or speaker == addressee:
        return None
    previous = list(ctx.previous_turns or [])
    request = _asked(previous, addressee)
    # most turns: no request, no cue word, no proposal -- nothing more is read (import CPU)
    if request is None and not _ANY_RE.search(text) or detect_language(text) != "en":
        return None
    cands = [(src, _strip(src, addressee)) for src in sentences
             if not src.lstrip().startswith("[") and len(src) <= MAX_SENTENCE_CHARS]
    marked = {i for i, (_, s) in enumerate(cands) if _MARK_RE.match(s)}
    if request is not None or marked:
        got = _advice(cands, marked, request is not None, ctx, model, (speaker, addressee))
        if got:
            vps, used = got
            topic = _topic(request) if request else ""
            if topic.startswith("for ") and " for " in f" {vps[-1]}":
                topic = ""  # "... for bigger reach for marketing"
            fact = f"{speaker} recommends {_join(vps)}{(' ' + topic) if topic else ''}"
            return Advice("requested" if request is not None else "marked", fact, tuple(used))
    if not _proposed(previous, addressee):
        for src, s in cands:
            joint = _joint(speaker, addressee, s)
            if joint:
                return Advice("joint", joint, (src,))
    return None


def _advice(cands: list[tuple[str, str]], marked: set[int], asked: bool, ctx: ExtractionContext,
            model: str | None, names: tuple[str, str]) -> tuple[list[str], list[str]] | None:
    """The advice VPs of the turn and their source sentences: every sentence when asked, else
    only the marked ones (what follows "My advice?": the cue's own tail, or the next sentence)."""
    addressee = names[1]
    texts: list[tuple[str, str]] = []  # (source, text to read as advice)
    for i, (src, s) in enumerate(cands):
        if "?" in s and i not in marked:
            continue
        if i in marked:
            m = _MARK_RE.match(s)
            tail = _strip(m.group("x") or m.group("y") or "", addressee) if m else ""
            if tail and "?" not in tail:
                texts.append((src, tail))
            elif i + 1 < len(cands):
                texts.append((cands[i + 1][0], cands[i + 1][1]))
        elif asked:
            texts.append((src, s))
    if not texts:
        return None
    vps: list[str] = []
    used: list[str] = []
    pending: list[tuple[str, str]] = []
    for src, s in texts:
        m = _YOU_RE.match(s)
        if m:
            vp = _cut(m.group("x"))
            if _content(vp, _FORMULA, names) >= 1 and "?" not in vp:
                first, _, rest = vp.partition(" ")
                vps.append(f"{_ing(first.lower())} {rest}".strip())
                used.append(src)
            continue
        cut = _cut(s)
        if cut and _may_be_imperative(cut):
            pending.append((src, cut[:1].lower() + cut[1:]))
    if pending:
        from arandu_pipelines.write.parses import PARSE, for_context

        docs = for_context(ctx, model).docs([s for _, s in pending], PARSE, STAGE)
        for (src, _), doc in zip(pending, docs, strict=True):
            if doc is None:
                continue
            said = _imperative(doc, names)
            if said:
                vps.append(said)
                used.append(src)
    # keep the sentence order of the turn
    order = {src: i for i, (src, _) in enumerate(cands)}
    pairs = sorted(zip(used, vps, strict=True), key=lambda p: order.get(p[0], 0))
    seen: list[tuple[str, str]] = []
    for p in pairs:
        if p not in seen:
            seen.append(p)
    pairs = seen[:MAX_ADVICE]
    if not pairs:
        return None
    return [_generic(v) for _, v in pairs], [u for u, _ in pairs]


def apply(result: ExtractionResult, text: str, ctx: ExtractionContext, *, sentences: list[str],
          model: str | None = None) -> list[str]:
    """Add the turn's advice or proposal as one fact (beside the turn's other facts); returns the
    sentences it came from, which the caller keeps from write/speech_acts.py (no double act)."""
    found = find(text, ctx, sentences, model)
    if found is None:
        return []
    from arandu_pipelines.write import chat_forms, fact_shape

    # the advice is composed after fact_quality's checks, so it gets their chat spellings here
    # ("for running a successful biz" -> "business", write/chat_forms.py)
    said = chat_forms.tidy(re.sub(r"\s{2,}", " ", found.text).strip(), ctx.speaker_name or "")
    out = fact_shape.shape(said, ctx.speaker_name or "") if said else None
    out = fact_shape.name_subject(out, ctx.speaker_name or "") if out else None
    if not out:
        return []
    f = ExtractedFact(ctx.speaker_name, out[:1].upper() + out[1:], None, None, "conversational", 0.7,
                      mentions=[(ctx.addressee or "").strip()], source_text=found.sources[0],
                      rule_kind=f"advice.{found.kind}")
    used = {x.strip() for x in found.sources}
    # a restatement of an advice sentence ("Gina's advice: stay passionate, ...") is the same
    # advice said worse: the advice fact takes its place
    result.facts = [g for g in result.facts
                    if not ((g.rule_kind or "").startswith("generic.") and (g.source_text or "").strip() in used)]
    result.facts.append(f)
    result.trace.setdefault("advice", found.kind)
    return list(found.sources)
