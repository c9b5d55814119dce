"""Restatements across messages: the same thing said again, in other words, in a later turn.

Reconciliation's near-identical rule compares the vectors stored with the facts, which are the
vectors of the SENTENCES they came from; a restatement inside a longer or chattier sentence
("Thanks for always having my back, it means the world after ...") stays under its 0.92 and was
stored as a second fact. Session 12 measured 11 such pairs on the dev pair's active facts
(docs/facts.md, "Collapse on fact texts", "Across turns"). This module compares what the facts
themselves say, as `text_collapse` does inside one message: the texts with the subject's name
masked (the shared name dominates MiniLM's cosine of two short texts).

A proposal restates an active fact of its subject from another message when
- they share at least `MIN_SHARED` content words (5-letter stems, stopwords and the subject's
  name aside) and those are more than half of the proposal's: a later statement that adds as much
  as it repeats ("excited about the studio, my brother built the shelves and ...") is news;
- their masked texts' cosine is >= `reconcile_restatement_above` (0.85 by default: on the dev
  pair the pairs a reader calls restatements stand at 0.855-0.98, the first distinct acts under
  it at 0.83-0.84 ("keep it up" / "keep learning and growing"), see docs/facts.md);
- they are not two different events (`distinct_events`): two event facts with resolved dates
  more than a day apart (two plans aside), or the same event statement with one thing swapped
  for another ("painted a sunset over the lake" / "painted a sunrise over the lake"). That guard
  also holds for the exact-duplicate and near-identical rules of reconcile.py.

The rule's glue (the candidates, the decision) is in reconcile.py (`fetch_restated`,
`restatement_texts`, `Reconciler._restated`), which this module must not import.
Cost: candidates are found lexically (one full-text query per chunk, at most 5 per proposal)
and among the chunk's own proposals; only texts of pairs that pass the word gate are embedded,
in one call per chunk (`vectors_for`); none when nothing passes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime, timedelta

import numpy as np

from arandu_pipelines.write.fact_words import masked, stems

MIN_SHARED = 2  # content words two statements of one thing share, at least
SAME_DAY = timedelta(days=1)  # two resolved dates this close name one day ("last Friday" / "May 5")
EVENT_ATTRIBUTES = frozenset({"event"})


def is_event(attribute_key: str | None, event_date: datetime | None) -> bool:
    return event_date is not None or attribute_key in EVENT_ATTRIBUTES


def distinct_events(new_text: str, new_attr: str | None, new_date: datetime | None, new_said: datetime,
                    old_text: str, old_attr: str | None, old_date: datetime | None, old_said: datetime,
                    subject: str) -> bool:
    """Two event facts that are two events (`*_said`: when each was said):
    - their resolved dates differ by more than a day, unless both lie after the message that
      states them: a plan told again with another date is the same plan moved ("an art show next
      month", then a month later "putting together an art show next month"), not a second one;
    - or the same statement with one thing swapped for another: each names as many things the
      other does not ("painted a sunset over the lake" / "painted a sunrise over the lake",
      "a jazz concert" / "a rock concert"); an event restated names the same things, or fewer or
      more of them, or says it with other verbs ("is having" / "is putting together")."""
    if not (is_event(new_attr, new_date) and is_event(old_attr, old_date)):
        return False
    plans = new_date is not None and old_date is not None and new_date > new_said and old_date > old_said
    if new_date is not None and old_date is not None and abs(new_date - old_date) > SAME_DAY and not plans:
        return True
    a, b = stems(masked(new_text, subject)), stems(masked(old_text, subject))
    return len(a - b) == len(b - a) > 0


def word_gate(new: frozenset[str], old: frozenset[str]) -> bool:
    """At least MIN_SHARED shared content words, and more than half of the new statement's: a
    statement that adds as much as it repeats is news (on the dev pair, at exactly half: "admires
    Caroline's dedication to helping others" / "admires Caroline for finding acceptance and
    helping others with what Caroline has been through", whose gold is about the acceptance)."""
    shared = len(new & old)
    return shared >= MIN_SHARED and 2 * shared > len(new)


async def vectors_for(texts: list[str], embed: Callable[[list[str]], Awaitable[Iterable[object]]]
                      ) -> dict[str, np.ndarray]:
    """Normalised vectors of `texts`; on any embedding failure none (no restatement is merged:
    the fact is added, as without this rule)."""
    if not texts:
        return {}
    try:
        got = np.asarray(list(await embed(texts)), dtype=np.float32)
    except Exception:  # noqa: BLE001 - fail-safe: the rule is skipped, facts are ADDed as before
        return {}
    if got.shape[0] != len(texts):
        return {}
    got /= np.maximum(np.linalg.norm(got, axis=1, keepdims=True), 1e-12)
    return dict(zip(texts, got, strict=True))
