"""An answer that leaves out what the question said: "Did Marco agree to join the band?" + "He did".

A reply to a yes/no question often says only its auxiliary ("He did", "I will!", "We did, 1000
pieces") or its verb without the object or place the question named ("Did you end up going to the
pottery fair?" + "I went last Sunday"). Read alone the fact says nothing a later reader of
get_all() can use ("Marco did", "Rosa went on 3 March 2024"). The question said it, so the fact is
completed from the other speaker's last question (write/qa_pairs.py fills a wh-question's slot with
a fragment; this is the yes/no side, where the answer is a clause that elides the question's
predicate):

| question | answer opens with | fact |
|---|---|---|
| "Did Marco agree to join the band?" | "He did, and we're rehearsing ..." | "Marco agreed to join the band" + "Rosa and others are rehearsing" |
| "Do you still swim?" | "I do, but only on weekends now." | "Rosa still swims, but only on weekends now" |
| "Will you enter the chili contest?" | "I will!" | "Rosa will enter the chili contest" |
| "Did your tomatoes survive the frost?" | "They did" | "Rosa's tomatoes survived the frost" |
| "Did you end up going to the pottery fair?" | "I went last Sunday." | "Rosa went to the pottery fair on 3 March 2024" |
| "Are you still taking the Spanish class?" | "I'm starting in October." | "Rosa is starting the Spanish class in October" |

The answer's subject must be the question's (I/we for "you"; he/she/it/they or the same name for a
third person) and its auxiliary the question's kind (did/do/will/can/have/be), else nothing is
changed. A clause joined after the elided head (", and we're rehearsing ...") is its own fact
(facts are atomic). Where no question supplies the predicate, an elided head says nothing alone:
"Dale does, but with Tyler gone Dale ..." keeps the clause after "but", a bare "Ines didn't, sadly"
is dropped, and so is "Earl told Dale" (a telling verb with only its listener: told what?); the
message itself stays searchable.

Skipped: wh-questions and alternative questions ("the lake or the mountains?"), questions whose
verb phrase holds a first/second-person word other than you/your/me/my, answers that say "no"
before the clause, a subject of the question that holds a pronoun when the rules wrote no fact. Cost: a regex prefilter on the answer's opening sentence and the question's
form; the question alone is parsed (the chunk's shared parses), only for turns that pass it.
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write.fact_quality import MAX_WORDS
from arandu_pipelines.write.language import conj_en
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractionContext,
    ExtractionResult,
)

STAGE = "elided_answers"

_QUESTION_RE = re.compile(r"[^.!?…]*\?")
_SENT_RE = re.compile(r"[^.!?…]+(?:[.!?…]+|$)")
# the yes/no question, after a leading "So," / "Oh,": it opens with its auxiliary
_YES_NO_Q_RE = re.compile(r"(?i)^(?:[^,?]{0,20},\s*)?(?:did|do|does|will|would|can|could|have|has|are|is|was|were)\b")
_LEAD_RE = r"(?:(?:yes|yeah|yep|yup|oh|well|haha|ha|aw+|wow|sure)\b[\s,!.…]*)*"
_AUXES = r"did|do|does|will|would|can|could|have|has|am|is|are|was|were|['’]m"
# "He did," / "I will!" / "We did, 1000 pieces" / "She didn't, sadly."
ELIDED_RE = re.compile(rf"(?i)^{_LEAD_RE}(?P<who>I|we|he|she|it|they|(?:[Mm]y|[Oo]ur|[A-Z][a-z]+)(?:\s+[a-z][\w'’-]*){{0,2}})\s+(?P<aux>{_AUXES})"
                       rf"(?P<neg>n['’]t|\s+not)?(?=\s*(?:[,.!…—–-]|$))"
                       # "I am, honestly, the best cook": an aside, then the complement: no ellipsis
                       r"(?!\s*,\s*\w+(?:\s+\w+)?\s*,\s*\w)")
# "I went last Sunday." / "I'm starting in October.": a verb with nothing after it but a time
_TIME = (r"(?:on|in|at|last|next|this|yesterday|today|tomorrow|tonight|early|earlier|later|soon|again|every|"
         r"after|before|around|\d)\b")
BARE_VERB_RE = re.compile(rf"(?i)^{_LEAD_RE}(?P<who>I|we)(?:\s+am|\s+are|['’]m|['’]re)?\s+(?P<verb>[a-z]+)"
                          rf"(?P<rest>(?:\s+{_TIME}[^,.!?…]*)?)\s*[.!…]*$")
_NO_RE = re.compile(r"(?i)^\s*(?:no|nope|nah)\b")
_FAMILY = {"did": "did", "do": "do", "does": "do", "will": "will", "would": "would", "can": "can", "could": "could",
           "have": "have", "has": "have", "am": "be", "'m": "be", "’m": "be", "is": "be", "are": "be", "was": "be",
           "were": "be"}
_THIRD = frozenset({"he", "she", "it", "they"})
_PRONOUNS = frozenset({"he", "she", "it", "they", "him", "her", "his", "its", "them", "their", "this", "that"})
# adverbs of the question that belong to the asking, not to the fact ("Did Earl ever call?")
_ASKING_ADVERBS = frozenset({"ever", "actually", "really", "even", "yet", "already", "finally"})
# verbs that say nothing without what they take ("Did you go?", "Did you join in?")
_LIGHT_VERBS = frozenset({"go", "come", "get", "do", "make", "be", "have", "join", "try", "start", "finish", "stay",
                          "help", "see", "take", "give", "put", "keep", "let", "end", "manage"})
_ASPECT = frozenset({"start", "begin", "finish", "quit", "stop", "continue"})  # "I'm starting": starting what?
_TELLING_RE = re.compile(r"^(?P<subj>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)\s+(?:told|informed|reminded)\s+"
                         r"(?:[A-Z][\w'’-]*|him|her|them|me|us)$")
_SPLICED_RE = re.compile(r"(?i)^,?\s*(?:it|he|she|they|we|i|this|that|there)\b")
_CLAUSE_AFTER_RE = re.compile(r"^,?\s*(?:and|but|so)\s+(?P<clause>.+)$")
# the words after ", and/but/so" as a clause: a subject first, or a name in it ("with Tyler gone Dale ...")
_CLAUSE_SUBJ_RE = re.compile(r"^(?:[A-Z][\w'’-]*|I|the|my|our|his|her|their)\b|\b[A-Z][a-z][\w'’-]*\b")


def opening(text: str) -> str | None:
    """The answer's first sentence (a courtesy "Thanks!" before it is skipped by the caller's
    regexes only when it is the lead word: "Yes! I did." keeps "Yes!")."""
    for m in _SENT_RE.finditer(text):
        s = m.group(0).strip()
        if s:
            return s
    return None


def last_question(turns: list[tuple[str | None, str]], speaker: str) -> str | None:
    """The other speaker's last question of their last turn, when it is a yes/no question."""
    if not turns:
        return None
    asker, prev = turns[-1]
    if not asker or asker.strip().casefold() == speaker.strip().casefold():
        return None
    asks = [q.group(0).strip() for q in _QUESTION_RE.finditer(prev or "")]
    if not asks or not _YES_NO_Q_RE.match(asks[-1]) or re.search(r"(?i)\bor\b", asks[-1]):
        return None  # a wh-question is qa_pairs'; "the lake or the mountains?" asks which
    return asks[-1]


