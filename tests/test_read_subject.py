"""Session 11, the question's subject speaker (read/subject.py).

"What did Leo say about Kate's bakery?" names both speakers; boosting both alike lets Kate's own
turns about her bakery (the question's words) outrank Leo's reply, the answer. The speaker named
first is the subject; one named later, after words other than a coordination, keeps
subject.OBJECT of the speaker boost.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arandu_pipelines.read import subject
from arandu_pipelines.read.subject import speaker_weights

T0 = datetime(2025, 6, 1, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(("query", "speakers", "expected"), [
    ("What did Jon say about Gina's progress with her store?", ["Gina", "Jon"], {"Jon": 1.0, "Gina": 0.0}),
    ("What does Melanie think about Caroline's decision?", ["Caroline", "Melanie"],
     {"Melanie": 1.0, "Caroline": 0.0}),
    ("How do Jon and Gina both like to destress?", ["Gina", "Jon"], {"Jon": 1.0, "Gina": 1.0}),
    ("Did jon, gina or both go?", ["Gina", "Jon"], {"Jon": 1.0, "Gina": 1.0}),
    ("What did Jon & Gina tell Priya Sharma about it?", ["Gina", "Jon", "Priya Sharma"],
     {"Jon": 1.0, "Gina": 1.0, "Priya Sharma": 0.0}),
    ("What do Melanie's kids like?", ["Melanie"], {"Melanie": 1.0}),
    # located through read/name_match.py (a nickname, a misspelling); one not located keeps the boost
    ("What did Kate tell Muhammad about the race?", ["Katherine", "Muhhamed"], {"Katherine": 1.0, "Muhhamed": 0.0}),
    ("What did Kate tell Bob about the race?", ["Katherine", "Muhhamed"], {"Katherine": 1.0, "Muhhamed": 1.0}),
    ("What did Jonathan say?", ["Jon", "Gina"], {"Jon": 1.0, "Gina": 1.0}),  # word boundaries
])
def test_the_first_named_speaker_is_the_subject(query: str, speakers: list[str],
                                               expected: dict[str, float]) -> None:
    assert speaker_weights(query, speakers) == expected


AGENT = "bakery-chat"
SESSIONS: list[list[tuple[str, str]]] = [
    [("Kate", "I finally opened my bakery downtown! My bakery smells of cinnamon all day"),
     ("Leo", "Wow, you picked the perfect spot. All that hard work is paying off!"),
     ("Kate", "thanks! the bakery opening was so busy, my bakery sold out")],
    [("Kate", "my bakery sold out of croissants again today"),
     ("Leo", "nice")],
    [("Leo", "went hiking with my dog on the ridge trail"),
     ("Kate", "fun! how far did you go?"),
     ("Leo", "about twelve kilometres, my legs are done")],
    [("Kate", "new oven for the bakery arrives on monday"),
     ("Leo", "can't wait to taste the bread")],
]


async def test_retrieve_ranks_the_subjects_reply_over_the_objects_own_turns(memory, monkeypatch) -> None:
    rows = [{"agent_id": AGENT, "session_id": f"s{s}", "speaker": who, "text": text,
             "message_id": f"s{s}:{t}", "occurred_at": (T0 + timedelta(days=3 * s, minutes=t)).isoformat()}
            for s, turns in enumerate(SESSIONS) for t, (who, text) in enumerate(turns)]
    await memory.import_messages(rows)

    async def ranked() -> list[str]:
        r = await memory.retrieve(AGENT, "What did Leo say about Kate's bakery?",
                                  config_overrides={"topk_events": 8})
        return [e.message_id for e in r.events]

    monkeypatch.setattr(subject, "OBJECT", 1.0)  # without the mechanism: both speakers boosted
    before = await ranked()
    monkeypatch.setattr(subject, "OBJECT", 0.0)
    after = await ranked()
    kate = [f"s{s}:{t}" for s, turns in enumerate(SESSIONS) for t, (who, _) in enumerate(turns) if who == "Kate"]
    assert any(before.index(k) < before.index("s0:1") for k in kate if k in before), before
    assert all(after.index("s0:1") < after.index(k) for k in kate if k in after), after
    assert await ranked() == after  # deterministic
