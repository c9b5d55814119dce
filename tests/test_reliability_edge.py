"""Issue 14, items 5, 6, 7, 9: every public method validates at the edge (a ValidationError that
names the field, raised before anything is stored), agent ids are taken exactly or refused,
retrieve() is fail-safe unless strict=True, and no error or log line carries a password."""

from __future__ import annotations

import logging
import math
import traceback
from datetime import UTC, datetime, timedelta, timezone

import psycopg
import pytest

from arandu_pipelines.client import MemoryClient
from arandu_pipelines.config import MemoryConfig, apply_overrides
from arandu_pipelines.errors import DatabaseError, RetrievalError, ValidationError
from tests.conftest import rows

AGENT = "alice"
T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
TABLES = ("memory_events", "memory_facts", "memory_entities", "memory_entity_aliases",
          "memory_fact_entity_links", "memory_quarantine")


def _counts(url: str) -> dict[str, int]:
    return {t: rows(url, f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}


# (keyword overrides of a good write, field the message must name)
BAD_WRITES = [
    ({"message": "a\ud800b"}, "message"),
    ({"metadata": {"k": "a\x00b"}}, "metadata"),
    ({"metadata": {"k": "\udcff"}}, "metadata"),
    ({"metadata": {"a\x00": 1}}, "metadata"),
    ({"metadata": {"k": math.nan}}, "metadata"),
    ({"metadata": {"k": math.inf}}, "metadata"),
    ({"metadata": {"k": {1, 2}}}, "metadata"),
    ({"metadata": {1: "int key"}}, "metadata"),
    ({"metadata": {"k": object()}}, "metadata"),
    ({"metadata": {"x": {}}}, None),
    ({"occurred_at": datetime(9999, 12, 31, 23, 0)}, "occurred_at"),
    ({"occurred_at": datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=5)))}, "occurred_at"),
    ({"occurred_at": "9999-12-31T23:59:59-10:00"}, "occurred_at"),
    ({"occurred_at": "2024-01-01T00:00\x00"}, "occurred_at"),
    ({"config_overrides": {"timezone": "Mars/Olympus"}}, "timezone"),
    ({"config_overrides": {"timezone": "UTC\x00"}}, "timezone"),
    ({"config_overrides": {"timezone": "../../etc/passwd"}}, "timezone"),
    ({"config_overrides": {"min_score": math.nan}}, "min_score"),
    ({"config_overrides": {"extraction_timeout_sec": -1.0}}, "extraction_timeout_sec"),
    ({"config_overrides": {"extraction_timeout_sec": math.inf}}, "extraction_timeout_sec"),
    ({"config_overrides": {"max_message_chars": -5}}, "max_message_chars"),
    ({"config_overrides": {"max_message_chars": 0}}, "max_message_chars"),
    ({"config_overrides": {"topk_facts": -1}}, "topk_facts"),
    ({"config_overrides": {"embed_batch_size": 0}}, "embed_batch_size"),
    ({"config_overrides": {"recency_half_life_days": 0}}, "recency_half_life_days"),
    ({"config_overrides": {"score_weights": {"semantic": math.nan}}}, "score_weights"),
    ({"config_overrides": {"score_weights": {"semantic": -1.0}}}, "score_weights"),
    ({"config_overrides": {"confidence_level_map": {"explicit": 7.0}}}, "confidence_level_map"),
    ({"config_overrides": {"fuzzy_threshold": 2.0}}, "fuzzy_threshold"),
    ({"config_overrides": {"extraction_mode": "bogus"}}, "extraction_mode"),
    ({"config_overrides": {"extraction_mode": "llm"}}, "extraction_mode"),  # no LLM configured
    ({"config_overrides": {"extra_namespaces": ["a\x00"]}}, "extra_namespaces"),
    ({"config_overrides": {"topk_fact": 3}}, "topk_facts"),  # unknown key, with the suggestion
    ({"config_overrides": {"max_mesage_chars": 10}}, "max_message_chars"),
    ({"recent_messages": "not a list"}, "recent_messages"),
    ({"recent_messages": ["ok", "nul\x00"]}, "recent_messages"),
    ({"recent_messages": [1, 2]}, "recent_messages"),
    ({"speaker_name": "Ana\x00"}, "speaker_name"),
    ({"speaker_name": "Ana\nBruno"}, "speaker_name"),
    ({"speaker_name": "\ud800"}, "speaker_name"),
    ({"session_id": "s\ud800"}, "session_id"),
    ({"session_id": " s1"}, "session_id"),
    ({"message_id": "m\t1"}, "message_id"),
    ({"message_id": "m1 "}, "message_id"),
    ({"message_id": "m\udc80"}, "message_id"),
    ({"dry_run": "yes"}, "dry_run"),
]


