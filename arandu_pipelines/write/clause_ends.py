"""Where a long fact may be cut: a head must end as a clause ends (issue 19, session 13).

`fact_quality._long` shortens a fact of more than MAX_WORDS words to its first clause. Its cut
points are words that usually open a clause ("but", "so", "because", a comma). "So" is also a
degree adverb ("are so necessary", "felt so proud"), and cutting there left a fact that stops on
its copula: "Caroline believes conversations about inclusion are". A head that stops on a word
which needs a complement (a copula or auxiliary, an article, a preposition, a conjunction, a
degree word) is no clause; such a cut is refused and the next boundary tried.

A head of a fact that opens with a time or place phrase must name the subject ("On Dana's
anniversary, Dana and others danced ..." is not cut to "On Dana's anniversary", a phrase with
no clause of Dana's).

A clause that restarts with the fact's own subject ("..., and Dana is grateful for ...") is a
boundary too: the first clause is a whole statement about the subject.
"""

from __future__ import annotations

import re

# words a clause cannot end on: they need what follows them
_DANGLING = frozenset([
    "is", "are", "was", "were", "am", "be", "been", "being", "has", "have", "had", "can", "could", "will",
    "would", "should", "shall", "may", "might", "must", "a", "an", "the", "my", "your", "his", "its", "our",
    "their", "some", "any", "every", "to", "of", "at", "by", "for", "with", "from", "into", "onto", "as",
    "than", "and", "or", "but", "nor", "so", "very", "really", "quite", "pretty", "super", "such", "feel",
    "feels", "felt", "seem", "seems", "seemed", "become", "became", "look", "looks", "looked", "e", "é", "o",
    "os", "um", "uma", "de", "da", "em", "na", "com", "para", "que",
])
# "so" after a copula or linking verb is a degree word ("are so necessary"), not a conjunction
_DEGREE_SO_RE = re.compile(
    r"(?i)\b(?:is|are|was|were|am|be|been|being|['’](?:s|re|m)|feels?|felt|seems?|seemed|looks?|looked"
    r"|gets?|got|became|becomes?|stays?|stayed|not|and|or)\s*$")
_WORD_RE = re.compile(r"[\w'’]+")
# "... how lucky Melanie is", "... what it was": a wh-clause ends on its copula
_WH_COPULA_RE = re.compile(r"(?i)\b(?:how|what|who|where|whatever|wherever)\b[^,;]*\b(?:is|are|was|were|am|be|been)$")


def dangling(head: str) -> bool:
    """True when `head` stops on a word that needs a complement ("... inclusion are")."""
    words = _WORD_RE.findall(head.lower().replace("’", "'"))
    if not words:
        return True
    return words[-1] in _DANGLING and not _WH_COPULA_RE.search(head.rstrip(" .!"))


def degree_so(text: str, at: int, cut: str) -> bool:
    """True when the cut `cut` found at `at` is the degree word "so" after a copula."""
    return cut.strip(" ,").lower() == "so" and bool(_DEGREE_SO_RE.search(text[:at]))


def subject_restart(text: str, subject: str, start: int) -> int | None:
    """Offset of ", and <subject> " / " and <subject> " after `start`: a second clause about the
    same subject ("... are so important and Dana is grateful for ..."); None when there is none."""
    m = re.compile(r",?\s+and\s+" + re.escape(subject) + r"\s+(?!and\b)").search(text, start)
    return m.start() if m else None


def names_subject(head: str, subject: str) -> bool:
    """True when `head` has `subject` as a word of its own, not only as an owner ("On Dana's
    anniversary" is a fronted phrase, no clause of Dana's: a cut after it lost the clause)."""
    return bool(subject) and re.search(r"(?<![\w'’])" + re.escape(subject) + r"(?![\w'’])", head) is not None


# a fact that opens with a time or place phrase before its subject ("On Thursday ...", "At the fair ...")
_FRONTED_RE = re.compile(r"(?i)^(?:on|in|at|during|after|before|last|this|next|every|over|since|by)\b")


def fronted_head(head: str, subject: str) -> bool:
    """True when `head` opens with a time or place phrase and does not name `subject`: the cut
    kept only what came before the subject's clause ("On Dana's anniversary", "On Thursday a pipe
    burst under the sink" before "while Dana was at work"); the next boundary is tried."""
    return bool(_FRONTED_RE.match(head)) and not names_subject(head, subject)


__all__ = ["dangling", "degree_so", "fronted_head", "names_subject", "subject_restart"]
