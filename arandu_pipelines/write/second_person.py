"""Is this "you" the subject of the verb after it? (decides whether the verb is re-conjugated)

extract_rules' rewriter turns "you" into the addressee's name. When "you" is the subject, the
verb after it must take the third person singular ("you were" -> "Ana was", "you have" -> "Ana
has", "you don't" -> "Ana doesn't"). The rewriter used to conjugate only after a word that opens a
clause ("and", "that", ",", the start), so a "you" after a fronted adverbial kept its plural verb:
"Not long ago you were scared of the pool" -> "Not long ago Ana were scared of the pool".

Two grammatical signals, no lexicon of topics:

- the next word is a finite form of be/have/do that only a subject can govern ("were", "are",
  "have", "don't", ...), unless the word before "you" makes "you" an object or an inverted
  subject: an auxiliary or modal ("did you have", "can you do"), a causative or perception verb
  that takes a bare infinitive ("let you have", "made you do"), or "thank" ("thank you have a
  nice day");
- the word before "you" ends a fronted time or sentence adverbial ("ago", "now", "then",
  "lately", any "-ly" adverb): what follows is a clause and "you" its subject ("Now you live in
  Porto" -> "Now Ana lives in Porto").

A plural "you" ("you both", "you two", "you guys", "you all") is never conjugated.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arandu_pipelines.write.language import cap_like, conj_en

# be/have/do forms whose subject can only be the word before them
_SUBJECT_ONLY_FORMS = frozenset(["were", "weren't", "are", "aren't", "have", "haven't", "do", "don't"])
# before "you", these make it an object ("let you have it") or an inverted subject ("did you have")
_NOT_SUBJECT_AFTER = frozenset([
    "do", "does", "did", "are", "were", "have", "has", "had", "can", "could", "will", "would", "should", "shall",
    "may", "might", "must", "let", "lets", "make", "makes", "made", "help", "helps", "helped", "watch",
    "watched", "hear", "heard", "thank", "thanks", "to", "for", "with", "of", "about", "at", "from", "by",
    "without", "bless", "got", "get", "gets", "want", "wanted", "need", "needed", "see", "saw", "seen",
    "don't", "didn't", "doesn't", "won't", "wouldn't", "can't", "couldn't", "shouldn't", "haven't",
    "hasn't", "aren't", "weren't",
])
# a fronted adverbial ends here; the clause (and its subject "you") follows
_CLAUSE_AFTER = frozenset([
    "ago", "now", "then", "also", "once", "today", "yesterday", "tonight", "lately", "recently", "still",
    "always", "never", "often", "sometimes", "usually", "already", "finally", "clearly", "obviously",
    "apparently", "honestly", "seriously", "really", "actually", "basically", "definitely", "totally",
    "surely", "maybe", "perhaps", "probably", "earlier", "before", "back", "anyway", "plus", "remember",
])
# "you" that stands for more than one person
_PLURAL_NEXT = frozenset(["both", "two", "guys", "all", "folks", "three", "lot", "people", "yourselves"])


def you_is_subject(prev: str, nxt: str) -> bool:
    """Whether "you" between the lower-cased words `prev` and `nxt` (the first word after "you"
    that is not an adverb) is a singular subject whose verb `nxt` must be conjugated."""
    prev, nxt = prev.replace("’", "'"), nxt.replace("’", "'")
    if nxt in _PLURAL_NEXT or prev in _NOT_SUBJECT_AFTER:
        return False
    if nxt in _SUBJECT_ONLY_FORMS:
        return True
    return prev in _CLAUSE_AFTER or (len(prev) > 4 and prev.endswith("ly") and prev != "only")


_YOU_VERB_RE = re.compile(
    r"(?i)(?<![\w'’])you(?P<gap>(?:\s+(?:really|just|always|never|still|also|even|only|all|both|two))*)"
    r"\s+(?P<verb>[a-z][\w'’]*)")
_PREV_WORD_RE = re.compile(r"([\w'’]+|,)\s*$")


def name_subject_you(text: str, who: str) -> str:
    """`text` with each subject "you" named `who` and its verb conjugated ("Lately you don't
    sleep" -> "Lately Ana doesn't sleep"); any other "you" is left for the caller. For the fact
    checks' late second-person pass (fact_quality), which used to name "you" without touching
    its verb."""
    def one(m: re.Match[str]) -> str:
        before = _PREV_WORD_RE.search(text[:m.start()])
        prev = before.group(1).lower() if before else ""
        gap, verb = m.group("gap"), m.group("verb")
        words = gap.lower().split()
        nxt = words[0] if words and words[0] in _PLURAL_NEXT else verb.lower().replace("’", "'")
        if nxt in _PLURAL_NEXT or not (prev in _CLAUSE_START or you_is_subject(prev, nxt)):
            return m.group(0)
        return f"{who}{gap} {cap_like(verb, _THIRD[nxt]) if nxt in _THIRD else conj_en(verb)}"
    return _YOU_VERB_RE.sub(one, text)


# a title or a quotation ("Me Before You", 'Where You Go', "you did great"): its "you" is not the
# listener (session 18); a single quote opens only after a space and before a capital
QUOTED_RE = re.compile(r'"[^"\n]{1,300}"|“[^”\n]{1,300}”|(?<![\w\'’])[\'‘][A-Z][^\'’\n]{0,200}[\'’](?!\w)')


def outside_quotes(text: str, fn: Callable[[str], str]) -> str:
    """`text` with `fn` applied to each stretch outside a quotation (`QUOTED_RE`)."""
    out: list[str] = []
    pos = 0
    for m in QUOTED_RE.finditer(text):
        out.append(fn(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(fn(text[pos:]))
    return "".join(out)


def unquoted(text: str) -> str:
    """`text` without its quotations: what a check for an unresolved "you" reads."""
    return QUOTED_RE.sub(" ", text)


_CLAUSE_START = frozenset(["", ",", "and", "but", "so", "that", "because", "if", "when", "while", "since"])
_THIRD = {"were": "was", "weren't": "wasn't", "are": "is", "aren't": "isn't", "have": "has", "haven't": "hasn't",
          "do": "does", "don't": "doesn't"}


__all__ = ["QUOTED_RE", "name_subject_you", "outside_quotes", "unquoted", "you_is_subject"]