def _deep(n: int) -> dict:
    d: dict = {}
    cur = d
    for _ in range(n):
        cur["x"] = {}
        cur = cur["x"]
    return d


BAD_WRITES[9] = ({"metadata": _deep(200)}, "metadata")

BAD_AGENT_IDS = ["alice ", " alice", "\talice", "alice\t", "alice\u00a0", "\u2003alice", "alice\n",
                 "al\x01ice", "al\u2028ice", "alice\x7f", "al\ud800ice", "al\x00ice", "", "   ",
                 None, 5, b"alice", "a" * 257]


async def test_bad_write_arguments_are_refused_before_anything_is_stored(memory, fresh_db_url):
    await memory.write(AGENT, "I live in Lisbon.", speaker_name="Ana", occurred_at=T0,
                       message_id="keep")
    before = _counts(fresh_db_url)
    for overrides, field in BAD_WRITES:
        kwargs = {"agent_id": AGENT, "message": "I have a dog called Bolt.", "speaker_name": "Ana",
                      "occurred_at": T0 + timedelta(hours=1)}
        kwargs.update(overrides)
        with pytest.raises(ValidationError) as info:
            await memory.write(**kwargs)
        assert field in str(info.value), (overrides, str(info.value))
    assert _counts(fresh_db_url) == before


async def test_agent_ids_are_taken_exactly_or_refused(memory, fresh_db_url):
    await memory.write(AGENT, "I live in Lisbon.", speaker_name="Ana", occurred_at=T0)
    before = _counts(fresh_db_url)
    for bad in BAD_AGENT_IDS:
        calls = [
            memory.write(bad, "I like tea.", speaker_name="Ana"),
            memory.retrieve(bad, "where do I live?"),
            memory.get_all(bad),
            memory.entities(bad),
            memory.stats(bad),
            memory.delete_all(bad),
            memory.delete_messages(bad, session_id="default"),
            memory.delete(bad, "00000000-0000-0000-0000-000000000000"),
            memory.get(bad, "00000000-0000-0000-0000-000000000000"),
            memory.extract_pending(bad),
        ]
        for call in calls:
            with pytest.raises(ValidationError, match="agent_id"):
                await call
    # nothing of 'alice' was read through, written to or erased by a look-alike id
    assert _counts(fresh_db_url) == before
    assert rows(fresh_db_url, "SELECT DISTINCT agent_id FROM memory_events") == [(AGENT,)]
    # the message says what to do
    with pytest.raises(ValidationError, match=r"leading or trailing whitespace; pass it without"):
        await memory.write("alice\u00a0", "x", speaker_name="Ana")
    with pytest.raises(ValidationError, match="control character"):
        await memory.retrieve("\talice".replace("\t", "a\t"), "x")
    # speaker names are display text: surrounding spaces are trimmed, not refused
    res = await memory.write(AGENT, "I like tea.", speaker_name="  Ana ", occurred_at=T0)
    assert res.success
    assert rows(fresh_db_url, "SELECT DISTINCT speaker FROM memory_events") == [("Ana",)]


