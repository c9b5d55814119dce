"""Issue 18 (session 11), multi-evidence coverage of the top ranks (read/coverage.py).

"What has Kate painted?": every painting was shown in another session, but one session talks
about painting at length, its turns look alike and fill the top ranks; the second painting falls
below them. For such aggregate questions the first places are spread over sessions. The
conversation below is invented.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arandu_pipelines.read import coverage as cov
from arandu_pipelines.read import multihop as mh
from arandu_pipelines.read.types import ScoredEvent

T0 = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)
AGENT = "kate-paints"
QUESTION = "What has Kate painted?"

SESSIONS: list[list[tuple[str, str]]] = [
    [("Leo", "are you still painting?"),
     ("Kate", "yes! I painted a lighthouse at the beach this week, painting every evening"),
     ("Leo", "painting every evening sounds intense, what paints do you use for painting?"),
     ("Kate", "acrylic paints, I painted the lighthouse with cheap acrylic paints"),
     ("Leo", "is painting with acrylic paints hard?"),
     ("Kate", "painting with acrylic is easy, the lighthouse painting dried fast"),
     ("Leo", "I tried painting once, my painting was awful"),
     ("Kate", "everyone's first painting is awful, keep painting")],
    [("Leo", "how was the trip?"),
     ("Kate", "lovely. I painted my grandmother's old red barn when we got back."),
     ("Leo", "she must have loved it"),
     ("Kate", "she cried a bit haha")],
    [("Leo", "did you see the game?"),
     ("Kate", "no, I was at work until late"),
     ("Leo", "we lost anyway"),
     ("Kate", "oh no")],
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


def test_aggregate_questions_are_told_from_single_answer_ones() -> None:
    for q in ("What has Kate painted?", "What did Kate paint recently?", "What kind of art does Kate make?",
              "What do Kate's kids like?"):
        assert cov.shape(q) == "aggregate", q
    for q in ("What did Kate cook on Friday?", "Where does Leo work?", "When did Kate move to Lisbon?",
              "What is Kate's favourite book?", "Why did Kate quit her job?", "What has Kate got planned for May?"):
        assert cov.shape(q) == "", q


def _ev(i: int, session: str, score: float) -> ScoredEvent:
    return ScoredEvent(f"e{i:02d}", f"m{i}", {}, session, "Kate", f"turn {i}", T0 + timedelta(minutes=i), score)


def test_spread_reranks_the_first_places_only_and_keeps_scores_ordered() -> None:
    """Twelve turns of s1, then one of s2 at rank 13: it enters the first TOP places; the rest
    follow in their old order, never above the last pick, and the lowest score does not move (it
    bounds the fact-only citations in pipeline._sources)."""
    evs = [_ev(i, "s1", 1.0 - 0.02 * i) for i in range(12)] + [_ev(20, "s2", 0.7), _ev(21, "s1", 0.5)]
    out = cov.spread(list(evs), lambda e: e.session_id, 2, 0.85, "session_repeat")
    ids = [e.event_id for e in out]
    assert "e20" in ids[:cov.TOP], ids
    assert ids[0] == "e00" and ids[1] == "e01"  # the first two of a session are free
    assert sorted(ids) == sorted(e.event_id for e in evs)  # nothing dropped
    scores = [e.score for e in out]
    assert scores == sorted(scores, reverse=True), scores
    assert out[-1].event_id == "e21" and out[-1].score == 0.5
    again = cov.spread([_ev(i, "s1", 1.0 - 0.02 * i) for i in range(12)] + [_ev(20, "s2", 0.7), _ev(21, "s1", 0.5)],
                       lambda e: e.session_id, 2, 0.85, "session_repeat")
    assert [e.event_id for e in again] == ids  # deterministic


def test_other_questions_are_not_reranked() -> None:
    evs = [_ev(i, "s1", 1.0 - 0.02 * i) for i in range(12)] + [_ev(20, "s2", 0.7)]
    out = cov.rerank(list(evs), "What did Kate cook on Friday?")
    assert [e.event_id for e in out] == [e.event_id for e in evs]
    assert [e.score for e in out] == [e.score for e in evs]


async def _ranked(memory) -> list[str]:
    r = await memory.retrieve(AGENT, QUESTION, config_overrides={"topk_events": 12})
    return [e.message_id for e in r.events]


async def test_an_aggregate_question_reaches_the_item_of_another_session(memory, monkeypatch) -> None:
    """The barn (session s1) ranks below the lighthouse session's painting chatter without the
    mechanism; with it, it is among the first TOP (here 4) messages."""
    await memory.import_messages(_conversation())
    monkeypatch.setattr(mh, "ENABLED", False)  # the bridge is another mechanism: keep it out of the test
    monkeypatch.setattr(cov, "TOP", 4)
    monkeypatch.setattr(cov, "ENABLED", False)
    before = await _ranked(memory)
    monkeypatch.setattr(cov, "ENABLED", True)
    after = await _ranked(memory)
    assert EVIDENCE in before, before  # scored either way, just lower
    assert EVIDENCE not in before[:4], before
    assert EVIDENCE in after[:4], after
    assert await _ranked(memory) == after  # deterministic: same database, same query
