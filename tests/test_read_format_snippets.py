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
from arandu_pipelines.read.types import ScoredEvent

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
