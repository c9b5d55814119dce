"""A long fact's later clause about the same subject is a fact of its own (session 16, clause16).

`fact_quality._long` shortens a fact of more than MAX_WORDS words to its first clause, cutting
at the first boundary ("while", "because", "which", a comma, "..., and S ..."). A sentence that
goes on with a second independent clause about the same subject lost it with the tail:
"Frank uses an app every morning while the dough rises, and on Wednesday nights Frank takes a
beginner's class at the community college" kept only "Frank uses an app every morning". The
second clause is news of its own, as "S did X, and S did Y" is elsewhere in the extractor
(`fact_quality._split_actions`).

`split` finds ", and [adjunct] S <verb> ..." after the subject's own clause and returns the
head (still cut by `_long`) and the second clause as a fact that opens with its subject. A
fronted adjunct ("on Wednesday nights", "last week") moves to the end of the clause: it dates
or places the clause; a bare discourse word ("then", "also") is dropped. The adjunct must open
with a preposition or a time word, so "and the dog S adopted ..." (S is not that clause's
subject) does not split.
"""

from __future__ import annotations

import re

# words a fronted adjunct of the second clause opens with: a preposition or a time word
_ADJUNCT_OPENERS = (
    "on", "in", "at", "during", "after", "before", "since", "by", "for", "over", "every", "each", "last",
    "next", "this", "most", "some", "once", "twice", "later", "today", "tonight",
    "yesterday", "recently", "lately", "sometimes", "usually", "often", "now", "then", "also", "still",
    "finally", "eventually", "meanwhile", "besides",
)
# a fronted word that only links the clauses: dropped, not moved ("and then S ...")
_DISCOURSE = frozenset(["then", "now", "also", "still", "finally", "eventually", "meanwhile", "besides"])
_OPENERS_RE = "|".join(_ADJUNCT_OPENERS)
# where the moved adjunct goes: before the second clause's own first clause mark, else at its end
_TAIL_CUT_RE = re.compile(r"(?i)\s*[,;:–—]\s*|\s+(?:but|because|so|since|which|while|though|although|when|and)\s+")


# a fronted time clause of the second clause: "..., and when S opened the wall S found ..."
_SUBORDINATORS = "when|after|before|once|as\\s+soon\\s+as"


def _restart_re(subject: str) -> re.Pattern[str]:
    """", and [adjunct,] S <lower-case word>": the adjunct is a phrase of up to eight words
    opening with a preposition or time word, or a time clause with its own subject and verb
    ("when S opened up the wall"); S (or "S and others", the speaker's "we") is not followed by
    another "and" (a pair) or by "'s"."""
    s = re.escape(subject) + r"(?:\s+and\s+others)?"
    phrase = r"(?i:" + _OPENERS_RE + r")\b(?:\s+[\w'’-]+){0,7}?"
    clause = r"(?i:" + _SUBORDINATORS + r")\s+" + s + r"\s+[a-z][\w'’]*(?:\s+[\w'’-]+){0,9}?"
    return re.compile(
        r",\s+and\s+(?:(?P<adj>" + clause + "|" + phrase + r")\s*,?\s+)?"
        + r"(?P<lead>" + s + r")\s+(?!and\b)(?P<verb>[a-z][\w'’]*)\b")


def split(text: str, subject: str, min_words: int = 4) -> tuple[str, str] | None:
    """(head, second clause) when `text` (opening with `subject`) goes on with ", and [adjunct]
    subject <verb> ..." after a head of at least `min_words` words; None otherwise."""
    if not subject or not text.startswith(subject):  # "S ..." or "S's dad and S ..."
        return None
    m = _restart_re(subject).search(text, len(subject))
    if m is None:
        return None
    head = text[: m.start()].strip(" ,")
    if len(head.split()) < min_words:
        return None
    tail = text[m.start("lead"):].rstrip(" .!")
    adj = m.group("adj")
    if adj and adj.lower() not in _DISCOURSE:
        cut = _TAIL_CUT_RE.search(tail, len(m.group("lead")) + 1)
        at = cut.start() if cut else len(tail)
        tail = f"{tail[:at]} {adj[0].lower() + adj[1:]}{tail[at:]}"
    if len(tail.split()) < 3:
        return None
    return head, tail


__all__ = ["split"]
