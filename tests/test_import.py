"""Batch import: bad rows set aside with reasons, good rows in, idempotent, ordered, chunk-size
independent, LoCoMo conversion, and the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest

from arandu_pipelines.write.importer import locomo_rows, read_rows
from tests.conftest import rows

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample_conversation.jsonl"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo-dev" / "conv-30.json"


def good(i: int, **over) -> dict:
    row = {"agent_id": "imp", "session_id": "s1", "speaker": "Rafael",
           "text": f"I visited museum number {i}.", "occurred_at": f"2023-05-{1 + i % 28:02d}T10:00:00Z",
           "message_id": f"m{i}"}
    row.update(over)
    return row


async def test_bad_rows_are_reported_and_good_rows_go_in(memory, fresh_db_url):
    data = [
        good(1),
        {"agent_id": "imp", "session_id": "s1", "speaker": "Rafael", "occurred_at": "2023-05-01"},
        good(2, occurred_at="not a date"),
        good(3, text="   "),
        good(4, speaker=None),
        good(5, text="nul\x00byte"),
        good(6, metadata="[1, 2]"),
        good(7, occurred_at="2999-01-01T00:00:00Z"),
        good(8, extra_column="x"),
    ]
    report = await memory.import_messages(data, extract=False)
    reasons = {r.row_number: r.reason for r in report.rows_rejected}
    assert reasons == {
        2: "missing field(s): text",
        3: "unparseable occurred_at 'not a date'",
        4: "empty text",
        5: "missing speaker",
        6: "text contains NUL bytes",
        7: "metadata must be a JSON object, got list",
        8: "occurred_at 2999-01-01T00:00:00+00:00 is in the future",
    }
    assert report.events_inserted == 2
    assert "extra_column" in report.warnings[0]
    assert rows(fresh_db_url, "SELECT message_id FROM memory_events ORDER BY 1") == [("m1",), ("m8",)]
    quarantined = rows(fresh_db_url, "SELECT row_number, reason FROM memory_quarantine ORDER BY 1")
    assert [n for n, _ in quarantined] == [2, 3, 4, 5, 6, 7, 8]


async def test_reimport_adds_nothing_with_or_without_message_ids(memory, fresh_db_url):
    data = [good(i) for i in range(5)] + [
        {k: v for k, v in good(9, text="No id here, hashed instead.").items() if k != "message_id"}]
    first = await memory.import_messages(data, extract=True)
    counts = {t: rows(fresh_db_url, f"SELECT count(*) FROM {t}")[0][0]
              for t in ("memory_events", "memory_facts", "memory_entities", "memory_fact_entity_links")}
    second = await memory.import_messages(data, extract=True)
    assert first.events_inserted == 6 and second.events_inserted == 0
    assert second.events_skipped_duplicate == 6
    for table, n in counts.items():
        assert rows(fresh_db_url, f"SELECT count(*) FROM {table}")[0][0] == n, table


async def test_rows_are_processed_in_occurred_at_order(memory, fresh_db_url):
    data = [
        good(1, text="I moved to Rio de Janeiro.", occurred_at="2023-06-01T00:00:00Z"),
        good(2, text="I live in São Paulo.", occurred_at="2023-01-01T00:00:00Z"),
    ]
    await memory.import_messages(data, extract=True)
    active = [f.fact_text for f in await memory.get_all("imp")]
    assert any("Rio de Janeiro" in t for t in active)
    assert not any("São Paulo" in t and "Rio" not in t for t in active)


async def test_extract_false_leaves_events_pending_for_extract_pending(memory, fresh_db_url):
    rows_in = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    report = await memory.import_messages(rows_in, extract=False)
    assert report.events_inserted == len(rows_in)
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts") == [(0,)]
    assert rows(fresh_db_url, "SELECT DISTINCT extraction_status FROM memory_events") == [("pending",)]
    agent = rows_in[0]["agent_id"]
    done = await memory.extract_pending(agent)
    assert done.events_extracted == len(rows_in) and done.facts_added > 0
    assert rows(fresh_db_url, "SELECT DISTINCT extraction_status FROM memory_events") == [("done",)]
    again = await memory.extract_pending(agent)
    assert again.rows_read == 0 and again.events_extracted == 0


async def test_chunk_size_does_not_change_the_outcome(memory, fresh_db_url, embeddings):
    rows_in = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    await memory.import_messages(rows_in, chunk_size=64)
    big = sorted((f.entity_key, f.fact_text) for f in await memory.get_all(rows_in[0]["agent_id"], limit=1000))
    one_by_one = [dict(r, agent_id="one") for r in rows_in]
    await memory.import_messages(one_by_one, chunk_size=1)
    small = sorted((f.entity_key, f.fact_text) for f in await memory.get_all("one", limit=1000))
    assert big == small and len(big) > 5


async def test_names_introduced_earlier_in_a_chunk_are_known_to_later_messages(memory):
    """A message is read knowing the people the messages before it introduced, whether they
    were committed in an earlier chunk or sit earlier in the same one: otherwise "Maria and
    Bruno got married" is filed under a different subject depending on where chunks split."""
    lines = ["My sister Maria lives in Lisbon.", "Maria works at Google.",
             "My friend Bruno moved to Porto.", "Bruno is a doctor at the Santa Maria hospital.",
             "Maria and Bruno got married last summer.", "Bolt loves the beach."]
    t0 = datetime(2024, 2, 1, 8, 0, tzinfo=UTC)

    def batch(agent: str) -> list[dict]:
        return [{"agent_id": agent, "session_id": "s", "speaker": "Rafael", "text": t,
                 "occurred_at": (t0 + timedelta(minutes=i)).isoformat(), "message_id": f"m{i}"}
                for i, t in enumerate(lines)]

    await memory.import_messages(batch("whole"), chunk_size=64)
    await memory.import_messages(batch("single"), chunk_size=1)
    whole = sorted((f.entity_key, f.fact_text) for f in await memory.get_all("whole", limit=100))
    single = sorted((f.entity_key, f.fact_text) for f in await memory.get_all("single", limit=100))
    assert whole == single
    assert any("married" in t for _, t in whole)