def candidate(text: str, turns: list[tuple[str | None, str]], speaker: str) -> str | None:
    """Regex prefilter: the question to parse, or None (nothing parsed)."""
    first = opening(text)
    if first is None or _NO_RE.match(first) or not (ELIDED_RE.match(first) or BARE_VERB_RE.match(first)):
        return None
    return last_question(turns, speaker)


def parse_texts(items: list[tuple[str, str, list[tuple[str | None, str]]]]) -> list[str]:
    """The questions `apply` will parse (regex only): the pipeline batches them."""
    out = [candidate(text, turns, speaker) for text, speaker, turns in items]
    return list(dict.fromkeys(q for q in out if q))


# ---- entry point --------------------------------------------------------------------------------
def apply(result: ExtractionResult, text: str, ctx: ExtractionContext) -> None:
    """Complete (or add, or drop) the facts of an answer that elides its question's predicate."""
    speaker = (ctx.speaker_name or "").strip()
    asker = (ctx.previous_turns[-1][0] or "").strip() if ctx.previous_turns else ""
    result.facts[:] = [f for f in result.facts if not _TELLING_RE.match(f.fact_text.strip())]
    first = opening(text)
    if not speaker or first is None or _NO_RE.match(first):
        return
    elided, bare = ELIDED_RE.match(first), BARE_VERB_RE.match(first)
    if elided is None and bare is None:
        return
    question = candidate(text, ctx.previous_turns, speaker)
    qdoc = None
    if question is not None:
        from arandu_pipelines.write.parses import PARSE, for_context

        qdoc = for_context(ctx, ctx.spacy_model).doc(question, PARSE, STAGE)
    same = [f for f in result.facts if _bare(f.source_text or "") == _bare(first)]
    if elided is not None:
        _complete_elided(result, same, elided, qdoc, first, speaker, asker)
    elif bare is not None and qdoc is not None:
        _complete_bare(same, bare, qdoc, speaker, asker)


