"""Inclusive "we": a turn that says "let's" speaks for the speaker AND the listener.

English marks an inclusive first person plural with the hortative "let's" / "let us": the "we"
next to it is the two people talking, and what it says is encouragement about their shared
effort, not knowledge about the speaker and the people the speaker lives or works with:

    "Yeah! We've done so much, and there's nothing but good stuff coming. Let's keep going."
    "We'll rock the dance floor and teach others to chase their dreams. Let's go for it!"
    "Chasing our dreams and helping each other out. Let's keep movin' forward!"

The rules rewrite such a "we" as "<speaker> and others" (a fact about the speaker's group) and
store it. `pep_talk(fact, sentences)` (a row of write/kind_filters.py) says a fact is of that kind when ALL of these hold, so that the first
person plural of a real fact stays ("We're going to Paris next week, let's catch up after" keeps
"Ana and others are going to Paris"):

- the message has a sentence with "let's" / "let us" and the fact's source sentence is that
  sentence or its neighbour (the plural it speaks in is the hortative's); an exclamation tail
  that write/precision.py cuts ("... - let's make it happen!") is a cheer and does not count;
- the fact is a restated sentence (rule kind `generic.*` or `held_back.*`), not a rule's match;
- it has no attribute: not an event, a plan or a preference (those are concrete, kept);
- it names no entity besides its subject (a place, a person, a product is content);
- its source sentence speaks in the first person plural only (we/us/our, no I/me/my).

Measured on the dev pair with bench/fact_kinds.py (docs/facts.md, "Precision by rule kind",
session 12). English only: Portuguese "vamos" is also a plain future ("vamos viajar amanhã").
"""

from __future__ import annotations

import re

from arandu_pipelines.write import precision
from arandu_pipelines.write.types import ExtractedFact

_HORTATIVE_RE = re.compile(r"(?i)(?<![\w'’])(?:let['’]s|let\s+us)(?![\w'’])")
_PLURAL_RE = re.compile(r"(?i)(?<![\w'’])(?:we|we['’](?:re|ve|ll|d)|us|our|ours|ourselves|each\s+other)(?![\w'’])")
_SINGULAR_RE = re.compile(r"(?<![\w'’])(?:I|I['’](?:m|ve|ll|d)|(?i:me|my|mine|myself))(?![\w'’])")
FREE_KINDS = ("generic.", "held_back.")


def _hortative(sentence: str) -> bool:
    """A "let's" of the sentence itself; an exclamation tail ("- let's make it happen", "- let's do
    this", write/precision.cut_exclamation) is a cheer that precision already cuts, not a plan."""
    return bool(_HORTATIVE_RE.search(precision.cut_exclamation(sentence.strip())))


def _near_hortative(source: str, sentences: list[str]) -> bool:
    """The fact's source sentence is a "let's" sentence or next to one."""
    src = source.strip()
    idx = [i for i, s in enumerate(sentences) if src and (src in s or s.strip() in src and s.strip())]
    marks = [i for i, s in enumerate(sentences) if _hortative(s)]
    return any(abs(i - j) <= 1 for i in idx for j in marks)


def pep_talk(f: ExtractedFact, sentences: list[str]) -> bool:
    """`f` restates the inclusive "we" of a "let's" turn (see the module docstring)."""
    src = f.source_text or ""
    return bool(
        (f.rule_kind or "").startswith(FREE_KINDS) and f.attribute_key is None
        and not any(m and m in f.fact_text for m in f.mentions)
        and _PLURAL_RE.search(src) and not _SINGULAR_RE.search(src)
        and any(_hortative(s) for s in sentences)
        and _near_hortative(src, sentences))
