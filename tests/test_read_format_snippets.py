"""Tight snippets after the first few (issue 18, read/format.py `_snippet_body`).

The reader sees the context's first ~400 words; an answer quoted as the 10th-20th snippet was
past them. From the TIGHT_FROM+1-th snippet on, a turn holding a sentence that matches the query
is quoted by that sentence; a turn without one (a reply kept for the question before it) stays
complete. Each test failed before the change: every turn under SNIPPET_CHARS was quoted whole.
"""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.read.excerpt import query_weights, word_matcher
from arandu_pipelines.read.format import (
    SNIPPET_CHARS,
    TIGHT_FROM,
    TIGHT_SNIPPET_CHARS,
    compress_context,
)
from arandu_pipelines.read.types import ScoredEvent, ScoredFact

DAY = datetime(2024, 3, 5, 18, 0, tzinfo=UTC)
CHATTER = "Thanks so much for asking, it has been a busy week here with work and the kids."
MATCHING = CHATTER + " We went camping by the lake{n} and it was lovely. Talk soon!"
REPLY = "Oh it was great fun, the kids roasted marshmallows and we hiked up the hill at dawn."


def _event(i: int, text: str) -> ScoredEvent:
    return ScoredEvent(f"e{i}", f"m{i}", {}, "s1", "Ana", text, DAY, 0.9 - i / 100)


def _match():  # type: ignore[no-untyped-def]
    return word_matcher(query_weights(["camp", "lake"], {"camp": 3.0, "lake": 3.0}.get))


def _snippets(ctx: str) -> list[str]:
    return ctx.split("Relevant conversations:\n", 1)[1].splitlines()


def test_snippets_after_the_first_few_are_quoted_by_their_matching_sentence() -> None:
    turns = [MATCHING.format(n=i) for i in range(TIGHT_FROM + 4)]
    assert all(len(t) < SNIPPET_CHARS for t in turns)  # each fits: before, each was quoted whole
    ctx, stats = compress_context([], [_event(i, t) for i, t in enumerate(turns)], [], MemoryConfig(),
                                  dated=False, match=_match())
    lines = _snippets(ctx)
    assert stats["events"] == len(turns)
    for n, line in enumerate(lines):
        assert f"camping by the lake{n}" in line  # the matching sentence, always
        if n < TIGHT_FROM:
            assert CHATTER in line and "Talk soon!" in line  # the first ones in full
        else:
            assert CHATTER not in line  # the opening chatter left out (the sentence after stays)
            assert len(line.split(": ", 1)[1]) <= TIGHT_SNIPPET_CHARS + 8


def test_a_turn_without_a_matching_sentence_stays_complete() -> None:
    turns = [MATCHING.format(n=i) for i in range(TIGHT_FROM)] + [REPLY, MATCHING.format(n=99)]
    ctx, _ = compress_context([], [_event(i, t) for i, t in enumerate(turns)], [], MemoryConfig(),
                              dated=False, match=_match())
    lines = _snippets(ctx)
    assert lines[TIGHT_FROM].endswith(REPLY)  # the answer to a matching question: all of it
    assert CHATTER not in lines[TIGHT_FROM + 1] and "lake99" in lines[TIGHT_FROM + 1]
    # without a scorer (no query words) nothing is tightened: every turn whole, as before
    plain, _ = compress_context([], [_event(i, t) for i, t in enumerate(turns)], [], MemoryConfig(),
                                dated=False)
    assert all(line.endswith(t) for line, t in zip(_snippets(plain), turns, strict=True))


# ---- a fact whose message is quoted is not repeated; its event date goes onto the snippet --------
def _fact(i: int, text: str, source: str, event_date: datetime | None = None) -> ScoredFact:
    return ScoredFact(f"f{i}", "person:ana", "Ana", None, text, 0.9 - i / 100, valid_from=DAY,
                      event_date=event_date, source_event_id=source)


def test_an_event_dated_fact_from_a_quoted_message_gives_its_date_to_the_snippet() -> None:
    camp = datetime(2024, 2, 24, tzinfo=UTC)
    events = [_event(1, "We went camping in the mountains last weekend, so peaceful."),
              _event(2, "The kids loved the museum on Saturday.")]
    facts = [_fact(0, "Ana likes quiet weekends", "elsewhere"),
             _fact(1, "Ana went camping in the mountains", "e1", event_date=camp),
             _fact(2, "Ana's kids loved the museum", "e2", event_date=camp),
             _fact(3, "Ana went to the museum with the kids", "e2", event_date=datetime(2024, 3, 2, tzinfo=UTC)),
             _fact(4, "Ana visited Lisbon", "e9", event_date=datetime(2024, 1, 7, tzinfo=UTC))]
    ctx, _ = compress_context(facts, events, [], MemoryConfig(), dated=False)
    head, snippets = ctx.split("Relevant conversations:\n")
    assert "camping" not in head and "museum" not in head  # the snippets say it, once
    assert "- Ana likes quiet weekends" in head  # the best fact leads, as before
    assert "- Ana visited Lisbon (2024-01-07)" in head  # its message is not quoted: it stays
    lines = snippets.splitlines()
    assert lines[0].startswith("- (2024-03-05; event 2024-02-24) Ana: We went camping")
    assert lines[1].startswith("- (2024-03-05; event 2024-02-24, 2024-03-02) Ana: The kids")  # distinct days
    # an event date equal to the message's own day adds nothing
    same, _ = compress_context([facts[0], _fact(1, "Ana went camping", "e1", event_date=DAY)], events[:1],
                               [], MemoryConfig(), dated=False)
    assert "- (2024-03-05) Ana: We went camping" in same and "Ana went camping\n" not in same


def test_a_folded_fact_comes_back_when_its_message_is_not_quoted() -> None:
    events = [_event(i, f"message {i} " + "words " * 60) for i in range(30)]
    facts = [_fact(0, "Ana's best fact", "e1"),
             _fact(1, "Ana did something on a day", "e29", event_date=datetime(2024, 2, 1, tzinfo=UTC))]
    ctx, stats = compress_context(facts, events, [], MemoryConfig(context_max_tokens=300), dated=False)
    assert stats["events"] < 30  # e29 did not fit: its fact is listed, dated
    assert "- Ana did something on a day (2024-02-01)" in ctx and "event 2024-02-01" not in ctx
