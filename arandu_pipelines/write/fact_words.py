"""Words of a fact's text, as the near-duplicate rules compare them (write/text_collapse.py inside
one message, write/restatements.py across messages): the subject's name masked, content words by
their first letters. Its own module so that both rules share it without an import cycle
(reconcile uses restatements; text_collapse uses reconcile)."""

from __future__ import annotations

import re

from arandu_pipelines.keys import fold
from arandu_pipelines.write.lexicon import STOPWORDS_EN, STOPWORDS_PT

# Attribute keys that say only what kind of statement a fact is, not which slot it fills
# (the same set as pipeline._GENERIC_ATTRIBUTES).
GENERIC_ATTRIBUTES = frozenset({"event", "plan", "preference"})
_STOP = STOPWORDS_EN | STOPWORDS_PT | {"someone", "others"}
_WORD = re.compile(r"[^\W\d_]+")
STEM = 5  # letters a word is compared by: "painting" / "paints" / "painted"


# A month or a year rendered into the text ("in July 2023", "in 2024", "em 2024": write/coarse_dates.py
# keeps them since session 18). When two facts are compared, their dates are compared on
# `event_date` (restatements.distinct_events), not as words: "an art show in June 2023" told again
# as "... in July 2023" is one plan moved, as it was when the text carried no date.
_COARSE_DATE = re.compile(
    r"\s*\b(?:in|em)\s+(?:(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)"
    r"\s+(?:de\s+)?)?(?:19|20)\d\d\b")


def masked(text: str, subject: str) -> str:
    """The fact's text with its subject's name replaced, so that two facts are compared on what
    they say about the subject rather than on the name they share; a rendered month or year is left
    out (`_COARSE_DATE`)."""
    text = _COARSE_DATE.sub("", text.strip())
    if not subject.strip():
        return text
    name = re.escape(subject.strip())
    text = re.sub(rf"\b{name}(?:'s|’s)\b", "their", text, flags=re.IGNORECASE)
    return re.sub(rf"\b{name}\b", "someone", text, flags=re.IGNORECASE)


def stems(text: str) -> frozenset[str]:
    """Content words by their first STEM letters, stopwords (and the masked name) aside."""
    return frozenset(w[:STEM] for w in (m.lower() for m in _WORD.findall(fold(text)))
                     if len(w) > 2 and w not in _STOP)
