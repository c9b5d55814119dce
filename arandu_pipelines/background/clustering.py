"""Fact clustering and community themes (the spec's "Clustering" section), deterministic.

**Clusters** (`cluster_facts`) follow the specification's algorithm: the agent's active facts
from the last `cluster_max_age_days` (measured on the agent's clock) are grouped by their subject
entity; a group of at least `cluster_min_facts` facts is a cluster (`cluster_type = 'entity'`,
label = the entity key). Its embedding is the mean of its facts' embeddings (pgvector ``avg``),
which is what puts clusters in one semantic space for the community step; its offline summary
is its three most important facts (with an `llm`, new and changed clusters get a 2-3 sentence LLM
summary instead, kept across re-runs that do not change the cluster; a failed call keeps the
summary the cluster has). Facts missing an embedding are embedded first when an
embedding provider is given. Clusters are upserted on (agent, type, label) and written only
when their members, centroid or summary change; facts get `cluster_id` (and lose it when they
are closed or age out); clusters left without enough facts are deactivated. A re-run over the
same facts writes nothing.

**Community themes** (`detect_communities`) compare the active clusters' centroids: pairs with
cosine similarity ``>= community_similarity_threshold`` are joined (union-find), and every group
of at least `community_min_clusters` clusters becomes a `community_theme` meta-observation whose
fingerprint is its sorted cluster labels. Themes not found again are deactivated.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from arandu_pipelines.background._common import (
    Observation,
    Timer,
    UnionFind,
    agent_clock,
    agent_transaction,
    deactivate_observations,
    engine_of,
    fingerprint,
    upsert_observations,
)
from arandu_pipelines.background.results import (
    ClusteringResult,
    CommunityDetectionResult,
)
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.store.engine import vecs

CLUSTER_TYPE = "entity"
SUMMARY_FACTS = 3
_ELIGIBLE = (
    "f.agent_id = :a AND f.valid_to IS NULL "
    "AND f.valid_from >= CAST(:clock AS timestamptz) - make_interval(days => :max_age)"
)
_LABEL = "CASE WHEN length(f.entity_key) <= 128 THEN f.entity_key " \
         "ELSE left(f.entity_key, 119) || '~' || left(md5(f.entity_key), 8) END"


async def _embed_missing(engine: Any, agent_id: str, embeddings: Any, batch: int = 256) -> int:
    """Embed active facts stored without an embedding (e.g. written while embeddings were down)."""
    done = 0
    while True:
        async with engine.connect() as conn:
            rows = (await conn.execute(
                text("SELECT id::text AS id, fact_text FROM memory_facts WHERE agent_id = :a "
                     "AND valid_to IS NULL AND embedding_vec IS NULL ORDER BY id LIMIT :n"),
                {"a": agent_id, "n": batch})).all()
        if not rows:
            return done
        vectors = await embeddings.embed([r.fact_text for r in rows])
        async with engine.begin() as conn:
            await conn.execute(
                text("UPDATE memory_facts f SET embedding_vec = q.v FROM unnest("
                     "CAST(:ids AS uuid[]), CAST(:vs AS vector[])) AS q(id, v) WHERE f.id = q.id"),
                {"ids": [r.id for r in rows], "vs": vecs(vectors)},
            )
        done += len(rows)
        if len(rows) < batch:
            return done


async def cluster_facts(
    engine: Any,
    agent_id: str,
    embeddings: Any = None,
    config: MemoryConfig | None = None,
    llm: Any = None,
) -> ClusteringResult:
    """Group the agent's recent active facts into per-entity clusters (see module docstring)."""
    config = config or MemoryConfig()
    timer = Timer()
    eng = engine_of(engine)
    if embeddings is not None:
        await _embed_missing(eng, agent_id, embeddings)
    params: dict[str, Any] = {"a": agent_id, "max_age": int(config.cluster_max_age_days),
                              "min_facts": max(1, int(config.cluster_min_facts)),
                              "ctype": CLUSTER_TYPE, "n_sum": SUMMARY_FACTS,
                              # with an LLM, its summaries survive re-runs that do not change the
                              # cluster (the offline summary would overwrite them every time)
                              "keep_summary": llm is not None}
    async with agent_transaction(eng, agent_id) as conn:
        params["clock"] = clock = await agent_clock(conn, agent_id)
        upserted = (
            await conn.execute(
                text(
                    f"""
                    WITH eligible AS (
                        SELECT f.id, f.entity_key, f.entity_type, f.entity_name, f.fact_text,
                               f.importance, f.confidence, f.valid_from, f.embedding_vec,
                               {_LABEL} AS label
                        FROM memory_facts f WHERE {_ELIGIBLE}
                    ),
                    ranked AS (
                        SELECT label, fact_text, row_number() OVER (PARTITION BY label
                            ORDER BY importance DESC, confidence DESC, valid_from DESC, id) AS rn
                        FROM eligible
                    ),
                    groups AS (
                        SELECT label, min(entity_key) AS entity_key, min(entity_type) AS entity_type,
                               count(*) AS n, avg(importance) AS imp, avg(embedding_vec) AS centroid,
                               COALESCE(max(entity_name), min(entity_key)) AS name
                        FROM eligible GROUP BY label HAVING count(*) >= :min_facts
                    ),
                    summaries AS (
                        SELECT r.label, string_agg(
                            CASE WHEN right(btrim(r.fact_text), 1) IN ('.', '!', '?')
                                 THEN btrim(r.fact_text) ELSE btrim(r.fact_text) || '.' END,
                            ' ' ORDER BY r.rn) AS body
                        FROM ranked r JOIN groups g ON g.label = r.label
                        WHERE r.rn <= :n_sum GROUP BY r.label
                    )
                    INSERT INTO memory_clusters AS c (agent_id, label, summary_text, cluster_type,
                        entity_type, entity_key, fact_count, importance, embedding_vec, is_active,
                        last_updated_at)
                    SELECT :a, g.label, s.body, :ctype, g.entity_type, g.entity_key, g.n,
                           round(CAST(g.imp AS numeric), 4)::float8, g.centroid, true, now()
                    FROM groups g JOIN summaries s ON s.label = g.label
                    ON CONFLICT (agent_id, cluster_type, label) DO UPDATE SET
                        summary_text = CASE WHEN :keep_summary THEN c.summary_text
                                            ELSE EXCLUDED.summary_text END,
                        entity_type = EXCLUDED.entity_type,
                        entity_key = EXCLUDED.entity_key, fact_count = EXCLUDED.fact_count,
                        importance = EXCLUDED.importance, embedding_vec = EXCLUDED.embedding_vec,
                        is_active = true, last_updated_at = now()
                    WHERE (c.summary_text, c.fact_count, c.importance, c.is_active,
                           c.embedding_vec IS NULL)
                          IS DISTINCT FROM (CASE WHEN :keep_summary THEN c.summary_text
                                                 ELSE EXCLUDED.summary_text END, EXCLUDED.fact_count,
                           EXCLUDED.importance, true, EXCLUDED.embedding_vec IS NULL)
                       OR (c.embedding_vec <-> EXCLUDED.embedding_vec) > 1e-5
                    RETURNING (xmax = 0) AS inserted, c.id::text AS id, c.label
                    """
                ),
                params,
            )
        ).all()
        created = sum(1 for r in upserted if r.inserted)
        deactivated = (
            await conn.execute(
                text(
                    f"""
                    UPDATE memory_clusters c SET is_active = false, fact_count = 0,
                           last_updated_at = now()
                    WHERE c.agent_id = :a AND c.cluster_type = :ctype AND c.is_active
                      AND NOT EXISTS (
                        SELECT 1 FROM memory_facts f WHERE {_ELIGIBLE} AND {_LABEL} = c.label
                        GROUP BY f.entity_key HAVING count(*) >= :min_facts)
                    """
                ),
                params,
            )
        ).rowcount or 0
        assigned = (
            await conn.execute(
                text(
                    f"""
                    UPDATE memory_facts f SET cluster_id = c.id
                    FROM memory_clusters c
                    WHERE {_ELIGIBLE} AND c.agent_id = :a AND c.cluster_type = :ctype
                      AND c.is_active AND c.label = {_LABEL}
                      AND f.cluster_id IS DISTINCT FROM c.id
                    """
                ),
                params,
            )
        ).rowcount or 0
        unassigned = (
            await conn.execute(
                text(
                    f"""
                    UPDATE memory_facts f SET cluster_id = NULL
                    WHERE f.agent_id = :a AND f.cluster_id IS NOT NULL
                      AND f.cluster_id IN (SELECT id FROM memory_clusters
                                           WHERE agent_id = :a AND cluster_type = :ctype)
                      AND NOT ({_ELIGIBLE} AND EXISTS (
                          SELECT 1 FROM memory_clusters c WHERE c.id = f.cluster_id AND c.is_active
                            AND c.label = {_LABEL}))
                    """
                ),
                params,
            )
        ).rowcount or 0
        llm_errors: list[str] = []
        llm_tokens, generated = None, 0
        if llm is not None:  # summarise the new / changed clusters (after the lock is released)
            pending = [(r.id, r.label) for r in upserted][:LLM_CLUSTER_LIMIT]
    if llm is not None:
        from arandu_pipelines.types import TokenUsage

        llm_tokens = TokenUsage()
        generated = await _llm_cluster_summaries(eng, agent_id, llm, pending, llm_tokens, llm_errors)
    async with eng.connect() as conn:
        preview = (
            await conn.execute(
                text("SELECT label, fact_count, round(CAST(importance AS numeric), 2) AS importance, "
                     "summary_text FROM memory_clusters WHERE agent_id = :a AND cluster_type = :ctype "
                     "AND is_active ORDER BY fact_count DESC, label LIMIT 8"),
                params,
            )
        ).all()
    res = ClusteringResult(
        clusters_created=created,
        clusters_reinforced=len(upserted) - created,
        summaries_generated=generated,
        facts_assigned=assigned,
        facts_unassigned=unassigned,
        clusters_deactivated=deactivated,
        preview=[{"cluster": r.label, "facts": r.fact_count, "importance": float(r.importance),
                  "summary": (r.summary_text or "")[:120]} for r in preview],
        reference_time=clock,
        duration_ms=timer.ms,
    )
    if llm_tokens is not None:
        res.tokens, res.llm_errors = llm_tokens, llm_errors
    return res


