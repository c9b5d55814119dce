"""Ordinary ways of telling news about one's people and roles, put in the form the rules read.

Held-out chat (written blind in LoCoMo's register) lost facts the dev pair rarely shows, because
the rules expect "my dad", "I'm a tester", one clause per sentence:

- a bare capitalised kin word used as a name: "Dad moved in with me", "we took Grandma to the
  diner" -> "my dad", "my grandma" (so the rewrite gives "S's dad moved in with S"); a vocative
  ("Thanks, Mom!", "Dad, look") and a kin word after a determiner ("my Mom", "the Dad") stay;
- a comma splice: "Dad moved in with me last weekend, we decided he shouldn't live alone" was one
  sentence, rewritten into one fact with a doubled subject and then dropped as a whole by
  `generic_we`; a ", " followed by a personal-pronoun subject (I / we / he / she / they) and its
  finite verb, after a left part with a finite verb of its own, ends a sentence here;
- a third party introduced with an indefinite article and acting on the speaker: "A coworker,
  Dev, dragged me to ..." -> "My coworker Dev dragged me to ..." (the speaker's coworker; the
  fact is about the speaker and is kept: "S's coworker Dev dragged S to ..."), also "A friend of
  mine dragged me ..."; only when the sentence has "me"/"my" (the person acts on the speaker);
- a role opener: "As a software tester I spend all day at a desk" -> "I'm a software tester. I
  spend all day at a desk" (the opener was a subordinate head and the whole sentence was dropped
  as `long`); only with a present-tense main clause ("As a kid I loved ..." is a past period, not
  a role) and a role noun that is not a discourse phrase ("As a result", "As a matter of fact").

`rewrite` returns the new text, the new sentence spans and, for each new span, the index of the
original sentence it came from; `restore` puts the original sentences back into the result (they
are the message's search vectors). English only; a pattern gate keeps spaCy off ordinary messages,
and the parses it needs are the chunk's (write/parses.py).
"""

from __future__ import annotations

import re
from typing import Any

from arandu_pipelines.write import (
    introduced_names,
    name_contractions,
    news_forms,
    news_frames,
    role_subjects,
    said_promises,
    subject_forms,
    wellformed,
)
from arandu_pipelines.write.types import ExtractionContext

STAGE = "people_forms"
# cost bounds: a longer sentence is not parsed for a splice or a role, and a message has at most
# MAX_PARSES sentences parsed here (a hostile message of many long comma-joined sentences stays cheap)
MAX_PARSE_CHARS = 400
MAX_PARSES = 8

KIN_NAMES = ("Dad", "Daddy", "Mom", "Mommy", "Mum", "Mummy", "Grandma", "Grandpa", "Granny",
             "Nana", "Papa", "Grandad", "Granddad")
_KIN_RE = re.compile(r"(?<![\w'’-])(" + "|".join(KIN_NAMES) + r")(?![\w-])")
# the word before a kin word that makes it a plain noun, not a name
_DETERMINERS = frozenset({"my", "your", "his", "her", "our", "their", "the", "a", "an", "this", "that",
                          "dear", "'s", "’s"})
_VOCATIVE_BEFORE = frozenset({"hi", "hey", "hello", "thanks", "thank", "bye", "love", "oh", "ok", "okay"})

# ", we decided ...": a personal-pronoun subject after a comma (the finite verb is checked on a parse)
_SPLICE_RE = re.compile(r",\s+(?P<subj>I|we|he|she|they|(?:my|our)\s+(?P<noun>[a-z]+))\s+(?=[A-Za-z'’])")
_FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})
_SUBORDINATORS = frozenset({"if", "when", "whenever", "because", "since", "although", "though", "while", "as",
                            "after", "before", "once", "until", "unless"})
# a verb or adjective whose clause may follow the comma: "I believe with hard work, we can ..."
_CLAUSE_TAKERS = frozenset({"believe", "think", "guess", "hope", "bet", "know", "feel", "say", "mean", "suppose",
                            "promise", "swear", "wish", "reckon", "figure", "realize", "imagine", "trust", "sure",
                            "certain", "glad", "happy", "confident", "afraid", "positive", "convinced", "proud"})
_COMPLEMENTS = frozenset({"dobj", "ccomp", "xcomp", "attr", "dative"})
_IRREGULAR = {"thought": "think", "knew": "know", "felt": "feel", "said": "say", "meant": "mean", "swore": "swear"}