async def test_bad_read_and_erase_arguments_are_refused(memory, fresh_db_url):
    await memory.write(AGENT, "I live in Lisbon.", speaker_name="Ana", occurred_at=T0)
    before = _counts(fresh_db_url)
    cases = [
        (memory.retrieve(AGENT, "where\x00"), "query"),
        (memory.retrieve(AGENT, "\ud800 where"), "query"),
        (memory.retrieve(AGENT, "q", entity_keys=["person:\x00"]), "entity_keys"),
        (memory.retrieve(AGENT, "q", entity_keys=["person:\udfff"]), "entity_keys"),
        (memory.retrieve(AGENT, "q", entity_keys=[None]), "entity_keys"),
        (memory.retrieve(AGENT, "q", entity_keys=["k"] * 5000), "entity_keys"),
        (memory.retrieve(AGENT, "q", as_of=datetime(9999, 12, 31, 23)), "as_of"),
        (memory.retrieve(AGENT, "q", as_of="0001-01-01T00:00:00+05:00"), "as_of"),
        (memory.retrieve(AGENT, "q", config_overrides={"timezone": "Nowhere/City"}), "timezone"),
        (memory.retrieve(AGENT, "q", config_overrides={"topk_facts": -3}), "topk_facts"),
        (memory.retrieve(AGENT, "q", config_overrides={"min_similarity": math.nan}), "min_similarity"),
        (memory.retrieve(AGENT, "q", session_id="s\x00"), "session_id"),
        (memory.retrieve(AGENT, "q", session_id="s "), "session_id"),
        (memory.retrieve(AGENT, "q", strict="yes"), "strict"),
        (memory.get_all(AGENT, limit=-1), "limit"),
        (memory.get_all(AGENT, offset=-1), "offset"),
        (memory.get_all(AGENT, limit=2**70), "limit"),
        (memory.get_all(AGENT, limit=True), "limit"),
        (memory.get_all(AGENT, limit=1.5), "limit"),
        (memory.get_all(AGENT, entity_keys=["a\x00"]), "entity_keys"),
        (memory.entities(AGENT, limit=-1), "limit"),
        (memory.entities(AGENT, offset=2**70), "offset"),
        (memory.entities(AGENT, limit="10"), "limit"),
        (memory.delete_messages(AGENT, speaker="Ana\x00"), "speaker"),
        (memory.delete_messages(AGENT, message_ids=["m\x00"]), "message_ids"),
        (memory.delete_messages(AGENT, message_ids=[" m1"]), "message_ids"),
        (memory.delete_messages(AGENT, message_ids=[1]), "message_ids"),
        (memory.delete_messages(AGENT, message_ids=[]), "message_ids"),
        (memory.delete_messages(AGENT, session_id="\ud800"), "session_id"),
        (memory.extract_pending(AGENT, limit=-1), "limit"),
        (memory.extract_pending(AGENT, chunk_size=0), "chunk_size"),
        (memory.extract_pending(AGENT, config_overrides={"extraction_mode": "x"}), "extraction_mode"),
        (memory.import_messages("not rows"), "rows"),
        (memory.import_messages(None), "rows"),
        (memory.import_messages([], chunk_size=0), "chunk_size"),
        (memory.import_messages([], source="s\x00"), "source"),
        (memory.import_messages([], config_overrides={"nope": 1}), "nope"),
    ]
    for call, field in cases:
        with pytest.raises(ValidationError) as info:
            await call
        assert field in str(info.value), (field, str(info.value))
    assert _counts(fresh_db_url) == before


def test_memory_config_is_checked_when_built():
    for kwargs, field in [({"min_score": math.nan}, "min_score"), ({"timezone": "X/Y"}, "timezone"),
                          ({"extraction_mode": "bogus"}, "extraction_mode"),
                          ({"topk_facts": -1}, "topk_facts"), ({"hot_tier_ratio": 1.5}, "hot_tier_ratio")]:
        with pytest.raises(ValidationError, match=field):
            MemoryConfig(**kwargs)
    # cosine thresholds may be negative (a test of communities uses -1.0)
    assert MemoryConfig(community_similarity_threshold=-1.0).community_similarity_threshold == -1.0
    cfg, warnings = apply_overrides(MemoryConfig(), {"nope": 1})
    assert warnings and cfg == MemoryConfig()


async def test_long_entity_names_leave_no_dangling_link(memory, fresh_db_url):
    long = "A" + "b" * 299
    for msg in (f"My friend {long} lives in Porto.", f"I work at {long} Corp.",
                f"My name is {long}."):
        res = await memory.write(AGENT, msg, speaker_name="Ana", occurred_at=T0)
        assert res.success and not res.error, res.error
    dangling = rows(fresh_db_url,
                    "SELECT l.entity_key FROM memory_fact_entity_links l LEFT JOIN memory_entities e "
                    "ON e.agent_id = l.agent_id AND e.canonical_key = l.entity_key "
                    "WHERE e.canonical_key IS NULL")
    assert dangling == []
    names = rows(fresh_db_url, "SELECT display_name FROM memory_entities WHERE display_name LIKE 'Abbb%'")
    assert names and all(len(n) == 256 for (n,) in names)


