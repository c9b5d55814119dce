"""User corrections: "actually it's ...", "no, it's ...", "não, é ...", "na verdade ...".

A correction says a stored value was wrong, not that it changed. It is reconciled like any new
value of a single-valued attribute (the corrected fact is superseded: `valid_to`, `invalidated_at`,
`supersedes_fact_id`), and in addition the corrected fact's `user_correction_count` is
incremented (the spec's `detect_and_record_corrections`: "increment correction count on old
facts"), which memify's vitality multiplies by 0.8 per correction.

Two shapes are recognised, both by the sentence the fact came from:

* a correction marker in front of a full statement ("Actually I work at Globex", "Na verdade eu
  moro em Curitiba"): extraction already gives the attribute; the fact is flagged as a correction;
* a bare correction that names only the right value ("Actually it's Lisbon, not Porto", "No,
  it's Globex", "Não, é Curitiba"): the corrected fact is the speaker's active single-valued fact
  whose value is the one after "not" when given, else the speaker's most recently stated one (in
  the last 24 hours of event time, in a slot that can hold the new value's entity type: a person
  never becomes a location); the new fact is that fact's text with the value replaced.

A marker followed by a change of state ("Actually, I just moved to Rio") is a move, not a
correction: the old value was true until now.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.keys import SINGLE_VALUED_ATTRIBUTES, fold
from arandu_pipelines.store.targets import DatabaseTarget, connection_for, field_of
from arandu_pipelines.write.reconcile import same_value

_MARKER = (  # not a bare "sorry" ("Sorry to hear that") nor "wait" ("Wait till you see")
    r"(?:actually|no|nope|(?:sorry,?\s+)?i\s+meant|i\s+mean|correction|"
    r"na\s+verdade|não|nao|aliás|alias|quer\s+dizer|digo|corrigindo|errei)"
)
_MARKER_RE = re.compile(rf"^\s*{_MARKER}(?![\w'’])[\s,:;!.—–-]*", re.IGNORECASE)
# A change of state after the marker: the old value was true until now (a move, a new job).
_CHANGE_RE = re.compile(
    r"(?<![\w'’])(?:moved|moving|relocated|started|joined|switched|changed|new\s+job|now|anymore|"
    r"no\s+longer|mudei|mudou|mudamos|me\s+mudei|entrei|comecei|troquei|agora|não\s+\w+\s+mais)(?![\w'’])",
    re.IGNORECASE,
)
_NAME = r"[A-ZÀ-Ý][\w'’.&-]*(?:\s+(?:(?:de|da|do|dos|das|of|the|and|e|y|del|la)\s+)?[A-ZÀ-Ý][\w'’.&-]*){0,5}"
_BARE_RE = re.compile(  # marker and copula in any case; the values are capitalised names
    rf"^\s*(?i:{_MARKER})(?![\w'’])[\s,:;!—–-]*"
    rf"(?:(?i:it['’]?s|it\s+is|its|that['’]?s|that\s+is|i\s+meant|é|e|eh|era|foi|is)\s+)?"
    rf"(?P<new>{_NAME})"
    rf"(?:\s*[,;]?\s*(?i:not|não|nao|and\s+not|e\s+não)\s+(?P<old>{_NAME}))?"
    rf"\s*[.!…]*\s*$"
)
# A value's attribute -> the relationship its fact stands for (the edge the correction moves).
ATTRIBUTE_RELATION = {"location": "lives_in", "employer": "works_at", "school": "studies_at"}


def is_correction(sentence: str | None) -> bool:
    """The sentence opens with a correction marker and does not describe a change of state."""
    if not sentence:
        return False
    m = _MARKER_RE.match(sentence)
    if m is None or m.end() == 0:
        return False
    head = sentence[: m.end()].strip().lower()
    if head.startswith(("no", "não", "nao", "nope")) and not re.search(r"[,:;!.—–-]", head):
        return False  # "No one ...", "Não sei ...": a negation, not a "No, ..." correction
    return _CHANGE_RE.search(sentence) is None


@dataclass
class BareCorrection:
    sentence: str
    new: str  # the right value, as written
    old: str | None  # the wrong value, when named ("..., not Porto")


def bare_correction(sentence: str) -> BareCorrection | None:
    """"Actually it's Lisbon, not Porto" -> BareCorrection(new="Lisbon", old="Porto")."""
    if not is_correction(sentence):
        return None
    m = _BARE_RE.match(sentence)
    if m is None:
        return None
    new = m.group("new").strip(" .")
    if fold(new) in _NOT_VALUES:
        return None
    old = (m.group("old") or "").strip(" .") or None
    return BareCorrection(sentence, new, old)


_NOT_VALUES = frozenset(
    ["i", "it", "its", "it's", "that", "this", "yes", "no", "not", "ok", "okay", "sure", "thanks", "thank", "you", "eu", "isso", "sim", "não", "nao", "obrigado", "obrigada"]
)


@dataclass
class Target:
    """An active single-valued fact a bare correction may correct."""

    id: str
    attribute_key: str
    value_text: str
    fact_text: str
    stated_at: datetime  # when it was last said (valid_from, or its last confirmation)


# Without "not <old value>", a bare correction is bound only to a fact said recently (it answers
# what was just said) whose slot can hold the new value's kind of entity.
RECENT = timedelta(hours=24)
ATTRIBUTE_TYPES = {
    "location": {"place", "other"},
    # spaCy's small English model often labels an unknown company "PRODUCT" (Globex): accepted
    "employer": {"organization", "product", "other"},
    "school": {"organization", "product", "other"},
    "partner": {"person", "other"},
    "name": {"person", "other"},
}


async def speaker_targets(conn: AsyncConnection, agent_id: str, subject_key: str) -> list[Target]:
    """The subject's active single-valued facts with a value, most recently stated first."""
    rows = (
        await conn.execute(
            text(
                "SELECT id, attribute_key, value_text, fact_text, "
                "GREATEST(valid_from, COALESCE(last_confirmed_at, valid_from)) AS stated_at "
                "FROM memory_facts WHERE agent_id = :a AND entity_key = :k AND valid_to IS NULL "
                "AND attribute_key = ANY(CAST(:attrs AS text[])) AND value_text IS NOT NULL "
                "ORDER BY 5 DESC, created_at DESC, id LIMIT 50"
            ),
            {"a": agent_id, "k": subject_key, "attrs": sorted(SINGLE_VALUED_ATTRIBUTES)},
        )
    ).all()
    return [Target(str(r.id), r.attribute_key, r.value_text, r.fact_text, r.stated_at) for r in rows]


