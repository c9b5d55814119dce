"""Issue 18, multi-evidence questions: a list question's answer is spread over sessions.

"What hobbies does Kate have?" is answered by one turn per hobby, each on another day; a
single-answer question by one turn and, often, the turn around it. The message ranking tells them
apart (read/listq.py) and, for a list question, weighs neighbour turns less and spreads the top
ranks over sessions (read/events.py `spread_sessions`). The conversation below is invented.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arandu_pipelines.read.events import EventRow, _score, spread_sessions
from arandu_pipelines.read.lexical import CorpusStats, QueryTerms
from arandu_pipelines.read.listq import is_list_question

T0 = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)
AGENT = "kate-chat"


def test_list_questions_are_told_from_single_answer_ones() -> None:
    for q in ("What hobbies does Kate have?", "Which cities has Leo visited?",
              "What books has Kate read this year?", "How many times did Leo go hiking?",
              "What kinds of music does Kate like?", "what sports did u and Leo play"):
        assert is_list_question(q), q
    for q in ("What did Kate cook on Friday?", "Where does Leo work?", "When did Kate move to Lisbon?",
              "Why did Leo quit his job?", "What is Kate's favourite book?", "What kind of dog does Leo have?",
              "Does Kate like jazz?", "What are Kate's plans for the summer?"):
        assert not is_list_question(q), q


def _row(i: int, session: str, score: float) -> EventRow:
    return EventRow(f"e{i:02d}", session, "Kate", f"turn {i}", T0 + timedelta(minutes=i), f"m{i}", None,
                    0.0, 0.0, score=score)


def test_spread_sessions_lets_other_sessions_into_the_top() -> None:
    rows = [_row(i, "s1", 1.0 - 0.01 * i) for i in range(6)] + [_row(10, "s2", 0.9), _row(11, "s3", 0.88)]
    rows.sort(key=lambda r: -r.score)
    top = spread_sessions(rows, 5, 0.85)
    sessions = [r.session_id for r in top]
    assert "s2" in sessions and "s3" in sessions, sessions  # before: five turns of s1
    assert [r.score for r in top] == sorted((r.score for r in top), reverse=True)  # order = scores
    assert top[0].id == "e00"
    fresh = [_row(i, "s1", 1.0 - 0.01 * i) for i in range(6)] + [_row(10, "s2", 0.9), _row(11, "s3", 0.88)]
    assert [r.id for r in spread_sessions(fresh, 5, 0.85)] == [r.id for r in top]  # deterministic


def test_spread_sessions_without_decay_is_the_plain_cut() -> None:
    rows = [_row(i, "s1", 1.0 - 0.01 * i) for i in range(6)]
    assert [r.id for r in spread_sessions(rows, 4, 1.0)] == ["e00", "e01", "e02", "e03"]


def test_list_question_weighs_neighbour_turns_less() -> None:
    """A reply to a relevant question ("Which sport?" -> "Climbing, mostly") inherits its
    question's relevance; for a list question, a turn relevant on its own must rank first."""
    terms = QueryTerms([], CorpusStats(), CorpusStats())

    def rows() -> list[EventRow]:
        q = EventRow("a", "s1", "Leo", "Do you have any hobbies?", T0, "m1", None, 1.0, 0.8, next_id="b")
        a = EventRow("b", "s1", "Kate", "Climbing, mostly.", T0 + timedelta(minutes=1), "m2", None, 0.3, 0.45,
                     prev_id="a")
        own = EventRow("c", "s2", "Kate", "My pottery class is my favourite hobby now.", T0 + timedelta(days=3),
                       "m3", None, 0.7, 0.7)
        return [q, a, own]

    single = {r.id: r for r in rows()}
    _score(list(single.values()), terms, {}, ["Kate"], [])
    listed = {r.id: r for r in rows()}
    _score(list(listed.values()), terms, {}, ["Kate"], [], context=0.3)
    assert single["b"].score > single["c"].score  # the neighbour-turn boost as before
    assert listed["c"].score > listed["b"].score


