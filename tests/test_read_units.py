"""Unit tests of the read pipeline's pure parts: planner, time windows, fusion, reranker blend,
context formatting. No database."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.protocols import LLMResult
from arandu_pipelines.read.entities import query_grams
from arandu_pipelines.read.executor import (
    Hit,
    PlanExecutor,
    PlanStep,
    QueryPlan,
    StepResult,
    fuse,
)
from arandu_pipelines.read.format import (
    UNDATED_FACTS,
    Pattern,
    compress_context,
    tokens,
)
from arandu_pipelines.read.planner import is_greeting, plan_retrieval
from arandu_pipelines.read.rank import FactCandidate
from arandu_pipelines.read.registry import DEFAULT_REGISTRY
from arandu_pipelines.read.rerank import rerank
from arandu_pipelines.read.temporal import parse_time
from arandu_pipelines.read.types import ScoredEvent, ScoredFact

NOW = datetime(2024, 6, 10, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("q", ["hi", "Hello!", "hey there", "oi", "Olá!", "bom dia", "Boa noite!!",
                               "thanks", "obrigado", "tudo bem?", "  ", "good morning everyone 👋"])
def test_greetings_are_skipped(q: str) -> None:
    assert is_greeting(q)
    assert plan_retrieval(q, [], NOW).strategy == "skip"


@pytest.mark.parametrize("q", ["hi, where does Ana live?", "Oi, onde o Carlos mora?", "what is hello world",
                               "Bom dia é o nome da padaria?"])
def test_questions_are_not_greetings(q: str) -> None:
    assert plan_retrieval(q, [], NOW).strategy == "multi_signal"


def test_aggregation_only_for_prefixes_in_the_schema() -> None:
    plan = plan_retrieval("Who are my friends?", ["person", "place"], NOW)
    assert [p.entity_pattern for p in plan.pattern_queries] == ["person:%"]
    assert plan.reason == "aggregation"
    assert plan_retrieval("Who are my friends?", ["place"], NOW).pattern_queries == []
    pt = plan_retrieval("Quais são os meus projetos?", ["project"], NOW)
    assert [p.entity_pattern for p in pt.pattern_queries] == ["project:%"]
    assert plan_retrieval("Where does Ana live?", ["person"], NOW).pattern_queries == []


def test_broad_queries() -> None:
    assert plan_retrieval("Tell me everything about Rafael", [], NOW).broad_query
    assert plan_retrieval("Me conte tudo sobre a Vertix", [], NOW).broad_query
    assert not plan_retrieval("Where does Rafael work?", [], NOW).broad_query


def _days(ws):
    return [(w.start.date().isoformat(), w.end.date().isoformat()) for w in ws]


def test_time_windows_absolute_and_relative() -> None:
    ws, _ = parse_time("what happened in 2022?", NOW)
    assert _days(ws) == [("2022-01-01", "2023-01-01")]
    ws, _ = parse_time("What did I do last May?", NOW)
    assert _days(ws) == [("2024-05-01", "2024-06-01")]
    ws, _ = parse_time("What did I do last May?", datetime(2024, 3, 1, tzinfo=UTC))
    assert _days(ws) == [("2023-05-01", "2023-06-01")]
    ws, _ = parse_time("What did Melanie paint on October 13, 2023?", NOW)
    assert _days(ws) == [("2023-10-13", "2023-10-14")]
    ws, _ = parse_time("o que houve em 8 de maio de 2023", NOW)
    assert _days(ws) == [("2023-05-08", "2023-05-09")]
    ws, _ = parse_time("yesterday", NOW)
    assert _days(ws) == [("2024-06-09", "2024-06-10")]
    assert parse_time("I may go to the party", NOW) == ([], [])
    assert parse_time("When did Caroline go to the support group?", NOW) == ([], [])


def test_time_anchor_relative_to_an_event() -> None:
    ws, anchors = parse_time("What did I buy two weeks before the trip?", NOW)
    assert ws == []
    assert len(anchors) == 1 and anchors[0].anchor_text == "trip" and anchors[0].offset_days == -14
    w = anchors[0].window(datetime(2024, 3, 20, tzinfo=UTC))
    assert w.contains(datetime(2024, 3, 6, tzinfo=UTC))
    assert not w.contains(datetime(2024, 3, 20, tzinfo=UTC))


def test_query_grams_longest_first_and_no_stopwords() -> None:
    grams = [g for _, _, g in query_grams("Onde o Marcos Tavares mora?")]
    assert grams.index("Marcos Tavares") < grams.index("Marcos")
    assert "o" not in grams and "Onde" not in grams


def _plan(strategy: str, combine: str = "union") -> QueryPlan:
    return QueryPlan(query="q", steps=[PlanStep(1, "a", {}, ""), PlanStep(2, "b", {}, "", combine=combine)],
                     combination_strategy=strategy)


def _results() -> dict[int, StepResult]:
    return {1: StepResult(1, "a", [Hit("fact", "x", 0.9), Hit("fact", "y", 0.3), Hit("event", "e1", 5.0)]),
            2: StepResult(2, "b", [Hit("fact", "y", 0.8), Hit("fact", "z", 0.4)])}


def test_fusion_weighted_union_rrf_and_filter() -> None:
    wu, _ = fuse(_plan("weighted_union"), _results())
    assert wu[("fact", "y")].fused == pytest.approx(0.3 / 0.9 + 1.0)
    assert wu[("fact", "y")].signals == {"a": 0.3, "b": 0.8}
    assert wu[("event", "e1")].fused == pytest.approx(1.0)
    rrf, _ = fuse(_plan("rrf"), _results())
    assert rrf[("fact", "y")].fused == pytest.approx(1 / 62 + 1 / 61)
    assert rrf[("fact", "x")].fused == pytest.approx(1 / 61)
    seq, _ = fuse(_plan("sequential_filter"), _results())
    assert sorted(k for k in seq) == [("event", "e1"), ("fact", "y")]
    inter, _ = fuse(_plan("weighted_union", combine="intersect"), _results())
    assert ("fact", "x") not in inter and ("fact", "y") in inter


def test_executor_orders_by_dependencies_and_survives_a_failing_step() -> None:
    calls: list[str] = []

    class Ok:
        needs_embedding = False

        def __init__(self, name: str) -> None:
            self.name = name

        async def query(self, ctx, params, prior):
            calls.append(self.name)
            return StepResult(0, self.name, [Hit("fact", f"{self.name}-{len(prior)}", 1.0)])

    class Boom(Ok):
        async def query(self, ctx, params, prior):
            raise RuntimeError("index offline")

    ex = PlanExecutor({"a": Ok("a"), "b": Ok("b"), "boom": Boom("boom")})
    plan = QueryPlan(query="q", steps=[PlanStep(1, "b", {}, "", depends_on=[2]), PlanStep(2, "a", {}, ""),
                                       PlanStep(3, "boom", {}, ""), PlanStep(4, "missing", {}, "")])
    res = asyncio.run(ex.execute(plan, object()))
    assert calls == ["a", "b"]
    assert res.step_results[1].hits[0].id == "b-1"  # saw its dependency's result
    assert "index offline" in (res.step_results[3].error or "")
    assert "unknown index" in (res.step_results[4].error or "")
    assert sorted(i for _, i in res.candidates) == ["a-0", "b-1"]


def test_registry_describes_every_index() -> None:
    text = DEFAULT_REGISTRY.describe()
    for name in ("semantic_facts", "lexical_facts", "graph", "pattern_query", "semantic_events",
                 "lexical_events", "temporal_anchor", "temporal_events", "recent_session"):
        assert f"- {name}(" in text


def _cand(i: int, formula: float) -> FactCandidate:
    c = FactCandidate(f"f{i}", "person:bruno", "Bruno", "person", None, f"fact {i}", 0.9, 0.5, NOW, None,
                      None, None, None, None, None, 0, False, None)
    c.formula = c.score = formula
    return c


class FakeLLM:
    def __init__(self, answer: str, delay: float = 0.0) -> None:
        self.answer, self.delay, self.calls = answer, delay, 0

    async def complete(self, messages, temperature=0, response_format=None, max_tokens=None):
        self.calls += 1
        await asyncio.sleep(self.delay)
        return LLMResult(self.answer)


def test_reranker_multiplicative_blend_and_veto() -> None:
    pool = [_cand(1, 0.92), _cand(2, 0.45), _cand(3, 0.38)]
    llm = FakeLLM('{"scores": [{"id": 1, "score": 1.0}, {"id": 2, "score": 0.2}, {"id": 3, "score": 0.05}]}')
    out = asyncio.run(rerank(llm, "q", pool, MemoryConfig()))
    assert out.applied and out.vetoed == ["f3"]
    assert pool[0].score == pytest.approx(0.92)
    assert pool[1].score == pytest.approx(0.45 * (0.3 + 0.7 * 0.2))
    assert pool[2].score == 0.0
    assert pool[1].scores["reranker"] == pytest.approx(0.2)


def test_reranker_failures_keep_the_formula_ranking() -> None:
    for llm in (FakeLLM("not json at all"), FakeLLM('{"scores": []}', delay=0.3)):
        pool = [_cand(1, 0.5)]
        out = asyncio.run(rerank(llm, "q", pool, MemoryConfig(reranker_timeout_sec=0.05)))
        assert pool[0].score == 0.5
        assert not out.applied or out.scored == 0
    pool = [_cand(1, 0.5)]
    asyncio.run(rerank(FakeLLM('{"scores": [{"id": 1, "score": 0}]}'), "q", pool,
                       MemoryConfig(enable_reranker=False)))
    assert pool[0].score == 0.5  # disabled: not even called


def _fact(i: int, text: str) -> ScoredFact:
    return ScoredFact(f"f{i}", "person:ana", "Ana", None, text, 1.0 - i / 100, valid_from=NOW)


def test_context_sections_budget_and_dates() -> None:
    facts = [_fact(i, f"Ana fact number {i} " + "x" * 60) for i in range(40)]
    events = [ScoredEvent("e1", "m1", {}, "s", "Ana", "I moved to Porto " + "y" * 500, NOW, 0.5)]
    ctx, stats = compress_context(facts, events, [Pattern("Talks about moving a lot", "")],
                                  MemoryConfig(context_max_tokens=200), dated=False)
    assert ctx.startswith("Known facts:\n- Ana fact number 0")
    assert "Observed patterns:\n- Talks about moving a lot" in ctx
    assert "Relevant conversations:\n- (2024-06-10) Ana: I moved to Porto" in ctx
    # with snippets below: the best fact, then UNDATED_FACTS more without an event date
    assert stats["hot_count"] + stats["warm_count"] == 1 + UNDATED_FACTS
    _, alone = compress_context(facts, [], [], MemoryConfig(context_max_tokens=200), dated=False)
    assert alone["hot_count"] + alone["warm_count"] < 40  # the budget cut the list
    assert alone["hot_count"] + alone["warm_count"] >= 5  # but the first facts are guaranteed
    # snippets are cut at 300 chars, the first (best-ranked) one at 450
    assert max(len(line) for line in ctx.splitlines()) < 480
    dated, _ = compress_context([_fact(0, "Ana moved to Porto")], [], [], MemoryConfig(), dated=True)
    assert "- Ana moved to Porto (2024-06-10)" in dated
    assert tokens("abcd" * 10) == 10


async def test_array_parameters_round_trip_whatever_their_characters(fresh_db_url) -> None:
    """List parameters of the read path travel as array literals (read/sql.py): quotes,
    backslashes, commas, braces, NULL-looking text, empty strings and any script must come back
    unchanged, and None as NULL."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from arandu_pipelines.read.sql import fetch
    from arandu_pipelines.store.engine import normalize_url

    values = ['a"b', "back\\slash", "comma,here", "{braces}", "NULL", "", " spaced ", "Привет 東京 🙂",
              "quote'single", "person:ana_maria", None]
    engine = create_async_engine(normalize_url(fresh_db_url))
    try:
        async with engine.connect() as conn:
            rows = await fetch(conn, "SELECT CAST(:v AS text[]) AS v, cardinality(CAST(:e AS text[])) AS n",
                               {"v": values, "e": []})
            prepared = await fetch(conn, "SELECT CAST(:v AS text[]) AS v", {"v": values[:3]}, stable_plan=True)
    finally:
        await engine.dispose()
    assert rows[0].v == values and rows[0].n == 0
    assert prepared[0].v == values[:3]