def _bare(s: str) -> str:
    return re.sub(r"[^\w']+", " ", s.casefold()).strip()


# ---- "He did" -------------------------------------------------------------------------------------
def _complete_elided(result: ExtractionResult, same: list[ExtractedFact], m: re.Match[str], qdoc: Any,
                     first: str, speaker: str, asker: str) -> None:
    aux = m.group("aux").lower()
    neg = bool(m.group("neg"))
    head_re = re.compile(rf"^(?P<subj>.+?)\s+(?:{_AUXES})(?:n['’]t|\s+not)?(?P<tail>(?:\s*,.*)?)$", re.IGNORECASE)
    facts: list[tuple[ExtractedFact, re.Match[str]]] = []
    for f in same:
        h = head_re.match(f.fact_text.strip())
        if h is not None and len(h.group("subj").split()) <= 4:
            facts.append((f, h))
    q = _question(qdoc, m.group("who"), aux, speaker, asker) if qdoc is not None else None
    if q is None:  # nothing supplies the predicate: keep only what stands alone
        for f, h in facts:
            _standalone(result, f, h)
        return
    subj_words, verb, rest = q
    if not facts:  # "I will!": no fact yet; the question's subject in the answerer's words
        if m.group("who").lower() == "we" or subj_words is None:
            return
        text = _sentence(subj_words, aux, neg, verb, rest, m.group("who"))
        if _too_long(text):
            return
        result.facts.append(ExtractedFact(speaker, text, None, None, "specific_event", 0.8, source_text=first,
                                          rule_kind="elided_answer"))
        return
    for f, h in facts:
        subj = h.group("subj")
        if subj.split()[0].lower() in _PRONOUNS:
            continue  # "It did": the rules did not read whose
        head = _sentence(subj, aux, neg, verb, rest, m.group("who"))
        tail = h.group("tail").strip()
        # a clause the rules joined (", and we're rehearsing") stays as they wrote it: only the head is completed
        if _SPLICED_RE.match(tail):  # ", it rides great": a clause of its own, its pronoun unread here
            tail = ""
        text = f"{head}{', ' + tail.lstrip(', ') if tail else ''}"
        if _too_long(text):  # the question's long verb phrase: keep what stands alone, as without one
            _standalone(result, f, h)
            continue
        f.fact_text = text
        f.rule_kind = "elided_answer"


def _too_long(text: str) -> bool:
    """A completion longer than the quality pass lets a fact be (`fact_quality.MAX_WORDS`): the
    question's whole verb phrase is not worth a fact nobody reads to the end."""
    return len(text.split()) > MAX_WORDS


def _standalone(result: ExtractionResult, f: ExtractedFact, h: re.Match[str]) -> None:
    """ "Dale does, but with Tyler gone Dale ..." keeps the clause after "but"; a bare "Earl did" goes."""
    clause = _CLAUSE_AFTER_RE.match(h.group("tail").strip())
    if clause and _CLAUSE_SUBJ_RE.search(clause.group("clause")):
        f.fact_text = _cap(clause.group("clause"))
    else:
        result.facts.remove(f)