# ---- item 5: retrieve() is fail-safe ----------------------------------------------------------
async def test_retrieve_returns_an_empty_result_on_a_database_error(memory, fresh_db_url):
    await memory.write(AGENT, "I live in Lisbon.", speaker_name="Ana", occurred_at=T0)
    assert (await memory.retrieve(AGENT, "where do I live?")).facts  # pool warm, facts there

    def kill_backends() -> None:  # a real database failure: the server drops our connections
        with psycopg.connect(fresh_db_url, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = current_database() AND pid <> pg_backend_pid()")

    kill_backends()
    res = await memory.retrieve(AGENT, "where do I live?", verbose=True)
    assert res.facts == [] and res.context == "" and res.strategy == "failed"
    assert any("retrieval failed" in w for w in res.warnings), res.warnings
    step = res.pipeline.get("error")
    assert step is not None and "Traceback" in step.data["traceback"]
    assert (await memory.retrieve(AGENT, "where do I live?")).facts  # and it recovers
    kill_backends()
    with pytest.raises(RetrievalError, match="retrieve\\(\\) failed") as info:
        await memory.retrieve(AGENT, "where do I live?", strict=True)
    assert info.value.__cause__ is not None
    # validation still raises up front, strict or not
    with pytest.raises(ValidationError):
        await memory.retrieve(AGENT, "q\x00")


async def test_retrieve_is_fail_safe_when_the_server_cannot_be_reached(embeddings):
    client = MemoryClient("postgresql://u:pw@127.0.0.1:1/db", embeddings=embeddings)
    try:
        res = await client.retrieve(AGENT, "anything")
        assert res.facts == [] and any("retrieval failed" in w for w in res.warnings)
        assert not any("pw@" in w for w in res.warnings)
        with pytest.raises(RetrievalError):
            await client.retrieve(AGENT, "anything", strict=True)
    finally:
        await client.close()


# ---- item 9: no password in any error, traceback or log line ----------------------------------
PASSWORD = "Hunter2-S3cr3t"
BAD_URLS = [
    f"postgresq://u:{PASSWORD}@h/db",
    f"mysql://u:{PASSWORD}@h/db",
    f"postgres//u:{PASSWORD}@h/db",
    f"host=h password={PASSWORD}",
    f"postgresql://u:{PASSWORD}@127.0.0.1:notaport/db",
    f"postgresql://u:{PASSWORD}@[::1/db",
    f"postgresql://u:{PASSWORD}@127.0.0.1:99999/db",
    f"postgresql://u:{PASSWORD}@127.0.0.1:1/db",
    f"postgresql://u:{PASSWORD}@h@x/db",
    f"postgresql://u:p/{PASSWORD}@127.0.0.1:1/db",
    f"postgresql://u:{PASSWORD}@/db?host=/nonexistent",
    f"postgresql://u:{PASSWORD}@127.0.0.1:1/db?connect_timeout=abc",
    f"  postgresql://u:{PASSWORD}@127.0.0.1:1/db%zz  ",
]


@pytest.mark.parametrize("url", BAD_URLS)
async def test_a_bad_database_url_never_shows_its_password(url, embeddings, caplog):
    caplog.set_level(logging.DEBUG)
    client = MemoryClient(url, embeddings=embeddings)
    try:
        with pytest.raises((ValidationError, DatabaseError)) as info:
            await client.initialize()
        exc = info.value
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        for shown in (str(exc), repr(exc), text, caplog.text):
            assert PASSWORD not in shown
        res = await client.retrieve(AGENT, "q", verbose=True)  # fail-safe path too
        assert PASSWORD not in repr(res.warnings) and PASSWORD not in repr(res.pipeline)
        with pytest.raises(RetrievalError) as info2:
            await client.retrieve(AGENT, "q", strict=True)
        text = "".join(traceback.format_exception(type(info2.value), info2.value,
                                                  info2.value.__traceback__))
        assert PASSWORD not in text and PASSWORD not in caplog.text
    finally:
        await client.close()


def test_redact_removes_url_and_keyword_passwords():
    from arandu_pipelines.store.engine import redact

    assert redact("postgresql://u:pw@h/db") == "postgresql://u:***@h/db"
    assert redact("x postgres://u:p@ss/w@h:5/db?a=1 y") == "x postgres://u:***@h:5/db?a=1 y"
    assert redact("host=h password='a b' user=u") == "host=h password=*** user=u"
    assert redact("postgresql://h/db") == "postgresql://h/db"
