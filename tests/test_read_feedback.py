"""Issue 18, feedback from the first message ranking (read/feedback.py).

The answer to "What will Kate do at the bakery opening?" is a turn that continues the top hit two
turns later and shares no word with the question ("I'll hand out free croissants ..."): the ±1
neighbour terms of read/events.py do not reach it, the second pass's ±2..WIDE window does. The
conversation below is invented.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arandu_pipelines.read import events as ev
from arandu_pipelines.read import feedback as fb
from arandu_pipelines.read.events import EventRow, _score
from arandu_pipelines.read.lexical import CorpusStats, QueryTerms

T0 = datetime(2025, 5, 2, 9, 0, tzinfo=UTC)
AGENT = "bakery-chat"
QUESTION = "What will Kate do at the bakery opening?"

SESSIONS: list[list[tuple[str, str]]] = [
    [("Leo", "heyy how's the bakery coming along?"),
     ("Kate", "The official opening of the bakery is this Saturday!"),
     ("Leo", "omg congrats!! 🎉"),
     ("Kate", "I'll hand out free croissants and a jazz trio plays all afternoon"),
     ("Leo", "count me in"),
     ("Kate", "bring your sister too")],
    [("Kate", "Went to a concert last night, the band was so loud lol"),
     ("Leo", "which one?"),
     ("Kate", "Some local indie group, I forget the name"),
     ("Leo", "nice")],
    [("Kate", "My cousin's wedding is next month, I have to give a speech"),
     ("Leo", "nervous?"),
     ("Kate", "A little, I'll practise in front of the mirror"),
     ("Leo", "you'll do great")],
    [("Leo", "did you see the new cafe by the station?"),
     ("Kate", "Yes! Their grand opening had balloons and a magician"),
     ("Leo", "fancy"),
     ("Kate", "I might steal the balloon idea")],
    [("Kate", "I'm hosting a dinner party on Friday for the neighbours"),
     ("Leo", "what are you cooking?"),
     ("Kate", "Lasagna and a lemon tart"),
     ("Leo", "yum")],
]
EVIDENCE = "s0:3"


def _conversation() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for s, turns in enumerate(SESSIONS):
        start = T0 + timedelta(days=5 * s)
        for t, (who, text) in enumerate(turns):
            rows.append({"agent_id": AGENT, "session_id": f"s{s}", "speaker": who, "text": text,
                         "message_id": f"s{s}:{t}", "occurred_at": (start + timedelta(minutes=t)).isoformat()})
    return rows


async def _ranked(memory, k: int) -> list[str]:
    r = await memory.retrieve(AGENT, QUESTION, config_overrides={"topk_events": k})
    return [e.message_id for e in r.events]


async def test_a_turn_continuing_the_top_hit_is_found_after_and_not_before(memory, monkeypatch) -> None:
    """The croissant turn is two turns after the top hit and shares no word with the question:
    without the second pass it ranks 5th (behind turns carried by ±1 neighbour terms and another
    session's "grand opening"), with it 3rd."""
    await memory.import_messages(_conversation())
    said = {(f"s{s}:{t}"): text for s, turns in enumerate(SESSIONS) for t, (_, text) in enumerate(turns)}
    words = lambda text: {w.strip("?!.,'").lower() for w in text.split()} - {"the", "a", "at", "do", "what"}
    assert not words(said[EVIDENCE]) & words(QUESTION)
    monkeypatch.setattr(ev, "FEEDBACK", False)
    before = await _ranked(memory, 3)
    monkeypatch.setattr(ev, "FEEDBACK", True)
    after = await _ranked(memory, 3)
    assert after[0] == before[0] == "s0:1"  # the top hit stays
    assert EVIDENCE not in before, before
    assert EVIDENCE in after, after
    assert await _ranked(memory, 3) == after  # deterministic: same database, same query


async def test_the_window_is_bounded_and_deterministic(memory) -> None:
    """At most FB_DOCS feedback messages, each bringing the turns 2..WIDE away in its own session;
    the same call gives the same result."""
    from arandu_pipelines.read.lexical import load_terms
    from arandu_pipelines.read.scope import Scope

    await memory.import_messages(_conversation())
    emb = await memory.embeddings.embed_one(QUESTION)
    async with memory.engine.connect() as conn:
        terms = await load_terms(conn, AGENT, QUESTION)
        ids = {r[0]: r[1] for r in (await conn.exec_driver_sql(
            "SELECT message_id, id::text FROM memory_events WHERE agent_id = %s", (AGENT,))).all()}
        seeds = [ids[m] for m in ("s0:1", "s3:1", "s4:2", "s2:2", "s1:0")]  # five: one too many
        got = await fb.feedback(conn, Scope(AGENT), terms, emb, seeds, [ids["s0:1"]])
        again = await fb.feedback(conn, Scope(AGENT), terms, emb, seeds, [ids["s0:1"]])
    by_id = {v: k for k, v in ids.items()}
    assert got == again
    assert fb.FB_DOCS == 4 and fb.WIDE == 3
    pairs = [(by_id[eid], by_id[seed], d) for eid, near in got.near.items() for seed, d in near]
    assert pairs and all(2 <= abs(d) <= fb.WIDE for _, _, d in pairs)
    assert all(m.split(":")[0] == s.split(":")[0] for m, s, _ in pairs)  # same session only
    assert all(int(m.split(":")[1]) - int(s.split(":")[1]) == d for m, s, d in pairs)  # the true offset
    assert "s1:0" not in {s for _, s, _ in pairs}  # the fifth seed is not used
    assert ("s0:3", "s0:1", 2) in pairs and ("s0:4", "s0:1", 3) in pairs
    assert len(got.new) <= fb.FB_DOCS * 2 * (fb.WIDE - 1)
    assert {by_id[n.id] for n in got.new} == {m for m, _, _ in pairs}  # the unscored ones come in


def test_a_far_turn_gets_a_decaying_bounded_share() -> None:
    """A turn 2 away gets the feedback message's base, 3 away x NEAR_DECAY; several feedback
    messages nearby do not add up (the best one lends); only the feedback message's own speaker
    going on is lifted, and a short reaction ("lmao") gets a share by its words."""
    terms = QueryTerms([], CorpusStats(), CorpusStats())

    def row(i: int, kw: float, sim: float, who: str = "Kate", text: str = "") -> EventRow:
        return EventRow(f"e{i}", "s1", who, text or f"turn number {i} says something", T0 + timedelta(minutes=i),
                        f"m{i}", None, kw, sim)

    top, two, three = row(0, 1.0, 0.9), row(2, 0.0, 0.2), row(3, 0.0, 0.2)
    other, leo, short = row(5, 1.0, 0.9), row(4, 0.0, 0.2, who="Leo"), row(6, 0.0, 0.2, text="lmao 😂")
    two.near, three.near, leo.near, short.near = [("e0", 2), ("e5", -3)], [("e0", 3)], [("e0", 2)], [("e0", 2)]
    rows = [top, two, three, other, leo, short]
    _score(rows, terms, {}, [], [], feedback=True)
    assert two.parts["context_near"] == pytest.approx(top.base)
    assert three.parts["context_near"] == pytest.approx(top.base * ev.NEAR_DECAY)
    assert two.score > three.score
    assert "context_near" not in leo.parts  # another speaker's turn: a reaction, not a continuation
    assert short.parts["context_near"] == pytest.approx(top.base / ev.NEAR_WORDS)  # one word of 3+ letters
    plain = [row(0, 1.0, 0.9), row(2, 0.0, 0.2), row(3, 0.0, 0.2), row(5, 1.0, 0.9)]
    plain[1].near = [("e0", 2)]
    _score(plain, terms, {}, [], [])  # the first pass: no window term
    assert "context_near" not in plain[1].parts


def test_the_window_stays_within_event_max_scan() -> None:
    """What is left of event_max_scan bounds the new messages: nearest the best seed first."""
    def new(i: str) -> EventRow:
        return EventRow(i, "s", None, "", T0, None, None, 0.0, 0.0, None, None)

    got = fb.Feedback(near={"a": [("s2", 2)], "b": [("s1", -3)], "c": [("s1", 2)], "d": [("s1", 3), ("s2", -2)]},
                      new=[new("a"), new("b"), new("c"), new("d")])
    assert [n.id for n in fb.closest(got, ["s1", "s2"], 3)] == ["c", "b", "d"]
    assert fb.closest(got, ["s1", "s2"], 0) == [] and fb.closest(got, ["s1", "s2"], -4) == []


async def test_the_feedback_statement_is_planned_once_per_connection(memory) -> None:
    """The statement is prepared (stable_plan) so that Postgres stops planning it: planning took
    0.6-0.8 ms, more than running it (0.3-0.4 ms), on the critical path after the first ranking.
    With the seeds as one `uuid[]` the generic plan assumed ten of them and always looked twice
    as costly as a custom plan for the four real ones, so Postgres planned every call anew
    (generic_plans 0 of 21 on conv-26). Four scalar seed parameters give the generic plan the
    real shape: after plan_cache_mode=auto's five custom plans, it is reused."""
    from arandu_pipelines.read.lexical import load_terms
    from arandu_pipelines.read.scope import Scope
    from arandu_pipelines.read.sql import _driver

    filler = [{"agent_id": AGENT, "session_id": f"f{s}", "speaker": ("Kate", "Leo")[t % 2],
               "text": f"filler turn {t} about topic {s * 7 % 13} and the weather {t * s % 5}",
               "message_id": f"f{s}:{t}",
               "occurred_at": (T0 + timedelta(days=40 + s, minutes=t)).isoformat()}
              for s in range(30) for t in range(20)]  # a real conversation's size (conv-26: 419 turns)
    await memory.import_messages(_conversation() + filler)
    emb = await memory.embeddings.embed_one(QUESTION)
    async with memory.engine.connect() as conn:
        await conn.exec_driver_sql("ANALYZE memory_events")
        terms = await load_terms(conn, AGENT, QUESTION)
        ids = {r[0]: r[1] for r in (await conn.exec_driver_sql(
            "SELECT message_id, id::text FROM memory_events WHERE agent_id = %s", (AGENT,))).all()}
        seeds = [ids[m] for m in ("s0:1", "s3:1", "s4:2", "s2:2")]
        first = await fb.feedback(conn, Scope(AGENT), terms, emb, seeds, [ids["s0:1"]])
        for _ in range(9):
            assert await fb.feedback(conn, Scope(AGENT), terms, emb, seeds, [ids["s0:1"]]) == first
        driver = await _driver(conn)
        cur = await driver.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                                   "WHERE statement LIKE '%WITH fb AS%'")
        plans = await cur.fetchall()
    assert len(plans) == 1, plans
    generic, custom = plans[0]
    assert custom <= 5 and generic >= 5, plans


