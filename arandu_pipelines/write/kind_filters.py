"""Precision filters keyed to a rule kind: the last step of an English message's offline extraction.

bench/fact_kinds.py scores every rule kind of the extractor (`ExtractedFact.rule_kind`) on the
dev pair: facts, matched facts, and gold observations only that kind's facts match. A row of
`FILTERS` narrows one kind where it speaks for something that is not a fact about its subject,
for a reason of English grammar, never a phrase of a dev conversation; each row names the kinds
it applies to and is measured in docs/facts.md ("Precision by rule kind", session 12).

| name         | kinds                  | drops a fact that ...                                        |
|--------------|------------------------|--------------------------------------------------------------|
| inclusive_we | generic.*, held_back.* | restates the inclusive "we" of a "let's" turn: the pair's    |
|              |                        | pep talk (write/inclusive_we.py has the conditions)          |
| advice       | generic.addr.*         | is about the listener from a second-person sentence with a   |
|              |                        | modal ("You could collaborate with ...", "X can help you     |
|              |                        | reach ..."): the speaker's suggestion, not what the listener |
|              |                        | is or did                                                    |

Their names are the drop reasons counted in `ExtractionResult.trace["refine_dropped"]`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arandu_pipelines.write import inclusive_we
from arandu_pipelines.write.types import ExtractedFact, ExtractionResult

_MODAL_RE = re.compile(
    r"(?i)(?<![\w'’])(?:could|should|can|might|may|must|ought\s+to|need\s+to|have\s+to|would)(?![\w'’])")
_YOU_RE = re.compile(r"(?i)(?<![\w'’])(?:you|your|you['’](?:re|ve|ll|d))(?![\w'’])")


def _advice(f: ExtractedFact, sentences: list[str]) -> bool:
    """A fact about the listener (`generic.addr.*`, no attribute) whose source sentence speaks to
    them with a modal of possibility or obligation: a suggestion, not a fact about them."""
    src = f.source_text or ""
    return bool((f.rule_kind or "").startswith("generic.addr.") and f.attribute_key is None
                and _YOU_RE.search(src) and _MODAL_RE.search(src))


FILTERS: tuple[tuple[str, Callable[[ExtractedFact, list[str]], bool]], ...] = (
    ("inclusive_we", inclusive_we.pep_talk),
    ("advice", _advice),
)


def apply(result: ExtractionResult, text: str) -> list[tuple[str, ExtractedFact]]:
    """Drop the facts a row of `FILTERS` matches; returns (row name, fact) for each."""
    sentences = result.sentences or [text]
    gone: list[tuple[str, ExtractedFact]] = []
    for f in result.facts:
        for name, hit in FILTERS:
            if hit(f, sentences):
                gone.append((name, f))
                break
    if gone:
        result.facts = [f for f in result.facts if all(f is not g for _, g in gone)]
        counts = result.trace.setdefault("refine_dropped", {})
        for name, _ in gone:
            counts[name] = counts.get(name, 0) + 1
    return gone