LLM_CLUSTER_LIMIT = 20
LLM_CLUSTER_FACTS = 15
CLUSTER_TASK = "cluster_summary"
_CLUSTER_SYSTEM = ("Write a 2-3 sentence summary of this group of related facts about one subject: "
                   "what they say together. Use only the facts given. Format: {\"summary\": \"...\"}")


async def _llm_cluster_summaries(eng: Any, agent_id: str, llm: Any, pending: list[tuple[str, str]],
                                 tokens: Any, errors: list[str]) -> int:
    """One LLM call per new or changed cluster; a failure keeps the summary it has."""
    from arandu_pipelines.background._llm import (
        LLMCallError,
        ask,
        english_text,
        error_note,
    )

    if not pending:
        return 0
    async with eng.connect() as conn:
        facts: dict[str, list[str]] = {}
        for r in await conn.execute(text(
                "SELECT f.cluster_id::text AS cid, f.fact_text FROM memory_facts f WHERE f.agent_id = :a "
                "AND f.valid_to IS NULL AND f.cluster_id = ANY(CAST(:ids AS uuid[])) "
                "ORDER BY f.cluster_id, f.importance DESC, f.confidence DESC, f.valid_from DESC, f.id"),
                {"a": agent_id, "ids": [cid for cid, _ in pending]}):
            if len(facts.setdefault(r.cid, [])) < LLM_CLUSTER_FACTS:
                facts[r.cid].append(r.fact_text.strip())
    new: dict[str, str] = {}
    for cid, label in pending:
        if not facts.get(cid):
            continue
        try:
            new[cid] = await ask(
                llm, CLUSTER_TASK, _CLUSTER_SYSTEM,
                f"Cluster: {label}\nFacts:\n" + "\n".join(f"- {f}" for f in facts[cid]), usage=tokens,
                validate=lambda v: english_text(v.get("summary") if isinstance(v, dict) else None,
                                                min_words=4, max_tokens=200), max_tokens=250)
        except LLMCallError as exc:
            errors.append(error_note(label, exc))
    if new:
        async with agent_transaction(eng, agent_id) as conn:
            await conn.execute(text(
                "UPDATE memory_clusters c SET summary_text = q.t FROM unnest(CAST(:ids AS uuid[]), "
                "CAST(:t AS text[])) AS q(id, t) WHERE c.agent_id = :a AND c.id = q.id"),
                {"a": agent_id, "ids": list(new), "t": list(new.values())})
    return len(new)


