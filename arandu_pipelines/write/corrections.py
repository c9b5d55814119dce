"""Correction detection (the specification's `is_user_correction` / `detect_and_record_corrections`).

A correction is an UPDATE that changed a value: the new fact supersedes an old one with the same
attribute key and a different value ("I live in Rio" after "I live in São Paulo"). Each one
increments the old fact's `user_correction_count`, which lowers its dynamic importance
(`0.8 ** n`, read/importance.py) and its vitality (background/memify.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import text

from arandu_pipelines._adapt import DatabaseTarget, connection_for, field_of


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


__all__ = ["CorrectionResult", "detect_and_record_corrections", "is_user_correction"]