def _base(word: str) -> str:
    """A verb's base form, roughly (the chunk's parses carry no lemmas): "believes" -> "believe"."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for end, add in (("ied", "y"), ("ies", "y"), ("ed", ""), ("ed", "e"), ("es", ""), ("s", ""), ("d", "")):
        if word.endswith(end) and (cut := word[: -len(end)] + add) in _CLAUSE_TAKERS:
            return cut
    return word

# "A coworker, Dev, dragged me" / "A friend of mine dragged me": a third party acting on the speaker
# its person noun ("{noun}") is filled in by `_intro` once found among the first two words
_INTRO_PATTERN = (r"^(?P<det>A|An|My)\s+{noun}(?:\s+of\s+mine)?"
                  r"(?:\s*,\s*(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s*,)?\s+(?=[a-z])")
# a sentence that may open with a third party ("A coworker", "My boss, Priya,") or a role ("As a")
_OPENER_GATE_RE = re.compile(r"(?:^|[.!?…]\s+)(?:An?\s|As\s+an?\s|My\s+[a-z]+(?:[ -][a-z]+)?\s*,)")
_INTRO_WORDS_RE = re.compile(r"^(?:A|An|My)\s+([a-z]+)(?:[ -]([a-z]+))?")
_ME_RE = re.compile(r"(?<![\w'’])(?:me|my|myself)(?![\w'’])")

# "As a software tester(,) I ...": a role opener
_ROLE_RE = re.compile(r"^As\s+(?P<det>an?)\s+(?P<role>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3}?)\s*,?\s+"
                      r"(?P<rest>I(?:['’]m|['’]ve)?\s+.+)$", re.DOTALL)
_NOT_ROLES = frozenset({"result", "rule", "matter", "whole", "kid", "child", "teen", "teenager", "baby",
                        "boy", "girl", "youngster", "toddler", "side", "bonus", "reminder", "treat",
                        "way", "thank", "consequence", "favor", "favour", "joke", "precaution"})


# nouns for anyone, not for someone the speaker has: "A man asked if he could buy my bass" is a
# stranger, never "my man" (a coworker or a neighbour who acts on the speaker is theirs)
_ANYONE_NOUNS = frozenset({"man", "woman", "guy", "lady", "girl", "boy", "baby", "toddler", "newborn", "kid",
                           "child", "youngest", "oldest", "person", "stranger"})


def _person_nouns() -> frozenset[str]:
    from arandu_pipelines.write.person_antecedents import PERSON_NOUNS

    return (PERSON_NOUNS - _ANYONE_NOUNS) | frozenset({"coworker", "co-worker", "colleague", "neighbor", "neighbour", "classmate",
                                     "teammate", "roommate", "friend", "buddy", "pal", "boss", "manager",
                                     "mentor", "coach", "teacher", "cousin"})


def _kin_names(s: str) -> str:
    """ "Dad moved in" -> "My dad moved in"; a vocative or a determined kin word stays."""
    def sub(m: re.Match[str]) -> str:
        before = s[max(0, m.start() - 40): m.start()].rstrip()  # the tail is enough (linear in the sentence)
        after = s[m.end():].lstrip()
        prev = re.findall(r"[\w'’]+", before[-20:])
        prev_word = prev[-1].lower() if prev else ""
        if prev_word in _DETERMINERS or before.endswith(("'s", "’s")):
            return m.group(0)
        at_start = not before or before[-1] in ".!?…"
        if (at_start or before.endswith(",") or prev_word in _VOCATIVE_BEFORE) and (not after or after[0] in ",!?.…"):
            return m.group(0)  # "Thanks, Mom!", "Dad, look"
        if at_start and after.startswith(","):
            return m.group(0)
        word = m.group(0).lower()
        return ("My " if at_start else "my ") + word

    return _KIN_RE.sub(sub, s)


def _intro(s: str) -> str:
    """ "A coworker, Dev, dragged me ..." / "My boss, Priya, promoted me" -> "My coworker Dev dragged
    me ..." / "My boss Priya promoted me" (the person noun is one of the first two words)."""
    words = _INTRO_WORDS_RE.match(s)
    if words is None or not _ME_RE.search(s):
        return s
    nouns = _person_nouns()
    if words.group(1) in nouns:
        noun = words.group(1)
    elif words.group(2) in nouns:
        noun = s[words.start(1): words.end(2)]
    else:
        return s
    m = re.match(_INTRO_PATTERN.format(noun=re.escape(noun)), s)
    if m is None or (m.group("det") == "My" and not m.group("name")):
        return s  # "My friend dragged me": already the rules' form
    if not _ME_RE.search(s, m.end()):
        return s
    name = f" {m.group('name')}" if m.group("name") else ""
    return f"My {noun}{name} " + s[m.end():]


