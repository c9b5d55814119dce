"""The read pipeline's one plan type: `RetrievalPlan` (the spec's name). Seed 003's `QueryPlan`
is an alias of the same class, not a second type.

A query gets one plan, built once: the heuristic planner (`planner.plan_retrieval`, pure) reads
the query (strategy, aggregation, broadness, time windows), the pipeline adds what only the
database knows (entities, the entity types present), and then *one* planner chooses the index
steps, the heuristic one (`registry.build_plan`) or, when configured, the LLM planner
(`planner_llm`); either proposal goes through the same validator (`planner_llm.validate_plan`)
before the executor runs it once. The fields come in three groups:

- the spec's (`strategy`, `entities`, `pattern_queries`, `similarity_query`, `max_facts`,
  `reason`, `latency_ms`, `as_of_range`, `broad_query`);
- the heuristic planner's reading of the query (time windows and anchors, temporal and present
  intent, aggregation prefixes), which the ranking and the formatting use;
- the executable plan of seed 003 (`query`, `analysis`, `steps`, `combination_strategy`,
  `expected_answer_type`, `max_results`) and which planner chose the steps (`planner`).

Fields are keyword-only: the two former classes took different positional orders, so a stale
positional call fails loudly instead of filling the wrong fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from arandu_pipelines.read.temporal import TimeAnchor, TimeWindow


@dataclass(frozen=True)
class PatternQuery:
    """A SQL LIKE pattern over entity keys, from an aggregation query."""

    entity_pattern: str
    attribute_filter: str | None = None


@dataclass
class PlanStep:
    """One step of a plan: an index of the registry, its parameters, its dependencies."""

    step_id: int
    index: str
    params: dict[str, Any]
    rationale: str
    depends_on: list[int] = field(default_factory=list)
    combine: str = "union"  # union | intersect | filter_by

    def to_dict(self) -> dict[str, Any]:
        return {"step_id": self.step_id, "index": self.index, "params": jsonable(self.params),
                "rationale": self.rationale, "depends_on": list(self.depends_on), "combine": self.combine}


@dataclass(kw_only=True)
class RetrievalPlan:
    # the spec's fields
    strategy: str = "multi_signal"  # multi_signal | skip
    entities: list[str] = field(default_factory=list)
    pattern_queries: list[PatternQuery] = field(default_factory=list)
    similarity_query: str | None = None
    max_facts: int = 50
    reason: str = "deterministic"
    latency_ms: float = 0.0
    as_of_range: tuple[datetime, datetime] | None = None
    broad_query: bool = False
    # the heuristic planner's reading of the query
    time_windows: list[TimeWindow] = field(default_factory=list)
    time_anchors: list[TimeAnchor] = field(default_factory=list)
    temporal_intent: bool = False
    present_intent: bool = False
    aggregation_prefixes: list[str] = field(default_factory=list)
    # the executable plan (seed 003)
    query: str = ""
    analysis: str = ""
    steps: list[PlanStep] = field(default_factory=list)
    combination_strategy: str = "weighted_union"  # rrf | weighted_union | sequential_filter
    expected_answer_type: str = "text"
    max_results: int = 20
    planner: str = "deterministic"  # who chose the steps: deterministic | llm | cache

    def executable(self) -> dict[str, object]:
        """The seed-003 form of the plan (what an LLM planner writes and the validator reads)."""
        return {"query": self.query, "analysis": self.analysis,
                "steps": [s.to_dict() for s in self.steps],
                "combination_strategy": self.combination_strategy,
                "expected_answer_type": self.expected_answer_type, "max_results": self.max_results}

    def to_dict(self) -> dict[str, object]:
        return {
            "strategy": self.strategy,
            "reason": self.reason,
            "entities": list(self.entities),
            "pattern_queries": [p.entity_pattern for p in self.pattern_queries],
            "broad_query": self.broad_query,
            "time_windows": [w.to_dict() for w in self.time_windows],
            "time_anchors": [a.phrase for a in self.time_anchors],
            "temporal_intent": self.temporal_intent,
            "present_intent": self.present_intent,
            "max_facts": self.max_facts,
            **self.executable(),
            "planner": self.planner,
        }


#: Seed 003's name for the same class.
QueryPlan = RetrievalPlan


def jsonable(v: Any) -> Any:
    """`v` as JSON-ready data (sets sorted, dates ISO, objects by their to_dict)."""
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        items = [jsonable(x) for x in v]
        return sorted(items, key=str) if isinstance(v, (set, frozenset)) else items
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if hasattr(v, "to_dict"):
        return v.to_dict()
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return str(v)


__all__ = ["PatternQuery", "PlanStep", "QueryPlan", "RetrievalPlan", "jsonable"]
