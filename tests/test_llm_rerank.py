"""The reranker walkthrough over real HTTP: Bruno's football team leaves nothing (veto), the
relevant question keeps its fact at full formula score, and a failing server changes nothing."""

from __future__ import annotations

import re

from arandu_pipelines.client import MemoryClient
from tests.fake_openai import Status, provider

RERANK = "You rate how useful each memory fact"
FACTS = [
    "Bruno Almeida runs marathons.",
    "Bruno Almeida developed an ML model for fraud detection.",
    "Bruno Almeida works at Orion Tech.",
]


def scores(keep: str | None):
    """A reranker reply scoring 1.0 the listed facts containing `keep`, 0.0 the others."""
    def reply(body: dict) -> dict:
        listing = body["messages"][-1]["content"]
        items = re.findall(r"^(\d+)\. (.*)$", listing, re.MULTILINE)
        return {"scores": [{"id": int(i), "score": 1.0 if keep and keep in text else 0.0}
                           for i, text in items]}
    return reply


async def _memory(url: str, embeddings, fake) -> MemoryClient:
    offline = MemoryClient(url, embeddings=embeddings)  # facts written by the offline pipeline
    await offline.initialize()
    for text in FACTS:
        await offline.write("ana", text, speaker_name="Ana")
    await offline.close()
    client = MemoryClient(url, llm=provider(fake), embeddings=embeddings)
    await client.initialize()
    return client


async def test_bruno_football_team_reranker_veto_over_http(fresh_db_url, embeddings, fake):
    fake.on((RERANK, "desenvolveu"), scores("ML model"))
    fake.on(RERANK, scores(None))
    memory = await _memory(fresh_db_url, embeddings, fake)
    try:
        r = await memory.retrieve("ana", "Qual o time de futebol do Bruno Almeida?", verbose=True)
        assert r.facts == [] and "Known facts" not in r.context
        assert r.pipeline.get("rerank").data["vetoed"]
        r = await memory.retrieve("ana", "O que o Bruno Almeida desenvolveu?")
        assert [f.fact_text for f in r.facts][:1] == [
            "Bruno Almeida developed an ML model for fraud detection"]
        assert r.facts[0].scores["reranker"] == 1.0
        assert sum(1 for q in fake.requests if RERANK in q.prompt) == 2
    finally:
        await memory.close()


async def test_reranker_failure_keeps_the_formula_ranking(fresh_db_url, embeddings, fake):
    fake.on(RERANK, Status(500, "down"))
    memory = await _memory(fresh_db_url, embeddings, fake)
    try:
        r = await memory.retrieve("ana", "What did Bruno Almeida develop?", verbose=True)
        assert any("ML model" in f.fact_text for f in r.facts)
        assert all("reranker" not in f.scores for f in r.facts)
        assert r.pipeline.get("rerank").data.get("error")
    finally:
        await memory.close()