def _question(doc: Any, who: str, aux: str, speaker: str, asker: str) -> tuple[str | None, Any, list[str]] | None:
    """(the question's subject in the answerer's words, its main verb token, the verb phrase's
    words after it) when the answer's subject and auxiliary are the question's; None otherwise."""
    toks = [t for t in doc if not t.is_punct or t.text == ","]
    lead = next((t for t in toks if t.pos_ in ("AUX", "VERB")), None)
    if lead is None or _FAMILY.get(lead.lower_) != _FAMILY.get(aux.replace("’", "'")):
        return None
    subj = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass", "expl") and t.i > lead.i), None)
    if subj is None:
        return None
    low = who.lower()
    if subj.lower_ == "you":
        if low not in ("i", "we"):
            return None
    elif not (low in _THIRD or low.split()[-1] == subj.lower_) or low in ("i", "we"):  # "He" / "My sister" / "Earl"
        return None
    span = list(subj.subtree)
    subj_words: str | None = " ".join(_person(t.text, speaker, asker) for t in span)
    subj_words = re.sub(r"\s+(['’]s)\b", r"\1", subj_words or "")
    if any(t.lower_ in _PRONOUNS for t in span):
        subj_words = None  # "Did her uncle ...": only a fact the rules resolved names who
    root = subj.head
    after = []
    for t in doc:  # the verb phrase ends at its first comma (", by the way")
        if t.i > span[-1].i and t.text in (",", "?", "!", ";"):
            break
        if t.i > span[-1].i and not t.is_punct:
            after.append(t)
    if root.i < subj.i and root != lead:
        return None
    if not any(t.pos_ in ("NOUN", "PROPN", "NUM") or t.lower_ in ("you", "me", "yourself") for t in after) \
            and (root.lower_ in _LIGHT_VERBS or any(c.dep_ == "prt" for c in root.children)):
        return None  # "Did you join in?": the completion would name nothing ("S joined in"); "still swim" does
    words: list[str] = []
    skip_next = False
    for t in after:
        if skip_next:
            skip_next = False
            continue
        if t.lower_ == "at" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "least":
            skip_next = True
            continue
        if t.lower_ in _ASKING_ADVERBS and t.pos_ == "ADV":
            continue
        if t.dep_ == "det" and t.lower_ in ("that", "this", "these", "those"):
            words.append("the")  # "that ugly carpet" points back in the chat; the fact says "the"
            continue
        words.append(_person(t.text, speaker, asker) if t != root else "\0")  # the verb: inflected later
    if not words:
        return None
    if any(w.lower() in ("we", "us", "our", "y'all") for w in words):
        return None
    return subj_words, root, words


def _person(word: str, speaker: str, asker: str) -> str:
    low = word.lower()
    if low in ("you", "yourself"):
        return speaker
    if low in ("your", "yours"):
        return f"{speaker}'s"
    if low in ("i", "me", "myself"):
        return asker or word
    if low in ("my", "mine"):
        return f"{asker}'s" if asker else word
    return word


def _sentence(subj: str, aux: str, neg: bool, verb: Any, rest: list[str], who: str) -> str:
    """The fact: the subject, the answer's auxiliary as the fact's tense, the question's verb phrase."""
    from arandu_pipelines.write.qa_pairs import _past

    plural = " and " in subj or who.lower() in ("we", "they")  # "Owen and others", "They did" (the tomatoes)
    aux = aux.lower().replace("’", "'")
    base = verb.lower_
    family = _FAMILY.get(aux)
    if family in ("did", "do") and verb.pos_ in ("VERB", "AUX") and "\0" in rest:
        if family == "did":
            form = f"didn't {base}" if neg else _past(base)
        elif neg:
            form = f"{'don' if plural else 'doesn'}'t {base}"
        else:
            form = base if plural else conj_en(base)
        words = [form if w == "\0" else w for w in rest]
    elif family == "have":
        have = "have" if plural else "has"
        words = [f"{have}{'n' + chr(39) + 't' if neg else ''}", *[verb.text if w == "\0" else w for w in rest]]
    elif family == "be":
        be = {"am": "is", "'m": "is"}.get(aux, aux)
        if who.lower() == "i" and be in ("is", "are"):
            be = "is"
        be = "are" if plural and be == "is" else be
        be = "were" if plural and be == "was" else be
        words = [be + (" not" if neg else ""), *[verb.text if w == "\0" else w for w in rest]]
    elif family in ("will", "would", "can", "could"):
        words = [aux + (" not" if neg else ""), *[verb.text if w == "\0" else w for w in rest]]
    else:
        words = [verb.text if w == "\0" else w for w in rest]
    if not neg:  # "Did she give you any tips?" + "She did" -> "... gave S some tips"
        words = ["some" if w == "any" else w for w in words]
    out = " ".join([subj, *words])
    out = re.sub(r"\s+(['’]s|n't|,)", r"\1", out)
    return re.sub(r"\s+", " ", out).strip()


