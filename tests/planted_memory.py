"""A small, fully linked memory planted straight into the tables (no extraction): the world the
background-job tests (and the `planted` fixture in conftest.py) work on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg

from arandu_pipelines.store.engine import register_vectors, vec

AGENT = "ag"
OTHER = "other-agent"
T0 = datetime(2023, 5, 1, 9, tzinfo=UTC)


def day(n: int, hour: int = 9) -> datetime:
    return T0 + timedelta(days=n - 1, hours=hour - 9)


EVENTS = [  # key, day, text
    ("e1", 1, "I live in São Paulo and I'm so happy!"),
    ("e2", 2, "I work at Acme."),
    ("e3", 3, "Ana is my wife. I love her. She works at Vertix."),
    ("e4", 4, "I moved to Rio de Janeiro. I'm exhausted."),
    ("e5", 5, "I went running with Guili, it was amazing!"),
    ("e6", 6, "I went running again, great morning."),
    ("e7", 7, "Running on Sunday with Guili was fun."),
    ("e8", 8, "Ana got a job at Globex."),
    ("e9", 10, "I'm really angry about the deadline at work!"),
]

ENTITIES = [  # key, name, type, first day, last day
    ("person:rafael", "Rafael", "person", 1, 10),
    ("person:ana", "Ana", "person", 3, 8),
    ("place:sao_paulo", "São Paulo", "place", 1, 1),
    ("place:rio_de_janeiro", "Rio de Janeiro", "place", 4, 4),
    ("organization:acme", "Acme", "organization", 2, 2),
    ("person:guili", "Guili", "person", 5, 7),
    ("organization:vertix", "Vertix", "organization", 3, 3),
    ("organization:globex", "Globex", "organization", 8, 8),
]

FACTS = [  # key, subject, attribute, value, text, event, confidence, reinforcement, mentions
    ("f1", "person:rafael", "location", "São Paulo", "Rafael lives in São Paulo", "e1", 0.95, 0, ["place:sao_paulo"]),
    ("f2", "person:rafael", "employer", "Acme", "Rafael works at Acme", "e2", 0.95, 2, ["organization:acme"]),
    ("f3", "person:rafael", "partner", "Ana", "Rafael is married to Ana", "e3", 0.95, 0, ["person:ana"]),
    ("f4", "person:rafael", "location", "Rio de Janeiro", "Rafael moved to Rio de Janeiro", "e4", 0.95, 0, ["place:rio_de_janeiro"]),
    ("f5", "person:rafael", "activity", "running", "Rafael went running with Guili", "e5", 0.9, 0, ["person:guili"]),
    ("f6", "person:rafael", "activity", "running", "Rafael went running in the morning", "e6", 0.9, 0, []),
    ("f7", "person:rafael", "activity", "running", "Rafael went running on Sunday with Guili", "e7", 0.9, 0, ["person:guili"]),
    ("f9", "person:ana", "employer", "Vertix", "Ana works at Vertix", "e3", 0.9, 0, ["organization:vertix"]),
    ("f10", "person:ana", "employer", "Globex", "Ana works at Globex", "e8", 0.9, 0, ["organization:globex"]),
    ("f11", "person:rafael", "trip", "Paris", "Rafael once visited Paris", None, 0.4, 0, []),
]

RELS = [  # source, type, target, strength, active
    ("person:rafael", "works_at", "organization:acme", 0.9, True),
    ("person:rafael", "partner_of", "person:ana", 0.8, True),
    ("person:rafael", "lives_in", "place:rio_de_janeiro", 0.8, True),
    ("person:rafael", "lives_in", "place:sao_paulo", 0.8, False),
    ("person:rafael", "friend_of", "person:guili", 0.8, True),
    ("person:ana", "works_at", "organization:vertix", 0.2, True),
]


def seed(url: str, embeddings, agent: str = AGENT) -> dict[str, str]:
    """Plant a small, fully linked memory for `agent`; returns key -> uuid."""
    ids: dict[str, str] = {}
    texts = [f[4] for f in FACTS] + [e[1] for e in ENTITIES]
    vectors = dict(zip(texts, embeddings.encode(texts)))
    with register_vectors(psycopg.connect(url)) as conn:
        for key, d, body in EVENTS:
            ids[key] = str(conn.execute(
                "INSERT INTO memory_events (agent_id, speaker, message_id, text, occurred_at, "
                "content_hash, extraction_status, extraction_attempts) "
                "VALUES (%s, 'Rafael', %s, %s, %s, %s, 'done', 1) RETURNING id",
                (agent, key, body, day(d), key)).fetchone()[0])
        for key, name, etype, first, last in ENTITIES:
            conn.execute(
                "INSERT INTO memory_entities (agent_id, canonical_key, display_name, entity_type, "
                "embedding_vec, first_seen_at, last_seen_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (agent, key, name, etype, vec(vectors[name]), day(first), day(last)))
            conn.execute(
                "INSERT INTO memory_entity_aliases (agent_id, alias, alias_text, canonical_entity_key, "
                "canonical_entity_type) VALUES (%s, %s, %s, %s, %s)",
                (agent, name.lower(), name, key, etype))
        for key, subj, attr, value, body, ev, conf, reinf, mentions in FACTS:
            when = day(int(ev[1:]) if ev else 1) if ev else datetime(2022, 1, 1, tzinfo=UTC)
            ids[key] = str(conn.execute(
                "INSERT INTO memory_facts (agent_id, entity_type, entity_key, entity_name, "
                "attribute_key, value_text, fact_text, confidence, importance, valid_from, "
                "source_event_id, embedding_vec, reinforcement_count, last_confirmed_at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 0.6, %s, %s, %s, %s, %s) RETURNING id",
                (agent, subj.split(":")[0], subj, {e[0]: e[1] for e in ENTITIES}[subj], attr,
                 value, body, conf, when, ids.get(ev) if ev else None, vec(vectors[body]), reinf,
                 day(9) if reinf else None)).fetchone()[0])
            conn.execute(
                "INSERT INTO memory_fact_entity_links (agent_id, fact_id, entity_key, is_primary) "
                "VALUES (%s, %s, %s, true)", (agent, ids[key], subj))
            for m in mentions:
                conn.execute(
                    "INSERT INTO memory_fact_entity_links (agent_id, fact_id, entity_key, is_primary) "
                    "VALUES (%s, %s, %s, false)", (agent, ids[key], m))
        # f4 supersedes f1 (closed at e4's time)
        conn.execute("UPDATE memory_facts SET valid_to = %s, invalidated_at = now() WHERE id = %s",
                     (day(4), ids["f1"]))
        conn.execute("UPDATE memory_facts SET supersedes_fact_id = %s WHERE id = %s", (ids["f1"], ids["f4"]))
        for s, rt, t, strength, active in RELS:
            conn.execute(
                "INSERT INTO memory_entity_relationships (agent_id, source_entity_key, "
                "target_entity_key, rel_type, strength, valid_from, valid_to, invalidated_at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (agent, s, t, rt, strength, day(1), None if active else day(4),
                 None if active else day(4)))
        conn.execute(
            "UPDATE memory_entities e SET fact_count = (SELECT count(*) FROM memory_fact_entity_links l "
            "JOIN memory_facts f ON f.id = l.fact_id AND f.valid_to IS NULL "
            "WHERE l.agent_id = e.agent_id AND l.entity_key = e.canonical_key) WHERE agent_id = %s",
            (agent,))
    return ids