async def test_the_feedback_statement_reads_rows_by_id_whatever_the_join_estimate(memory) -> None:
    """The window's messages are read one by one through the primary key, never by a scan of the
    agent's messages. For an agent the statistics do not know yet (a new user, or one that grew
    since the last autoanalyze) Postgres estimated one row per agent and joined the window to
    `memory_events` with a merge join over the agent's whole key range, twice per call: 100-290 ms
    per retrieve in bench/soak_tails.py until the next autoanalyze (docs/retrieval.md, "Tails under
    import"). The planner's choice is forced here by disabling nested loops; with the lookups as
    LATERAL subqueries the statement's buffers stay those of the window, not of the agent."""
    from sqlalchemy import text

    from arandu_pipelines.read.lexical import bm25_params, load_terms, n_terms
    from arandu_pipelines.read.scope import Scope
    from arandu_pipelines.read.semantic import qvec

    filler = [{"agent_id": AGENT, "session_id": f"f{s}", "speaker": ("Kate", "Leo")[t % 2],
               "text": f"filler turn {t} about topic {s * 7 % 13} and the weather {t * s % 5}",
               "message_id": f"f{s}:{t}",
               "occurred_at": (T0 + timedelta(days=40 + s, minutes=t)).isoformat()}
              for s in range(40) for t in range(30)]
    await memory.import_messages(_conversation() + filler, extract=False)
    emb = await memory.embeddings.embed_one(QUESTION)
    async with memory.engine.connect() as conn:
        terms = await load_terms(conn, AGENT, QUESTION)
        ids = {r[0]: r[1] for r in (await conn.exec_driver_sql(
            "SELECT message_id, id::text FROM memory_events WHERE agent_id = %s", (AGENT,))).all()}
        seeds = [ids[m] for m in ("s0:1", "s3:1", "s4:2", "s2:2")]
        scope = Scope(AGENT)
        sql = fb._sql(scope.events("x"), n_terms(terms, "e"), True)
        params = {**scope.params(), **bm25_params(terms, "e"), "old": [ids["s0:1"]], "wide": fb.WIDE,
                  "qv": qvec(emb), **{f"fb{i}": seeds[i] for i in range(fb.FB_DOCS)}}
        await conn.exec_driver_sql("SET enable_nestloop = off")
        plan = (await conn.execute(text("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql), params)).scalar()
        await conn.exec_driver_sql("RESET enable_nestloop")
        got = await fb.feedback(conn, scope, terms, emb, seeds, [ids["s0:1"]])
    top = (plan if isinstance(plan, list) else __import__("json").loads(plan))[0]["Plan"]
    buffers = top["Shared Hit Blocks"] + top["Shared Read Blocks"]
    assert top["Actual Rows"] == len({*got.near, *(n.id for n in got.new)}) > 0

    def scanned(node: dict) -> int:  # rows read from memory_events by any one scan node
        own = node.get("Actual Rows", 0) * node.get("Actual Loops", 1) if node.get(
            "Relation Name") == "memory_events" else 0
        return max([own] + [scanned(c) for c in node.get("Plans", [])])

    assert scanned(top) < 100, (scanned(top), buffers)  # the agent has 1,222 messages
