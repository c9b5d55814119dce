"""Issue 18, multi-session evidence for list questions about a person (read/multihop.py).

"What activities does Kate enjoy?": the first item (a pottery class) shares words with the
question; the others were told in other sessions in words the question does not use ("went
camping with the fam", "swimming laps with the kids"), while the pottery session's chatter about
activities fills the top ranks. The person's best turn of each session reaches them. The
conversation below is invented.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arandu_pipelines.read import multihop as mh
from arandu_pipelines.read.types import ScoredEvent

T0 = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)
AGENT = "kate-chat"
QUESTION = "What sports does Kate play?"

SESSIONS: list[list[tuple[str, str]]] = [
    [("Leo", "do you play any sports these days?"),
     ("Kate", "the sport I play most is rowing at the riverside rowing club"),
     ("Leo", "sports are fun, I play football"),
     ("Kate", "football is fun to watch on tv"),
     ("Leo", "we play every sunday, all sports fans welcome"),
     ("Kate", "I might play with you guys one day"),
     ("Leo", "what other sports do you play?"),
     ("Kate", "a bit of everything, keeps me sane")],
    [("Leo", "how was your saturday?"),
     ("Kate", "up at 5 for the riverside rowing club regatta, my arms are dead"),
     ("Leo", "oof, did you win?"),
     ("Kate", "second place, not bad")],
    [("Leo", "did you watch the match?"),
     ("Kate", "no, was busy, who played?"),
     ("Leo", "our team played badly, sports can be painful"),
     ("Kate", "sorry lol")],
    [("Leo", "did you finish the report?"),
     ("Kate", "nope, the deadline moved to friday"),
     ("Leo", "phew"),
     ("Kate", "yeah lucky")],
]
EVIDENCE = "s1:1"


def _conversation() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for s, turns in enumerate(SESSIONS):
        start = T0 + timedelta(days=6 * s)
        for t, (who, text) in enumerate(turns):
            rows.append({"agent_id": AGENT, "session_id": f"s{s}", "speaker": who, "text": text,
                         "message_id": f"s{s}:{t}", "occurred_at": (start + timedelta(minutes=t)).isoformat()})
    return rows


async def _cited(memory, k: int) -> list[str]:
    r = await memory.retrieve(AGENT, QUESTION, config_overrides={"topk_events": 20})
    return [s.message_id for s in r.sources][:k]


async def test_a_list_question_reaches_items_told_in_other_sessions(memory, monkeypatch) -> None:
    """Without the session picks the camping and swimming turns (no word of the question) rank
    below the pottery session's chatter; with them both are among the first five citations."""
    await memory.import_messages(_conversation())
    monkeypatch.setattr(mh, "ENABLED", False)
    before = await _cited(memory, 5)
    monkeypatch.setattr(mh, "ENABLED", True)
    after = await _cited(memory, 5)
    assert "s0:1" in before and "s0:1" in after  # the first item is found either way
    assert EVIDENCE not in before, before
    assert EVIDENCE in after, after
    assert await _cited(memory, 5) == after  # deterministic: same database, same query


async def test_a_phrase_said_once_bridges_nothing(memory, monkeypatch) -> None:
    """"When is the report deadline?": the top hit's phrase ("moved friday") is in no other
    message, so the ranking is exactly the one without the mechanism."""
    await memory.import_messages(_conversation())
    q = "When is the report deadline?"
    monkeypatch.setattr(mh, "ENABLED", False)
    before = (await memory.retrieve(AGENT, q)).sources
    monkeypatch.setattr(mh, "ENABLED", True)
    after = (await memory.retrieve(AGENT, q)).sources
    assert [s.message_id for s in before] == [s.message_id for s in after]


def test_phrases_qualify_a_word_of_the_question() -> None:
    """Two-word phrases without stop words, query words or names, taken only from clauses that
    hold a word of the question (its first STEM letters: "moved" for "move")."""
    top = [("Yeah, I'm really lucky to have them. I've known these friends for 4 years, since I moved "
           "from my home country. Last week I went to an LGBTQ+ pride parade.")]
    assert mh.phrases(top, "Where did Caroline move from 4 years ago?", ["Caroline"]) == ["home country"]
    assert mh.phrases(top, "What events did Caroline go to?", ["Caroline"]) == []  # no clause says so
    assert mh.phrases(top, "Which parade did Caroline attend?", ["Caroline"]) == ["lgbtq pride"]