def _split_role(s: str, parses: Any) -> list[str]:
    """ "As a software tester I spend ..." -> ["I'm a software tester.", "I spend ..."]"""
    m = _ROLE_RE.match(s)
    if m is None or m.group("role").split()[-1].lower() in _NOT_ROLES:
        return [s]
    rest = m.group("rest")
    doc = parses.doc(rest, _PARSE, STAGE) if parses is not None else None
    if doc is None or len(doc) < 2:
        return [s]
    verb = next((t for t in doc[1:4] if t.tag_.startswith(("VB", "MD"))), doc[1])  # "I barely sleep"
    if verb.tag_ not in {"VBP", "VBZ", "MD"} and verb.lower_ not in {"'m", "’m", "am", "'ve", "’ve"}:
        return [s]  # "As a kid I loved ...": a period of life, not a role
    return [f"I'm {m.group('det')} {m.group('role')}.", rest]


def _finite_with_subject(span: Any) -> bool:
    return any(t.dep_ in {"nsubj", "nsubjpass"} and t.head.tag_ in _FINITE_TAGS | {"VB"} for t in span) and any(
        t.tag_ in _FINITE_TAGS for t in span)


def _clause_before(s: str, comma: int) -> bool:
    """At least three words since the previous comma (or the sentence start): "Yeah, I ...",
    "Thanks, I ...", "Oh wow, we ..." are no clauses, and are not worth a parse."""
    seg = s[s.rfind(",", 0, comma) + 1: comma]
    return len(seg.split()) >= 3


def _split_splices(s: str, parses: Any) -> list[str]:
    """ "X did Y, we decided Z" -> ["X did Y.", "We decided Z"] when both halves are clauses."""
    if parses is None or not any(_clause_before(s, m.start()) for m in _SPLICE_RE.finditer(s)):
        return [s]
    doc = parses.doc(s, _PARSE, STAGE)
    if doc is None:
        return [s]
    cuts: list[int] = []
    start = 0
    for m in _SPLICE_RE.finditer(s):
        comma = m.start()
        if not _clause_before(s, comma):
            continue
        at = m.start("noun") if m.group("noun") else m.start("subj")  # ", my kids love ...": the noun
        subj = next((t for t in doc if t.idx == at), None)
        if subj is None or subj.i + 1 >= len(doc):
            continue
        verb = next((t for t in doc[subj.i + 1: subj.i + 3] if t.tag_.startswith(("VB", "MD"))), None)
        if verb is None or verb.tag_ not in _FINITE_TAGS:  # ", my sister just had ...": past an adverb
            continue
        left = doc.char_span(start, comma, alignment_mode="contract")
        if left is None or len(left) < 3 or not _finite_with_subject(left):
            continue
        seg = [t for t in left if t.idx > max(s.rfind(",", start, comma), start - 1)]  # since the last comma
        if not any(t.tag_ in _FINITE_TAGS for t in seg):
            continue  # "..., but with your support, I can handle anything": no clause right before the comma
        if any(t.dep_ == "mark" or t.lower_ in _SUBORDINATORS for t in seg[:3]) or any(t.dep_ == "mark" for t in seg):
            continue  # "If it rains, we stay in", "..., but if we share them, we show ...": a subordinate clause
        if any(_base(t.lower_) in _CLAUSE_TAKERS and not any(c.dep_ in _COMPLEMENTS and c.idx < comma for c in t.children)
               for t in seg):
            continue  # "I'm sure with my hard work, I can ...": the second clause completes the first
        cuts.append(comma)
        start = subj.idx
    if not cuts:
        return [s]
    out: list[str] = []
    pos = 0
    for c in cuts:
        out.append(s[pos:c].rstrip() + ".")
        nxt = s[c + 1:].lstrip()
        pos = len(s) - len(nxt)
    last = s[pos:]
    out.append(last[:1].upper() + last[1:])
    return [p for p in out if p.strip(" .")]


_PARSE = "parse"