def pick_target(
    c: BareCorrection, targets: list[Target], when: datetime, new_type: str | None = None
) -> Target | None:
    """The fact whose value is the one named after "not"; else the most recently stated one
    (within RECENT of `when`) whose slot accepts `new_type` and whose value differs."""
    if c.old is not None:
        return next((t for t in targets if same_value(c.old, t.value_text)), None)
    for t in targets:
        if when - t.stated_at > RECENT:
            continue
        allowed = ATTRIBUTE_TYPES.get(t.attribute_key)
        if allowed is None or (new_type is not None and new_type not in allowed):
            continue
        if not same_value(c.new, t.value_text):
            return t
    return None


def corrected_text(target: Target, new: str, subject_name: str) -> str:
    """The corrected fact's text with its value replaced ("Rafael lives in Porto" -> "... Lisbon")."""
    pattern = re.compile(re.escape(target.value_text), re.IGNORECASE)
    if pattern.search(target.fact_text):
        return pattern.sub(lambda _: new, target.fact_text, count=1)
    templates = {"location": "{s} lives in {v}", "employer": "{s} works at {v}",
                 "school": "{s} studies at {v}"}
    return templates.get(target.attribute_key, "{s}'s {a} is {v}").format(
        s=subject_name, v=new, a=target.attribute_key.replace("_", " "))

# ---- the specification's public functions ------------------------------------------------------
# `is_user_correction` / `detect_and_record_corrections` follow the spec's definition (a supersede
# with the same attribute key and another value). The write pipeline itself counts only marked
# corrections (above: a move is a change, not a correction), so call these only for facts saved
# by other means, or they count moves too.

@dataclass
class CorrectionResult:
    corrections_detected: int = 0
    corrected_keys: list[str] = field(default_factory=list)
    facts_corrected_ids: list[str] = field(default_factory=list)


def _value(fact: object) -> str:
    v = field_of(fact, "value_text", "value", "fact_text")
    return " ".join(str(v or "").casefold().split())


def is_user_correction(old_fact: object, new_fact: object) -> bool:
    """Same (non-empty) attribute key, different value. Facts may be dicts or objects."""
    old_key, new_key = field_of(old_fact, "attribute_key"), field_of(new_fact, "attribute_key")
    return bool(old_key) and old_key == new_key and _value(old_fact) != _value(new_fact)


def _fact_id(fact: object) -> str | None:
    v = fact if isinstance(fact, str) else field_of(fact, "id", "fact_id")
    return str(v) if v else None


async def detect_and_record_corrections(
    session: DatabaseTarget, agent_id: str, saved_facts: Sequence[object],
) -> CorrectionResult:
    """For the newly saved facts (ids, dicts or fact objects), find the ones that supersede a fact
    with the same attribute key and another value, and add one to that old fact's
    `user_correction_count`. One set-based statement; run it once per write."""
    ids = sorted({i for i in (_fact_id(f) for f in saved_facts) if i})
    if not ids:
        return CorrectionResult()
    async with connection_for(session) as conn:
        rows = (await conn.execute(text(
            "UPDATE memory_facts o SET user_correction_count = o.user_correction_count + 1 "
            "FROM memory_facts n WHERE n.agent_id = :a AND n.id = ANY(CAST(:ids AS uuid[])) "
            "AND o.agent_id = :a AND o.id = n.supersedes_fact_id AND o.attribute_key IS NOT NULL "
            "AND o.attribute_key = n.attribute_key "
            "AND lower(COALESCE(o.value_text, o.fact_text)) <> lower(COALESCE(n.value_text, n.fact_text)) "
            "RETURNING o.id::text AS id, o.attribute_key"), {"a": agent_id, "ids": ids})).all()
    rows = sorted(rows, key=lambda r: r.id)
    return CorrectionResult(len(rows), sorted({r.attribute_key for r in rows}), [r.id for r in rows])


__all__ = [
    "ATTRIBUTE_RELATION",
    "BareCorrection",
    "CorrectionResult",
    "Target",
    "bare_correction",
    "corrected_text",
    "detect_and_record_corrections",
    "is_correction",
    "is_user_correction",
    "pick_target",
    "speaker_targets",
]