def _cap(s: str) -> str:
    s = s.strip().rstrip(" .!")
    return s[:1].upper() + s[1:]


# ---- "I went last Sunday" -------------------------------------------------------------------------
def _base(word: str) -> str:
    from arandu_pipelines.write.qa_pairs import _IRREGULAR_PAST

    low = word.lower()
    back = {v: k for k, v in _IRREGULAR_PAST.items()}
    if low in back:
        return back[low]
    for suffix, add in (("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("ied", "y"), ("es", ""), ("s", "")):
        if low.endswith(suffix) and len(low) > len(suffix) + 2:
            return low[: -len(suffix)] + add
    return low


def _bases(word: str) -> set[str]:
    low = word.lower()
    out = {_base(low), low}
    for suffix, add in (("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("s", "")):
        if low.endswith(suffix):
            out.add(low[: -len(suffix)] + add)
    if len(low) > 4 and low[-3:] in ("ing",) and low[-4] == low[-5]:
        out.add(low[:-4])  # "running" -> "run"
    return out


def _complete_bare(same: list[ExtractedFact], m: re.Match[str], qdoc: Any, speaker: str, asker: str) -> None:
    """"Did you end up going to the pottery fair?" + "I went last Sunday." -> the fact's verb takes
    the question's complement ("Rosa went to the pottery fair on 3 March 2024")."""
    said = m.group("verb")
    toks = list(qdoc)
    subj = next((t for t in toks if t.dep_ in ("nsubj", "nsubjpass") and t.lower_ == "you"), None)
    if subj is None:
        return
    bases = _bases(said)
    verb = next((t for t in toks if t.pos_ in ("VERB", "AUX") and t.i > subj.i
                 and (_bases(t.text) & bases or _base(t.text) in bases)), None)
    if verb is not None:
        comp = [t for t in toks if t.i > verb.i and not t.is_punct]
        if not comp or comp[0].pos_ not in ("ADP", "DET", "PRON", "PROPN", "NOUN", "ADJ", "NUM"):
            return
    elif _base(said) in _ASPECT:  # "I'm starting": the question's object ("the Spanish class")
        obj = next((t for t in toks if t.dep_ == "dobj" and t.head.i > subj.i), None)
        if obj is None:
            return
        comp = [t for t in obj.subtree if not t.is_punct]
    else:
        return
    if any(t.lower_ in ("we", "us", "our", "it", "they", "them", "this", "that", "he", "she", "him", "her")
           for t in comp):
        return  # a pronoun whose reading this does not know
    if comp[-1].i + 1 < len(toks) and not all(t.is_punct for t in toks[comp[-1].i + 1:]) and verb is None:
        return
    words = " ".join(_person(t.text, speaker, asker) for t in comp)
    words = re.sub(r"\s+(['’]s)\b", r"\1", words)
    verb_re = re.compile(rf"^(?P<head>.+?\s+(?:(?:is|are|was|were|has|have)\s+)?{re.escape(said)})(?P<rest>(?:\s+.*)?)$",
                         re.IGNORECASE)
    for f in same:
        h = verb_re.match(f.fact_text.strip())
        if h is None or len(h.group("head").split()) > 6:
            continue
        rest = h.group("rest").strip()
        if rest and not re.match(rf"(?i){_TIME}", rest):
            continue  # the fact says more than a time: leave it
        text = f"{h.group('head')} {words}{' ' + rest if rest else ''}"
        if _too_long(text):
            continue
        f.fact_text = text
        f.rule_kind = "elided_answer"
