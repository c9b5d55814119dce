"""Initial memory schema: every table of the spec, agent_id leading every key and index.

Vector dimension comes from the migration context (MemoryConfig.embedding_dimensions or the
embedding provider's), so a local 384-d database and an OpenAI 1536-d database share this file.
pgvector's HNSW indexes one column and so cannot lead with agent_id; queries filter by agent with
iterative index scans (see docs/architecture.md).

Revision ID: 0001
"""

from __future__ import annotations

from alembic import context, op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _dim() -> int:
    dim = int(context.config.attributes.get("embedding_dimensions", 384))
    if not 1 <= dim <= 16000:
        raise ValueError(f"embedding_dimensions must be between 1 and 16000, got {dim}")
    return dim


def upgrade() -> None:
    d = _dim()
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")

    op.execute(f"""
    CREATE TABLE memory_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        session_id text NOT NULL DEFAULT 'default',
        speaker varchar(256),
        message_id text,
        text text NOT NULL,
        source varchar(32) NOT NULL DEFAULT 'api',
        occurred_at timestamptz NOT NULL,
        importance double precision NOT NULL DEFAULT 0.5,
        embedding_vec vector({d}),
        embedding jsonb,
        metadata jsonb NOT NULL DEFAULT '{{}}'::jsonb,
        trace_json jsonb,
        content_hash text NOT NULL,
        emotion_primary varchar(32),
        emotion_intensity double precision,
        energy_level varchar(16),
        extraction_status varchar(16) NOT NULL DEFAULT 'pending',
        extraction_attempts integer NOT NULL DEFAULT 0,
        extraction_error text,
        extracted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        search_vector tsvector GENERATED ALWAYS AS (
            to_tsvector('english', coalesce(speaker, '') || ' ' || text)
        ) STORED,
        CONSTRAINT ck_events_status CHECK (
            extraction_status IN ('pending', 'done', 'failed', 'skipped'))
    )""")
    op.execute(
        "CREATE UNIQUE INDEX uq_events_agent_message ON memory_events (agent_id, message_id) "
        "WHERE message_id IS NOT NULL"
    )
    op.execute("CREATE INDEX ix_events_agent_time ON memory_events (agent_id, occurred_at DESC, id)")
    op.execute(
        "CREATE INDEX ix_events_agent_session ON memory_events (agent_id, session_id, occurred_at DESC)"
    )
    op.execute(
        "CREATE INDEX ix_events_agent_pending ON memory_events (agent_id, occurred_at, id) "
        "WHERE extraction_status IN ('pending', 'failed')"
    )
    op.execute("CREATE INDEX ix_events_agent_speaker ON memory_events (agent_id, speaker)")
    op.execute("CREATE INDEX ix_events_agent_fts ON memory_events USING gin (agent_id, search_vector)")
    op.execute(
        "CREATE INDEX ix_events_embedding ON memory_events USING hnsw (embedding_vec vector_cosine_ops)"
    )

    op.execute(f"""
    CREATE TABLE memory_clusters (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        label varchar(128) NOT NULL,
        summary_text text,
        cluster_type varchar(32) NOT NULL DEFAULT 'auto',
        entity_type varchar(64),
        entity_key varchar(160),
        fact_count integer NOT NULL DEFAULT 0,
        importance double precision NOT NULL DEFAULT 0.5,
        embedding_vec vector({d}),
        is_active boolean NOT NULL DEFAULT true,
        last_updated_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_clusters_agent_label UNIQUE (agent_id, cluster_type, label)
    )""")

    op.execute(f"""
    CREATE TABLE memory_facts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        entity_type varchar(64) NOT NULL DEFAULT 'other',
        entity_key varchar(160) NOT NULL,
        entity_name varchar(256),
        attribute_key varchar(64),
        value_text text,
        fact_text text NOT NULL,
        category varchar(50),
        confidence double precision NOT NULL DEFAULT 0.8,
        importance double precision NOT NULL DEFAULT 0.5,
        is_sensitive boolean NOT NULL DEFAULT false,
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        ttl_days integer,
        source_event_id uuid REFERENCES memory_events(id) ON DELETE CASCADE,
        supersedes_fact_id uuid REFERENCES memory_facts(id) ON DELETE SET NULL,
        embedding_vec vector({d}),
        vitality_score double precision,
        is_stale boolean NOT NULL DEFAULT false,
        cluster_id uuid REFERENCES memory_clusters(id) ON DELETE SET NULL,
        value_json jsonb,
        needs_confirmation boolean NOT NULL DEFAULT false,
        last_confirmed_at timestamptz,
        reinforcement_count integer NOT NULL DEFAULT 0,
        times_retrieved integer NOT NULL DEFAULT 0,
        last_retrieved_at timestamptz,
        user_correction_count integer NOT NULL DEFAULT 0,
        source_context varchar(512),
        agent_annotation text,
        embedding jsonb,
        speaker varchar(256),
        session_id text,
        event_date timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        ingested_at timestamptz NOT NULL DEFAULT now(),
        invalidated_at timestamptz,
        search_vector tsvector GENERATED ALWAYS AS (
            to_tsvector('english', coalesce(entity_name, '') || ' ' || fact_text)
        ) STORED
    )""")
    op.execute(
        "CREATE INDEX ix_facts_agent_entity_active ON memory_facts (agent_id, entity_key, attribute_key) "
        "WHERE valid_to IS NULL"
    )
    op.execute("CREATE INDEX ix_facts_agent_created ON memory_facts (agent_id, created_at DESC, id)")
    op.execute("CREATE INDEX ix_facts_agent_valid ON memory_facts (agent_id, valid_from, valid_to)")
    op.execute("CREATE INDEX ix_facts_agent_event ON memory_facts (agent_id, source_event_id)")
    op.execute("CREATE INDEX ix_facts_source_event ON memory_facts (source_event_id)")
    op.execute("CREATE INDEX ix_facts_supersedes ON memory_facts (supersedes_fact_id)")
    op.execute("CREATE INDEX ix_facts_agent_cluster ON memory_facts (agent_id, cluster_id)")
    op.execute("CREATE INDEX ix_facts_agent_fts ON memory_facts USING gin (agent_id, search_vector)")
    op.execute(
        "CREATE INDEX ix_facts_embedding ON memory_facts USING hnsw (embedding_vec vector_cosine_ops)"
    )

    op.execute("""
    CREATE TABLE memory_fact_entity_links (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        fact_id uuid NOT NULL REFERENCES memory_facts(id) ON DELETE CASCADE,
        entity_key varchar(160) NOT NULL,
        is_primary boolean NOT NULL DEFAULT false,
        CONSTRAINT uq_links_agent_fact_entity UNIQUE (agent_id, fact_id, entity_key)
    )""")
    op.execute("CREATE INDEX ix_links_agent_entity ON memory_fact_entity_links (agent_id, entity_key)")
    op.execute("CREATE INDEX ix_links_fact ON memory_fact_entity_links (fact_id)")

    op.execute(f"""
    CREATE TABLE memory_entities (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        canonical_key varchar(160) NOT NULL,
        display_name varchar(256),
        entity_type varchar(64) NOT NULL DEFAULT 'other',
        summary_text text,
        profile_text text,
        profile_refreshed_at timestamptz,
        embedding_vec vector({d}),
        fact_count integer NOT NULL DEFAULT 0,
        importance_score double precision,
        community_key varchar(160),
        is_active boolean NOT NULL DEFAULT true,
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        summary_refreshed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_entities_agent_key UNIQUE (agent_id, canonical_key)
    )""")
    op.execute("CREATE INDEX ix_entities_agent_seen ON memory_entities (agent_id, last_seen_at DESC)")
    op.execute(
        "CREATE INDEX ix_entities_agent_importance ON memory_entities (agent_id, importance_score DESC)"
    )
    op.execute(
        "CREATE INDEX ix_entities_agent_name_trgm ON memory_entities "
        "USING gin (agent_id, lower(display_name) gin_trgm_ops)"
    )

    op.execute("""
    CREATE TABLE memory_entity_aliases (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        alias varchar(256) NOT NULL,
        alias_text varchar(256),
        canonical_entity_key varchar(160) NOT NULL,
        canonical_entity_type varchar(64) NOT NULL DEFAULT 'other',
        source varchar(32) NOT NULL DEFAULT 'resolution',
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_aliases_agent_alias UNIQUE (agent_id, alias)
    )""")
    op.execute(
        "CREATE INDEX ix_aliases_agent_canonical ON memory_entity_aliases (agent_id, canonical_entity_key)"
    )

    op.execute("""
    CREATE TABLE memory_entity_relationships (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        source_entity_key varchar(160) NOT NULL,
        target_entity_key varchar(160) NOT NULL,
        rel_type varchar(64) NOT NULL,
        strength double precision NOT NULL DEFAULT 0.8,
        times_reinforced integer NOT NULL DEFAULT 0,
        evidence_fact_id uuid REFERENCES memory_facts(id) ON DELETE SET NULL,
        evidence_event_id uuid REFERENCES memory_events(id) ON DELETE SET NULL,
        provenance varchar(16) NOT NULL DEFAULT 'rule',
        valid_from timestamptz NOT NULL DEFAULT now(),
        valid_to timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        invalidated_at timestamptz,
        CONSTRAINT uq_rels_agent_edge UNIQUE (agent_id, source_entity_key, target_entity_key, rel_type)
    )""")
    op.execute(
        "CREATE INDEX ix_rels_agent_source ON memory_entity_relationships (agent_id, source_entity_key) "
        "WHERE valid_to IS NULL"
    )
    op.execute(
        "CREATE INDEX ix_rels_agent_target ON memory_entity_relationships (agent_id, target_entity_key) "
        "WHERE valid_to IS NULL"
    )
    op.execute(
        "CREATE INDEX ix_rels_agent_evidence ON memory_entity_relationships (agent_id, evidence_fact_id)"
    )
    op.execute("CREATE INDEX ix_rels_evidence ON memory_entity_relationships (evidence_fact_id)")
    op.execute("CREATE INDEX ix_rels_evidence_event ON memory_entity_relationships (evidence_event_id)")

    op.execute(f"""
    CREATE TABLE memory_meta_observations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        observation_type varchar(32) NOT NULL,
        title varchar(256) NOT NULL,
        text text NOT NULL,
        fingerprint varchar(128) NOT NULL,
        supporting_event_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
        supporting_fact_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
        entity_keys jsonb NOT NULL DEFAULT '[]'::jsonb,
        confidence double precision NOT NULL DEFAULT 0.7,
        importance double precision NOT NULL DEFAULT 0.5,
        times_reinforced integer NOT NULL DEFAULT 0,
        is_active boolean NOT NULL DEFAULT true,
        embedding_vec vector({d}),
        first_detected_at timestamptz NOT NULL DEFAULT now(),
        last_reinforced_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_meta_agent_fingerprint UNIQUE (agent_id, observation_type, fingerprint)
    )""")
    op.execute(
        "CREATE INDEX ix_meta_agent_active ON memory_meta_observations (agent_id, is_active, importance DESC)"
    )

    op.execute("""
    CREATE TABLE memory_attribute_registry (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        key varchar(64) NOT NULL,
        status varchar(20) NOT NULL DEFAULT 'proposed',
        value_type varchar(20) NOT NULL DEFAULT 'string',
        conflict_policy varchar(20) NOT NULL DEFAULT 'supersede',
        ttl_days integer,
        seen_count integer NOT NULL DEFAULT 0,
        proposed_by varchar(20) NOT NULL DEFAULT 'rule',
        reason text,
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        example_raw_key varchar(128),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz,
        CONSTRAINT uq_attrs_agent_key UNIQUE (agent_id, key)
    )""")

    op.execute(f"""
    CREATE TABLE memory_intentions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        trigger_type varchar(16) NOT NULL DEFAULT 'time',
        trigger_condition text NOT NULL,
        intended_action text NOT NULL,
        due_date timestamptz,
        status varchar(16) NOT NULL DEFAULT 'pending',
        trigger_embedding_vec vector({d}),
        source_context varchar(32),
        source_event_id uuid REFERENCES memory_events(id) ON DELETE CASCADE,
        confidence double precision NOT NULL DEFAULT 0.7,
        outcome_note text,
        created_at timestamptz NOT NULL DEFAULT now(),
        triggered_at timestamptz,
        fulfilled_at timestamptz
    )""")
    op.execute("CREATE INDEX ix_intentions_agent_status ON memory_intentions (agent_id, status, due_date)")

    op.execute(f"""
    CREATE TABLE session_observations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text NOT NULL,
        session_id text NOT NULL DEFAULT 'default',
        content text NOT NULL,
        topic varchar(64),
        entities_mentioned jsonb NOT NULL DEFAULT '[]'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        referenced_at timestamptz,
        relative_offset varchar(64),
        source_message_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
        is_active boolean NOT NULL DEFAULT true,
        merged_into_id uuid REFERENCES session_observations(id) ON DELETE SET NULL,
        emotion_label varchar(32),
        embedding_vec vector({d})
    )""")
    op.execute(
        "CREATE INDEX ix_session_obs_agent ON session_observations (agent_id, session_id, created_at DESC)"
    )

    op.execute("""
    CREATE TABLE memory_quarantine (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id text,
        source varchar(512) NOT NULL,
        row_number integer,
        reason text NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
    )""")
    op.execute("CREATE INDEX ix_quarantine_agent ON memory_quarantine (agent_id, created_at DESC)")


def downgrade() -> None:
    for table in (
        "memory_quarantine",
        "session_observations",
        "memory_intentions",
        "memory_attribute_registry",
        "memory_meta_observations",
        "memory_entity_relationships",
        "memory_entity_aliases",
        "memory_entities",
        "memory_fact_entity_links",
        "memory_facts",
        "memory_clusters",
        "memory_events",
    ):
        op.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