def rewrite(text: str, spans: list[tuple[int, int]], ctx: ExtractionContext
            ) -> tuple[str, list[tuple[int, int]], list[int] | None]:
    """`text` with each sentence put in the rules' form (module docstring), its new spans, and the
    original sentence index of each new span; (text, spans, None) when nothing changes."""
    gate = (_KIN_RE.search(text) or _OPENER_GATE_RE.search(text)
            or any(_clause_before(text, m.start()) for m in _SPLICE_RE.finditer(text))
            or subject_forms.gate(text) or role_subjects.gate(text) or news_forms.gate(text)
            or news_frames.gate(text) or said_promises.gate(text) or wellformed.shown_gate(text)
            or introduced_names.gate(text) or name_contractions.gate(text))
    if not gate:
        return text, spans, None
    from arandu_pipelines.write.parses import PARSE, for_context

    assert PARSE == _PARSE
    parses = for_context(ctx, ctx.spacy_model)  # its doc() is None without a pipeline: regex forms only
    out: list[str] = []
    new_spans: list[tuple[int, int]] = []
    owners: list[int] = []
    changed = False
    budget = MAX_PARSES
    news = [text[a:b] for a, b in spans] if news_forms.gate(text) else None
    frames = news_frames.gate(text)
    pos = 0
    length = 0
    for i, (a, b) in enumerate(spans):
        gap = text[pos:a]
        out.append(gap)
        length += len(gap)
        s = text[a:b]
        pieces: list[str] = []
        may_parse = parses if (len(s) <= MAX_PARSE_CHARS and budget > 0) else None
        # "The baby is due ...", "It was the first time X ..." (write/subject_forms.py)
        s2 = subject_forms.rewrite_sentence(text, a, s, ctx)
        if news is not None:  # "Guess who ran 10 miles?!", "Yep, still in the ER", "That's X, a Y" (news_forms.py)
            s2 = news_forms.rewrite_sentence(text, news, i, ctx, parses) or s2
        if frames and s2 is s:  # "I heard Tom quit.", "Good news, X", "Put me down for $100" (news_frames.py)
            s2 = news_frames.rewrite_sentence(s, ctx, parses) or s2
        if s2 is s:  # "Here's a picture my cousin sent me of X" -> "My cousin sent me a picture of X" (wellformed.py)
            s2 = wellformed.shown_sender(s) or s2
        if s2 is s:  # "The inspector said ..." -> "My inspector said ..." (write/role_subjects.py)
            s2 = role_subjects.rewrite_sentence(text, a, s, ctx, may_parse)
        # "My boss said she'd give me a raise" -> "My boss offered to give me a raise" (write/said_promises.py)
        s2 = said_promises.rewrite_sentence(s2, may_parse)
        # "An old fellow named Earl has been carving ..." -> "Earl has been carving ..." (write/introduced_names.py)
        s2 = introduced_names.rewrite_sentence(s2)
        # "Nora's great, she smiled ..." -> "Nora is great, she smiled ..." (write/name_contractions.py)
        s2 = name_contractions.rewrite_sentence(s2, ctx)
        for part in _split_role(_intro(_kin_names(s2)), may_parse):
            pieces.extend(_split_splices(part, may_parse))
        if may_parse is not None and (_ROLE_RE.match(s) or _SPLICE_RE.search(s)):
            budget -= 1
        if pieces != [s]:
            changed = True
        for j, p in enumerate(pieces):
            if j:
                out.append(" ")
                length += 1
            new_spans.append((length, length + len(p)))
            owners.append(i)
            out.append(p)
            length += len(p)
        pos = b
    out.append(text[pos:])
    if not changed:
        return text, spans, None
    return "".join(out), new_spans, owners


def restore(result: Any, text: str, spans: list[tuple[int, int]], owners: list[int], said: str,
            said_spans: list[tuple[int, int]]) -> None:
    """The result's sentences and facts' source sentences as the message wrote them (each new
    sentence maps to the sentence it came from; two pieces of one sentence give it once)."""
    back: dict[str, str] = {}
    for (a, b), i in zip(spans, owners, strict=True):
        c, d = said_spans[i]
        back[text[a:b]] = said[c:d]
        back[text[a:b].strip()] = said[c:d].strip()
    sentences: list[str] = []
    for x in result.sentences:
        y = back.get(x, x)
        if not (sentences and sentences[-1] == y and x != y):
            sentences.append(y)
    result.sentences = sentences
    for f in result.facts:
        if f.source_text is not None:
            f.source_text = back.get(f.source_text, f.source_text)
    # "Ann's inspector said ..." -> "The inspector said ..." as written (write/role_subjects.py)
    role_subjects.restore_facts(result.facts, role_subjects.restored_phrases(list(back.items())))


__all__ = ["KIN_NAMES", "STAGE", "restore", "rewrite"]