async def detect_communities(
    engine: Any,
    agent_id: str,
    config: MemoryConfig | None = None,
    embeddings: Any = None,
    llm: Any = None,
) -> CommunityDetectionResult:
    """Group similar clusters into `community_theme` meta-observations (see module docstring)."""
    config = config or MemoryConfig()
    timer = Timer()
    threshold = float(config.community_similarity_threshold)
    min_clusters = max(2, int(config.community_min_clusters))
    async with agent_transaction(engine, agent_id) as conn:
        clusters = (
            await conn.execute(
                text(
                    "SELECT c.id::text AS id, c.label, c.entity_key, c.fact_count, c.summary_text, "
                    "COALESCE(e.display_name, c.entity_key, c.label) AS name "
                    "FROM memory_clusters c LEFT JOIN memory_entities e ON e.agent_id = c.agent_id "
                    "AND e.canonical_key = c.entity_key WHERE c.agent_id = :a AND c.is_active "
                    "AND c.cluster_type = :ct AND c.embedding_vec IS NOT NULL ORDER BY c.label"
                ),
                {"a": agent_id, "ct": CLUSTER_TYPE},
            )
        ).all()
        if len(clusters) < min_clusters:
            deactivated = await deactivate_observations(conn, agent_id, ["community_theme"], [])
            return CommunityDetectionResult(
                skipped=True, communities_deactivated=deactivated,
                skip_reason=f"{len(clusters)} active cluster(s); at least {min_clusters} needed",
                duration_ms=timer.ms)
        pairs = (
            await conn.execute(
                text(
                    "SELECT a.label AS x, b.label AS y, 1 - (a.embedding_vec <=> b.embedding_vec) AS sim "
                    "FROM memory_clusters a JOIN memory_clusters b ON b.agent_id = a.agent_id "
                    "AND b.label > a.label AND b.is_active AND b.embedding_vec IS NOT NULL "
                    "AND b.cluster_type = a.cluster_type "
                    "WHERE a.agent_id = :a AND a.is_active AND a.embedding_vec IS NOT NULL "
                    "AND a.cluster_type = :ct AND 1 - (a.embedding_vec <=> b.embedding_vec) >= :t"
                ),
                {"a": agent_id, "t": threshold, "ct": CLUSTER_TYPE},
            )
        ).all()
        uf = UnionFind(c.label for c in clusters)
        sims: dict[str, list[float]] = {}
        for p in pairs:
            uf.union(p.x, p.y)
        for p in pairs:
            sims.setdefault(uf.find(p.x), []).append(float(p.sim))
        by_label = {c.label: c for c in clusters}
        comps = uf.components(min_clusters)
        observations: list[Observation] = []
        for comp in comps:
            members = [by_label[label] for label in comp]
            root_sims = sims.get(uf.find(comp[0]), [threshold])
            cohesion = sum(root_sims) / len(root_sims)
            members_by_size = sorted(members, key=lambda c: (-c.fact_count, c.label))
            names = [m.name for m in members_by_size]
            title = "Theme: " + ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
            lines = [f"{m.name}: {(m.summary_text or '').strip()}" for m in members_by_size[:8]]
            observations.append(Observation(
                observation_type="community_theme",
                title=title,
                text=f"{len(members)} related clusters (mean similarity {cohesion:.2f}). " + " | ".join(lines),
                fingerprint=fingerprint("community_theme", *comp),
                entity_keys=sorted({m.entity_key for m in members if m.entity_key}),
                confidence=round(min(0.95, cohesion), 4),
                importance=round(min(1.0, 0.4 + 0.1 * len(members)), 4),
                times_reinforced=0,
            ))
        if observations:
            fact_ids = (
                await conn.execute(
                    text(
                        "SELECT c.label, (array_agg(f.id::text ORDER BY f.importance DESC, f.id))[1:10] AS ids "
                        "FROM memory_clusters c JOIN memory_facts f ON f.cluster_id = c.id "
                        "WHERE c.agent_id = :a AND c.is_active AND c.cluster_type = :ct "
                        "GROUP BY c.label"
                    ),
                    {"a": agent_id, "ct": CLUSTER_TYPE},
                )
            ).all()
            ids_by_label = {r.label: list(r.ids or []) for r in fact_ids}
            for obs, comp in zip(observations, comps):
                obs.supporting_fact_ids = [i for label in comp for i in ids_by_label.get(label, [])][:50]
        outcome = await upsert_observations(conn, agent_id, observations)
        # theme centroids: the mean of the member clusters' embeddings (set-based)
        if observations:
            await conn.execute(
                text(
                    "UPDATE memory_meta_observations m SET embedding_vec = q.v FROM ("
                    " SELECT x.fp, avg(c.embedding_vec) AS v FROM unnest(CAST(:fps AS text[]), "
                    " CAST(:labels AS text[])) AS x(fp, label) JOIN memory_clusters c "
                    " ON c.agent_id = :a AND c.cluster_type = :ct AND c.label = x.label GROUP BY x.fp) q "
                    "WHERE m.agent_id = :a AND m.observation_type = 'community_theme' "
                    "AND m.fingerprint = q.fp "
                    "AND (m.embedding_vec IS NULL OR (m.embedding_vec <-> q.v) > 1e-5)"
                ),
                {"a": agent_id, "ct": CLUSTER_TYPE,
                 "fps": [o.fingerprint for o, comp in zip(observations, comps) for _ in comp],
                 "labels": [label for comp in comps for label in comp]},
            )
        deactivated = await deactivate_observations(
            conn, agent_id, ["community_theme"], [o.fingerprint for o in observations])
    return CommunityDetectionResult(
        communities_created=outcome.created,
        communities_reinforced=outcome.updated,
        communities_deactivated=deactivated,
        clusters_in_communities=sum(len(c) for c in comps),
        preview=[{"theme": o.title, "clusters": len(c), "confidence": o.confidence}
                 for o, c in zip(observations, comps)][:10],
        duration_ms=timer.ms,
    )
