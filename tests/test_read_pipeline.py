"""retrieve() end to end: real database, real MiniLM, data written through client.write().

The spec's walkthroughs (Marcos Tavares, Vertix via entity links, Bruno's football team vetoed),
plus the behaviours callers rely on: greetings skipped, aggregation, entity_keys with aliases and
warnings, time travel, session filter, agent isolation, citations, determinism, empty memory.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import UTC, datetime, timedelta

import pytest

from arandu_pipelines.protocols import LLMResult
from tests.conftest import rows

T0 = datetime(2025, 3, 3, 10, 0, tzinfo=UTC)

VERTIX_WORLD = [
    ("Marcos Tavares lives in Porto Alegre.", "Ana"),
    ("Marcos Tavares works at Vertix as a product manager.", "Ana"),
    ("Marcos Tavares is married to Carolina.", "Ana"),
    ("Clara Rezende left Vertix.", "Ana"),
    ("Ricardo Gomes is co-founder of Vertix.", "Ana"),
    ("Bruno Almeida runs marathons.", "Ana"),
    ("Bruno Almeida developed an ML model for fraud detection.", "Ana"),
    ("Bruno Almeida works at Orion Tech.", "Ana"),
    ("I adopted a cat named Mingau.", "Ana"),
]


async def write_all(memory, agent: str, messages, session: str = "s1", start: datetime = T0) -> list[str]:
    ids = []
    for i, (msg, speaker) in enumerate(messages):
        r = await memory.write(agent, msg, speaker_name=speaker, session_id=session,
                               occurred_at=start + timedelta(minutes=i), message_id=f"{session}-{i}",
                               metadata={"turn": i})
        assert r.success, r.error
        ids.append(r.event_id)
    return ids


class FakeLLM:
    """A tiny stand-in LLM: scores every listed fact with `score_for(fact_text)`."""

    def __init__(self, score_for) -> None:
        self.score_for = score_for
        self.calls = 0

    async def complete(self, messages, temperature=0, response_format=None, max_tokens=None):
        self.calls += 1
        lines = messages[-1]["content"].split("Facts:\n", 1)[1].splitlines()
        scores = []
        for line in lines:
            num, _, fact = line.partition(". ")
            scores.append({"id": int(num), "score": self.score_for(fact)})
        return LLMResult(json.dumps({"scores": scores}))


async def test_marcos_tavares_lives_in_porto_alegre(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD)
    r = await memory.retrieve("ana", "Onde o Marcos Tavares mora?", verbose=True)
    assert r.facts, r.context
    top = r.facts[0]
    assert "Porto Alegre" in top.fact_text
    assert top.entity_key == "person:marcos_tavares" and top.entity_name == "Marcos Tavares"
    assert {"semantic", "keyword", "recency", "importance", "relevance", "formula"} <= set(top.scores)
    assert top.speaker == "Ana" and top.valid_from == T0 and top.source_event_id
    assert r.context.startswith("Known facts:\n- Marcos Tavares lives in Porto Alegre")
    texts = [f.fact_text for f in r.facts]
    assert not any("marathon" in t or "Mingau" in t for t in texts)  # off-topic facts stay out
    assert "person:marcos_tavares" in r.pipeline.get("plan").data["entities"]
    assert r.pipeline.get("plan").data["combination_strategy"] == "weighted_union"
    assert any(s.name == "step:graph" for s in r.pipeline.steps)


async def test_vertix_facts_found_through_entity_links(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD)
    r = await memory.retrieve("ana", "O que aconteceu com a Vertix?", verbose=True)
    texts = " | ".join(f.fact_text for f in r.facts)
    assert "Clara Rezende" in texts and "Ricardo Gomes" in texts and "Marcos Tavares" in texts
    clara = next(f for f in r.facts if "Clara" in f.fact_text)
    assert clara.entity_key == "person:clara_rezende"  # primary subject is Clara, found via Vertix
    assert clara.scores.get("graph", 0) > 0
    links = rows(memory._database_url, "SELECT entity_key FROM memory_fact_entity_links WHERE fact_id = %s",
                 (clara.fact_id,))
    assert ("organization:vertix",) in links
    assert "organization:vertix" in r.pipeline.get("plan").data["entities"]


async def test_bruno_football_team_vetoed_by_the_reranker(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD)
    plain = await memory.retrieve("ana", "Qual o time de futebol do Bruno Almeida?")
    assert any("Bruno" in f.fact_text for f in plain.facts)  # the formula alone finds Bruno's facts
    memory.llm = FakeLLM(lambda fact: 0.0)
    r = await memory.retrieve("ana", "Qual o time de futebol do Bruno Almeida?", verbose=True)
    assert memory.llm.calls == 1
    assert r.facts == []
    assert "Known facts" not in r.context
    assert r.pipeline.get("rerank").data["vetoed"]
    memory.llm = FakeLLM(lambda fact: 1.0 if "ML model" in fact else 0.0)
    r = await memory.retrieve("ana", "O que o Bruno Almeida desenvolveu?")
    assert [f.fact_text for f in r.facts] == ["Bruno Almeida developed an ML model for fraud detection"]
    assert r.facts[0].scores["reranker"] == 1.0
    assert r.facts[0].score == pytest.approx(r.facts[0].scores["formula"], abs=1e-5)


async def test_reranker_off_without_llm_and_on_timeout(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD[:3])
    assert memory.llm is None and memory.config.enable_reranker  # default on, but no LLM: skipped
    base = await memory.retrieve("ana", "Where does Marcos Tavares live?")

    class Slow:
        async def complete(self, *a, **k):
            await asyncio.sleep(5)

    memory.llm = Slow()
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?",
                              config_overrides={"reranker_timeout_sec": 0.1})
    assert [f.fact_id for f in r.facts] == [f.fact_id for f in base.facts]
    assert any("reranker skipped" in w for w in r.warnings)


async def test_greeting_skips_everything(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD[:2])
    for q in ("oi", "Hello!", "bom dia"):
        r = await memory.retrieve("ana", q)
        assert r.strategy == "skip" and r.facts == [] and r.events == [] and r.context == ""


async def test_aggregation_lists_people(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD)
    r = await memory.retrieve("ana", "Who are my friends?", verbose=True)
    assert r.pipeline.get("plan").data["pattern_queries"] == ["person:%"]
    assert any(s.name == "step:pattern_query" and s.data["count"] > 0 for s in r.pipeline.steps)
    assert {f.entity_key.split(":")[0] for f in r.facts} == {"person"}


async def test_entity_keys_accept_aliases_and_warn_on_unknown(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD)
    r = await memory.retrieve("ana", "what does he do?", entity_keys=["bruno almeida", "person:nobody"])
    assert r.facts and all(f.entity_key == "person:bruno_almeida" for f in r.facts)
    assert r.events and all("Bruno" in e.text for e in r.events)  # messages scoped too
    assert r.warnings == ["entity_key 'person:nobody' not found (not canonical, no matching alias)"]
    none = await memory.retrieve("ana", "what does he do?", entity_keys=["person:nobody"])
    assert none.facts == [] and none.warnings
    bad = await memory.retrieve("ana", "where?", config_overrides={"no_such_option": 1})
    assert any("no_such_option" in w for w in bad.warnings)


async def test_sources_cite_the_messages_behind_the_answer(memory) -> None:
    ids = await write_all(memory, "ana", VERTIX_WORLD)
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?")
    assert r.sources, "no citations"
    first = r.sources[0]
    assert first.event_id == ids[0] and first.message_id == "s1-0" and first.metadata == {"turn": 0}
    assert any(s.startswith("fact:") for s in first.supports)
    assert len({s.event_id for s in r.sources}) == len(r.sources)
    assert [s.score for s in r.sources] == sorted((s.score for s in r.sources), reverse=True)
    assert {f.source_event_id for f in r.facts} <= {s.event_id for s in r.sources}
    ev = next(e for e in r.events if e.event_id == ids[0])
    assert ev.message_id == "s1-0" and ev.session_id == "s1" and ev.speaker == "Ana"
    assert ev.occurred_at == T0 and "Porto Alegre" in ev.text


async def test_session_filter(memory) -> None:
    await write_all(memory, "ana", [("My favourite band is Radiohead.", "Ana")], session="music")
    await write_all(memory, "ana", [("My favourite food is lasagna.", "Ana")], session="food",
                    start=T0 + timedelta(days=1))
    both = await memory.retrieve("ana", "What is my favourite thing?")
    assert {e.session_id for e in both.events} == {"music", "food"}
    only = await memory.retrieve("ana", "What is my favourite thing?", session_id="food")
    assert {e.session_id for e in only.events} == {"food"}
    assert all("Radiohead" not in f.fact_text for f in only.facts)


async def test_agent_isolation(memory) -> None:
    await write_all(memory, "ana", [("I live in Porto Alegre.", "Ana")])
    await write_all(memory, "bob", [("I live in Lisbon.", "Bob")])
    r = await memory.retrieve("bob", "Where do I live? Porto Alegre or Lisbon?")
    assert r.facts and all("Porto Alegre" not in f.fact_text for f in r.facts)
    assert all("Porto Alegre" not in e.text for e in r.events)
    assert "Porto Alegre" not in r.context.replace("Where do I live? Porto Alegre", "")


async def test_time_travel_as_of(memory) -> None:
    await write_all(memory, "rafa", [("I live in Lisbon.", "Rafael")], start=datetime(2023, 1, 10, tzinfo=UTC))
    await write_all(memory, "rafa", [("I moved to Porto.", "Rafael")], session="s2",
                    start=datetime(2024, 6, 1, tzinfo=UTC))
    # As if each message had been written when it was said (bi-temporal ingestion time).
    import psycopg

    with psycopg.connect(memory._database_url, autocommit=True) as conn:
        conn.execute("UPDATE memory_facts SET ingested_at = valid_from WHERE agent_id = 'rafa'")
        conn.execute("UPDATE memory_events SET created_at = occurred_at WHERE agent_id = 'rafa'")
    now = await memory.retrieve("rafa", "Where does Rafael live?")
    assert "Porto" in now.facts[0].fact_text
    then = await memory.retrieve("rafa", "Where does Rafael live?", as_of=datetime(2023, 6, 1, tzinfo=UTC))
    assert then.facts and "Lisbon" in then.facts[0].fact_text
    assert all("Porto" not in f.fact_text for f in then.facts)
    assert all(e.occurred_at <= datetime(2023, 6, 1, tzinfo=UTC) for e in then.events)
    before = await memory.retrieve("rafa", "Where does Rafael live?", as_of=datetime(2022, 1, 1, tzinfo=UTC))
    assert before.facts == [] and before.events == []


async def test_same_query_same_result(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD)
    a = await memory.retrieve("ana", "What happened to Vertix and its people?")
    b = await memory.retrieve("ana", "What happened to Vertix and its people?")

    def strip(r):
        d = dataclasses.asdict(r)
        d.pop("duration_ms")
        return json.dumps(d, default=str, sort_keys=True)

    assert strip(a) == strip(b)


async def test_empty_memory(memory) -> None:
    r = await memory.retrieve("nobody", "Where does Marcos live?")
    assert r.facts == [] and r.events == [] and r.sources == [] and r.context == ""
    assert r.total_candidates == 0 and r.warnings == []
    assert r.config_effective["topk_facts"] == 20


async def test_retrieval_counters_recorded_in_background(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD[:2])
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?")
    await asyncio.gather(*list(memory._background))
    got = dict(rows(memory._database_url,
                    "SELECT id::text, times_retrieved FROM memory_facts WHERE agent_id = 'ana'"))
    assert all(got[f.fact_id] == 1 for f in r.facts)
    assert sum(got.values()) == len(r.facts)


async def test_retrieval_counters_coalesce_without_losing_counts(memory) -> None:
    """Three retrieves in a row are written by one flush, and every bump is counted; close()
    writes what is still pending instead of dropping it."""
    await write_all(memory, "ana", VERTIX_WORLD[:2])
    await write_all(memory, "bob", VERTIX_WORLD[:2])
    results = [await memory.retrieve("ana", "Where does Marcos Tavares live?") for _ in range(3)]
    other = await memory.retrieve("bob", "Where does Marcos Tavares live?")
    assert len(memory._background) == 1  # one pending flush, not one task per call
    await memory.close()
    got = dict(rows(memory._database_url,
                    "SELECT id::text, times_retrieved FROM memory_facts WHERE agent_id = 'ana'"))
    expected: dict[str, int] = {}
    for r in results:
        for f in r.facts:
            expected[f.fact_id] = expected.get(f.fact_id, 0) + 1
    assert expected and all(got[k] == n for k, n in expected.items())
    assert sum(got.values()) == sum(expected.values())
    bob = dict(rows(memory._database_url,
                    "SELECT id::text, times_retrieved FROM memory_facts WHERE agent_id = 'bob'"))
    assert sum(bob.values()) == len(other.facts) > 0


async def test_temporal_window_prefers_messages_of_that_time(memory) -> None:
    await write_all(memory, "ana", [("We went hiking in the mountains.", "Ana")], session="a",
                    start=datetime(2023, 5, 8, tzinfo=UTC))
    await write_all(memory, "ana", [("We went hiking by the sea.", "Ana")], session="b",
                    start=datetime(2023, 9, 2, tzinfo=UTC))
    r = await memory.retrieve("ana", "Where did we go hiking in September 2023?", verbose=True)
    assert r.events[0].text == "We went hiking by the sea."
    assert r.events[0].scores.get("time_window") == 1.0
    r2 = await memory.retrieve("ana", "Where did we go hiking in May 2023?")
    assert r2.events[0].text == "We went hiking in the mountains."


async def test_many_concurrent_retrieves_on_one_client_neither_deadlock_nor_change_answers(memory) -> None:
    """Forty retrieves at once on one client (pool of 10 + 10): each holds a connection while its
    plan steps want more. Before `_Slots` every connection ended up held by a retrieve waiting
    for a second one, and 23 of 40 failed on the 30 s pool timeout. Answers must also be the
    same as when asked alone (steps that find no free connection share their retrieve's)."""
    await write_all(memory, "ana", VERTIX_WORLD)
    queries = ["Where does Marcos Tavares live?", "O que aconteceu com a Vertix?",
               "Who works at Vertix?", "Tell me about Marcos"]
    alone = {q: await memory.retrieve("ana", q) for q in queries}
    t0 = asyncio.get_running_loop().time()
    results = await asyncio.gather(*(memory.retrieve("ana", queries[i % 4]) for i in range(40)),
                                   return_exceptions=True)
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert asyncio.get_running_loop().time() - t0 < 25  # far from the 30 s pool timeout
    for i, r in enumerate(results):
        ref = alone[queries[i % 4]]
        assert [f.fact_id for f in r.facts] == [f.fact_id for f in ref.facts]
        assert [s.event_id for s in r.sources] == [s.event_id for s in ref.sources]
        assert r.context == ref.context


async def test_a_failing_query_embedding_degrades_to_lexical_and_graph_and_says_so(memory) -> None:
    """The embedding provider is an optional stage at read time: if it fails, the answer comes
    from BM25 and the graph, and the caller is told why the semantic scores are missing."""
    await write_all(memory, "ana", VERTIX_WORLD)

    class Broken:
        dimensions = memory.embeddings.dimensions

        async def embed_one(self, text: str) -> list[float]:
            raise RuntimeError("embedding endpoint down")

    healthy, memory.embeddings = memory.embeddings, Broken()
    try:
        r = await memory.retrieve("ana", "Where does Marcos Tavares live?", verbose=True)
    finally:
        memory.embeddings = healthy
    assert r.facts and "Porto Alegre" in r.facts[0].fact_text
    assert all("semantic" not in f.scores or f.scores["semantic"] == 0 for f in r.facts)
    assert any("query embedding failed" in w and "embedding endpoint down" in w for w in r.warnings)
    assert r.pipeline.get("embedding").data["error"] == "RuntimeError: embedding endpoint down"
