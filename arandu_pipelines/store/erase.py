"""Erasure of selected messages (one speaker, a session, given message ids) and all they derived.

`delete_all` erases an agent; this erases part of one, which is harder: derived rows are shared.
A fact has one source message, but an entity, an alias, a relationship, a cluster or a
meta-observation may have been built from the erased messages *and* from others. The rules, all
applied in ONE transaction under the agent's advisory lock (the write pipeline's), set-based:

* **events** matching every given selector (speaker case-insensitive, message ids, session) are
  deleted, with their emotion tags and embeddings (columns); quarantined import rows matching
  the same selectors are deleted too (they hold the raw text).
* **facts** whose source event is erased are deleted (their entity links with them).
* **superseded facts**: when an erased fact had replaced an older fact of someone else, the
  older fact is *re-activated* (valid_to / invalidated_at cleared) if the erased version was the
  current one and nothing that survives replaces it; if a surviving fact had in turn replaced the
  erased one, the version chain is spliced (it now supersedes the older fact directly) and the
  older fact stays closed. A fact closed by a plain retraction in an erased message (no
  superseding fact is stored for a retraction) is re-activated when it was closed at exactly
  that message's time, no surviving message shares that instant and no surviving active fact
  holds the same attribute of the same entity — a conservative heuristic: when in doubt, the
  fact stays closed. Relationships that were cascade-closed with a re-activated fact are
  re-opened with it.
* **relationships** store one evidence fact and one evidence event (the last that asserted or
  reinforced the edge). When either is erased, the edge is re-pointed to a surviving fact that
  names both ends (the erased evidence's own fact if it survives, else the newest active one);
  with no such fact it is deleted. (An edge also asserted by a surviving message that produced
  no fact cannot be told apart and is deleted; `reextract` rebuilds it.)
* **clusters** that contained an erased fact are deleted (their summary quotes member facts;
  surviving members lose `cluster_id` through the foreign key) and so are the community themes
  over them; the idempotent clustering job rebuilds both from what is left.
* **meta-observations** citing an erased event or fact (patterns, contradictions, trends,
  distilled knowledge, directives) are deleted; the emotional trend is deleted when an erased
  event carried an emotion tag (its text aggregates every tagged message without citing all).
  **Session observations** whose `source_message_ids` name an erased event (by id or
  message_id) and **intentions** sourced from one are deleted.
* **entities** touched by the erased rows (subject or link of an erased fact, end of a deleted
  edge, or first/last sighted at an erased message's time) are deleted when nothing that
  survives refers to them: no fact, link or relationship, and no surviving message that names
  them (as its speaker or in its text). Their aliases go with them; aliases of surviving touched
  entities whose surface form occurs in no surviving message or fact are deleted as well (they
  could only have come from erased text). Surviving touched entities get `fact_count`
  recomputed and their summary/profile cleared, so the next refresh rebuilds them without the
  erased facts.
* **surviving messages** that carried erased texts as `recent_messages` context (`trace_json`,
  or metadata `_recent_messages` on events stored before) have those entries removed.
* BM25 statistics follow through the statement triggers of migration 0002.

* **confirmations** (migration 0011): a surviving fact that an erased message confirmed loses
  that confirmation: the row goes, `reinforcement_count` drops by one per erased confirming
  message and `last_confirmed_at` becomes the latest surviving confirmation (cleared when none is
  left and the count is back to 0). Confirmations stored before 0011 have no row and stay counted.

Not changed: the attribute registry (attribute names, not content) and entity
display names of surviving entities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.types import DeleteReport

# Static predicate fragments, one per selector; only these constants are ever joined into SQL.
_EVENT_SELECTORS = {
    "speaker": "lower(e.speaker) = lower(:speaker)",
    "message_ids": "e.message_id = ANY(CAST(:message_ids AS text[]))",
    "session_id": "e.session_id = :session_id",
}
_QUARANTINE_SELECTORS = {
    "speaker": "lower(q.payload->>'speaker') = lower(:speaker)",
    "message_ids": "q.payload->>'message_id' = ANY(CAST(:message_ids AS text[]))",
    "session_id": "q.payload->>'session_id' = :session_id",
}
_NEUTRAL_EMOTION = "neutral"


@dataclass
class EraseReport(DeleteReport):
    """What `delete_messages()` removed (`rows`, per table) and what it repaired (`updated`)."""

    selectors: dict[str, Any] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)

    @property
    def events(self) -> int:
        return self.rows.get("memory_events", 0)


# Drop the erased texts from a surviving event's stored context list (kept in order).
_SCRUB_CONTEXT_TRACE = """
    UPDATE memory_events e SET trace_json = jsonb_set(e.trace_json, '{recent_messages}',
        coalesce((SELECT jsonb_agg(x ORDER BY n) FROM jsonb_array_elements(
            e.trace_json->'recent_messages') WITH ORDINALITY AS r(x, n)
            WHERE x #>> '{}' NOT IN (SELECT text FROM _erase_events)), '[]'::jsonb))
    WHERE e.agent_id = :a AND e.id NOT IN (SELECT id FROM _erase_events)
      AND jsonb_typeof(e.trace_json->'recent_messages') = 'array'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(e.trace_json->'recent_messages') y(v)
                  WHERE y.v IN (SELECT text FROM _erase_events))"""
_SCRUB_CONTEXT_METADATA = """
    UPDATE memory_events e SET metadata = jsonb_set(e.metadata, '{_recent_messages}',
        coalesce((SELECT jsonb_agg(x ORDER BY n) FROM jsonb_array_elements(
            e.metadata->'_recent_messages') WITH ORDINALITY AS r(x, n)
            WHERE x #>> '{}' NOT IN (SELECT text FROM _erase_events)), '[]'::jsonb))
    WHERE e.agent_id = :a AND e.id NOT IN (SELECT id FROM _erase_events)
      AND e.metadata ? '_recent_messages'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(
                      e.metadata->'_recent_messages') = 'array' THEN e.metadata->'_recent_messages'
                      ELSE '[]'::jsonb END) y(v)
                  WHERE y.v IN (SELECT text FROM _erase_events))"""


def _n(result: Any) -> int:
    """Rows a DELETE / UPDATE touched."""
    return result.rowcount or 0


# a surviving fact loses the confirmations of erased messages (counter and last time)
_UNCONFIRM = """
    WITH gone AS (
        SELECT c.fact_id, count(*) AS n FROM memory_fact_confirmations c
        WHERE c.agent_id = :a AND c.event_id IN (SELECT id FROM _erase_events)
          AND c.fact_id NOT IN (SELECT id FROM _erase_facts)
        GROUP BY c.fact_id),
    kept AS (
        SELECT c.fact_id, max(c.confirmed_at) AS t FROM memory_fact_confirmations c
        WHERE c.agent_id = :a AND c.fact_id IN (SELECT fact_id FROM gone)
          AND c.event_id NOT IN (SELECT id FROM _erase_events)
        GROUP BY c.fact_id)
    UPDATE memory_facts f SET
        reinforcement_count = GREATEST(0, f.reinforcement_count - gone.n),
        last_confirmed_at = CASE
            WHEN kept.t IS NOT NULL THEN kept.t
            WHEN f.reinforcement_count - gone.n <= 0 THEN NULL
            ELSE f.last_confirmed_at END
    FROM gone LEFT JOIN kept ON kept.fact_id = gone.fact_id
    WHERE f.agent_id = :a AND f.id = gone.fact_id"""


async def erase_messages(
    conn: AsyncConnection,
    agent_id: str,
    speaker: str | None = None,
    message_ids: list[str] | None = None,
    session_id: str | None = None,
) -> EraseReport:
    """Erase the selected events of `agent_id` and every row derived from them.

    `conn` must be inside a transaction (the caller commits); selectors are validated by the
    caller and combined with AND.
    """
    chosen = [name for name, v in (("speaker", speaker), ("message_ids", message_ids),
                                   ("session_id", session_id)) if v is not None]
    if not chosen:
        raise ValueError("erase_messages needs at least one selector")
    p: dict[str, Any] = {"a": agent_id, "speaker": speaker, "message_ids": message_ids,
                         "session_id": session_id, "neutral": _NEUTRAL_EMOTION}
    p = {k: v for k, v in p.items() if v is not None}
    report = EraseReport(agent_id, selectors={k: v for k, v in (
        ("speaker", speaker), ("message_ids", message_ids), ("session_id", session_id)) if v is not None})
    rows, upd = report.rows, report.updated
    await conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:a, 0))"), p)

    # ---- the erased set ----------------------------------------------------------------------
    await conn.execute(text(
        "CREATE TEMP TABLE _erase_events ON COMMIT DROP AS SELECT e.id, e.message_id, e.text, "
        "e.occurred_at, e.emotion_primary FROM memory_events e WHERE e.agent_id = :a AND "
        + " AND ".join(_EVENT_SELECTORS[name] for name in chosen)), p)
    await conn.execute(text(
        "CREATE TEMP TABLE _erase_facts ON COMMIT DROP AS SELECT f.id, f.supersedes_fact_id, "
        "f.valid_to, f.cluster_id, f.entity_key FROM memory_facts f WHERE f.agent_id = :a "
        "AND f.source_event_id IN (SELECT id FROM _erase_events)"), p)
    await conn.execute(text("ANALYZE _erase_events"))
    await conn.execute(text("ANALYZE _erase_facts"))

    # ---- versions: splice chains through erased facts, re-activate what they closed ----------
    upd["facts_resuperseded"] = _n(await conn.execute(text("""
        WITH RECURSIVE up(start, cur, depth) AS (
            SELECT s.id, s.supersedes_fact_id, 0 FROM memory_facts s
            WHERE s.agent_id = :a AND s.supersedes_fact_id IN (SELECT id FROM _erase_facts)
              AND s.id NOT IN (SELECT id FROM _erase_facts)
            UNION ALL
            SELECT up.start, f.supersedes_fact_id, up.depth + 1 FROM up
            JOIN _erase_facts f ON f.id = up.cur
            WHERE f.supersedes_fact_id IS NOT NULL AND up.depth < 1000)
        UPDATE memory_facts s SET supersedes_fact_id = up.cur FROM up
        WHERE s.id = up.start AND s.agent_id = :a
          AND up.cur NOT IN (SELECT id FROM _erase_facts)"""), p))
    await conn.execute(text(
        "CREATE TEMP TABLE _erase_reopened (id uuid PRIMARY KEY, old_valid_to timestamptz) "
        "ON COMMIT DROP"))
    # (a) the nearest surviving ancestor of an erased *current* version
    await conn.execute(text("""
        WITH RECURSIVE anc(cur) AS (
            SELECT supersedes_fact_id FROM _erase_facts
            WHERE valid_to IS NULL AND supersedes_fact_id IS NOT NULL
            UNION
            SELECT f.supersedes_fact_id FROM anc JOIN _erase_facts f ON f.id = anc.cur
            WHERE f.supersedes_fact_id IS NOT NULL)
        INSERT INTO _erase_reopened (id, old_valid_to)
        SELECT o.id, o.valid_to FROM memory_facts o
        WHERE o.agent_id = :a AND o.valid_to IS NOT NULL
          AND o.id IN (SELECT cur FROM anc) AND o.id NOT IN (SELECT id FROM _erase_facts)
          AND NOT EXISTS (SELECT 1 FROM memory_facts s WHERE s.agent_id = :a
                          AND s.supersedes_fact_id = o.id
                          AND s.id NOT IN (SELECT id FROM _erase_facts))
        ON CONFLICT DO NOTHING"""), p)
    # (b) plain retractions: closed at the instant of an erased message, unambiguously
    await conn.execute(text("""
        INSERT INTO _erase_reopened (id, old_valid_to)
        SELECT o.id, o.valid_to FROM memory_facts o
        WHERE o.agent_id = :a AND o.valid_to IS NOT NULL AND o.invalidated_at IS NOT NULL
          AND o.id NOT IN (SELECT id FROM _erase_facts)
          AND o.valid_to IN (SELECT occurred_at FROM _erase_events)
          AND NOT EXISTS (SELECT 1 FROM memory_facts s WHERE s.agent_id = :a
                          AND s.supersedes_fact_id = o.id)
          AND NOT EXISTS (SELECT 1 FROM memory_events ev WHERE ev.agent_id = :a
                          AND ev.occurred_at = o.valid_to
                          AND ev.id NOT IN (SELECT id FROM _erase_events))
          AND NOT EXISTS (SELECT 1 FROM memory_facts s WHERE s.agent_id = :a
                          AND s.valid_to IS NULL AND s.entity_key = o.entity_key
                          AND s.attribute_key IS NOT DISTINCT FROM o.attribute_key
                          AND s.id NOT IN (SELECT id FROM _erase_facts))
        ON CONFLICT DO NOTHING"""), p)
    upd["facts_reactivated"] = _n(await conn.execute(text(
        "UPDATE memory_facts f SET valid_to = NULL, invalidated_at = NULL "
        "WHERE f.agent_id = :a AND f.id IN (SELECT id FROM _erase_reopened)"), p))
    upd["relationships_reopened"] = _n(await conn.execute(text(
        "UPDATE memory_entity_relationships r SET valid_to = NULL, invalidated_at = NULL, "
        "updated_at = now() FROM _erase_reopened o WHERE r.agent_id = :a "
        "AND r.evidence_fact_id = o.id AND r.valid_to = GREATEST(o.old_valid_to, r.valid_from)"), p))

    # ---- relationships: re-point to surviving evidence, or delete -------------------------------
    await conn.execute(text(
        "CREATE TEMP TABLE _erase_edges ON COMMIT DROP AS SELECT r.id, r.source_entity_key AS s, "
        "r.target_entity_key AS t, r.evidence_fact_id AS ef FROM memory_entity_relationships r "
        "WHERE r.agent_id = :a AND (r.evidence_event_id IN (SELECT id FROM _erase_events) "
        "OR r.evidence_fact_id IN (SELECT id FROM _erase_facts))"), p)
    await conn.execute(text("""
        CREATE TEMP TABLE _erase_support ON COMMIT DROP AS
        SELECT DISTINCT ON (x.id) x.id, f.id AS fact_id, f.source_event_id
        FROM _erase_edges x JOIN memory_facts f ON f.agent_id = :a
         AND f.id NOT IN (SELECT id FROM _erase_facts)
         AND (f.id = x.ef
              OR (f.entity_key = x.s AND EXISTS (SELECT 1 FROM memory_fact_entity_links l
                  WHERE l.agent_id = :a AND l.fact_id = f.id AND l.entity_key = x.t))
              OR (f.entity_key = x.t AND EXISTS (SELECT 1 FROM memory_fact_entity_links l
                  WHERE l.agent_id = :a AND l.fact_id = f.id AND l.entity_key = x.s)))
        ORDER BY x.id, (f.id = x.ef) DESC, (f.valid_to IS NULL) DESC, f.valid_from DESC, f.id"""), p)
    upd["relationships_repointed"] = _n(await conn.execute(text(
        "UPDATE memory_entity_relationships r SET evidence_fact_id = s.fact_id, "
        "evidence_event_id = s.source_event_id, updated_at = now() FROM _erase_support s "
        "WHERE r.agent_id = :a AND r.id = s.id"), p))
    await conn.execute(text(
        "CREATE TEMP TABLE _erase_keys ON COMMIT DROP AS "
        "SELECT entity_key AS k FROM _erase_facts UNION "
        "SELECT l.entity_key FROM memory_fact_entity_links l WHERE l.agent_id = :a "
        "AND l.fact_id IN (SELECT id FROM _erase_facts) UNION "
        "SELECT s FROM _erase_edges WHERE id NOT IN (SELECT id FROM _erase_support) UNION "
        "SELECT t FROM _erase_edges WHERE id NOT IN (SELECT id FROM _erase_support) UNION "
        # entities resolved in an erased message without any fact or edge (a bare mention):
        # first or last sighted (event time) at an erased message
        "SELECT l.entity_key FROM memory_fact_entity_links l WHERE l.agent_id = :a "
        "AND l.fact_id IN (SELECT id FROM _erase_reopened) UNION "
        "SELECT f.entity_key FROM memory_facts f WHERE f.agent_id = :a "
        "AND f.id IN (SELECT id FROM _erase_reopened) UNION "
        "SELECT en.canonical_key FROM memory_entities en WHERE en.agent_id = :a AND ("
        "en.first_seen_at IN (SELECT occurred_at FROM _erase_events) OR "
        "en.last_seen_at IN (SELECT occurred_at FROM _erase_events))"), p)
    rows["memory_entity_relationships"] = _n(await conn.execute(text(
        "DELETE FROM memory_entity_relationships WHERE agent_id = :a "
        "AND id IN (SELECT id FROM _erase_edges) AND id NOT IN (SELECT id FROM _erase_support)"), p))

    # ---- consolidation outputs ------------------------------------------------------------------
    await conn.execute(text(
        "CREATE TEMP TABLE _erase_clusters ON COMMIT DROP AS SELECT c.id, c.entity_key "
        "FROM memory_clusters c WHERE c.agent_id = :a "
        "AND c.id IN (SELECT cluster_id FROM _erase_facts WHERE cluster_id IS NOT NULL)"), p)
    rows["memory_meta_observations"] = _n(await conn.execute(text("""
        DELETE FROM memory_meta_observations m WHERE m.agent_id = :a AND (
            m.supporting_event_ids ?| (SELECT coalesce(array_agg(id::text), '{}') FROM _erase_events)
         OR m.supporting_fact_ids ?| (SELECT coalesce(array_agg(id::text), '{}') FROM _erase_facts)
         OR (m.observation_type = 'community_theme' AND EXISTS (SELECT 1 FROM _erase_clusters c
             WHERE c.entity_key IS NULL OR m.entity_keys ? c.entity_key))
         OR (m.observation_type = 'emotional_trend' AND EXISTS (SELECT 1 FROM _erase_events e
             WHERE e.emotion_primary IS NOT NULL AND e.emotion_primary <> :neutral)))"""), p))
    rows["memory_clusters"] = _n(await conn.execute(text(
        "DELETE FROM memory_clusters WHERE agent_id = :a AND id IN (SELECT id FROM _erase_clusters)"), p))
    rows["session_observations"] = _n(await conn.execute(text(
        "DELETE FROM session_observations o WHERE o.agent_id = :a AND o.source_message_ids ?| ("
        "SELECT coalesce(array_agg(x), '{}') FROM (SELECT id::text AS x FROM _erase_events "
        "UNION SELECT message_id FROM _erase_events WHERE message_id IS NOT NULL) ids)"), p))
    rows["memory_intentions"] = _n(await conn.execute(text(
        "DELETE FROM memory_intentions WHERE agent_id = :a "
        "AND source_event_id IN (SELECT id FROM _erase_events)"), p))

    # ---- confirmations an erased message gave a surviving fact ------------------------------
    upd["facts_unconfirmed"] = _n(await conn.execute(text(_UNCONFIRM), p))
    rows["memory_fact_confirmations"] = _n(await conn.execute(text(
        "DELETE FROM memory_fact_confirmations WHERE agent_id = :a "
        "AND event_id IN (SELECT id FROM _erase_events)"), p))

    # ---- facts, then events -------------------------------------------------------------------
    rows["memory_fact_entity_links"] = _n(await conn.execute(text(
        "DELETE FROM memory_fact_entity_links WHERE agent_id = :a "
        "AND fact_id IN (SELECT id FROM _erase_facts)"), p))
    rows["memory_facts"] = _n(await conn.execute(text(
        "DELETE FROM memory_facts WHERE agent_id = :a AND id IN (SELECT id FROM _erase_facts)"), p))
    # context lists: `trace_json.recent_messages` (MemoryClient.write) and, on events stored
    # before that, `metadata._recent_messages`
    upd["events_context_scrubbed"] = sum([
        _n(await conn.execute(text(_SCRUB_CONTEXT_TRACE), p)),
        _n(await conn.execute(text(_SCRUB_CONTEXT_METADATA), p))])
    rows["memory_events"] = _n(await conn.execute(text(
        "DELETE FROM memory_events WHERE agent_id = :a AND id IN (SELECT id FROM _erase_events)"), p))
    rows["memory_quarantine"] = _n(await conn.execute(text(
        "DELETE FROM memory_quarantine q WHERE q.agent_id = :a AND "
        + " AND ".join(_QUARANTINE_SELECTORS[name] for name in chosen)), p))

    # ---- entities and aliases nothing surviving refers to -------------------------------------
    orphan = """
        SELECT x.k FROM _erase_keys x WHERE x.k IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM memory_facts f WHERE f.agent_id = :a AND f.entity_key = x.k)
          AND NOT EXISTS (SELECT 1 FROM memory_fact_entity_links l WHERE l.agent_id = :a
                          AND l.entity_key = x.k)
          AND NOT EXISTS (SELECT 1 FROM memory_entity_relationships r WHERE r.agent_id = :a
                          AND x.k IN (r.source_entity_key, r.target_entity_key))
          AND NOT EXISTS (SELECT 1 FROM memory_entities en JOIN memory_events ev
                          ON ev.agent_id = :a AND (lower(ev.speaker) = lower(en.display_name)
                              OR strpos(lower(ev.text), lower(en.display_name)) > 0)
                          WHERE en.agent_id = :a AND en.canonical_key = x.k)"""
    await conn.execute(text(f"CREATE TEMP TABLE _erase_orphans ON COMMIT DROP AS {orphan}"), p)
    alias_surface = "coalesce(nullif(al.alias_text, ''), al.alias)"
    rows["memory_entity_aliases"] = _n(await conn.execute(text(f"""
        DELETE FROM memory_entity_aliases al WHERE al.agent_id = :a AND (
            al.canonical_entity_key IN (SELECT k FROM _erase_orphans)
         OR (al.canonical_entity_key IN (SELECT k FROM _erase_keys)
             AND NOT EXISTS (SELECT 1 FROM memory_entities en WHERE en.agent_id = :a
                             AND en.canonical_key = al.canonical_entity_key
                             AND lower(en.display_name) = lower({alias_surface}))
             AND NOT EXISTS (SELECT 1 FROM memory_events ev WHERE ev.agent_id = :a
                             AND (strpos(lower(ev.text), lower({alias_surface})) > 0
                                  OR lower(ev.speaker) = lower({alias_surface})))
             AND NOT EXISTS (SELECT 1 FROM memory_facts f WHERE f.agent_id = :a
                             AND (strpos(lower(f.fact_text), lower({alias_surface})) > 0
                                  OR lower(f.entity_name) = lower({alias_surface})))))"""), p))
    rows["memory_entities"] = _n(await conn.execute(text(
        "DELETE FROM memory_entities WHERE agent_id = :a "
        "AND canonical_key IN (SELECT k FROM _erase_orphans)"), p))
    upd["entities_refreshed"] = _n(await conn.execute(text("""
        UPDATE memory_entities e SET
            fact_count = (SELECT count(*) FROM memory_fact_entity_links l
                          JOIN memory_facts f ON f.id = l.fact_id AND f.valid_to IS NULL
                          WHERE l.agent_id = :a AND l.entity_key = e.canonical_key),
            summary_text = NULL, summary_refreshed_at = NULL,
            profile_text = NULL, profile_refreshed_at = NULL
        WHERE e.agent_id = :a AND e.canonical_key IN (SELECT k FROM _erase_keys)"""), p))
    return report
