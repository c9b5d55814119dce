"""Citations (`read/pipeline._sources`): messages cited by facts compete with the message ranking
on its own scale. Before, every citing fact added a flat +0.05 to its message whatever the
fact's strength, so a message backing a weak fact overtook a turn the message ranking had put
above it (9 dev misses traced this way with bench/rank_misses.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arandu_pipelines.read.pipeline import _sources
from arandu_pipelines.read.types import ScoredEvent, ScoredFact

T0 = datetime(2025, 3, 1, 18, 0, tzinfo=UTC)


def _event(n: int, score: float) -> ScoredEvent:
    return ScoredEvent(f"e{n}", f"m{n}", {}, "s1", "Kate", f"message {n}", T0 + timedelta(minutes=n), score)


def _fact(n: int, score: float, cites: int) -> ScoredFact:
    return ScoredFact(f"f{n}", "kate", "Kate", None, f"fact {n}", score, source_event_id=f"e{cites}",
                      source_message_id=f"m{cites}")


def _row(cites: int) -> tuple[None, str, str, datetime, str]:
    return (None, "s1", "Kate", T0 + timedelta(minutes=cites), f"message {cites}")


def test_a_weak_fact_does_not_push_its_source_above_a_better_ranked_turn() -> None:
    """m1 is the message ranking's best turn; m2 ranks just below it and backs a fact five times
    weaker than the best fact. Before: m2 0.38 + 0.05 = 0.43 > m1 0.40, m2 cited first."""
    events = [_event(1, 0.40), _event(2, 0.38), _event(3, 0.30)]
    facts = [_fact(1, 0.90, cites=3), _fact(2, 0.18, cites=2)]
    refs = _sources(facts, events, {})
    order = [r.message_id for r in refs]
    assert order.index("m1") < order.index("m2"), order
    weak = next(r for r in refs if r.message_id == "m2")
    assert weak.score < 0.40 and weak.supports == ["event", "fact:f2"]


def test_a_strong_fact_lifts_its_source_by_the_support_bonus_only() -> None:
    """The best fact backs m3 (ranked last by the messages): it gains the full support bonus,
    enough to pass m2, not to jump over m1."""
    from arandu_pipelines.read.pipeline import SOURCE_SUPPORT_BONUS

    events = [_event(1, 0.60), _event(2, 0.35), _event(3, 0.33)]
    refs = _sources([_fact(1, 0.90, cites=3)], events, {})
    assert [r.message_id for r in refs] == ["m1", "m3", "m2"]
    assert refs[1].score == round(0.33 + SOURCE_SUPPORT_BONUS, 6)


def test_a_fact_only_source_enters_by_the_facts_relative_score() -> None:
    """A message the message ranking did not return enters at most just above its lowest returned
    message when its fact is the best one, and below it when the fact is weak."""
    events = [_event(1, 0.60), _event(2, 0.30)]
    facts = [_fact(1, 0.80, cites=7), _fact(2, 0.20, cites=8)]
    refs = _sources(facts, events, {"f1": _row(7), "f2": _row(8)})
    assert [r.message_id for r in refs] == ["m1", "m7", "m2", "m8"]
    assert refs[1].supports == ["fact:f1"]


def test_without_message_ranking_the_facts_order_the_citations() -> None:
    facts = [_fact(1, 0.40, cites=7), _fact(2, 0.80, cites=8)]
    refs = _sources(facts, [], {"f1": _row(7), "f2": _row(8)})
    assert [r.message_id for r in refs] == ["m8", "m7"]
    assert _sources(facts, [], {}) == []


def test_compressed_fact_scores_do_not_lift_a_weak_facts_source_over_a_better_turn() -> None:
    """Session 11 (dev "How does Jon feel about the opening night of his dance studio?"): the
    returned facts scored 0.50-0.55, so (fact / best)^3 gave even the weakest one ~0.75 of the
    support bonus and its source (message score 0.385) passed the evidence turn (0.422) the
    message ranking had put above it. Weighed by its place between the weakest and the best
    returned fact, the weakest fact adds nothing and the order of the message ranking stands."""
    events = [_event(1, 0.70), _event(2, 0.422), _event(3, 0.385)]
    facts = [_fact(1, 0.55, cites=1), _fact(2, 0.50, cites=3)]
    refs = _sources(facts, events, {})
    assert [r.message_id for r in refs] == ["m1", "m2", "m3"]
    assert refs[2].score == 0.385 and refs[2].supports == ["event", "fact:f2"]


def test_a_fact_in_the_middle_of_the_span_adds_part_of_the_bonus() -> None:
    """The support bonus grows with the fact's place in [weakest, best]: the best fact adds all of
    it, a fact halfway adds SOURCE_SUPPORT_BONUS x 0.5^SUPPORT_POWER."""
    from arandu_pipelines.read.pipeline import SOURCE_SUPPORT_BONUS, SUPPORT_POWER

    events = [_event(1, 0.50), _event(2, 0.40), _event(3, 0.30)]
    facts = [_fact(1, 0.60, cites=1), _fact(2, 0.50, cites=2), _fact(3, 0.40, cites=3)]
    refs = {r.message_id: r.score for r in _sources(facts, events, {})}
    assert refs["m1"] == round(0.50 + SOURCE_SUPPORT_BONUS, 6)
    assert refs["m2"] == round(0.40 + SOURCE_SUPPORT_BONUS * 0.5 ** SUPPORT_POWER, 6)
    assert refs["m3"] == 0.30