def test_merge_gives_a_bounded_share_and_keeps_the_better_score() -> None:
    """The best pick scores SHARE x the top; a pick already ranked keeps the higher of its two
    scores; the list stays cut to `limit`."""
    def ev(i: str, score: float) -> ScoredEvent:
        return ScoredEvent(i, i, {}, "s0", "Kate", "t", T0, score)

    def pick(i: str, session: str, sim: float) -> mh.Pick:
        return mh.Pick(i, i, None, session, "Kate", "t", T0, sim)

    events = [ev("a", 1.0), ev("b", 0.9), ev("c", 0.2)]
    out = mh.merge(events, [pick("x", "s1", 0.6), pick("c", "s2", 0.3)], 3)
    assert [e.event_id for e in out] == ["a", "b", "x"]
    assert out[2].score == round(mh.SHARE * 1.0, 6) and out[2].scores == {"session_pick": out[2].score}
    out = mh.merge([ev("a", 1.0), ev("b", 0.9), ev("c", 0.2)], [pick("x", "s1", 0.6), pick("c", "s2", 0.6)], 4)
    assert {e.event_id: e.score for e in out}["c"] == round(mh.SHARE, 6)
    assert mh.merge(events, [], 3) == events


def _probe_rows(url: str, text: str, params: dict) -> int:
    """Message rows the statement's text-index probe (its CTE `c`) evaluated, read from EXPLAIN
    ANALYZE: rows returned plus rows removed by filter or by index recheck, over all loops."""
    import psycopg

    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.store.engine import register_vectors

    def walk(node: dict, inside: bool) -> int:
        inside = inside or node.get("Subplan Name") == "CTE c"
        n = 0
        if inside and node.get("Relation Name") == "memory_events":
            n += node.get("Actual Rows", 0) * node.get("Actual Loops", 0)
            n += node.get("Rows Removed by Filter", 0) + node.get("Rows Removed by Index Recheck", 0)
        return n + sum(walk(c, inside) for c in node.get("Plans", []))

    with psycopg.connect(url) as conn:
        register_vectors(conn)
        plan = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + text, sqlmod._bind(params)).fetchone()[0][0]
    return walk(plan["Plan"], False)


async def test_a_common_phrase_is_neither_bridged_nor_counted(memory, fresh_db_url, monkeypatch) -> None:
    """"rowing club" is in 13 messages (more than MAX_DF): never bridged. Its words' document
    frequencies, kept at write time (memory_term_stats), bound the phrase's: with MAX_UB below
    them the text index is not probed at all (no probe statement), where counting the phrase
    evaluates at least its 13 messages. The mechanism is on by default."""
    from arandu_pipelines.read import sql as sqlmod

    assert mh.ENABLED
    convo = [{"agent_id": AGENT, "session_id": "s0", "speaker": "Kate", "message_id": "s0:0",
              "text": "the sport I play most is rowing at the rowing club", "occurred_at": T0.isoformat()}]
    for i in range(12):
        convo.append({"agent_id": AGENT, "session_id": f"s{1 + i // 3}", "speaker": ("Leo", "Kate")[i % 2],
                      "message_id": f"c{i}", "text": f"meet you at the rowing club after work, number {i}",
                      "occurred_at": (T0 + timedelta(days=1 + i)).isoformat()})
    await memory.import_messages(convo)

    async def statements() -> tuple[dict, list[tuple[str, dict]]]:
        with sqlmod.capture() as cap:
            r = await memory.retrieve(AGENT, QUESTION, config_overrides={"topk_events": 20})
        assert all("session_pick" not in e.scores for e in r.events if hasattr(e, "scores"))
        (accept,) = [p for _t, p in cap if "mh_maxub" in p]
        assert "rowing club" in accept["mh_ph"], accept["mh_ph"]
        return accept, [(t, p) for t, p in cap if "mh_q" in p]

    _, probes = await statements()
    assert len(probes) == 1 and _probe_rows(fresh_db_url, *probes[0]) >= 13  # counted: every row of it
    monkeypatch.setattr(mh, "MAX_UB", 10)
    accept, probes = await statements()
    assert accept["mh_maxub"] == 10
    assert probes == []  # rejected on the term statistics alone: the text index is not probed


async def test_the_phrase_filter_is_planned_once_per_connection(memory) -> None:
    """The term-statistics filter runs prepared on every question with phrases; Postgres must keep
    its generic plan (not plan it again per call) whatever the number of phrases."""
    from arandu_pipelines.read.sql import _driver

    await memory.import_messages(_conversation())
    async with memory.engine.connect() as conn:
        for i in range(10):
            ph = ["riverside rowing", "pottery class", "rowing club"][: 1 + i % 3]
            kept = await mh.accepted(conn, AGENT, ph)
            assert [r.ph for r in kept] == [p for p in ph if p != "pottery class"]  # no such words
        cur = await (await _driver(conn)).execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%WITH ORDINALITY%'")
        plans = [tuple(r) for r in await cur.fetchall()]
    assert len(plans) == 1, plans
    generic, custom = plans[0]
    assert custom <= 5 and generic >= 5, plans
