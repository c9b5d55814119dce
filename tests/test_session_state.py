"""The per-session state the write trackers share (write/session_state.py): bounded, least
recently used dropped first, trimmed only once a chunk is read."""

from __future__ import annotations

from dataclasses import dataclass

from arandu_pipelines.write.addressee import AddresseeTracker
from arandu_pipelines.write.antecedents import PreviousTurnTracker
from arandu_pipelines.write.session_state import SessionLRU


@dataclass
class Ev:
    agent_id: str
    session_id: str
    speaker: str
    text: str = "hi"


def test_the_least_recently_used_session_is_dropped_on_trim() -> None:
    lru: SessionLRU[list[int]] = SessionLRU(list, limit=2)
    lru.set(("a", "s1"), [1])
    lru.set(("a", "s2"), [2])
    lru.set(("a", "s1"), [1, 1])  # s1 used again: s2 is now the oldest
    lru.set(("a", "s3"), [3])
    assert len(lru) == 3  # not trimmed while a chunk is being read
    lru.trim()
    assert len(lru) == 2
    assert lru.get(("a", "s2")) == []  # dropped: empty again
    assert lru.get(("a", "s1")) == [1, 1] and lru.get(("a", "s3")) == [3]


def test_both_trackers_forget_the_oldest_session_beyond_the_bound(monkeypatch) -> None:
    monkeypatch.setattr(SessionLRU.__init__, "__defaults__", (1,))
    you, turns = AddresseeTracker(), PreviousTurnTracker()
    first = [Ev("a", "s1", "Kate"), Ev("a", "s1", "Leo")]
    you.assign(first)
    turns.assign(first)
    other = [Ev("a", "s2", "Ann")]
    you.assign(other)
    turns.assign(other)
    # s2, the most recent, is remembered
    assert you.assign([Ev("a", "s2", "Bob")]) == ["Ann"]
    assert turns.assign([Ev("a", "s2", "Bob")]) == [[("Ann", "hi")]]
    # s1 was dropped: its next turn knows no earlier speaker nor turn
    again = [Ev("a", "s1", "Kate")]
    assert you.assign(again) == [None]
    assert turns.assign(again) == [[]]
