"""A turn's last resort: the fact a precision check held back, for a message left with none.

`fact_quality.refine` drops a generic "we/us" statement ("Art's awesome for showing us who we
really are" -> `generic_we`) and a bare mood ("I felt so proud and grateful" -> `mood`) because,
beside the message's other facts, they are narration about people in general or about one
moment. When the whole message (every window, and `speech_acts`) ends with NO fact, the turn's
own stance is all it says, and LoCoMo's annotators write it down as such ("Melanie values art
for showing who we really are"): measured on the dev pair (docs/facts.md, "A turn's last
resort", session 11), the first such held-back fact of a fact-less turn is restored.

Only the kinds in `KINDS` are held, in that order of preference, and of each only the form
`_held` accepts: a generic statement that judges something by what it does for people, a past
feeling. A bare generic claim and a present mood stay dropped (tests/test_fact_quality.py); the
other checks (addressee echoes, subjectless "It's ...", modals) were measured and cost more than
they gave. Outside
`extract_offline` (no `collect()` active) nothing is held and `refine` behaves as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from arandu_pipelines.write.types import ExtractedFact, ExtractionResult

KINDS: tuple[str, ...] = ("generic_we", "mood")

# generic_we: only a judgement of something by what it does for people ("Art's awesome for showing
# us who we are", "Surrounding ourselves with joy is important"); a bare generic claim ("Music
# brings us together", "We all have different paths") stays talk about people in general
_JUDGED_RE = re.compile(
    r"(?i)(?:\b(?:is|are)|['’]s)\s+(?:(?:so|really|very|super|pretty|just|truly|definitely|always|totally)\s+)*"
    r"(?:great|awesome|important|essential|key|necessary|amazing|wonderful|vital|crucial|special|helpful|powerful)\b")


def _held(check: str, fact: ExtractedFact) -> bool:
    """mood: only a past feeling ("S felt so proud and grateful", how an event went for them);
    a present mood ("S is excited and kinda nervous", "S is hanging in there") is the moment's."""
    if check == "generic_we":
        return bool(_JUDGED_RE.search(fact.fact_text))
    if check == "mood":
        return bool(re.match(rf"{re.escape(fact.subject)} (?:felt|was|were)\b", fact.fact_text))
    return False

_HELD: ContextVar[list[tuple[str, ExtractedFact]] | None] = ContextVar("arandu_held_back", default=None)


@contextmanager
def collect() -> Iterator[None]:
    """Hold back the facts `refine` drops by a check of `KINDS` while one message is extracted."""
    token = _HELD.set([])
    try:
        yield
    finally:
        _HELD.reset(token)


def hold(check: str, fact: ExtractedFact) -> None:
    """Called by `refine` for each dropped fact; keeps only the kinds of `KINDS`."""
    held = _HELD.get()
    if held is not None and check in KINDS and _held(check, fact):
        held.append((check, fact))


def restore(result: ExtractionResult) -> None:
    """A message left with no fact gets back its first held fact of the most preferred kind."""
    held = _HELD.get()
    if result.facts or not held:
        return
    check, fact = min(enumerate(held), key=lambda ix: (KINDS.index(ix[1][0]), ix[0]))[1]
    fact.rule_kind = f"held_back.{check}"
    result.facts.append(fact)
    result.trace.setdefault("held_back", check)