# Kate tells Leo about a hobby in each session; the first session dwells on one of them, and
# Leo's questions there ("is that hobby expensive?") lend their words to Kate's replies.
SESSIONS: list[list[tuple[str, str]]] = [
    [("Leo", "heyy how was ur weekend?? 😄"),
     ("Kate", "Amazing! Rock climbing is my new hobby."),
     ("Leo", "What got you into that hobby?"),
     ("Kate", "A friend dragged me to the gym near the station"),
     ("Leo", "Is the hobby expensive?"),
     ("Kate", "lol no, shoes and chalk, that's it"),
     ("Leo", "cool hobby honestly, do your arms hurt?"),
     ("Kate", "my forearms are dead after every session")],
    [("Kate", "Guess what, pottery is my other hobby now, class on Tuesdays."),
     ("Leo", "haha will u make me a mug"),
     ("Kate", "Maybe, if it doesn't collapse first 😅"),
     ("Leo", "How's work btw?"),
     ("Kate", "Busy, we ship the new release next week.")],
    [("Leo", "wanna meet on saturday?"),
     ("Kate", "Can't, chess is an old hobby of mine and there's a tournament at the library."),
     ("Leo", "good luck!! beat them all"),
     ("Kate", "thx, I'll tell you how it goes")],
    [("Kate", "Baked sourdough this morning, baking is the hobby that relaxes me on Sundays."),
     ("Leo", "Save me a slice"),
     ("Kate", "Only if you bring coffee"),
     ("Leo", "deal, see u tomorrow")],
]
HOBBY_TURNS = {"s0:1", "s1:0", "s2:1", "s3:0"}


def _conversation() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for s, turns in enumerate(SESSIONS):
        start = T0 + timedelta(days=7 * s)
        for t, (who, text) in enumerate(turns):
            rows.append({"agent_id": AGENT, "session_id": f"s{s}", "speaker": who, "text": text,
                         "message_id": f"s{s}:{t}", "occurred_at": (start + timedelta(minutes=t)).isoformat()})
    return rows


async def test_list_question_gathers_evidence_across_sessions(memory) -> None:
    """The four hobby turns, one per session, fill the top four sources; before, a reply in the
    first session (carried by Leo's question about the hobby) took the place of one of them."""
    await memory.import_messages(_conversation())
    r = await memory.retrieve(AGENT, "What hobbies does Kate have?", config_overrides={"topk_events": 6})
    top = [s.message_id for s in r.sources[:4]]
    assert set(top) == HOBBY_TURNS, top  # before: s0:3, the reply to "What got you into that hobby?"
    again = await memory.retrieve(AGENT, "What hobbies does Kate have?", config_overrides={"topk_events": 6})
    assert [s.message_id for s in again.sources] == [s.message_id for s in r.sources]


def test_a_message_matching_the_query_is_cited_before_one_backing_a_fact() -> None:
    """Citations: the message ranking decides, a fact's source message follows unless the fact is
    far stronger (at 0.7 of the fact's score the fact-backed message came first here; now a fact's
    source competes on the message ranking's scale, tests/test_read_sources.py)."""
    from arandu_pipelines.read.pipeline import _sources
    from arandu_pipelines.read.types import ScoredEvent, ScoredFact

    said = ScoredEvent("e1", "m1", {}, "s1", "Kate", "pottery is my other hobby now", T0, 0.5)
    fact = ScoredFact("f1", "kate", "Kate", None, "Kate has a sister in Porto", 0.8, source_event_id="e2",
                      source_message_id="m2")
    rows = {"f1": (None, "s2", "Kate", T0 + timedelta(days=1), "my sister lives in Porto")}
    refs = _sources([fact], [said], rows)
    assert [r.message_id for r in refs] == ["m1", "m2"]