def test_file_formats_read_the_same_rows(tmp_path):
    data = [good(i) for i in range(3)]
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps(r) for r in data) + "\n{bad json\n")
    pd.DataFrame(data).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame(data).to_parquet(tmp_path / "a.parquet")
    (tmp_path / "b.jsonl").write_bytes(b'{"text": "\xff\xfe"}\n')
    jl = list(read_rows(tmp_path / "a.jsonl"))
    assert [r.data["message_id"] for r in jl[:3]] == ["m0", "m1", "m2"]
    assert jl[3].error.startswith("invalid JSON") and jl[3].number == 4
    assert [r.data["message_id"] for r in read_rows(tmp_path / "a.csv")] == ["m0", "m1", "m2"]
    assert [r.data["message_id"] for r in read_rows(tmp_path / "a.parquet")] == ["m0", "m1", "m2"]
    assert next(iter(read_rows(tmp_path / "b.jsonl"))).error.startswith("invalid UTF-8")


def test_locomo_converter_keeps_dia_ids_and_session_times():
    if not LOCOMO.exists():
        pytest.skip("LoCoMo dev data not present")
    out = locomo_rows(LOCOMO)
    raw = json.loads(LOCOMO.read_text())
    turns = [t for k, v in raw.items() if k.startswith("session_") and isinstance(v, list) for t in v]
    assert len(out) == len(turns) == 369
    assert out[0]["message_id"] == "D1:1" and out[0]["agent_id"] == "locomo-conv-30"
    assert out[0]["occurred_at"].startswith("2023-01-20T16:04")  # "4:04 pm on 20 January, 2023"
    assert out[1]["occurred_at"] > out[0]["occurred_at"]
    assert all(r["speaker"] in ("Jon", "Gina") for r in out)


@pytest.mark.slow
def test_cli_import_shows_progress_and_report(fresh_db_url, tmp_path):
    data = [good(i) for i in range(4)] + [good(99, text="")]
    path = tmp_path / "conv.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in data))
    env = dict(os.environ, DATABASE_URL=fresh_db_url)
    out = subprocess.run([sys.executable, "-m", "arandu_pipelines.cli", "import", "-v", str(path)],
                         env=env, capture_output=True, check=False, text=True, timeout=300)
    assert out.returncode == 1, out.stderr  # 1: some rows were rejected (README, "Exit codes")
    assert "rows read: 5, stored: 4" in out.stdout and "row 5: empty text" in out.stdout
    assert "extracted: 4/4 messages" in out.stderr
    again = subprocess.run([sys.executable, "-m", "arandu_pipelines.cli", "import", str(path)],
                           env=env, capture_output=True, check=False, text=True, timeout=300)
    assert "stored: 0, already present: 4" in again.stdout