@pytest.mark.parametrize("setting, prepared", [(None, True), ("0", False), ("1", True)])
async def test_plan_stable_statements_are_prepared_unless_turned_off(fresh_db_url, monkeypatch, setting, prepared) -> None:
    from sqlalchemy.ext.asyncio import create_async_engine

    from arandu_pipelines.read import sql
    from arandu_pipelines.store.engine import normalize_url

    monkeypatch.setattr(sql, "PREPARE_STABLE", None)
    if setting is None:
        monkeypatch.delenv(sql.PREPARED_ENV, raising=False)
    else:
        monkeypatch.setenv(sql.PREPARED_ENV, setting)
    engine = create_async_engine(normalize_url(fresh_db_url))
    try:
        async with engine.connect() as conn:
            await sql.fetch(conn, "SELECT CAST(:k AS text[]) AS k /* stable */", {"k": ["a"]}, stable_plan=True)
            await sql.fetch(conn, "SELECT 1 AS one /* never prepared */")
            rows = await sql.fetch(conn, "SELECT statement FROM pg_prepared_statements")
    finally:
        await engine.dispose()
    texts = [r.statement for r in rows]
    assert any("/* stable */" in t for t in texts) is prepared
    assert not any("never prepared" in t for t in texts)


async def test_an_invalid_prepared_statements_setting_is_a_clear_error(fresh_db_url, monkeypatch) -> None:
    from sqlalchemy.ext.asyncio import create_async_engine

    from arandu_pipelines.read import sql
    from arandu_pipelines.store.engine import normalize_url

    monkeypatch.setattr(sql, "PREPARE_STABLE", None)
    monkeypatch.setenv(sql.PREPARED_ENV, "sometimes")
    engine = create_async_engine(normalize_url(fresh_db_url))
    try:
        async with engine.connect() as conn:
            with pytest.raises(ValueError, match="ARANDU_PREPARED_STATEMENTS='sometimes'.*1/true.*0/false"):
                await sql.fetch(conn, "SELECT 1 AS one", {}, stable_plan=True)
    finally:
        await engine.dispose()
