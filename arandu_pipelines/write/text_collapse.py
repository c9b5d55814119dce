"""Near-duplicate facts of one message, collapsed on the vectors of their own texts.

`pipeline._collapse` compares the vectors the import already has: each fact carries the vector
of the sentence it restates, so two facts of one message from different sentences are compared
on their sentences (a second clause pulls a sentence's vector away from its fact), and two facts
of the SAME sentence (which share one vector) only by word containment. This module compares
what the facts themselves say.

What is compared: each fact's text with its subject's name masked ("Melanie's pottery project
was a great experience" -> "their pottery project was a great experience"). Unmasked, MiniLM's
cosine between two facts of one message is dominated by the shared name: on the dev pair, 10
pairs reached 0.75 and 8 of them were different facts ("Melanie did a painting" / "Painting
landscapes and still life is Melanie's favorite", 0.78); masked, the one restatement stands at
0.85 and the next pair at 0.68 (docs/facts.md, "Collapse on fact texts").

Cost: only the facts that could collapse are embedded (`candidates`): two non-retracting facts of
one message with the same subject, not two different slots, that share a content word (a 5-letter
stem, stopwords and the subject's name aside). They ride the chunk's one embedding call (packed
mode: as plain units of the same call), so no call is added. The shared-word gate is what keeps
the cost inside the import budget (107 compared pairs on the dev pair -> 22); its price is that a
restatement in entirely other words ("I run every morning" / "jogging daily") is not seen here.

Which fact stays: the one carrying a structured slot (an attribute other than the generic event /
plan / preference), else the shorter text - the more atomic statement; its importance is the
higher of the two.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from arandu_pipelines.keys import fold, normalize_attribute_key
from arandu_pipelines.write.fact_words import GENERIC_ATTRIBUTES, masked, stems
from arandu_pipelines.write.reconcile import Proposal
from arandu_pipelines.write.types import ExtractedFact


def _slot(attribute_key: str | None) -> str | None:
    key = normalize_attribute_key(attribute_key) if attribute_key else None
    return key if key and key not in GENERIC_ATTRIBUTES else None


def _mergeable_slots(a: str | None, b: str | None) -> bool:
    """Two different slots ("works at Acme as an engineer": employer and occupation) are two
    facts, however close their texts."""
    return a is None or b is None or a == b


def candidates(facts: Iterable[ExtractedFact]) -> list[str]:
    """The masked texts `absorb` may compare, for one message's facts (see the module docstring)."""
    rows = []
    for f in facts:
        if f.retracts or not f.fact_text.strip():
            continue
        text = masked(f.fact_text, f.subject)
        rows.append((fold(f.subject), _slot(f.attribute_key), text, stems(text)))
    out: list[str] = []
    for i, (subject, slot, text, words) in enumerate(rows):
        if any(j != i and s == subject and t != text and _mergeable_slots(slot, sl) and words & st
               for j, (s, sl, t, st) in enumerate(rows)):
            out.append(text)
    return list(dict.fromkeys(out))


def _structural(p: Proposal) -> bool:
    return p.attribute_key is not None and p.attribute_key not in GENERIC_ATTRIBUTES


def absorb(p: Proposal, kept: list[Proposal], vectors: dict[str, np.ndarray], threshold: float) -> bool:
    """True when `p` is a near-duplicate of a fact in `kept` (same subject, a shared content word,
    masked-text cosine of at least `threshold`); the fact that stays (see the module docstring)
    takes its place in `kept`. `vectors` maps masked texts to normalised vectors; a text without
    one (not a candidate, or rewritten by `pipeline._collapse`) is not compared."""
    if p.is_mirror or p.fact.retracts:
        return False
    ptext = masked(p.text, p.fact.subject)
    pv = vectors.get(ptext)
    if pv is None:
        return False
    for idx, k in enumerate(kept):
        if k.subject_key != p.subject_key or k.is_mirror or k.fact.retracts:
            continue
        if _structural(p) and _structural(k) and p.attribute_key != k.attribute_key:
            continue
        ktext = masked(k.text, k.fact.subject)
        kv = vectors.get(ktext)
        if kv is None or not stems(ptext) & stems(ktext) or float(np.dot(pv, kv)) < threshold:
            continue
        if _structural(p) != _structural(k):
            keep, drop = (p, k) if _structural(p) else (k, p)
        else:
            keep, drop = (p, k) if len(p.text.split()) < len(k.text.split()) else (k, p)
        keep.importance = max(keep.importance, drop.importance)
        kept[idx] = keep
        return True
    return False