def test_packed_units_match_separate_encoding(embeddings):
    import numpy as np

    items = [("Rafael", ["I moved to Lisbon last year.", "I love the food there."]),
             ("Ana", ["Eu trabalho na Vertix."]),
             ("Rafael", ["Guili is my brother Guilherme.", "He plays chess.", "Ok!"])]
    packed = embeddings.encode_units(items)
    assert [len(v) for v in packed] == [2, 1, 3]
    units = [f"{speaker}: {s}" for speaker, ss in items for s in ss]
    separate = np.asarray(embeddings.encode(units))
    got = np.asarray([v for vs in packed for v in vs])
    assert np.allclose(np.linalg.norm(got, axis=1), 1, atol=1e-4)
    cos = (separate * got).sum(axis=1)
    assert cos[2] > 0.9999  # one sentence: exactly the separate encoding
    assert cos.min() > 0.9  # several: the head is shared, the vector stays near the separate one
    assert float(got[0] @ got[1]) < 0.95  # two sentences, two different vectors
    # messages packed into one row do not see each other: each alone gives the same vectors
    alone = [embeddings.encode_units([item])[0] for item in items]
    assert np.allclose(np.asarray([v for vs in alone for v in vs]), got, atol=1e-5)


def test_a_unit_with_no_speaker_is_its_plain_text(embeddings):
    """bench/ingest.py measures the import's own encoder on the bare message texts this way."""
    import numpy as np

    texts = ["I moved to Lisbon last year.", "Eu trabalho na Vertix desde 2021, com a Clara."]
    plain = np.asarray([vs[0] for vs in embeddings.encode_units([("", [t]) for t in texts])])
    assert ((plain * np.asarray(embeddings.encode(texts))).sum(axis=1) > 0.9999).all()


def test_packed_units_run_as_a_traced_graph(embeddings):
    """Eager, the pass takes the GIL per op and an import's prefetch thread crawls beside the
    event loop; a silent fallback to it would cost throughput without failing anything else."""
    from arandu_pipelines.providers import local_embeddings

    embeddings.encode_units([("Ana", ["Oi."])])
    assert local_embeddings._packed_encoder() is not None


def test_rows_split_over_single_threaded_workers_give_the_same_vectors(embeddings):
    """With several torch threads, encode_units deals its rows to one-thread workers; the vectors
    must not depend on it, and the process's torch thread count must come back unchanged (the
    raw encode() path and every later encode rely on it)."""
    import numpy as np
    import torch

    from arandu_pipelines.providers.local_embeddings import LocalEmbeddings

    items = [(f"Speaker{i % 3}", [f"Message {i} says something about topic {i * 7}.",
                                  "And a second sentence."][: 1 + i % 2]) for i in range(40)]
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        split = LocalEmbeddings(row_tokens=32).encode_units(items)  # 40 messages: many rows
        assert torch.get_num_threads() == 2
        whole = LocalEmbeddings(row_tokens=32, split_rows=False).encode_units(items)
    finally:
        torch.set_num_threads(before)
    assert [len(v) for v in split] == [len(v) for v in whole] == [1 + i % 2 for i in range(40)]
    assert np.allclose(np.asarray([v for vs in split for v in vs]),
                       np.asarray([v for vs in whole for v in vs]), atol=1e-5)
    # each worker runs one OpenMP thread (two workers with two threads each would oversubscribe
    # the cores), while the caller keeps its own count
    from arandu_pipelines.providers.local_embeddings import _encode_pool

    pool = _encode_pool(2)
    infos = [pool.submit(torch.__config__.parallel_info).result() for _ in range(4)]
    assert all("omp_get_max_threads() : 1\n" in info for info in infos), infos[0]
    assert f"omp_get_max_threads() : {torch.get_num_threads()}\n" in torch.__config__.parallel_info()


