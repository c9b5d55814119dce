"""Session 10, answer-bearing turns (read/answering.py): a turn that only asks yields to the reply.

The crafted exchange: Kate says something strong about the query's topic, Leo asks about it with
the query's words, Kate answers with few of them. The neighbour-turn terms lift Leo's question
over Kate's answer; with the asking turn keeping ASK of its score, the answer comes first.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arandu_pipelines.read import answering as ans
from arandu_pipelines.read.events import EventRow, _score
from arandu_pipelines.read.lexical import CorpusStats, QueryTerms

T0 = datetime(2025, 6, 1, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "asks"), [
    ("Love that purple color! For walking or running?", True),
    ("What gave you the idea for all the colors? 😀", True),
    ("Cool. Did you go?", True),
    ("so what did u end up doing lol?? 🤔", True),
    ("what do you think? [shared a photo: a bowl]", False),  # a shared photo states something
    ("We explored nature and roasted marshmallows around the fire. Have you been camping?", False),
    ("Thanks, it really mattered to me.", False),
    ("Is it? I painted it because yellow reminds me of my grandma's kitchen", False),
    ("", False),
])
def test_a_turn_only_asks_when_it_ends_in_a_question_and_states_little(text: str, asks: bool) -> None:
    assert ans.asks(text) is asks
    assert ans.ask_factor(text) == (ans.ASK if asks else 1.0)


def _exchange() -> list[EventRow]:
    """Kate's statement, Leo's question (the query's words), Kate's reply, in one session."""
    def row(i: int, who: str, text: str, kw: float, sim: float) -> EventRow:
        return EventRow(f"e{i}", "s1", who, text, T0 + timedelta(minutes=i), f"m{i}", None, kw, sim,
                        prev_id=f"e{i - 1}" if i else None, next_id=f"e{i + 1}" if i < 2 else None)

    return [row(0, "Kate", "I painted my whole kitchen yellow last weekend", 1.0, 0.8),
            row(1, "Leo", "Love it! Why did you paint the kitchen yellow?", 0.6, 0.6),
            row(2, "Kate", "It reminds me of my grandma's house, sunny every morning", 0.3, 0.6)]


def _order(rows: list[EventRow]) -> list[str]:
    return [r.text.split()[0] for r in sorted(rows, key=lambda r: (-r.score, r.id))]


def test_the_reply_outranks_the_question_that_inherits_the_context(monkeypatch) -> None:
    terms = QueryTerms([], CorpusStats(), CorpusStats())
    monkeypatch.setattr(ans, "ASK", 1.0)  # without the mechanism: the question comes before its answer
    monkeypatch.setattr(ans, "OTHER", 1.0)  # (no speaker named here: OTHER does not apply anyway)
    before = _exchange()
    _score(before, terms, {}, [], [])
    assert _order(before) == ["I", "Love", "It"]
    monkeypatch.setattr(ans, "ASK", 0.85)
    after = _exchange()
    _score(after, terms, {}, [], [])
    assert _order(after) == ["I", "It", "Love"]
    assert after[1].parts["asks"] == 1.0 and "asks" not in after[2].parts
    # the question still lends its full base to the reply (the factor is on its score, not its base)
    assert after[2].parts["context_prev"] == pytest.approx(before[2].parts["context_prev"])


AGENT = "kitchen-chat"
SESSIONS: list[list[tuple[str, str]]] = [
    [("Kate", "I painted my whole kitchen yellow last weekend"),
     ("Leo", "Love it! Why did you paint the kitchen yellow?"),
     ("Kate", "It reminds me of my grandma's house in Lisbon, sunny every morning"),
     ("Leo", "aww that's sweet")],
    [("Leo", "my car broke down again on the highway"),
     ("Kate", "oh no, did you call a tow truck?"),
     ("Leo", "yeah it took two hours to arrive")],
    [("Kate", "I started a pottery class on tuesdays"),
     ("Leo", "nice, what are you making?"),
     ("Kate", "a set of wobbly mugs for my sister")],
]


async def test_retrieve_puts_the_answer_before_the_question(memory, monkeypatch) -> None:
    rows = [{"agent_id": AGENT, "session_id": f"s{s}", "speaker": who, "text": text,
             "message_id": f"s{s}:{t}", "occurred_at": (T0 + timedelta(days=3 * s, minutes=t)).isoformat()}
            for s, turns in enumerate(SESSIONS) for t, (who, text) in enumerate(turns)]
    await memory.import_messages(rows)

    async def ranked() -> list[str]:
        r = await memory.retrieve(AGENT, "Why did Kate paint her kitchen yellow?",
                                  config_overrides={"topk_events": 5})
        return [e.message_id for e in r.events]

    monkeypatch.setattr(ans, "OTHER", 1.0)  # Leo's question is another speaker's turn: isolate ASK
    monkeypatch.setattr(ans, "ASK", 1.0)
    before = await ranked()
    monkeypatch.setattr(ans, "ASK", 0.85)
    after = await ranked()
    assert before.index("s0:1") < before.index("s0:2"), before
    assert after.index("s0:2") < after.index("s0:1"), after
    assert await ranked() == after  # deterministic


def test_another_speakers_reaction_does_not_borrow_the_named_speakers_boost(monkeypatch) -> None:
    """"What are Kate's plans?": Leo's "sounds great, let's plan something" after Kate's strong
    turn inherits her speaker-boosted base through the neighbour term and outranks Kate's own
    turn of another session; with the lent share of a turn by someone the query does not name
    cut to OTHER, Kate's turn comes first. A query naming nobody is untouched."""
    terms = QueryTerms([], CorpusStats(), CorpusStats())

    def rows() -> list[EventRow]:
        return [EventRow("e0", "s1", "Kate", "strong", T0, "m0", None, 1.0, 0.8, next_id="e1"),
                EventRow("e1", "s1", "Leo", "reaction", T0 + timedelta(minutes=1), "m1", None, 0.5, 0.5,
                         prev_id="e0"),
                EventRow("e2", "s2", "Kate", "own", T0 + timedelta(days=3), "m2", None, 0.5, 0.62)]

    monkeypatch.setattr(ans, "OTHER", 1.0)
    before = rows()
    _score(before, terms, {}, ["Kate"], [])
    assert _order(before) == ["strong", "reaction", "own"]
    monkeypatch.setattr(ans, "OTHER", 0.7)
    after = rows()
    _score(after, terms, {}, ["Kate"], [])
    assert _order(after) == ["strong", "own", "reaction"]
    nobody, plain = rows(), rows()
    _score(nobody, terms, {}, [], [])
    monkeypatch.setattr(ans, "OTHER", 1.0)
    _score(plain, terms, {}, [], [])
    assert [r.score for r in nobody] == [r.score for r in plain]