async def test_the_prefetch_queue_encodes_each_chunk_once_and_drops_chunks_never_taken():
    from arandu_pipelines.write.events import EventInput
    from arandu_pipelines.write.prefetch import UnitPrefetch

    class Fake:
        def __init__(self) -> None:
            self.calls: list[list[str]] = []

        async def embed_units(self, items):
            self.calls.append([s for _, ss in items for s in ss])
            return [[[float(len(s))] for s in ss] for _, ss in items]

    def chunk(*texts: str) -> list[EventInput]:
        return [EventInput(agent_id="a", session_id="s", speaker="Ana", text=t,
                           occurred_at=datetime(2023, 5, 8, tzinfo=UTC)) for t in texts]

    fake = Fake()
    prefetch = UnitPrefetch(fake, lambda text: [text])
    c0, c1, c2 = chunk("one"), chunk("two", "three"), chunk("four")
    prefetch.start(c0)
    prefetch.start(c1)
    prefetch.start(c1)  # already queued: not encoded twice
    got = await prefetch.take(c1)  # c0 was never taken (its chunk failed): dropped
    assert got == {("Ana", ("two",)): [[3.0]], ("Ana", ("three",)): [[5.0]]}
    assert await prefetch.take(c0) == {}
    assert await prefetch.take(c2) == {}  # never started
    await prefetch.close()
    assert sorted(map(tuple, fake.calls)) == [("one",), ("two", "three")]


def test_packed_rows_fill_without_overflow():
    from arandu_pipelines.providers.local_embeddings import _fill_rows

    lengths = [100, 60, 60, 30, 20, 128, 5, 5]
    rows_ = _fill_rows(lengths, 128)
    assert sorted(i for r in rows_ for i in r) == list(range(len(lengths)))
    assert all(sum(lengths[i] for i in r) <= 128 for r in rows_)
    assert len(rows_) == 4  # 128 | 100+20+5 | 60+60+5 | 30


async def test_both_embedding_modes_import_the_same_facts(memory, fresh_db_url):
    rows_in = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    await memory.import_messages(rows_in)  # default: packed
    packed = sorted(f.fact_text for f in await memory.get_all(rows_in[0]["agent_id"], limit=1000))
    await memory.import_messages([dict(r, agent_id="s") for r in rows_in],
                                 config_overrides={"embedding_mode": "sentences"})
    sentences = sorted(f.fact_text for f in await memory.get_all("s", limit=1000))
    assert packed == sentences and packed
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE embedding_vec IS NULL") == [(0,)]
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts WHERE embedding_vec IS NULL") == [(0,)]


async def test_an_unknown_embedding_mode_is_refused_before_anything_is_stored(memory, fresh_db_url):
    with pytest.raises(ValueError, match="embedding_mode.*'packed', 'sentences'"):
        await memory.import_messages([good(1)], config_overrides={"embedding_mode": "late"})
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events") == [(0,)]


class _CountingEmbeddings:
    """The session's local model, counting what reaches `embed_units` (the message path)."""

    def __init__(self, inner, fail: bool = False) -> None:
        self.inner, self.fail = inner, fail
        self.dimensions, self.model_name = inner.dimensions, inner.model_name
        self.unit_calls: list[int] = []  # messages per call that carries any
        self.plain_units = 0  # texts sent as plain units (names, facts without a sentence)
        self.text_calls = 0  # calls of embed(): the eager path

    async def embed(self, texts):
        self.text_calls += 1
        return await self.inner.embed(texts)

    async def embed_one(self, text):
        return await self.inner.embed_one(text)

    async def embed_units(self, items):
        messages = sum(1 for speaker, _ in items if speaker)
        if messages:
            self.unit_calls.append(messages)
        self.plain_units += len(items) - messages
        if self.fail:
            raise RuntimeError("encoder down")
        return await self.inner.embed_units(items)


def _event_vectors(url: str, agent: str) -> dict[str, list[float]]:
    import numpy as np

    got = rows(url, "SELECT message_id, embedding_vec::text FROM memory_events WHERE agent_id = %s", (agent,))
    return {m: np.asarray(json.loads(v)) for m, v in got if v is not None}


async def test_an_import_encodes_each_chunk_ahead_and_stores_the_vectors_a_write_would(
        fresh_db_url, embeddings):
    from arandu_pipelines.client import MemoryClient

    rows_in = [json.loads(line) for line in SAMPLE.read_text().splitlines()][:7]
    spy = _CountingEmbeddings(embeddings)
    async with MemoryClient(fresh_db_url, embeddings=spy) as memory:
        report = await memory.import_messages(rows_in, chunk_size=3)
        assert report.events_extracted == 7
        # one encode per chunk (3 + 3 + 1 messages), each started before its chunk ran; the
        # names to resolve go through the same encoder as plain units, never the eager path
        assert spy.unit_calls == [3, 3, 1]
        assert spy.plain_units > 0 and spy.text_calls == 0
        for r in rows_in:
            await memory.write("w", r["text"], r["speaker"], occurred_at=r["occurred_at"],
                               message_id=r["message_id"])
    imported, written = _event_vectors(fresh_db_url, rows_in[0]["agent_id"]), _event_vectors(fresh_db_url, "w")
    assert len(imported) == 7 and imported.keys() == written.keys()
    for m in imported:
        assert float(imported[m] @ written[m]) > 0.9999, m


async def test_a_wrong_sentence_prediction_costs_a_second_encode_not_a_different_vector(
        fresh_db_url, embeddings):
    from arandu_pipelines.client import MemoryClient

    rows_in = [json.loads(line) for line in SAMPLE.read_text().splitlines()][:4]
    spy = _CountingEmbeddings(embeddings)
    async with MemoryClient(fresh_db_url, embeddings=spy) as memory:
        await memory.import_messages([dict(r, agent_id="right") for r in rows_in], chunk_size=2)
        right_calls = list(spy.unit_calls)
        spy.unit_calls.clear()
        original = memory._pipeline

        def mispredicting(config):
            pipeline = original(config)
            pipeline.sentences = lambda text: [text.upper()]  # never what extraction reports
            return pipeline

        memory._pipeline = mispredicting
        await memory.import_messages([dict(r, agent_id="wrong") for r in rows_in], chunk_size=2)
    assert right_calls == [2, 2]
    assert spy.unit_calls == [2, 2, 2, 2]  # each chunk: the useless prefetch, then its own encode
    a, b = _event_vectors(fresh_db_url, "right"), _event_vectors(fresh_db_url, "wrong")
    assert len(a) == 4 and all(float(a[m] @ b[m]) > 0.9999 for m in a)


async def test_a_failing_encoder_leaves_events_stored_and_the_import_finished(fresh_db_url, embeddings):
    """Events are kept and the import finishes, but nothing is stored as extracted without its
    vectors: the events are marked failed, for extract_pending / the sensor to retry (issue 14)."""
    from arandu_pipelines.client import MemoryClient

    rows_in = [json.loads(line) for line in SAMPLE.read_text().splitlines()][:5]
    spy = _CountingEmbeddings(embeddings, fail=True)
    async with MemoryClient(fresh_db_url, embeddings=spy) as memory:
        report = await memory.import_messages(rows_in, chunk_size=2)
    assert report.events_inserted == 5 and report.events_extracted == 0
    assert rows(fresh_db_url, "SELECT extraction_status, count(*), count(embedding_vec) FROM memory_events "
                "GROUP BY 1") == [("failed", 5, 0)]
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts") == [(0,)]


async def test_import_labels_events_with_its_source(memory, fresh_db_url):
    """import_messages(source=...) labels the stored events (it was always "import": the Dagster
    import asset's preview, which lists the events of its source, came out empty)."""
    rows_in = [{"agent_id": "src", "session_id": "s", "speaker": "Ana", "text": f"hello {i}",
                "occurred_at": "2024-01-01T10:00:00Z", "message_id": f"m{i}"} for i in range(3)]
    await memory.import_messages(rows_in, extract=False, source="import:abc123")
    await memory.import_messages([dict(rows_in[0], message_id="x")], extract=False)
    got = rows(fresh_db_url, "SELECT source, count(*) FROM memory_events WHERE agent_id = 'src' "
                             "GROUP BY 1 ORDER BY 1")
    assert got == [("import", 1), ("import:abc123", 3)]


async def test_a_large_import_leaves_the_planner_statistics_fresh(memory, fresh_db_url):
    """Questions right after an import must not run on a table the planner has no statistics
    for (a first pass of retrieves was 10x slower until autovacuum came by)."""
    from arandu_pipelines.write.importer import ANALYZE_MIN_EVENTS

    def analysed() -> bool:
        return rows(fresh_db_url, "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables "
                                  "WHERE relname = 'memory_events'")[0][0]

    small = await memory.import_messages([good(i) for i in range(5)], extract=False)
    assert small.events_inserted == 5 and not analysed()  # a few rows: autovacuum's business
    big = await memory.import_messages([good(i) for i in range(5, 5 + ANALYZE_MIN_EVENTS)], extract=False)
    assert big.events_inserted == ANALYZE_MIN_EVENTS and analysed()
